"""Data for programs/kernels/add.asm, as the asc-devkit sample's scripts/gen_data.py makes it:
x, y = uniform(1, 10, [8, 2048]) in half, golden = x + y (numpy rounds the f16 sum once, as VADD.f16
does). Seeded here (the sample's draw is unseeded). Run: python programs/kernels/gen/add.py"""

import numpy as np
from common import save

rng = np.random.RandomState(0)
x = rng.uniform(1, 10, [8, 2048]).astype(np.float16)
y = rng.uniform(1, 10, [8, 2048]).astype(np.float16)
save("add", x=x, y=y, golden=(x + y).astype(np.float16))

"""Data for programs/kernels/broadcast.asm, as the asc-devkit sample
examples/01_simd_cpp_api/04_advanced_api/08_transpose/broadcast/scripts/gen_data.py makes it, for both
of its test cases (the sample's --testcase 0 and 1; the program launches the kernel once for each):
    testcase 0: x0 = uniform(-10, 10, (1, 48)) f32,  y0 = np.broadcast_to(x0, (96, 48))
    testcase 1: x1 = uniform(-10, 10, (96, 1)) f32,  y1 = np.broadcast_to(x1, (96, 96))
Nothing shrunk; one seeded generator draws x0 then x1 (the sample's draws are unseeded). The sample
has no verify script: broadcast.asc's CompareResult passes |a - b| <= 1e-5 or relative <= 1e-5; a
broadcast copies bits, so the program's EXPECT is exact.
Run: python programs/kernels/gen/broadcast.py"""

import numpy as np
from common import save

rng = np.random.RandomState(0)
x0 = rng.uniform(-10, 10, (1, 48)).astype(np.float32)
y0 = np.broadcast_to(x0, (96, 48)).astype(np.float32)
x1 = rng.uniform(-10, 10, (96, 1)).astype(np.float32)
y1 = np.broadcast_to(x1, (96, 96)).astype(np.float32)
save("broadcast", x0=x0, golden0=y0, x1=x1, golden1=y1)

"""Data for programs/kernels/reduce.asm, after the asc-devkit sample
examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/reduce/scripts/gen_data.py:
float32 input, golden = np.zeros(32) with golden[0] = np.sum(input_x) (the kernel's outLength = 32
output, its first element the sum). Here one such reduction per row of x[8, 1024], one row a core:
golden[r] = zeros(32), golden[r, 0] = np.sum(x[r]) in float32, as the sample computes it.
Shrunk / changed: the sample's tiling reads 4096 floats (its gen_data.py writes 2048); a row here is
1024 floats (4 KB, still the sample's ComputeKey 3 range (2 KB, 16 KB]) so that x stays under 64 KB.
The sample draws uniform(1, 1), all ones, which would make every row's sum the same and hide a core
reducing the wrong row; this draws uniform(1, 10) instead. Seeded (the sample's draw is unseeded).
The sample has no verify script: reduce.asc's CompareResult passes an element when
|a - b| <= 1e-4 or |a - b| / |b + 1e-4| <= 1e-4.
Run: python programs/kernels/gen/reduce.py"""

import numpy as np
from common import save

ROWS, LENGTH, OUT = 8, 1024, 32
rng = np.random.RandomState(0)
x = rng.uniform(1, 10, [ROWS, LENGTH]).astype(np.float32)
golden = np.zeros([ROWS, OUT]).astype(np.float32)
for r in range(ROWS):
    golden[r, 0] = np.sum(x[r])
save("reduce", x=x, golden=golden)

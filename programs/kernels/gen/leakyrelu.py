"""Data for programs/kernels/leakyrelu.asm, as the asc-devkit sample
examples/01_simd_cpp_api/00_introduction/03_fusion_operation/matmul_leakyrelu_basic_api/scripts/gen_data.py
makes it: x1 = randint(-10, 10, [512, 128]), x2 = randint(-10, 10, [128, 128]), both float16;
    golden = np.matmul(x1 in f32, x2 in f32).astype(float16)
    golden = np.where(golden >= 0, golden, golden * 0.001)
vcore has no cube unit, so the matmul part is done here: c = the f16 matmul (the sample's Fixpipe
writes the f32 L0C result to GM as half, F322F16) is the kernel's input, placed in GM where the
sample's cube cores would have written it; the kernel does only the vector epilogue (LeakyRelu in
place). The sample has no bias. golden * 0.001 multiplies half by the half 0.001, as LeakyRelu's
(half)0.001 does. Its verify_result.py compares with rtol=1e-6, atol=1e-9 (f16): exact here.
Not shrunk: M, K, N = 512, 128, 128 as in the sample; since a .npy must stay under 64 KB, the
[512, 128] half c (128 KB) and its golden are each saved as 4 row quarters of [128, 128]
(c0..c3, golden0..golden3), quarter k being the half tile of vector core k. x1 and x2 are not
saved (the kernel never reads them). Seeded with RandomState(0) (the sample's draw is unseeded).
Run: python programs/kernels/gen/leakyrelu.py"""

import numpy as np
from common import save

m, n, k = 512, 128, 128
rng = np.random.RandomState(0)
x1_gm = rng.randint(-10, 10, [m, k]).astype(np.float16)
x2_gm = rng.randint(-10, 10, [k, n]).astype(np.float16)
c = np.matmul(x1_gm.astype(np.float32), x2_gm.astype(np.float32)).astype(np.float16)
golden = np.where(c >= 0, c, c * 0.001)
assert golden.dtype == np.float16
quarters = {}
for q in range(4):
    quarters[f"c{q}"] = c[q * 128:(q + 1) * 128]
    quarters[f"golden{q}"] = golden[q * 128:(q + 1) * 128]
save("leakyrelu", **quarters)

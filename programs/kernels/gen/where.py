"""Data for programs/kernels/where.asm, as the asc-devkit sample
examples/01_simd_cpp_api/04_advanced_api/10_math/where/scripts/gen_data.py makes it (mode 0, tensor
and tensor, float32):
    src0 = uniform(10.0, 20.0) f32, src1 = uniform(0, 10.0) f32,
    condition = np.random.choice([True, False]) (bool, one byte each),
    golden = np.where(condition, src0, src1)  (elements past count would be 0; count == shape here)
The sample's shape is 32 on one core; the port runs 4 cores of shape = count = 1024 each, so the
arrays hold 4096 elements (the draws are the sample's, in its order, seeded with RandomState(0):
the sample's draw is unseeded). Its tiling array [shape, count, mode, is_dynamic] is the port's
tiling struct (per core). Run: python programs/kernels/gen/where.py"""

import numpy as np
from common import save

rng = np.random.RandomState(0)
cores, shape = 4, 1024
total = cores * shape
src0 = rng.uniform(10.0, 20.0, [total]).astype(np.float32)
src1 = rng.uniform(0, 10.0, [total]).astype(np.float32)
condition = rng.choice([True, False], size=total)
golden = np.where(condition, src0, src1).astype(np.float32)
save("where", src0=src0, src1=src1, condition=condition, golden=golden)

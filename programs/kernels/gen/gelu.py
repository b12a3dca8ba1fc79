"""Data for programs/kernels/gelu.asm, as the asc-devkit sample
examples/01_simd_cpp_api/00_introduction/04_reg_compute/gelu/scripts/gen_data.py makes it:
input_x = uniform(-10, 10, [256, 32]) float32 and the golden of its tanh-free (sigmoid) GELU form
    exponent = COEFF_LINEAR * x + COEFF_CUBIC * x**3   (COEFF_LINEAR = -1.595769, COEFF_CUBIC = -0.071405)
    golden   = x / (1 + exp(exponent))
in float32 numpy, exactly as the sample writes it. Its verify_result.py compares with
np.isclose(rtol=1e-4, atol=1e-5) and an error ratio of at most 1e-4 (0 of 8192 here).
Nothing is shrunk (the sample's own [256, 32], 32 KB); seeded with RandomState(0) (the sample's draw
is unseeded). Run: python programs/kernels/gen/gelu.py"""

import numpy as np
from common import save

TOTAL_M = 256
TOTAL_N = 32
COEFF_LINEAR = -1.595769
COEFF_CUBIC = -0.071405

rng = np.random.RandomState(0)
input_x = rng.uniform(-10, 10, [TOTAL_M, TOTAL_N]).astype(np.float32)
exponent = COEFF_LINEAR * input_x + COEFF_CUBIC * (input_x**3)
golden = input_x / (1 + np.exp(exponent))
save("gelu", x=input_x, golden=golden.astype(np.float32))

"""Data for programs/kernels/compare_select.asm, as the asc-devkit sample
examples/01_simd_cpp_api/03_basic_api/02_reg_vector_compute/compare/scripts/gen_data.py makes it:
x, y = uniform(-2, 2, [1, 256]) float32, scalar = 0.0, and its two goldens:
    scenario 1 (-scenarioNum 1, Compare GT x, y + Select):   golden = np.maximum(x, y)
    scenario 2 (-scenarioNum 2, Compares GT x, 0 + Select):  golden = y; golden[x > 0] = x[x > 0]
The sample builds one scenario per compile (SCENARIO_NUM); the port runs both, so both goldens are
written. Nothing is shrunk (the sample's own [1, 256]); seeded here with RandomState(0) (the
sample's draw is unseeded). No NaN can occur, so the select on GT equals np.maximum exactly.
Run: python programs/kernels/gen/compare_select.py"""

import numpy as np
from common import save

rng = np.random.RandomState(0)
total_length = 256
scalar = 0.0
x = rng.uniform(-2, 2, [1, total_length]).astype(np.float32)
y = rng.uniform(-2, 2, [1, total_length]).astype(np.float32)
golden1 = np.maximum(x, y)
golden2 = y.copy()
golden2[x > scalar] = x[x > scalar]
save("compare_select", x=x, y=y, golden=golden1.astype(np.float32), golden_scalar=golden2.astype(np.float32))

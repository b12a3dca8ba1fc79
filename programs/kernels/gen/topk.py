"""Data for programs/kernels/topk.asm, as the asc-devkit sample
examples/01_simd_cpp_api/04_advanced_api/05_sort/topk/scripts/gen_data.py makes it (float values,
int32 indices, the k smallest: the sample's ISLARGE = false):
    x1 = uniform(-60000, 60000, [OUTTER, INNER]) f32      ("srcGmValue")
    x2 = [1000] * INNER int32                             ("srcGmIndex"; unused: isInitIndex = false)
    finish = randint(0, 2, OUTTER) bool                   ("finishGm")
    golden1 = argsort(x1, axis=-1, kind="stable")[:, :K]  (indices), golden0 = the values there,
    both padded with zeros to (K + 7) // 8 * 8 columns, and golden1[i, :K] = N where finish[i].
Changed sizes: the sample has OUTTER = 2, INNER = N = 32, K = 1 on one core, for which TopK's
normal mode needs no merge at all (one Sort32 per row). The port runs 4 cores of the sample's
OUTTER = 2 rows (8 rows), with INNER = N = 128 (four Sort32 groups a row, merged by one MrgSort of
4 queues) and K = 5 (the padded widths stay 8, as for K = 1). Seeded with RandomState(0) (the
sample's draw is unseeded). Run: python programs/kernels/gen/topk.py"""

import numpy as np
from common import save

CORES, OUTTER, INNER, N, K = 4, 2, 128, 128, 5
ROWS = CORES * OUTTER
rng = np.random.RandomState(0)
x1 = rng.uniform(-60000, 60000, [ROWS, INNER]).astype(np.float32)
x2 = np.array([1000] * INNER).astype(np.int32)
finish = rng.randint(0, 2, ROWS).astype(bool)

indices = np.argsort(x1, axis=-1, kind="stable")
golden1 = indices[:, :K].astype(np.int32)
golden0 = np.take_along_axis(x1, golden1, axis=-1)
k_pad = (K + 7) // 8 * 8
golden0 = np.concatenate([golden0, np.zeros((ROWS, k_pad - K), np.float32)], axis=1).astype(np.float32)
golden1 = np.concatenate([golden1, np.zeros((ROWS, k_pad - K), np.int32)], axis=1).astype(np.int32)
golden1[finish, :K] = N
save("topk", x1=x1, x2=x2, finish=finish, golden_value=golden0, golden_index=golden1)

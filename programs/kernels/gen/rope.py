"""Data for programs/kernels/rope.asm: rotary position embedding, interleaved mode, float32, as the
public CANN operator ApplyRotaryPosEmb (hicann/ops-transformer, posembedding/apply_rotary_pos_emb;
the test script read from its mirror repo-mirror-test/ops-transformer) makes its kernel test data
(tests/ut/op_kernel/apply_rotary_pos_emb_data/gen_data.py, layout BSND, dtype float32):
    q   = uniform(-2, 2, [B, S, N, D])     k   = uniform(-3, 2, [B, S, Nk, D])
    cos = uniform(-3, 4, [B, S, 1, D])     sin = uniform(-4, 5, [B, S, 1, D])
with B = 1, S = 16, N = 4, Nk = 1, D = 128 (chosen here; the script takes them as arguments), and the
golden of interleaved mode (the operator's documented formula, rotary_mode "interleave"):
    out = x * cos + rotate_interleaved(x) * sin,   rotate_interleaved(x)[2i] = -x[2i+1],
                                                   rotate_interleaved(x)[2i+1] = x[2i]
in float32, each product and the sum rounded once, as the kernel's Mul, Mul, Add do.
Seeded here with RandomState(0) (the script's draw is unseeded). Run: python programs/kernels/gen/rope.py"""

import numpy as np
from common import save

B, S, N, NK, D = 1, 16, 4, 1, 128
rng = np.random.RandomState(0)
q = rng.uniform(-2, 2, [B, S, N, D]).astype(np.float32)
k = rng.uniform(-3, 2, [B, S, NK, D]).astype(np.float32)
cos = rng.uniform(-3, 4, [B, S, 1, D]).astype(np.float32)
sin = rng.uniform(-4, 5, [B, S, 1, D]).astype(np.float32)


def rotate_interleaved(x: np.ndarray) -> np.ndarray:
    out = np.empty_like(x)
    out[..., 0::2] = -x[..., 1::2]
    out[..., 1::2] = x[..., 0::2]
    return out


def rope(x: np.ndarray) -> np.ndarray:
    return (x * cos + rotate_interleaved(x) * sin).astype(np.float32)


save("rope", q=q, k=k, cos=cos, sin=sin, golden_q=rope(q), golden_k=rope(k))

"""Data for programs/kernels/dynamic_quant.asm: per-token symmetric dynamic quantization to int8, as
the public CANN operator DynamicQuant (hicann/ops-nn, quant/dynamic_quant) tests it:
    inputs (tests/st/arch35/ttk_aclnn_dynamic_quant_st.csv, its one case): x [16, 1024] float16 and
    smooth_scales [1024] float16, both uniform(-2, 2);
    golden (tests/assets/golden.py, dynamic_quant_golden -> _dynamic_quant_common, per token,
    symmetric, int8): input = f32(x) * f32(smooth); scale = max(|input|, axis=-1) * (f32(1) / 127);
    y = round(input / scale) as int8 (numpy's round: half to even); outputs y [16, 1024] int8 and
    scale [16] float32.
Nothing is shrunk; seeded here with RandomState(0) (the test framework's draw is its own).
Run: python programs/kernels/gen/dynamic_quant.py"""

import numpy as np
from common import save

rng = np.random.RandomState(0)
rows, row_len = 16, 1024
x = rng.uniform(-2, 2, [rows, row_len]).astype(np.float16)
smooth = rng.uniform(-2, 2, [row_len]).astype(np.float16)

scale_max = np.float32(127.0)
inv = np.float32(1.0) / scale_max
# The kernel multiplies by the f32 nearest 1/127, written as a decimal in the program.
assert np.float32(0.007874015748031496) == inv
input_mul = x.astype(np.float32) * smooth.astype(np.float32)
input_max = np.max(np.abs(input_mul), axis=-1, keepdims=True)
scale = input_max * inv
y = np.round(input_mul / scale, 0).astype(np.int8)
assert np.abs(np.round(input_mul / scale, 0)).max() <= 127
save("dynamic_quant", x=x, smooth=smooth, golden_y=y, golden_scale=scale.squeeze(-1).astype(np.float32))

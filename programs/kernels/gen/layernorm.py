"""Data for programs/kernels/layernorm.asm, as the asc-devkit sample
examples/01_simd_cpp_api/04_advanced_api/02_normalization/layernorm makes it (scripts/gen_data.py):
inputX = uniform(-100, 100, [2, 32, 16]), gamma, beta = uniform(-100, 100, [16]) f32, eps = 0.0001,
and its forward golden in numpy float32:
    mean = mean(x, 2);  variance = mean((x - mean) ** 2, 2)
    y = gamma * ((x - mean) * (1.0 / sqrt(variance + eps))) + beta
The sample's LayerNormGrad / LayerNormGradBeta part (dy, pd_x, pd_gamma, pd_beta) is not ported, so
dy is not made. Shapes unchanged; seeded with RandomState(0) here (the script seeds np.random with 42).
Compared as layernorm.asc's CompareResult does (wrong when both the absolute and the relative error
pass 1e-4). Run: python programs/kernels/gen/layernorm.py"""

import numpy as np
from common import save

B, S, H = 2, 32, 16
eps = 0.0001
dtype = np.float32
rng = np.random.RandomState(0)
input_x = rng.uniform(-100, 100, [B, S, H]).astype(dtype)
gamma = rng.uniform(-100, 100, [H]).astype(dtype)
beta = rng.uniform(-100, 100, [H]).astype(dtype)

reduce_axis = 2
mean = np.mean(input_x, axis=reduce_axis, keepdims=True)
variance = np.mean(np.power((input_x - mean), 2), axis=reduce_axis, keepdims=True)
x_minus_mean = input_x - mean
tmp2 = 1.0 / np.sqrt(variance + eps)
res_for_gamma = x_minus_mean * tmp2
y = gamma * res_for_gamma + beta
assert y.dtype == mean.dtype == variance.dtype == np.float32
save("layernorm", x=input_x, gamma=gamma, beta=beta, golden_y=y,
     golden_mean=mean.squeeze(-1), golden_var=variance.squeeze(-1))

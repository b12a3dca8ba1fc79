"""Data for programs/kernels/rmsnorm.asm, as the asc-devkit sample
examples/01_simd_cpp_api/04_advanced_api/02_normalization/rmsnorm makes it (scripts/gen_data.py):
x = uniform(-1, 1, [4, 8, 64]) f32, gamma = uniform(-1, 1, [64]) f32, epsilon = 5e-05, and the golden
its rms_norm in numpy float32:
    rms = sqrt(mean(square(x), -1, keepdims=True) + eps);  golden = x / rms * gamma
Nothing is shrunk; the draw is seeded here with RandomState(0) (the sample's is unseeded). The sample
compares with rmsnorm.asc's CompareResult (wrong when both the absolute and the relative error pass
1e-4). Run: python programs/kernels/gen/rmsnorm.py"""

import numpy as np
from common import save


def rms(x, epsilon=1e-8, axis=-1):
    def rms1(v, epsilon, axis=None):
        return np.sqrt(np.mean(np.square(v), axis, keepdims=True) + epsilon)

    return rms1(x, epsilon, axis)


def rms_norm(x, gamma, epsilon=1e-8, axis=-1):
    res = rms(x, epsilon)
    gamma = gamma.reshape(1, 1, gamma.shape[-1])
    return x / res * gamma


rng = np.random.RandomState(0)
dtype = np.float32
x = rng.uniform(-1, 1, [4, 8, 64]).astype(dtype)
gamma = rng.uniform(-1, 1, [64]).astype(dtype)
epsilon = np.float32(5e-05).astype(dtype)
golden = rms_norm(x, gamma, epsilon).astype(dtype)
save("rmsnorm", x=x, gamma=gamma, golden=golden)

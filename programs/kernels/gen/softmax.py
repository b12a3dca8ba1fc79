"""Data for programs/kernels/softmax.asm, as the asc-devkit sample
examples/01_simd_cpp_api/04_advanced_api/01_activation/softmax makes it (scripts/gen_data.py):
x = uniform(-1, 1, [32, 32]) f32; golden = softmax_py_float(x) (row max, x - max, exp, row sum,
divide, all in numpy float32) followed by the script's adjust_softmax_res (rows whose max equals
0xFF7FFFFF set to 0.0: none for this data). Nothing is shrunk; the draw is seeded here with
RandomState(0) (the sample's is unseeded). The sample compares y only (softmax.asc CompareResult:
an element is wrong when both its absolute and its relative error exceed 1e-4); the script's max and
sum, which the kernel also writes as [32, 8] (each row's value in one 8-float datablock), are saved
as golden_max and golden_sum. Run: python programs/kernels/gen/softmax.py"""

import numpy as np
from common import save


def softmax_py_float(x):
    orig_shape = x.shape
    x_max = np.max(x, axis=-1)
    x_max = np.reshape(x_max, [orig_shape[0], 1])
    x_sub = x - x_max
    x_exp = np.exp(x_sub)
    x_exp1 = np.reshape(x_exp, [orig_shape[0], orig_shape[1]])
    x_sum = np.sum(x_exp1, axis=-1)
    x_sum = np.reshape(x_sum, [orig_shape[0], 1])
    x_div = x_exp / x_sum
    out = np.reshape(x_div, [orig_shape[0], orig_shape[1]])
    return out, x_max, x_sum


def adjust_softmax_res(res, max_val, res_shape):
    target = 0xFF7FFFFF
    to = 0.0
    for i in range(res_shape[0]):
        if max_val[i][0] == target:
            for j in range(res_shape[1]):
                res[i][j] = to


rng = np.random.RandomState(0)
x = rng.uniform(-1, 1, (32, 32)).astype(np.float32)
y, x_max, x_sum = softmax_py_float(x)
adjust_softmax_res(y, x_max, y.shape)
assert y.dtype == np.float32 and x_sum.dtype == np.float32
save("softmax", x=x, golden=y,
     golden_max=np.repeat(x_max, 8, axis=1).astype(np.float32),
     golden_sum=np.repeat(x_sum, 8, axis=1).astype(np.float32))

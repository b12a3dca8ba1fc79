"""Data for programs/kernels/floor_mod.asm, as the asc-devkit sample
examples/05_simd_simt_hybrid/02_best_practices/simd_simt_high_performance/scripts/gen_data.py makes it:
    rng = np.random.default_rng(20260516)
    x = rng.integers(-100000, 100001, n, int32)        ("input_self")
    y = rng.integers(-127, 128, n, int32)              ("input_other"), then y[y == 0] = 7
    every 64th x = y * rng.integers(-2048, 2049) (exact multiples: remainder 0)
    golden: r = x - trunc(x / y) * y (magnitudes divided, sign by sign(x) == sign(y)), then
            z = r + y where r != 0 and (r < 0) != (y < 0), else r   (FloorMod: the sign of y)
The only change is the size: n = 8192 ([4, 2048], 4 cores of 2048) instead of 8192 * 8192, so
that the arrays stay small (32 KB each); the draws are the sample's, with its own seed.
Divisors are never 0, as in the sample (y[y == 0] = 7). The golden is checked against numpy.mod and
Python's % (the floored modulo), which it must equal for every int32 pair with y != 0.
Run: python programs/kernels/gen/floor_mod.py"""

import numpy as np
from common import save

INPUT_TOTAL_LENGTH = 4 * 2048


def floor_mod_golden(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The sample's golden formula, in int64 so that no step overflows."""
    x64, y64 = x.astype(np.int64), y.astype(np.int64)
    quotient = np.abs(x64) // np.abs(y64)
    quotient = np.where((x64 >= 0) == (y64 >= 0), quotient, -quotient)
    rem = x64 - quotient * y64
    signs_differ = (rem < 0) != (y64 < 0)
    return np.where(signs_differ & (rem != 0), rem + y64, rem).astype(np.int32)


rng = np.random.default_rng(20260516)
x = rng.integers(-100000, 100001, INPUT_TOTAL_LENGTH, dtype=np.int32)
y = rng.integers(-127, 128, INPUT_TOTAL_LENGTH, dtype=np.int32)
y[y == 0] = 7
divisible = np.arange(0, INPUT_TOTAL_LENGTH, 64)
multipliers = rng.integers(-2048, 2049, divisible.size, dtype=np.int32)
x[divisible] = y[divisible] * multipliers
golden = floor_mod_golden(x, y)

assert not (y == 0).any()
assert np.array_equal(golden, np.mod(x, y)), "the sample's golden is the floored modulo (numpy.mod)"
assert all(int(g) == int(a) % int(b) for g, a, b in zip(golden[:512], x[:512], y[:512], strict=True))
save("floor_mod", x=x.reshape(4, 2048), y=y.reshape(4, 2048), golden=golden.reshape(4, 2048))

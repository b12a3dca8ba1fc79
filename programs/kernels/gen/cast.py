"""Data for programs/kernels/cast.asm, as the asc-devkit sample
examples/01_simd_cpp_api/03_basic_api/01_memory_vector_compute/cast/scripts/gen_data.py makes it for
scenario 1 (half -> int32_t, gen_golden_data_simple): x = uniform(f16 min, f16 max, [512]) in half,
golden = ceil(clip(x, int32 min, int32 max)) as int32 (AscendC::RoundMode::CAST_CEIL); its
verify_result.py compares the int32 outputs with np.isclose(rtol=1e-6, atol=1e-9), exact for these
integers. Nothing shrunk (the sample's [1, 512]); seeded here (the sample's draw is unseeded).
Scenario 0 (half -> int4b_t) is not ported: vcore has no 4-bit type.
Run: python programs/kernels/gen/cast.py"""

import numpy as np
from common import save

rng = np.random.RandomState(0)
f16 = np.finfo(np.float16)
x = rng.uniform(f16.min, f16.max, [512]).astype(np.float16)
i32 = np.iinfo(np.int32)
with np.errstate(over="ignore"):  # numpy casts the int32 bounds to half (inf): the clip is a no-op
    golden = np.ceil(np.clip(x, i32.min, i32.max)).astype(np.int32)
save("cast", x=x, golden=golden)

"""Calibration against the measurements of SEMANTICS.md (docs/timing.md, "Calibration"): each within 10%.

The tensor figures by hand (a2.toml): VADD.f32 = 64 lanes / (64 * 0.5) = 2 cycles an iteration,
VEXP.f16 = 128 / (32 * 1.0) = 4, results tensor.startup = 1 later; the layout src0 0x0, src1 0x2080,
dst 0x4100 is conflict-free (docs/timing.md's worked example):
    VADD.f32 x1 = 2 + 1 = 3 (measured 3.09); x16 = 32 + 1 = 33 (32.0); VEXP.f16 x8 = 32 + 1 = 33 (about 31).
The 950 kernels are vector-function programs; their cycles come from the register model (latencies,
dual issue, function_startup) and are compared with the measured figure only.
"""

from __future__ import annotations

import numpy as np
import pytest
from timing_support import row, run


def within(got: float, measured: float, tol: float = 0.10) -> bool:
    return abs(got - measured) <= tol * measured


@pytest.mark.parametrize(("text", "by_hand", "measured"), [
    ("VADD.f32 [0x4100], [0x0], [0x2080], repeat=1", 3, 3.09),
    ("VADD.f32 [0x4100], [0x0], [0x2080], repeat=16", 33, 32.0),
    ("VEXP.f16 [0x4100], [0x0], repeat=8", 33, 31.0),
])
def test_a2_tensor_calibration(text, by_hand, measured):
    m, r, rep = run(text + "\nHALT\n", "a2")
    e = row(rep, text.split()[0])
    assert e["bank_conflict_cycles"] == 0
    assert e["cycles"] == by_hand
    assert within(e["cycles"], measured), (e["cycles"], measured)


KERNEL_A = """\
.ubfill 0x0, f32, 4096, 1.5
.ubfill 0x5000, f32, 4096, 2.0
    MOV S1, 0x0
    MOV S2, 0x5000
    MOV S3, 0xA000
    MOV S4, 0
    PSET.b32 P0, ALL
loop:
    VLD.f32 V0, [S1], post=64
    VLD.f32 V1, [S2], post=64
    VADD.f32 V2, V0, V1, P0
    VST.f32 [S3], V2, P0, post=64
    ADD S4, S4, 1
    BLT S4, 64, loop
    HALT
"""

KERNEL_B = """\
.ubfill 0x0, f32, 512, 3.25
    MOV S1, 0x0
    MOV S3, 0x4100
    MOV S4, 0
    PSET.b32 P0, ALL
loop:
    VLD.f32 V0, [S1], post=64
    VADDS.f32 V2, V0, 0.0, P0
    VST.f32 [S3], V2, P0, post=64
    ADD S4, S4, 1
    BLT S4, 8, loop
    HALT
"""

KERNEL_C = """\
    MOV S1, 0x0
    MOV S2, 0x400
    MOV S4, 0
    PSET.b32 P0, ALL
loop:
    VLD.u32 V0, [S1], post=64
    VGATHER.f32 V1, [S2], V0, P0
    VADDS.f32 V2, V1, 1.0, P0
    VSCATTER.f32 [S2], V2, V0, P0
    ADD S4, S4, 1
    BLT S4, 4, loop
    HALT
"""


def run_950(text, setup=None):
    from assembler import assemble
    from emulator import Machine

    m = Machine(assemble(text), "950")
    if setup is not None:
        setup(m)
    r = m.run()
    assert r.fault is None, r.fault
    return m, r


def test_kernel_A():
    m, r = run_950(KERNEL_A)
    # 64 passes of 256 B: 1.5 + 2 = 3.5 everywhere in dst 0xA000..0xE000
    assert np.all(m.read("ub", 0xA000, "f32", 64 * 64) == 3.5)
    assert within(r.total_cycles, 1420.6), r.total_cycles


def test_kernel_B():
    m, r = run_950(KERNEL_B)
    assert np.all(m.read("ub", 0x4100, "f32", 8 * 64) == 3.25)
    assert within(r.total_cycles, 443.1), r.total_cycles


def setup_c(m):
    m.write("ub", 0x0, np.arange(256, dtype=np.uint32))
    m.write("ub", 0x400, np.arange(256, dtype=np.float32) * 0.5)


def test_kernel_C_values():
    m, r = run_950(KERNEL_C, setup_c)
    # data[i] = i / 2 + 1 for the 256 indices 0..255
    assert np.array_equal(m.read("ub", 0x400, "f32", 256), np.arange(256, dtype=np.float32) * 0.5 + 1)


def test_kernel_C():
    # register.gather_latency is calibrated on this kernel (docs/timing.md); A and B do not use it.
    m, r = run_950(KERNEL_C, setup_c)
    assert within(r.total_cycles, 650.7), r.total_cycles

"""Fuzz tiling loops in steady state (issue 30, outcome 3; ``emulator.timing.replay``): random scalar
loops of DMA in and out, tensor instructions, flags, barriers, scalar arithmetic, LD and ST, a branch
that skips part of a pass now and then, a vector function now and then, addresses that step by one
stride or by several (each register its own), an outer loop around, faults (an address stepping out
of memory) and instruction limits. Half the bodies follow a tiling protocol of flags (so that their
run stays in program order and can reach a steady state); the rest are random (their races send the
run timed, where nothing is replayed). Each program runs with replay (``fast_loops=True``, the default)
and without: the report, UB, GM, S and the fault must be the same, byte for byte.
"""

from __future__ import annotations

import json

import fuzz_support as F
import numpy as np
from hypothesis import assume, given
from hypothesis import strategies as st

import vcore
from vcore import AsmError, ProgramError

PIPES = ("V", "MTE2", "MTE3", "S")
PROTOCOL = ("WAITFLAG V, MTE2, 0", "@in", "SETFLAG MTE2, V, 0", "WAITFLAG MTE2, V, 0", "WAITFLAG MTE3, V, 0",
            "@op", "SETFLAG V, MTE2, 0", "SETFLAG V, MTE3, 0", "WAITFLAG V, MTE3, 0", "@out", "SETFLAG MTE3, V, 0")


UB = {"const": ("0x0", "0x1000", "0x2000"), "reg": ("[S3]", "[S3 + 0x400]", "[S3 + 0x2000]"),
      "mixed": ("0x0", "0x1000", "0x2000", "[S3]", "[S3 + 0x400]")}


@st.composite
def piece(draw, kind: str | None = None, ub_mode: str = "mixed") -> list:
    kind = kind or draw(st.sampled_from(("in", "out", "op", "op", "scalar", "barrier", "flags", "ld", "st",
                                         "function", "skip")))
    ub = lambda: draw(st.sampled_from(UB[ub_mode]))  # noqa: E731
    ub_of = lambda a: a if a.startswith("[") else f"[{a}]"  # noqa: E731
    length = draw(st.sampled_from((1, 2, 8, 8)))
    extra = draw(st.sampled_from(("", "", "", ", blocks=2, srcgap=1", ", blocks=3, dstgap=2")))
    if kind == "in":
        return [f"DMA.GM2UB {ub_of(ub())}, gm[S1{draw(st.sampled_from(('', ' + 0x200')))}], len={length}{extra}"]
    if kind == "out":
        return [f"DMA.UB2GM gm[S2{draw(st.sampled_from(('', ' + 0x100')))}], {ub_of(ub())}, len={length}{extra}"]
    if kind == "op":
        repeat = draw(st.sampled_from((1, 2, 4)))
        return [draw(st.sampled_from((
            f"VADD.f32 {ub_of(ub())}, {ub_of(ub())}, {ub_of(ub())}, repeat={repeat}",
            f"VADDS.f32 {ub_of(ub())}, {ub_of(ub())}, 1.0, repeat={repeat}",
            f"VMUL.f16 {ub_of(ub())}, {ub_of(ub())}, {ub_of(ub())}, repeat={repeat}",
            f"VEXP.f32 {ub_of(ub())}, {ub_of(ub())}, repeat={repeat}")))]
    if kind == "scalar":
        return [draw(st.sampled_from(("ADD S5, S5, 3", "MUL S6, S5, 2", "NOP")))]
    if kind == "barrier":
        return [f"BARRIER {draw(st.sampled_from(('ALL', 'V', 'MTE2', 'MTE3')))}"]
    if kind == "flags":
        src, dst = draw(st.sampled_from(PIPES)), draw(st.sampled_from(PIPES))
        return [f"SETFLAG {src}, {dst}, 3", f"WAITFLAG {src}, {dst}, 3"]
    if kind == "ld":
        return ["LD.s32 S7, [0x3000]"]
    if kind == "st":
        return ["ST.s32 [0x3000], S5"]
    if kind == "function":
        return ["VF.BEGIN", "PSET.b32 P0, ALL", "MOV S8, 0x4000", "VLD.f32 V0, [S8]", "VADD.f32 V1, V0, V0, P0",
                "VST.f32 [S8], V1, P0", "VF.END"]
    return [f"BEQ S20, {draw(st.integers(0, 40))}, @skip"]  # skip: jumps over the next piece


@st.composite
def tiling_programs(draw) -> tuple[str, str, int | None]:
    profile = draw(st.sampled_from(("950", "a2")))
    passes = draw(st.sampled_from((3, 14, 25, 40, 40, 70)))
    step = draw(st.sampled_from((256, 256, 512, 32, 0, -256)))
    steps = [step] * 3 if draw(st.integers(0, 3)) else [draw(st.sampled_from((0, 256, 512, 1024))) for _ in range(3)]
    gm_base = draw(st.sampled_from((0x40000, 0x40000, 0x40000, 0x2000, 0xF00000)))
    body: list = []
    ub_mode = draw(st.sampled_from(("const", "const", "reg", "mixed")))  # (the UB side of a pass moves as one, or not)
    if draw(st.integers(0, 3)):
        for entry in PROTOCOL:
            if entry.startswith("@"):
                body += draw(piece(entry[1:], ub_mode))
                if draw(st.integers(0, 3)) == 0:
                    body += draw(piece(draw(st.sampled_from(("scalar", "barrier", "op", "skip"))), ub_mode))
            else:
                body.append(entry)
        protocol = True
    else:
        for _ in range(draw(st.integers(1, 6))):
            body += draw(piece(None, ub_mode))
        protocol = False
    lines = [f"    MOV S1, {hex(gm_base)}", f"    MOV S2, {hex(gm_base + 0x80000)}", "    MOV S3, 0x8000",
             "    MOV S5, 1"]
    outer = draw(st.sampled_from((0, 0, 0, 2, 3)))
    if protocol:
        lines += ["    SETFLAG V, MTE2, 0", "    SETFLAG MTE3, V, 0"]
    if outer:
        lines += ["    MOV S21, 0", "outer:"]
    lines += ["    MOV S20, 0", "top:"]
    skip = 0
    for entry in body:
        if "@skip" in entry:
            skip += 1
            lines.append("    " + entry.replace("@skip", f"skip{skip}"))
            continue
        lines.append(f"    {entry}")
        if skip and not lines[-2].strip().startswith("skip"):
            lines.append(f"skip{skip}:")
    for k in range(skip):  # a skip whose label no piece followed lands at the pass's end
        if f"skip{k + 1}:" not in lines:
            lines.append(f"skip{k + 1}:")
    lines += [f"    ADD S{r}, S{r}, {s}" for r, s in zip((1, 2, 3), steps, strict=True)]
    lines += ["    ADD S20, S20, 1", f"    BLT S20, {passes}, top"]
    if outer:
        lines += ["    ADD S21, S21, 1", f"    BLT S21, {outer}, outer"]
    if protocol:
        lines += ["    WAITFLAG V, MTE2, 0", "    WAITFLAG MTE3, V, 0"]
    lines.append("    HALT")
    limit = draw(st.sampled_from((None, None, None, 150, 600)))
    return "\n".join(lines) + "\n", profile, limit


def outcome(text: str, profile: str, limit: int | None, fast: bool, data: np.ndarray):
    m = vcore.load_text(text, profile=profile)
    m.write("ub", 0, data[: 1 << 16])
    m.write("gm", 0x40000, data)
    result = m.run(**({} if limit is None else {"max_instructions": limit}), fast_loops=fast)
    report = m.report().to_json()
    report.pop("fast_loop_instructions")
    report.pop("replayed_instructions")
    memory = m.read("ub", 0, "u8", 1 << 17).tobytes(), m.read("gm", 0, "u8", 1 << 21).tobytes()
    return (json.dumps(report, sort_keys=True), memory, list(m.s), str(result.fault)), m


@F.fuzz(80)
@given(tiling_programs(), st.integers(0, 2**32 - 1))
def test_fuzz_tiling_loops_replayed_run_as_pass_by_pass(program, data_seed):
    text, profile, limit = program
    try:
        vcore.load_text(text, profile=profile)
    except (AsmError, ProgramError):
        assume(False)
    F.tried("tiling replay")
    data = np.random.default_rng(data_seed).integers(0, 256, 1 << 18, dtype=np.uint8)
    slow, _ = outcome(text, profile, limit, False, data)
    fast, machine = outcome(text, profile, limit, True, data)
    F.went("replayed" if machine.replay.passes else ("timed" if machine.ran_timed else "pass by pass"))
    assert fast == slow, text

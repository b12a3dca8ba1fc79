"""The pytest plugin's CONTRACT 10 lines: ; DEFINE, ; LOAD, ; RUN and ; EXPECT ... ~= golden.npy with
rtol= and atol= (the failure names the worst element). One pytest run over a folder of programs
written here, each passing or failing as worked out by hand."""

from __future__ import annotations

import numpy as np
from cli_support import outcomes, plugin_run

LATENT = """\
    DMA.GM2UB [0x0], gm[0x0], len=8
    VF.BEGIN
    LOOP 300
        ADD S9, S9, 1
    ENDLOOP
    VF.END
    VADD.f32 [0x4100], [0x0], [0x0]
    HALT
; EXPECT S9 = 0
"""

PROGRAMS = {
    # -D constant: the .rept runs 5 times, so S1 = 15.
    "define.asm": ".equ N, 2\n.rept N\n    ADD S1, S1, 3\n.endr\n    HALT\n; DEFINE N=5\n; EXPECT S1 = 15\n",
    # x.npy (1, 2, 3, 4 as f32) loaded into GM, copied to UB, doubled: 2 4 6 8.
    "load.asm": """\
    DMA.GM2UB [0x0], gm[0x40], len=1
    SETFLAG MTE2, V, 0
    WAITFLAG MTE2, V, 0
    VADD.f32 [0x100], [0x0], [0x0], mask=4
    HALT
; LOAD gm:0x40 = x.npy
; EXPECT ub:0x100:f32:4 = 2 4 6 8
""",
    # golden.npy holds 2, 4, 6, 8.0001: within rtol 1e-4, not with rtol 0.
    "close_pass.asm": ".ub 0x0, f32, 1, 2, 3, 4\nVADD.f32 [0x100], [0x0], [0x0], mask=4\nHALT\n"
                      "; EXPECT ub:0x100:f32:4 ~= golden.npy rtol=1e-4 atol=0\n",
    "close_fail.asm": ".ub 0x0, f32, 1, 2, 3, 4\nVADD.f32 [0x100], [0x0], [0x0], mask=4\nHALT\n"
                      "; EXPECT ub:0x100:f32:4 ~= golden.npy atol=1e-6\n",
    # RUN --profile a2: register instructions are refused there, so this program fails.
    "run_a2.asm": "VF.BEGIN\n    PSET.b32 P0, ALL\nVF.END\nHALT\n; RUN --profile a2\n; EXPECT S1 = 0\n",
    "run_bad.asm": "HALT\n; RUN --cores 8 --fast\n; EXPECT S1 = 0\n",
    # RUN --cores: a kernel; EXPECT ub3: reads core 3's UB, S1 core 0's register.
    "run_cores.asm": "MOV S1, BLOCKIDX\nSHL S2, S1, 2\nST.u32 gm[S2], S1\nST.u32 [0x0], S1\nHALT\n"
                     "; RUN --cores 4 --jobs 2\n; EXPECT gm:0x0:u32:4 = 0 1 2 3\n; EXPECT ub3:0x0:u32:1 = 3\n"
                     "; EXPECT ub:0x0:u32:1 = 0\n; EXPECT S1 = 0\n",
    "run_cores_race.asm": "MOV S1, BLOCKIDX\nST.u32 gm[0x0], S1\nHALT\n; RUN --cores 2\n; EXPECT-RACE WAW\n"
                          "; EXPECT gm:0x0:u32:1 = 1\n",
    # A copy, then a function that keeps V busy long after it lands, then a VADD of the copy's bytes
    # with no flag: a latent RAW (docs/timing.md, "Races by order"). Declared, it passes; not, it fails.
    "latent_declared.asm": LATENT + "; EXPECT-RACE RAW\n",
    "latent_undeclared.asm": LATENT,
}


def test_define_load_run_and_close_expectations(tmp_path):
    for name, text in PROGRAMS.items():
        (tmp_path / name).write_text(text)
    np.save(tmp_path / "x.npy", np.array([1, 2, 3, 4], dtype=np.float32))
    np.save(tmp_path / "golden.npy", np.array([2, 4, 6, 8.0001]))
    out = plugin_run(tmp_path, "-q").stdout
    status = outcomes(out)
    assert status == {"define.asm": "PASSED", "load.asm": "PASSED", "close_pass.asm": "PASSED",
                      "close_fail.asm": "FAILED", "run_a2.asm": "FAILED", "run_bad.asm": "FAILED",
                      "run_cores.asm": "PASSED", "run_cores_race.asm": "PASSED",
                      "latent_declared.asm": "PASSED", "latent_undeclared.asm": "FAILED"}, out
    assert "races ['RAW'] (latent RAW line 1 / line 7), expected none" in out, out
    assert ("1 of 4 elements of ub:0x100:f32:4 differ from golden.npy (rtol=0.0, atol=1e-06); the worst, "
            "element 3: 8.0, expected 8.0001") in out, out
    assert "a2 profile has no vector functions" in out, out
    assert ("RUN takes --profile NAME, --strict, --max-instructions N, --cores N, --blocks B and --jobs J, not '--fast'"
            in out), out

"""What only the 950 has among the instructions every profile decodes: the integer divisions, the
saturating and the 950's own conversions, the bf16 TransDataTo5HD, the 8-bit GatherMask and the AR
register. A profile of another instruction set refuses a program that holds one before it runs
(``emulator.admission``), with the reason ``needs_950`` gives; the fuzzers ask the same question."""

from __future__ import annotations

from vcore.isa.conversions import ONLY_950


def needs_950(inst, profile: str, isa: str) -> str | None:
    """Why the profile ``profile``, whose instruction set ``isa`` is not the 950's, refuses ``inst``
    (the message, without its place), or None when it runs it."""
    row, t = inst.row, inst.type
    if row.op in ("div", "rem") and t is not None and not t.is_float:
        return f"{row.mnemonic}.{t.name} needs the 950 profile: the {profile} divides only f16 and f32"
    if row.op == "conv" and inst.kw("sat"):  # SatMode: the 950's alone
        return f"VCONV.{t.name}.{inst.source.name} sat needs the 950 profile ({profile} has no saturating conversion)"
    if row.family == "trans5hd" and t.name == "bf16":
        return f"VTRANS5HD.bf16 needs the 950 profile ({profile} has no bf16 TransDataTo5HD)"
    if row.family == "gathermask" and t.size == 1:
        return f"VGATHERM.{t.name} needs the 950 profile ({profile} has no 8-bit GatherMask)"
    if row.form == "scalar-mov-ar":
        return (f"MOV Sd, AR needs the 950 profile ({profile} has no AR register: it counts the bytes of the "
                f"950's register Squeeze)")
    if row.op == "conv" and (t.name, inst.source.name) in ONLY_950:
        return (f"VCONV.{t.name}.{inst.source.name} (from {inst.source.name} to {t.name}) exists on the 950 "
                f"only, and the {profile} profile's instruction set is {isa}: such conversions need the 950 "
                f"profile (--profile 950)")
    return None

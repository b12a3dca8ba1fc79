"""The table's self-check, run at import: a malformed table never reaches the rest of vcore."""

from __future__ import annotations

from vcore.isa.classes import CLASSES, SchedClass, class_problems
from vcore.isa.examples import statement
from vcore.isa.forms import FORMS
from vcore.isa.model import MASK_EXT_WORDS, WORD_BITS, Instruction, Kind
from vcore.isa.types import TYPES


class TableError(Exception):
    """The instruction table contradicts itself."""


def check_table(table: tuple[Instruction, ...], classes: dict[str, SchedClass] = CLASSES,
                forms_known: dict = FORMS) -> None:
    """Raise ``TableError`` naming the first row (or class) that contradicts the table's rules."""
    problems = [problem for cls in classes.values() for problem in class_problems(cls)]
    if problems:
        raise TableError(problems[0])
    opcodes: dict[int, Instruction] = {}
    forms: set[tuple[str, str]] = set()
    for row in table:
        where = f"{row.mnemonic} ({row.form})"
        if not 0 < row.opcode < 256:
            raise TableError(f"{where}: opcode 0x{row.opcode:x} outside 1..255")
        if row.opcode in opcodes:
            raise TableError(f"{where}: opcode 0x{row.opcode:02x} also used by {opcodes[row.opcode].mnemonic}")
        opcodes[row.opcode] = row
        if (row.mnemonic, row.form) in forms:
            raise TableError(f"{where}: two rows with one mnemonic and form")
        forms.add((row.mnemonic, row.form))
        owner: list[str | None] = [None] * (row.words * WORD_BITS)
        for f in row.fields:
            if f.width <= 0 or f.hi > len(owner):
                raise TableError(f"{where}: field {f.name} [{f.lo}:{f.hi}) outside its {row.words} words")
            for bit in range(f.lo, f.hi):
                if owner[bit] is not None:
                    raise TableError(f"{where}: bit {bit} owned by {owner[bit]} and {f.name}")
                owner[bit] = f.name
        if row.words > 3 or row.words + (MASK_EXT_WORDS if row.has_mask else 0) > 5:
            raise TableError(f"{where}: too long")
        names = [o.name for o in row.operands] + [k.name for k in row.keywords]
        if len(set(names)) != len(names):
            raise TableError(f"{where}: duplicate operand or field names")
        for t in row.types:
            if t not in TYPES:
                raise TableError(f"{where}: unknown type {t}")
        for kw in row.keywords:
            if kw.lo > kw.hi:
                raise TableError(f"{where}: field {kw.name} has an empty range")
            span = (-(1 << (kw.bits - 1)), (1 << (kw.bits - 1)) - 1) if kw.signed else (0, (1 << kw.bits) - 1)
            if kw.lo < span[0] or kw.hi > span[1]:
                raise TableError(f"{where}: field {kw.name} range {kw.lo}..{kw.hi} does not fit {kw.bits} bits")
            if kw.default is not None and not kw.lo <= kw.default <= kw.hi:
                raise TableError(f"{where}: default of {kw.name} outside its range")
            if kw.types and not set(kw.types) <= set(row.types):
                raise TableError(f"{where}: field {kw.name} names types the row lacks")
        _check_data(row, where, classes, forms_known)


def unit_of_operands(row: Instruction) -> str:
    """The unit a register row's operands call for inside a vector function: ``store`` when it writes UB
    (a UB operand first, as its destination), ``load`` when it reads UB, ``exec`` when it touches none."""
    kinds = [o.kind for o in row.operands]
    if kinds[:1] == [Kind.UB]:
        return "store"
    return "load" if Kind.UB in kinds else "exec"


def _check_data(row: Instruction, where: str, classes: dict[str, SchedClass], forms: dict) -> None:
    """What the rest of vcore reads off the row as data: its form, its class and the units that class
    holds, its rates and its example."""
    form = forms.get(row.form)
    if form is None:
        raise TableError(f"{where}: form {row.form!r} is not declared (isa.forms.FORMS names each form and the "
                         f"operand kinds of its rows)")
    kinds = tuple(o.kind for o in row.operands)
    if kinds not in form.shapes:
        raise TableError(f"{where}: operands ({', '.join(k.value for k in kinds)}) are not those of form "
                         f"{row.form!r}: " + " or ".join(f"({', '.join(k.value for k in s)})" for s in form.shapes))
    lacking = [name for name in form.keywords if row.keyword(name) is None]
    if lacking:
        raise TableError(f"{where}: form {row.form!r} reads {', '.join(f'{n}=' for n in lacking)} on every row "
                         f"(isa.forms.FORMS), and the row has no such field")
    cls = classes.get(row.timing)
    if cls is None:
        raise TableError(f"{where}: scheduling class {row.timing!r} is not declared (isa.classes.CLASSES names "
                         f"each class, its price and its units)")
    if row.register != (cls.schedule == "register") or row.structure != (cls.schedule == "function"):
        what = "a register instruction" if row.register else "vector-function structure" if row.structure else \
            "neither a register instruction nor vector-function structure"
        raise TableError(f"{where}: the row is {what}, and its class {cls.name!r} is scheduled as "
                         f"{cls.schedule}")
    if cls.family not in form.classes:
        raise TableError(f"{where}: its class {cls.name!r} is of family {cls.family}, and form {row.form!r} is "
                         f"timed by classes of family {' or '.join(form.classes)} (isa.forms.FORMS)")
    if row.pipe != cls.pipe:
        raise TableError(f"{where}: the row runs on pipe {row.pipe}, and its class {cls.name!r} on {cls.pipe}: a "
                         f"row's pipe is its class's (isa.classes)")
    if row.register and cls.unit != (want := unit_of_operands(row)):
        access = {"store": "writes UB", "load": "reads UB", "exec": "touches no UB"}[want]
        raise TableError(f"{where}: class {cls.name!r} issues on the {cls.unit} unit, and the row {access}: its "
                         f"class must issue on the {want} unit")
    if not {t for t, _ in row.type_rates} <= set(row.types):
        raise TableError(f"{where}: type_rates name types the row lacks")
    if not row.example.strip():
        raise TableError(f"{where}: no example (a complete use of the instruction: the docs show it and the "
                         f"tests run it)")
    if statement(row) is None:
        raise TableError(f"{where}: its example {row.example!r} has no {row.mnemonic} statement")

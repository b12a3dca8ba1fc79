"""The data directives ``.ub``/``.gm`` (a list of values) and ``.ubfill``/``.gmfill`` (COUNT copies of
one value), as the program's data records (``isa.program.DataRecord``).

``data_record`` checks a directive's operands (an address inside the 4 GiB space, an element type
that holds data, a count of 1..2^32-1, data that does not run past the space) and encodes each value
as its element type's bits (``Symbols.element_bits``), little endian.
"""

from __future__ import annotations

from vcore.assembler.diagnostics import LocatedError
from vcore.assembler.expressions import Symbols
from vcore.assembler.syntax import Directive, Name
from vcore.isa import TYPES
from vcore.isa.program import DataRecord

DATA_DIRECTIVES = {"ub": ("ub", "list"), "gm": ("gm", "list"), "ubfill": ("ub", "fill"), "gmfill": ("gm", "fill")}
U32_MAX = (1 << 32) - 1


def data_record(symbols: Symbols, directive: Directive) -> DataRecord:
    """The record a data directive stands for (a ``LocatedError`` at the first problem)."""
    space, kind = DATA_DIRECTIVES[directive.name]
    args = directive.args
    least = 4 if kind == "fill" else 3
    if len(args) < least:
        form = "ADDR, TYPE, COUNT, VALUE" if kind == "fill" else "ADDR, TYPE, v0, v1, ..."
        raise LocatedError(directive.end, f".{directive.name} needs {form}")
    if kind == "fill" and len(args) > 4:
        raise LocatedError(args[4].loc, f"unexpected operand: .{directive.name} takes 4")
    addr = symbols.eval_int(args[0])
    if not 0 <= addr <= U32_MAX:
        raise LocatedError(args[0].loc, f"address {addr} out of range 0..0x{U32_MAX:x}")
    type_node = args[1]
    etype = TYPES.get(type_node.name.lower()) if isinstance(type_node, Name) else None
    if etype is None or etype.kind == "mask":
        data_types = ", ".join(t.name for t in TYPES.values() if t.kind != "mask")
        raise LocatedError(type_node.loc, f"expected an element type ({data_types})")
    if kind == "fill":
        count = symbols.eval_int(args[2])
        if not 1 <= count <= U32_MAX:
            raise LocatedError(args[2].loc, f"count {count} out of range 1..{U32_MAX}")
        values = [args[3]]
    else:
        count = len(args) - 2
        values = args[2:]
    if addr + count * etype.size > U32_MAX + 1:
        raise LocatedError(args[0].loc, "data runs past the 4 GiB address space")
    payload = b"".join(symbols.element_bits(v, etype).to_bytes(etype.size, "little") for v in values)
    return DataRecord(space, kind, etype.name, addr, count, payload)

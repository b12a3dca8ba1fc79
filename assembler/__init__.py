"""Assembly text to programs and back: ``assemble``, ``disassemble``, ``listing``.

Errors are ``AsmError`` values carrying located ``Diagnostic``s (file, line, column).
"""

from vcore.assembler.assemble import assemble, parse_define
from vcore.assembler.diagnostics import AsmError, Diagnostic, Location
from vcore.assembler.disasm import disassemble, inst_text, listing

__all__ = ["AsmError", "Diagnostic", "Location", "assemble", "disassemble", "inst_text", "listing",
           "parse_define"]

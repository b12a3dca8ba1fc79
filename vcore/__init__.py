"""vcore's public face: load programs from text or ``.vbin`` and (with the emulator) run them."""

from vcore.loading import LoadError, load_program, read_program_file

__all__ = ["LoadError", "load_program", "read_program_file"]

"""Runtime faults: values that name what went wrong; the machine adds the pc and source line."""

from __future__ import annotations


class Fault(Exception):
    """A program fault (exit status 1). ``pc`` and ``where`` are filled in by the machine."""

    def __init__(self, message: str, kind: str = "fault") -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind  # fault, limit, deadlock, race, interrupt
        self.pc: int | None = None
        self.where: str = ""

    def __str__(self) -> str:
        return f"{self.where}: error: {self.message}" if self.where else self.message


class AtSyncAll(Exception):
    """A core of a multi-core kernel has reached a SYNCALL, every pipe drained, at cycle ``arrival``:
    its run pauses there until the kernel releases every core (``emulator.kernel.cores``)."""

    def __init__(self, arrival: int) -> None:
        super().__init__(arrival)
        self.arrival = arrival


class ProgramError(Exception):
    """A program that the chosen profile cannot run at all (exit status 2): refused before it starts.
    The message names the first instruction in the way and the profile that would run it."""


def hex_signed(value: int) -> str:
    return f"-0x{-value:x}" if value < 0 else f"0x{value:x}"


def check_range(space: str, size: int, start: int, end: int, what: str) -> None:
    """Fault unless bytes [start, end) lie inside a memory of ``size`` bytes."""
    if start < 0 or end > size:
        raise Fault(f"{what}: {space} bytes {hex_signed(start)}..{hex_signed(end)} outside {space} (size 0x{size:x})")


def check_aligned(addr: int, what: str, align: int = 32) -> None:
    if addr % align:
        raise Fault(f"{what}: UB address {hex_signed(addr)} is not {align}-byte aligned")

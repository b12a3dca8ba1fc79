"""Progress on a terminal, on one line of stderr that is redrawn, and only on a terminal (never in
pipes, files or CI logs): the one mechanism of vcore run, sweep and calibrate. A long run shows the
instructions retired (and how many of them in hardware loops run in closed form: each counted once
its loop is accounted for) and the simulated cycle, once it has lasted a second; a job of steps
shows the step it is on, as it starts it (``vcore calibrate``'s entries) or as one ends (``vcore
sweep``'s runs: "sweep: 3/8 runs done"). The line is erased when the job ends."""

from __future__ import annotations

import sys
import time


class Progress:
    """A ``Machine.run(progress=...)`` callback writing to ``stream`` (a terminal), or the line of a job
    of steps (``step``)."""

    def __init__(self, stream, delay: float = 1.0, every: float = 0.2) -> None:
        self.stream, self.delay, self.every = stream, delay, every
        self.started = time.monotonic()
        self.last = 0.0
        self.shown = False

    @classmethod
    def for_stderr(cls) -> Progress | None:
        """A Progress when stderr is a terminal; None in pipes, files and CI logs."""
        stream = sys.stderr
        return cls(stream) if hasattr(stream, "isatty") and stream.isatty() else None

    def __call__(self, machine) -> None:
        now = time.monotonic()
        if now - self.started < self.delay or now - self.last < self.every:
            return
        self.last = now
        self.shown = True
        fast = machine.fast_loop_instructions()  # (counted as their launch lays them out)
        closed = f" ({fast:,} in loops run in closed form)" if fast else ""
        self.stream.write(f"\r{machine.executed:,} instructions retired{closed}, cycle {machine.now:,} "
                          f"({now - self.started:.0f} s)\x1b[K")
        self.stream.flush()

    def step(self, text: str) -> None:
        """Show ``text`` (the step a longer job is on, like "entry 3 of 40: NAME") as the progress line, at
        once."""
        self.shown = True
        self.stream.write(f"\r{text}\x1b[K")
        self.stream.flush()

    def close(self) -> None:
        """Erase the progress line, so messages and reports start on a clean line (a later step or
        call draws it again)."""
        if self.shown:
            self.shown = False
            self.stream.write("\r\x1b[K")
            self.stream.flush()

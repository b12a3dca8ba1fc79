"""What a vector function's launch runs on: its own state (``FunctionContext``: S copied at the launch,
V and P zero, UB the scratch copy, or a paused run's copy of its own) and the machine's workspace that
the launches share (``Workspace``: the scratch UB and one register file, each made once).
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.jobs import Job
from vcore.emulator.state import State, register_file

_new_job = object.__new__


class FunctionContext(State):
    """A function's own state at one launch: a copy of S0..S31, V and P registers that start zero,
    and UB as the machine's scratch copy. Its ``submit`` collects jobs instead of scheduling them."""

    def __init__(self, m, items: list, preview: bool = False) -> None:  # not State.__init__: no UB of its own
        self.machine = m
        state = m.state
        self.s = list(state.s)
        if preview:  # a paused run's steps (``Stepper``): registers and a copy of UB of their own
            self.v, self.p, self.v_as, self.v_rows = register_file()
            self.ub, self.views = state.ub.copy(), {}
        else:
            # One register file serves every launch (their data moves one launch at a time), zeroed
            # when a launch starts to move data: its typed views are then made once per machine.
            self.v, self.p, self.v_as, self.v_rows = m.workspace.registers()
            self.v.fill(0)
            self.p.fill(False)
            self.ub, self.views = m.workspace.scratch(state.ub)
        self.spr = state.spr.copy()  # AR as VSQZ ..., ar and CLRAR leave it (``Function.perform`` sets it again)
        self.lane_masks = state.lane_masks  # keyed by a mask's bytes: the same in every state
        self.gm = state.gm
        self.items = items
        self.settler = None  # a launch laid out as its data moves: what a cnt= calls (``functions.driven``)

    def settle_count(self, pm: int, width: int) -> int:
        """The active lanes of ``Pm`` (lanes of ``width`` bytes) once the jobs made so far have moved
        their data (``VSQZ ..., cnt=Sn``, in a function laid out as its data moves)."""
        return self.settler(pm, width)

    def submit(self, job: Job) -> None:
        self.items.append(job)

    def submit_register(self, pc: int, perform, reads: dict, writes: dict, exact: dict | None = None) -> None:
        """A register instruction's job; ``exact``: its UB bytes where its blocks are not (``Job.exact``),
        for the function's order check (``emulator.functions.races``)."""
        job = _new_job(Job)
        job.pc, job.perform, job.footprint_reads, job.footprint_writes = pc, perform, reads, writes
        if exact is not None:
            job.exact = exact
        self.items.append(job)


class Workspace:
    """Owns what a machine's launched vector functions run on, each made once and only when first
    needed: a scratch copy of UB with its typed views, and a V and P register file with V's typed
    views (their data moves one launch at a time)."""

    def __init__(self) -> None:
        self._scratch: np.ndarray | None = None
        self._views: dict = {}  # the scratch UB's typed views (``State.views``)
        self._registers: tuple | None = None

    def registers(self) -> tuple:
        """``(v, p, v_as, v_rows)`` (``emulator.state.register_file``)."""
        if self._registers is None:
            self._registers = register_file()
        return self._registers

    def scratch(self, ub: np.ndarray) -> tuple:
        """The scratch copy of UB (shaped as ``ub``) and its typed views."""
        if self._scratch is None:
            self._scratch = np.zeros_like(ub)
        return self._scratch, self._views

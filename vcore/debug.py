"""``vcore debug``: an interactive stepping debugger over the same machine as ``vcore run``.

Commands, one a line (stdin or a terminal with readline history):

    step [N]          run N instructions (default 1)           s
    next              step; over a loop's back-branch or ENDLOOP, run until the loop is left;
                      over VF.BEGIN, run the whole vector function   n
    continue          run to a breakpoint, a watch, or the end  c
    break LINE|LABEL  stop before the instruction at a source line or label; alone: list   b
    delete [N]        remove breakpoint N (all without N)
    watch ub:ADDR:LEN[:TYPE]  stop after an instruction that changes those bytes (gm: likewise);
                      shows them old and new, and with TYPE (f16, s32, ...) their values too
    print S1 | V0.f16 | P0 | ub:ADDR:TYPE:COUNT   p
    cycles            where each pipe stands
    back              undo the last instruction
    where             the next instruction
    quit              q
    (floats print with the fewest digits that read back as the same value of their type:
    an f32 0.1 is 0.1; a watch without TYPE shows only bytes, as memory has no type)

The debugger lets each instruction's results land before it dispatches the next, so what ``print``
shows is what the instruction did; the cycle counts are exactly those of ``vcore run``. (A program
with a race can therefore read fresh data here where ``vcore run`` reads stale data and warns.)
``back`` replays the run from the start to one instruction before, so it is exact too.
``step`` goes into a vector function: its instructions one at a time, each loop iteration in turn
(the ``next:`` line says which), and ``print S1``, ``V0.f32`` or ``P0`` there show the function's
own registers; its UB accesses land in program order.

Floats print as ``vcore run --dump`` prints them (vcore/formatting.py).
"""

from __future__ import annotations

import contextlib
import os
import re
import sys
from pathlib import Path

import numpy as np

from vcore.emulator import Fault, Machine
from vcore.emulator.report import race_message
from vcore.formatting import format_line
from vcore.isa import TYPES, Kind
from vcore.isa.values import dtype_of
from vcore.specs import DATA_TYPES, SpecError, parse_dump

_HELP = __doc__.split("Commands, one a line (stdin or a terminal with readline history):\n\n")[1].split("\n\n")[0]
RUN_LIMIT = 1_000_000  # instructions one continue or next runs at most, so a loop that never ends returns
_WATCH = re.compile(r"^(ub|gm):(0x[0-9a-fA-F]+|\d+):(0x[0-9a-fA-F]+|\d+)(?::(\w+))?$", re.IGNORECASE)
_VREG = re.compile(r"^[Vv](\d+)(?:\.(\w+))?$")


class Debugger:
    """One debugging session: a machine, breakpoints, watches, and how to rebuild the machine."""

    def __init__(self, program, profile, gm_size: int, loads=(), out=None) -> None:
        self.program, self.profile, self.gm_size, self.loads = program, profile, gm_size, list(loads)
        self.out = out or sys.stdout
        self.m = self._fresh()
        self.breaks: dict[int, int] = {}  # number -> pc
        self.next_break = 1
        self.watches: list[list] = []  # [space, addr, length, bytes now, type name or None]
        self.lines = sorted({(src.line, pc) for pc, src in (program.source or {}).items()})
        self.told: set = set()  # the races said so far: (kind, first pc, second pc)

    # -- the machine -------------------------------------------------------------------------------
    def _fresh(self) -> Machine:
        m = Machine(self.program, self.profile, self.gm_size)
        for space, addr, data in self.loads:
            m.write(space, addr, data)
        return m

    @property
    def ended(self) -> bool:
        r = self.m.result
        return r is not None and not r.paused

    def _step_one(self) -> None:
        m = self.m
        m.run(pause_after=m.executed + 1)
        if m.result.paused or m.result.fault is None:
            m.settle()

    def _run(self, limit: int | None, stop_at: set[int]) -> str | None:
        """Run up to ``limit`` instructions (None: no limit), stopping at the pcs of ``stop_at``
        and at watches; returns why it stopped early, or None."""
        done = 0
        if limit is None:
            limit, unbounded = RUN_LIMIT, True
        else:
            unbounded = False
        while not self.ended and done < limit:
            self._step_one()
            done += 1
            changed = self._changed_watches()
            if changed:
                return changed
            if not self.ended and self.m.pc in stop_at and (unbounded or done < limit):
                number = next((n for n, pc in self.breaks.items() if pc == self.m.pc), None)
                return f"breakpoint {number}" if number is not None else None
        if unbounded and not self.ended:
            return f"still running after {RUN_LIMIT:,} instructions: continue goes on"
        return None

    def _state(self):
        """What ``print`` and watches show: inside a function, its own S, V, P and view of UB (its
        stores so far; they land in the machine's UB when its V job ends); else the machine's."""
        return self.m.function_state() or self.m

    def _changed_watches(self) -> str | None:
        notes = []
        for watch in self.watches:
            space, addr, length, before, type_name = watch
            now = self._state().memory(space)[addr:addr + length].copy()
            if not np.array_equal(now, before):
                lines = [f"watch {_watch_name(space, addr, length, type_name)} changed"]
                for label, data in (("old", before), ("new", now)):
                    lines.append(f"  {label}: {data.tobytes().hex(' ')}")
                    if type_name is not None:
                        lines.append(f"       {type_name}: {format_line(data, type_name)}")
                notes.append("\n".join(lines))
                watch[3] = now
        return "\n".join(notes) or None

    # -- output ------------------------------------------------------------------------------------
    def say(self, text: str) -> None:
        self.out.write(text + "\n")

    def where(self) -> str:
        m = self.m
        if self.ended:
            r = m.result
            if r.fault is not None:
                return f"stopped by a fault after {r.instructions} instructions: {r.fault}"
            return f"the program has ended: {r.instructions} instructions, {r.total_cycles} cycles"
        if not m.is_instruction_start(m.pc):
            return f"next: pc 0x{m.pc:04x}"
        loops = m.stepper.loops() if m.stepper is not None else ()
        where = "".join(f", iteration {i} of {n}" for i, n in loops)
        return f"next: {m.describe(m.pc)}" + (f" (in a vector function{where})" if m.stepper is not None else "")

    # -- commands ----------------------------------------------------------------------------------
    def command(self, line: str) -> bool:
        """Do one command; False to quit."""
        words = line.split()
        if not words:
            return True
        name, args = words[0].lower(), words[1:]
        handler = {"step": self.do_step, "s": self.do_step, "next": self.do_next, "n": self.do_next,
                   "continue": self.do_continue, "c": self.do_continue, "break": self.do_break, "b": self.do_break,
                   "delete": self.do_delete, "watch": self.do_watch, "print": self.do_print, "p": self.do_print,
                   "cycles": self.do_cycles, "back": self.do_back, "where": self.do_where,
                   "help": self.do_help, "h": self.do_help}.get(name)
        if name in ("quit", "q", "exit"):
            return False
        if handler is None:
            self.say(f"error: unknown command '{words[0]}' (help lists them)")
            return True
        try:
            handler(args)
        except DebugError as err:
            self.say(f"error: {err}")
        return True

    def do_help(self, args) -> None:
        self.say(_HELP)

    def do_where(self, args) -> None:
        self.say(self.where())

    def _go(self, limit: int | None, stop_at: set[int]) -> None:
        """Run (see ``_run``), then say why it stopped and what comes next."""
        if self.ended:
            raise DebugError("the program has ended (back steps backwards)")
        why = self._run(limit, stop_at | set(self.breaks.values()))
        if why:
            self.say(why)
        self._new_races()
        self.say(self.where())

    def _new_races(self) -> None:
        """Say each race found since the last stop (met in time or latent: by order), once."""
        for race in self.m.races():
            key = (race.kind, race.first["pc"], race.second["pc"])
            if key not in self.told:
                self.told.add(key)
                self.say(race_message(race))

    def do_step(self, args) -> None:
        self._go(_count(args), set())

    def do_next(self, args) -> None:
        m = self.m
        inst = m.instruction_at(m.pc)
        family = inst.row.family if inst is not None else None
        jumps = inst is not None and inst.row.operands[-1:] and inst.row.operands[-1].kind is Kind.TARGET
        if not self.ended and jumps and inst.operands[-1] <= m.pc:  # a branch or jump to its label
            self._go(None, {m.pc + inst.size})  # a back-branch: run until the loop falls through it
        elif not self.ended and family == "endloop":
            self._go(None, {m.pc + inst.size})  # a hardware loop's end: run until the loop is left
        elif not self.ended and family == "vf_begin":
            self._go(None, {m.functions[m.pc].after})  # a vector function: run it whole
        else:
            self._go(1, set())

    def do_continue(self, args) -> None:
        self._go(None, set())

    def do_break(self, args) -> None:
        if not args:
            if not self.breaks:
                self.say("no breakpoints")
            for number, pc in self.breaks.items():
                self.say(f"breakpoint {number}: {self.m.describe(pc)}")
            return
        pc = self._resolve(args[0])
        number = self.next_break
        self.next_break += 1
        self.breaks[number] = pc
        self.say(f"breakpoint {number}: {self.m.describe(pc)}")

    def _resolve(self, target: str) -> int:
        labels = self.program.labels or {}
        if target in labels:
            return labels[target]
        if target.isdigit():
            line = int(target)
            for src_line, pc in self.lines:
                if src_line >= line:
                    return pc
            raise DebugError(f"no instruction at or after line {line}")
        if target.lower().startswith("0x"):
            pc = int(target, 16)
            if self.m.is_instruction_start(pc):
                return pc
            raise DebugError(f"no instruction starts at pc {target}")
        raise DebugError(f"'{target}' is neither a line number nor a label ({', '.join(labels) or 'no labels'})")

    def do_delete(self, args) -> None:
        if not args:
            self.breaks.clear()
            self.say("deleted all breakpoints")
            return
        number = _count(args)
        if self.breaks.pop(number, None) is None:
            raise DebugError(f"no breakpoint {number}")
        self.say(f"deleted breakpoint {number}")

    def do_watch(self, args) -> None:
        match = _WATCH.match(args[0]) if len(args) == 1 else None
        if match is None:
            raise DebugError("watch takes ub:ADDR:LEN[:TYPE] or gm:ADDR:LEN[:TYPE]")
        space, addr, length = match[1].lower(), int(match[2], 0), int(match[3], 0)
        type_name = match[4].lower() if match[4] else None
        if type_name is not None and type_name not in DATA_TYPES:
            raise DebugError(f"unknown element type '{match[4]}' (types: {', '.join(DATA_TYPES)})")
        memory = self._state().memory(space)
        if length < 1 or addr + length > memory.size:
            raise DebugError(f"{space}:0x{addr:x}:{length} is outside {space.upper()} (size 0x{memory.size:x})")
        if type_name is not None and length % TYPES[type_name].size:
            raise DebugError(f"LEN {length} is not a whole number of {type_name} elements "
                             f"({TYPES[type_name].size} bytes each)")
        self.watches.append([space, addr, length, memory[addr:addr + length].copy(), type_name])
        self.say(f"watching {_watch_name(space, addr, length, type_name)}")

    def do_print(self, args) -> None:
        if len(args) != 1:
            raise DebugError("print takes S1, V0.f16, P0 or ub:ADDR:TYPE:COUNT")
        what, registers = args[0], self._state()
        if re.fullmatch(r"[Ss]\d+", what):
            index = int(what[1:])
            if index >= len(registers.s):
                raise DebugError(f"no scalar register {what} (S0..S{len(registers.s) - 1})")
            self.say(f"S{index} = {registers.s[index]}")
            return
        vreg = _VREG.match(what)
        if vreg:
            index, type_name = int(vreg[1]), (vreg[2] or "u8").lower()
            if index >= registers.v.shape[0]:
                raise DebugError(f"no vector register V{index} (V0..V{registers.v.shape[0] - 1})")
            etype = TYPES.get(type_name)
            if etype is None or etype.kind == "mask":
                raise DebugError(f"unknown element type '{type_name}'")
            self.say(f"V{index}.{type_name} = {format_line(registers.v[index].view(dtype_of(etype)), type_name)}")
            return
        if re.fullmatch(r"[Pp]\d+", what):
            index = int(what[1:])
            if index >= registers.p.shape[0]:
                raise DebugError(f"no mask register {what} (P0..P{registers.p.shape[0] - 1})")
            entries = registers.p[index]
            self.say(f"P{index} = {_ranges(np.flatnonzero(entries))} ({int(entries.sum())} of {entries.size} "
                     f"entries set)")
            return
        try:
            spec = parse_dump(what)
            values = registers.read(spec.space, spec.addr, spec.type, spec.count)
        except (SpecError, Fault) as err:
            raise DebugError(str(err)) from None
        self.say(f"{spec.key} = {format_line(values, spec.type)}")

    def do_cycles(self, args) -> None:
        m = self.m
        self.say(f"S     at cycle {m.now} (the next dispatch), {m.executed} instructions run")
        for pipe, status in m.pipe_status().items():
            state = f"free from cycle {status.free_from}, last result at cycle {status.last_result}"
            if status.queued:
                state += f", {status.queued} waiting"
            self.say(f"{pipe:<5} {state}")

    def do_back(self, args) -> None:
        target = self.m.executed - 1
        if target < 0:
            raise DebugError("at the start: nothing to undo")
        self.m = self._fresh()
        while self.m.executed < target and not self.ended:
            self._step_one()
        for watch in self.watches:  # compared from here on
            space, addr, length = watch[:3]
            watch[3] = self.m.memory(space)[addr:addr + length].copy()
        self.say(self.where())


class DebugError(Exception):
    """A command that cannot be done; the session goes on."""


def _count(args) -> int:
    if not args:
        return 1
    try:
        value = int(args[0], 0)
    except ValueError:
        raise DebugError(f"'{args[0]}' is not a count") from None
    if value < 1:
        raise DebugError("the count must be at least 1")
    return value


def _watch_name(space: str, addr: int, length: int, type_name: str | None) -> str:
    return f"{space}:0x{addr:x}:{length}" + (f":{type_name}" if type_name else "")


def _ranges(indices) -> str:
    if not len(indices):
        return "none"
    out, start, prev = [], int(indices[0]), int(indices[0])
    for i in map(int, indices[1:]):
        if i != prev + 1:
            out.append(f"{start}" if start == prev else f"{start}..{prev}")
            start = i
        prev = i
    out.append(f"{start}" if start == prev else f"{start}..{prev}")
    return "entries " + ", ".join(out)


def session(debugger: Debugger, stdin=None) -> None:
    """Read commands until quit or end of input; a terminal gets a prompt and readline history."""
    stdin = stdin or sys.stdin
    interactive = stdin.isatty()
    history = Path(os.path.expanduser("~/.vcore_debug_history"))
    if interactive:
        try:
            import readline  # noqa: PLC0415 (only a terminal needs it)

            if history.exists():
                readline.read_history_file(history)
        except (ImportError, OSError):
            readline = None
    debugger.say(debugger.where())
    try:
        while True:
            try:
                line = input("(vcore) ") if interactive else stdin.readline()
            except EOFError:
                break
            if not interactive and not line:
                break
            if not debugger.command(line):
                break
    except KeyboardInterrupt:
        debugger.say("")
    finally:
        if interactive and readline is not None:
            with contextlib.suppress(OSError):
                readline.write_history_file(history)

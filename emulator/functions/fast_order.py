"""A hardware loop in closed form in a launch whose UB accesses meet somewhere (``ordered_loop``): the
launch's order check (``emulator.functions.races.InnerOrder``) follows its accesses pass by pass, and
this notes all the loop's passes but the last at once, with their data moved in closed form, where
that gives what pass by pass gives: the loop's own accesses meet nothing (its footprints, every pass),
and nothing the launch has noted or still holds this epoch touches a block the loop does. Each
pass's loads count the bytes of the lanes its own instructions use, its masked stores those their
active lanes write, as ``InnerOrder`` counts them, from the masks each instruction read (a loop in
closed form loads and stores whole registers at 32-byte aligned addresses: lane bytes are UB bytes). The last
pass then runs pass by pass: what comes after the loop sees its loads as a pass-by-pass run leaves
them (their lanes still to be used).
"""

from __future__ import annotations

import numpy as np

from vcore.emulator.functions.access_bytes import ALL_BYTES, FULL, bool_masks
from vcore.emulator.functions.block_runs import BlockRuns
from vcore.emulator.functions.fast_data import perform_loop
from vcore.emulator.order.races import overlap
from vcore.isa.types import BLOCK_BYTES


def ordered_loop(fn, ctx, loop, order) -> bool:
    """Passes 0 to ``loop.passes - 2`` of a ``FastLoop``, data and order, in closed form: True; or
    nothing done (something could meet): False. The caller runs the passes left pass by pass."""
    passes = loop.passes - 1
    if passes < 1:
        return False
    plan_at = [fn.plans[job.pc] for job in loop.jobs]
    accesses, runs = [], (BlockRuns(), BlockRuns())
    for k, (job, plan, step) in enumerate(zip(loop.jobs, plan_at, loop.steps, strict=True)):
        if plan.ub:
            writing = plan.ub == 2
            _, lo, hi = (job.footprint_writes if writing else job.footprint_reads)["ub"]
            runs[writing].add_passes(lo, hi, step // BLOCK_BYTES, 0, passes)
            consumers = [] if writing else _consumers(plan_at, k)
            accesses.append((k, fn.ub_slots[job.pc], writing, lo, step // BLOCK_BYTES, consumers))
    reads, writes = runs[0].footprint(), runs[1].footprint()
    if runs[1].overlap or overlap(reads, writes) is not None:
        return False  # the loop's own accesses meet: pass by pass
    order.flush()
    if _touched(order, reads) or _touched(order, writes) or _held(order, reads, writes):
        return False
    pending = _pending(order, plan_at)
    wanted = {c: fn.masked_lanes[loop.jobs[c].pc][0] for k, _, writing, _, _, consumers in accesses
              for c in ([k] if writing else consumers) if loop.jobs[c].pc in fn.masked_lanes}
    wanted.update((c, fn.masked_lanes[loop.jobs[c].pc][0]) for _, _, consumers, _ in pending for c in consumers
                  if loop.jobs[c].pc in fn.masked_lanes)
    k0, epoch, size = order.k, order.epoch, len(loop.jobs)
    once = all(abs(step) >= 8 for *_, step, _ in accesses)  # (a VL's 8 blocks: no pass's meet another's)

    def seen(t: np.ndarray, masks: dict) -> None:
        slot, ordinal, index, block, write, touched = [], [], [], [], [], []
        for k, s, writing, lo, step, consumers in accesses:
            on = _bytes(fn, loop, masks, [k] if writing else consumers, t.size)
            if on is None:  # every byte of its 8 blocks, every pass
                passes_at, column = np.divmod(np.arange(8 * t.size), 8)
                touched.append(None)
            else:
                bits = bool_masks(on)  # (passes, 8): each block's bytes
                passes_at, column = np.nonzero(bits)
                touched.append(bits[passes_at, column])
            at = t[passes_at]
            block.append(lo + at * step + column)
            index.append(k0 + at * size + k)
            ordinal.append(order.ordinals[s] + at)
            slot.append(np.full(at.size, s, dtype=np.int64))
            write.append(np.full(at.size, writing))
        if block:
            mask = None if all(x is None for x in touched) else np.concatenate(
                [np.full(b.size, FULL, dtype=np.uint32) if x is None else x
                 for x, b in zip(touched, block, strict=True)])
            block = np.concatenate(block)
            order.note(np.concatenate(slot), np.concatenate(ordinal), np.concatenate(index), block,
                       np.concatenate(write), np.full(block.size, epoch, dtype=np.int64), once, mask)
        for space, load, consumers, closes in pending:  # (closed in pass 0: only pass 0's uses count)
            if consumers and space[0] == "V" and not (closes and t[0]):
                on = _bytes(fn, loop, masks, consumers, t.size)
                if on is None:
                    load[1] = ALL_BYTES
                else:
                    used = on[:1 if closes else None].any(axis=0)
                    load[1] |= int.from_bytes(np.packbits(used, bitorder="little").tobytes(), "little")

    perform_loop(ctx, loop, passes, (wanted, seen))
    for space, load, consumers, closes in pending:  # as ``InnerOrder.step``: all its lanes used, or overwritten
        if consumers and space[0] == "P":  # (a mask register's every byte is used)
            load[1] = ALL_BYTES
        if closes or load[1] == ALL_BYTES:
            del order.loads[space]
            order.close_load(load)
    order.k += passes * size
    for _, s, *_ in accesses:
        order.ordinals[s] += passes
    order.batches += 1
    return True


def _consumers(plans: list, k: int) -> list:
    """The body positions after ``k`` that read what the load at ``k`` wrote before it is written again."""
    space = plans[k].writes[0]
    found = []
    for c in range(k + 1, len(plans)):
        if space in plans[c].reads:
            found.append(c)
        if space in plans[c].writes:
            break
    return found


def _bytes(fn, loop, masks: dict, consumers: list, n: int) -> np.ndarray | None:
    """Per pass, the register bytes (256 bools) that the instructions at ``consumers`` use: those of
    their masks' active lanes (a masked family), else all; (n, 256), or None when every pass uses all."""
    on = None
    for c in consumers:
        masked = fn.masked_lanes.get(loop.jobs[c].pc)
        if masked is None:
            return None
        lanes = masks[c].reshape(-1, 256)[:, ::masked[1]]
        if lanes.all():
            return None
        mine = np.repeat(lanes, masked[1], axis=1)
        mine = mine if mine.shape[0] == n else np.broadcast_to(mine, (n, 256))
        on = mine if on is None else on | mine
    return on if on is not None else np.zeros((n, 256), dtype=bool)


def _touched(order, footprint: dict) -> bool:
    """Whether an access this epoch, already noted, touched a block of ``footprint``."""
    entry = footprint.get("ub")
    if entry is None:
        return False
    state, epoch = order.state, order.epoch
    runs = [(entry[1], entry[2])] if entry[0] is None else entry[0].tolist()
    return any((state.any_write[a:b] == epoch).any() or (state.any_read[a:b] == epoch).any() for a, b in runs)


def _held(order, reads: dict, writes: dict) -> bool:
    """Whether an access the order check still holds (a load whose lanes are not all known yet, and
    the rows after it) could touch a block of the loop's."""
    for row in order.rows:
        entry = row[6].footprint_writes.get("ub") if row[2] else row[6].footprint_reads.get("ub")
        if entry is None:
            continue
        mine = {"ub": entry}
        if overlap(mine, reads) is not None or overlap(mine, writes) is not None:
            return True
    return False


def _pending(order, plans: list) -> list:
    """The loads held (``order.loads``) whose registers the loop reads or writes: ``(space, load,
    consumers, closes)``, the loop's positions that read it (in pass 0 up to the one that writes it,
    when one does: that closes it)."""
    found = []
    for space, load in order.loads.items():
        consumers, closes = [], False
        for c, plan in enumerate(plans):
            if space in plan.reads:
                consumers.append(c)
            if space in plan.writes:
                closes = True
                break
        if consumers or closes:
            found.append((space, load, consumers, closes))
    return found

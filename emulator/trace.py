"""Chrome trace events (the JSON Perfetto and chrome://tracing open): one track per pipe, a slice per
instruction instance named by its source text, and a flow arrow from each SETFLAG to its WAITFLAG.

Timestamps are microseconds at the profile's clock; each slice also carries its cycles in ``args``.
"""

from __future__ import annotations

from emulator.timing import PIPES


def trace_events(machine) -> dict:
    engine = machine.engine
    per_us = machine.profile.clock_ghz * 1000.0  # cycles per microsecond
    tids = {pipe: i + 1 for i, pipe in enumerate(PIPES)}
    events = [{"ph": "M", "name": "process_name", "pid": 1, "args": {"name": f"vcore ({machine.profile.name})"}}]
    for pipe, tid in tids.items():
        events.append({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": pipe}})
        events.append({"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": tid, "args": {"sort_index": tid}})
    for pipe, pc, start, end, job in engine.slices:
        src = (machine.program.source or {}).get(pc)
        args = {"pc": f"0x{pc:04x}", "cycles": end - start, "start_cycle": start}
        if src is not None:
            args["line"] = src.line
        if job is not None and job.iterations:
            args["iterations"] = job.iterations
        events.append({"ph": "X", "name": machine.text_at(pc), "cat": pipe, "pid": 1, "tid": tids[pipe],
                       "ts": start / per_us, "dur": max(end - start, 1) / per_us, "args": args})
    for flow_id, (set_job, wait_job) in enumerate(engine.flows, start=1):
        set_pipe, wait_pipe = machine.pipes[set_job.pc], machine.pipes[wait_job.pc]
        events.append({"ph": "s", "id": flow_id, "name": "flag", "cat": "flag", "pid": 1, "tid": tids[set_pipe],
                       "ts": set_job.start / per_us})
        events.append({"ph": "f", "bp": "e", "id": flow_id, "name": "flag", "cat": "flag", "pid": 1,
                       "tid": tids[wait_pipe], "ts": wait_job.start / per_us})
    meta = {"profile": machine.profile.name, "clock_ghz": machine.profile.clock_ghz}
    if engine.slices_dropped:  # the engine keeps at most its trace_limit slices
        meta["truncated_slices"] = engine.slices_dropped
    return {"traceEvents": events, "displayTimeUnit": "ns", "metadata": meta}

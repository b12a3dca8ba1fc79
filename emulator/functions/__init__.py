"""Vector functions (CONTRACT section 7): a ``VF.BEGIN`` ... ``VF.END`` block run on V as one job.
``launch`` binds the structure and runs a launch; ``expand`` gives its instructions in the order its
hardware loops give, ``schedule`` places them under the profile's issue rules, ``races`` finds the
UB accesses nothing orders inside it, ``timed`` performs a racy launch at its scheduled times,
``steps`` shows a paused run one instruction a step, and ``context`` holds what a launch runs on.
"""

"""When each job runs and what it costs: the engine (``engine``: dispatch from S, the in-order queues
of V, MTE2 and MTE3, barriers) and its parts (flags, the 950 scoreboard, timed data movement, the
program-order run, accounting), with the prices read from the profile (``costs``) and the UB bank
and port rules (``banks``, ``ub_ports``).
"""

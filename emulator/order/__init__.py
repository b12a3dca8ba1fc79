"""The order and race checks: happens-before by vector clocks with a shadow of each space's last
accesses (``happens_before``: latent races, whatever this run's timing), and races in simulated
time between unordered jobs that overlap (``races``), each named once per pair of instructions.
"""

"""A kernel of many cores sharing GM (CONTRACT section 8): the phase-by-phase run of N machines
(``cores``), the merge of their GM writes and the races between cores at each SYNCALL
(``gm_merge``), and the worker processes that run cores or sweep points (``processes``).
"""

"""What each instruction does, one module per shape of instruction: the registry that ties a table
family to its binder (``registry``), the iterated UB-to-UB tensor shape and its operand geometry
(``tensor``, ``geometry``, ``reductions``), the register shapes of vector functions
(``register_lanes``, ``register_memory``, ``register_forms``, ``masks``), DMA (``dma``) and the
scalar unit (``scalar``). A shape owns its instructions' addressing, masks, footprints and faults,
once for every op of that shape, and hands each dispatch to the engine as a ``Job``; the per-op
arithmetic is ``emulator.arith``.
"""

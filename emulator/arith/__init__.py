"""Element arithmetic as numpy array operations, exact to the rounding rules of docs/semantics.md:
the per-op kernels shared by the tensor and register shapes (``numerics``), the results one float64
operation cannot round exactly (``exact``), and conversion between every pair of types in every
rounding mode (``conversion``). Nothing here knows about instructions, addresses or time.
"""

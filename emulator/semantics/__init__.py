"""What each instruction does, one module per shape of instruction: the registry that ties a table
family to its binder (``registry``), the iterated UB-to-UB tensor shape and its operand geometry
(``tensor``, ``geometry``, ``reductions``), the register shapes of vector functions
(``register_lanes``, ``register_memory``, ``register_forms``, ``masks``), DMA (``dma``) and the
scalar unit (``scalar``). A shape owns its instructions' addressing, masks, footprints and faults,
once for every op of that shape, and hands each dispatch to the engine as a ``Job``; the per-op
arithmetic is ``emulator.arith``.

The machine imports every module of this package (``register_all``): a module registers its families'
binders (``registry.implements``) when imported, so a new shape's module needs no list to join.
"""

from __future__ import annotations

import importlib
import pkgutil


def register_all(path=None, package: str = __name__) -> list[str]:
    """Import every module of the package (``path``: its folders, this package's by default), so
    that each registers its binders; the names of the modules imported."""
    names = sorted(info.name for info in pkgutil.iter_modules(__path__ if path is None else path))
    for name in names:
        importlib.import_module(f"{package}.{name}")
    return names

"""Profiles: the machine and timing parameters of each target, as TOML (the built-in ``950.toml`` and
``a2.toml``, each key's comment its source), read and checked by ``profile`` and turned into the
parameter table of docs/timing.md by ``doc``.
"""

"""What the zoo's data generators share: where a kernel's arrays go (programs/kernels/data/NAME/),
written as .npy files that the program's ; LOAD and ; EXPECT ... ~= lines name. Plain numpy, nothing
of vcore: the goldens are the samples' own numpy formulas."""

import os
from pathlib import Path

import numpy as np

# VCORE_ZOO_DATA puts the arrays elsewhere (the test that the committed data is what the generators make).
DATA = Path(os.environ.get("VCORE_ZOO_DATA") or Path(__file__).resolve().parent.parent / "data")


def save(kernel: str, **arrays: np.ndarray) -> None:
    folder = DATA / kernel
    folder.mkdir(parents=True, exist_ok=True)
    for name, array in arrays.items():
        np.save(folder / f"{name}.npy", np.ascontiguousarray(array))

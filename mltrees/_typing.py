"""Type aliases of the public API (the package ships a ``py.typed`` marker).

``MatrixLike`` is what every ``fit`` and ``predict`` takes: a 2-D array-like
or a pandas DataFrame (whose column dtypes follow the package's one rule,
:mod:`mltrees._frames`). ``ArrayLike`` is numpy's: targets, weights, labels.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy.typing as npt
import pandas as pd

__all__ = ["ArrayLike", "MatrixLike"]

ArrayLike: TypeAlias = npt.ArrayLike
MatrixLike: TypeAlias = npt.ArrayLike | pd.DataFrame

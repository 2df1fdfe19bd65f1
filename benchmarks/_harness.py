"""What the 1M-row benchmark scripts share: a measurement in a fresh interpreter.

Each script measures a library in a child interpreter (``python -c CHILD
...``), so that peak memory, imports and thread pools are that library's
alone; the child prints its measurements as one JSON line, last. The scripts
that compare against scikit-learn, XGBoost, LightGBM and CatBoost use the
same classification data set (the issue's: ``make_classification`` with 28
features, 20 of them informative, seed 0, the first 80% of rows for
training), saved once for all children.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
from sklearn.datasets import make_classification

HERE = Path(__file__).resolve().parent


def run_child(child: str, *args: object) -> dict:
    """Run the Python source ``child`` in a fresh interpreter with ``args`` (as strings).

    The child can import the helpers of ``_child.py``.

    Returns the JSON object the child printed on its last line of output.
    """
    command = [sys.executable, "-c", child, *map(str, args)]
    # The child imports the helpers of _child.py from this folder.
    path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    environment = {**os.environ, "PYTHONPATH": path}
    output = subprocess.run(
        command, check=True, capture_output=True, text=True, env=environment
    ).stdout
    return json.loads(output.strip().splitlines()[-1])


def save_classification(n_samples: int, path: Path, train_rows: int | None = None) -> Path:
    """Save the issue's data set to ``path`` (``.npz``) for the children; return ``path``.

    ``X_train``, ``y_train`` are the first 80% of the ``n_samples`` rows
    (only the first ``train_rows`` of them when given), ``X_test``, ``y_test``
    the rest.
    """
    X, y = make_classification(n_samples=n_samples, n_features=28, n_informative=20, random_state=0)
    cut = int(0.8 * n_samples)
    X_train, y_train, X_test, y_test = X[:cut], y[:cut], X[cut:], y[cut:]
    if train_rows is not None:
        X_train, y_train = X_train[:train_rows], y_train[:train_rows]
    np.savez(path, X_train=X_train, y_train=y_train, X_test=X_test, y_test=y_test)
    return path

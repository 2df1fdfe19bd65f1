"""scikit-learn's linear models in model files: their fitted state checked (chapter 18).

mltrees' own estimators check their loaded state in their ``_rebuild_caches``
hook, next to the state they read (``mltrees/tree/_model_file.py``,
``mltrees/ensemble/_model_file.py``, ``mltrees/incremental/_model_file.py``).
What remains here is for classes that cannot carry the hook: the
scikit-learn linear models that stacking uses as final estimators.
"""

from __future__ import annotations

import numpy as np

from mltrees.io.format import (
    MAX_INPUT,
    check_score_bound,
    distinct_classes,
    expect,
    expect_array,
)


def _rebuild_linear(estimator) -> None:
    """A scikit-learn linear model (a stack's final estimator): coefficients of its shape."""
    path = type(estimator).__name__
    F = estimator.n_features_in_
    coef = expect_array(estimator.coef_, f"{path}.coef_")
    intercept = np.asarray(estimator.intercept_)
    expect(intercept.dtype.kind == "f", f"{path}.intercept_", "floats")
    if hasattr(estimator, "classes_"):
        K = distinct_classes(estimator, path)
        rows = 1 if K == 2 else K
        expect(
            coef.shape == (rows, F) and intercept.shape == (rows,),
            path,
            f"coef_ of shape ({rows}, {F}) and an intercept per row",
        )
    else:
        expect(
            (coef.shape == (F,) and intercept.shape == ())
            or (coef.ndim == 2 and coef.shape[1] == F and intercept.shape == coef.shape[:1]),
            path,
            "coef_ of shape (n_features,) or (n_targets, n_features), an intercept per target",
        )
    rows = np.abs(coef).reshape(-1, F).sum(axis=1) * MAX_INPUT + np.abs(intercept).reshape(-1)
    check_score_bound([rows.max()], f"{path}.coef_ (for inputs up to {MAX_INPUT:.0e})")

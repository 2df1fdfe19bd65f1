"""The self-check that guards SciPy's private ``csc_matvecs``, and the fallback it leads to."""

from __future__ import annotations

import numpy as np
import pytest

from mltrees import _compat
from mltrees._compat import checked_csc_matvecs, csc_matvecs_sums_in_order
from mltrees.ensemble import LightGBMClassifier, LightGBMRegressor

sparsetools = pytest.importorskip("scipy.sparse._sparsetools")


def _in_order(n_row, n_col, n_vecs, indptr, indices, data, x, y):
    """A reference kernel in pure NumPy: each column's entries added in order."""
    x, y = x.reshape(n_col, n_vecs), y.reshape(n_row, n_vecs)
    for col in range(n_col):
        for k in range(indptr[col], indptr[col + 1]):
            y[indices[k]] += data[k] * x[col]


def _reversed_rows(n_row, n_col, n_vecs, indptr, indices, data, x, y):
    x, y = x.reshape(n_col, n_vecs), y.reshape(n_row, n_vecs)
    for col in reversed(range(n_col)):
        for k in range(indptr[col], indptr[col + 1]):
            y[indices[k]] += data[k] * x[col]


def _block_then_add(n_row, n_col, n_vecs, indptr, indices, data, x, y):
    """Sums the block from zero, then adds it to ``y``: what ``y += A @ x`` does."""
    block = np.zeros(n_row * n_vecs)
    _in_order(n_row, n_col, n_vecs, indptr, indices, data, x, block)
    y += block


def _overwrites(n_row, n_col, n_vecs, indptr, indices, data, x, y):
    y[:] = 0.0
    _in_order(n_row, n_col, n_vecs, indptr, indices, data, x, y)


def _seven_arguments(n_row, n_col, indptr, indices, data, x, y):
    raise AssertionError("never reached: the call passes eight arguments")


def _wants_int64(n_row, n_col, n_vecs, indptr, indices, data, x, y):
    if indices.dtype != np.int64:
        raise ValueError("output array has wrong type")
    _in_order(n_row, n_col, n_vecs, indptr, indices, data, x, y)


def test_the_check_accepts_in_order_addition_and_scipys_kernel():
    assert csc_matvecs_sums_in_order(_in_order)
    # SciPy's kernel as installed passes; if a SciPy release changes it, this fails so
    # that the slower fallback is noticed (the models stay equal either way).
    assert csc_matvecs_sums_in_order(sparsetools.csc_matvecs)
    assert _compat.csc_matvecs is sparsetools.csc_matvecs


@pytest.mark.parametrize(
    "kernel", [_reversed_rows, _block_then_add, _overwrites, _seven_arguments, _wants_int64]
)
def test_the_check_refuses_other_orders_signatures_and_dtypes(kernel):
    assert not csc_matvecs_sums_in_order(kernel)


def test_a_changed_or_missing_kernel_falls_back_to_none(monkeypatch):
    monkeypatch.setattr(sparsetools, "csc_matvecs", _reversed_rows)
    assert checked_csc_matvecs() is None
    monkeypatch.delattr(sparsetools, "csc_matvecs")
    assert checked_csc_matvecs() is None  # ImportError of the name


@pytest.mark.parametrize("estimator", [LightGBMClassifier, LightGBMRegressor])
def test_models_on_the_fallback_equal_models_on_the_kernel_bit_for_bit(estimator, monkeypatch):
    """The fallback is what ``checked_csc_matvecs`` gives when SciPy's kernel changes."""
    from mltrees.hist import histogram

    rng = np.random.default_rng(7)
    n = 6000
    X = rng.normal(size=(n, 7)) * 10.0 ** rng.integers(-3, 4, size=7)
    X[rng.random((n, 7)) < 0.05] = np.nan
    X[:, 3] = np.round(X[:, 3])  # ties
    y = np.nan_to_num(X[:, 0]) - 2 * np.nan_to_num(X[:, 1]) + rng.normal(size=n)
    if estimator is LightGBMClassifier:
        y = (y > 0).astype(int)
    weight = rng.uniform(0.1, 3.0, n)
    params = {"n_estimators": 8, "num_leaves": 15, "min_child_samples": 5}
    calls = []
    kernel = histogram.csc_matvecs

    def counting(*args):
        calls.append(1)
        return kernel(*args)

    monkeypatch.setattr(histogram, "csc_matvecs", counting)
    with_kernel = estimator(**params).fit(X, y, sample_weight=weight)
    assert calls  # the kernel path was taken

    monkeypatch.setattr(sparsetools, "csc_matvecs", _reversed_rows)
    monkeypatch.setattr(histogram, "csc_matvecs", checked_csc_matvecs())
    assert histogram.csc_matvecs is None
    fallback = estimator(**params).fit(X, y, sample_weight=weight)

    np.testing.assert_array_equal(fallback.predict(X), with_kernel.predict(X))
    for a, b in zip(fallback._trees, with_kernel._trees, strict=True):
        for tree_a, tree_b in zip(a, b, strict=True):
            np.testing.assert_array_equal(tree_a.threshold, tree_b.threshold)
            np.testing.assert_array_equal(tree_a.value, tree_b.value)

"""Tables for differential testing: the regions where reimplementations drift.

A drawn table mixes column kinds that exercise every path a tree library has
for its candidate splits: continuous values, integer codes (0- and 1-based),
few-valued and binary columns (ties between features), constant and
single-valued columns, mostly-zero columns, negative values, duplicated
columns, and missing values (none, in training only, in prediction only, in
both, whole-NaN columns). Weights may contain zeros.

Every generator is driven by one integer seed drawn by hypothesis, so that a
failure's example is a handful of small integers and flags, and shrinks well;
the table itself comes from ``np.random.default_rng(seed)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st

COLUMN_KINDS = (
    "continuous",
    "integer0",  # integer codes 0..k-1
    "integer1",  # integer codes 1..k
    "few",  # 2-6 distinct arbitrary values
    "binary",
    "constant",
    "mostly_zero",  # ~90% exact zeros, the rest continuous
    "negative",  # continuous, all negative
    "duplicate",  # a copy of an earlier column
)

NAN_PATTERNS = ("none", "train", "predict", "both", "whole_column")

CATEGORICAL_KINDS = (
    "category",  # integer category codes 0..k-1, a few negative codes; unseen codes in test rows
)
"""Column kinds for libraries with native categorical splits (not in the default mix)."""

COLUMN_KINDS_WITH_CATEGORIES = COLUMN_KINDS + CATEGORICAL_KINDS


@dataclass(frozen=True)
class Table:
    """A drawn table: training and held-out rows, with the recipe that made it."""

    X: np.ndarray
    y: np.ndarray
    X_test: np.ndarray
    sample_weight: np.ndarray | None
    kinds: tuple[str, ...]
    nan_pattern: str
    seed: int
    y_test: np.ndarray | None = None  # the targets of X_test (for eval sets, early stopping)

    def __repr__(self) -> str:  # hypothesis prints this when a test fails
        return (
            f"Table(n={self.X.shape[0]}, kinds={self.kinds}, nan={self.nan_pattern!r}, "
            f"weights={self.sample_weight is not None}, seed={self.seed})"
        )


def _column(kind: str, n: int, rng: np.random.Generator, previous: list[np.ndarray]) -> np.ndarray:
    if kind == "continuous":
        return rng.normal(rng.uniform(-3, 3), rng.uniform(0.1, 10), n)
    if kind == "integer0":
        return rng.integers(0, rng.integers(2, 60), n).astype(np.float64)
    if kind == "integer1":
        return rng.integers(1, rng.integers(3, 60), n).astype(np.float64)
    if kind == "few":
        values = rng.normal(0, 5, rng.integers(2, 7))
        return values[rng.integers(0, values.size, n)]
    if kind == "binary":
        return (rng.random(n) < rng.uniform(0.05, 0.95)).astype(np.float64)
    if kind == "constant":
        return np.full(n, float(rng.choice([0.0, 1.0, -2.5, 7.0])))
    if kind == "mostly_zero":
        column = np.zeros(n)
        nonzero = rng.random(n) < 0.1
        column[nonzero] = rng.normal(0, 3, int(nonzero.sum()))
        return column
    if kind == "negative":
        return -rng.exponential(rng.uniform(0.5, 20), n)
    if kind == "category":
        k = int(rng.integers(2, 40))
        codes = rng.choice(k, n, p=rng.dirichlet(np.full(k, 0.7))).astype(np.float64)
        codes[rng.random(n) < 0.03] = -float(rng.integers(1, 4))  # negative: missing
        return codes
    if kind == "duplicate":
        return (
            previous[int(rng.integers(0, len(previous)))].copy() if previous else rng.normal(size=n)
        )
    raise ValueError(f"unknown column kind {kind!r}")


def make_table(
    seed: int,
    n_rows: int,
    kinds: tuple[str, ...],
    nan_pattern: str,
    nan_rate: float,
    task: str,
    weights: bool,
    n_classes: int = 2,
) -> Table:
    """Build one table from its recipe (deterministic in ``seed``).

    ``task`` is ``"regression"``, ``"binary"`` or ``"multiclass"``; the target
    depends on the first few non-constant columns so that trees have something
    to find, plus noise.
    """
    rng = np.random.default_rng(seed)
    n_test = max(20, n_rows // 4)
    total = n_rows + n_test
    columns: list[np.ndarray] = []
    for kind in kinds:
        columns.append(_column(kind, total, rng, columns))
    X_all = np.column_stack(columns)
    for j, kind in enumerate(kinds):
        if kind == "category":  # categories never seen in training, in the held-out rows
            unseen = rng.random(n_test) < 0.1
            X_all[n_rows:][unseen, j] = X_all[:, j].max() + rng.integers(1, 5, int(unseen.sum()))
    signal = np.zeros(total)
    for j in range(min(4, X_all.shape[1])):
        column = X_all[:, j]
        spread = column.std()
        if spread > 0:
            signal += rng.normal() * (column - column.mean()) / spread
    signal += rng.normal(0, 0.5, total)
    if task == "regression":
        y_all = signal * rng.uniform(0.5, 20) + rng.uniform(-10, 10)
    elif task == "binary":
        y_all = (signal > np.quantile(signal, rng.uniform(0.2, 0.8))).astype(np.float64)
    else:
        edges = np.quantile(signal, np.linspace(0, 1, n_classes + 1)[1:-1])
        y_all = np.searchsorted(edges, signal).astype(np.float64)

    X_all = X_all.copy()
    if nan_pattern != "none" and X_all.shape[1]:
        if nan_pattern == "whole_column":
            X_all[:, int(rng.integers(0, X_all.shape[1]))] = np.nan
        else:
            mask = rng.random(X_all.shape) < nan_rate
            if nan_pattern == "train":
                mask[n_rows:] = False
            elif nan_pattern == "predict":
                mask[:n_rows] = False
            X_all[mask] = np.nan
    sample_weight = None
    if weights:
        sample_weight = rng.exponential(1.0, n_rows)
        sample_weight[rng.random(n_rows) < 0.1] = 0.0
        sample_weight[0] = 1.0  # at least one row carries weight
    return Table(
        X=X_all[:n_rows],
        y=y_all[:n_rows],
        X_test=X_all[n_rows:],
        sample_weight=sample_weight,
        kinds=tuple(kinds),
        nan_pattern=nan_pattern,
        seed=seed,
        y_test=y_all[n_rows:],
    )


@dataclass(frozen=True)
class Recipe:
    """What :func:`make_table` needs: a failing example prints as a few numbers and names.

    ``Recipe(...).build()`` makes the table again, so that a shrunk example
    is pasted as it is into a plain regression test.
    """

    seed: int
    n_rows: int
    kinds: tuple[str, ...]
    nan_pattern: str = "none"
    nan_rate: float = 0.0
    task: str = "regression"
    weights: bool = False
    n_classes: int = 2

    def build(self) -> Table:
        return make_table(
            self.seed,
            self.n_rows,
            self.kinds,
            self.nan_pattern,
            self.nan_rate,
            self.task,
            self.weights,
            self.n_classes,
        )


@st.composite
def recipes(
    draw,
    task: str = "regression",
    min_rows: int = 20,
    max_rows: int = 2000,
    max_columns: int = 8,
    kinds: tuple[str, ...] = COLUMN_KINDS,
    nan_patterns: tuple[str, ...] = NAN_PATTERNS,
    weights: bool | None = None,
    n_classes: int = 2,
) -> Recipe:
    """Hypothesis strategy: the recipe of a table (:func:`tables` draws it and builds it)."""
    seed = draw(st.integers(0, 2**32 - 1))
    n_rows = draw(st.integers(min_rows, max_rows))
    column_kinds = tuple(draw(st.lists(st.sampled_from(kinds), min_size=1, max_size=max_columns)))
    nan_pattern = draw(st.sampled_from(nan_patterns))
    nan_rate = (
        draw(st.sampled_from([0.05, 0.3])) if nan_pattern not in ("none", "whole_column") else 0.0
    )
    use_weights = draw(st.booleans()) if weights is None else weights
    return Recipe(seed, n_rows, column_kinds, nan_pattern, nan_rate, task, use_weights, n_classes)


def tables(*args, **kwargs) -> st.SearchStrategy[Table]:
    """Hypothesis strategy: a table whose every choice shrinks to a small example.

    Takes the arguments of :func:`recipes` and builds the recipe it draws, so
    that a table and its recipe are drawn by one piece of code.
    """
    return recipes(*args, **kwargs).map(Recipe.build)

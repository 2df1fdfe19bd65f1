"""Random forests on a Dask cluster: whole trees on the workers (chapter on scale).

The trees of a forest do not talk to each other while they grow, so a
forest parallelises by trees, not by levels: each tree is grown on one
worker, from its own sample, with no communication until it is done.
The sample is a Poisson bootstrap drawn partition by partition
(:eq:`eq-scale-poisson`): row ``i`` enters tree ``t`` ``z_{ti} ~
Poisson(μ)`` times, drawn where the row lives from a seed of ``(t,
partition)``, and only the drawn rows travel, with ``z_{ti}`` as their
weight. With ``μ = 1`` (``max_samples=None``) that is Breiman's bootstrap
in the limit of many rows; a smaller ``μ = max_samples / n`` keeps each
tree's sample within one worker's memory when the data are not.

Each member is an ordinary one-tree
:class:`~mltrees.ensemble.forest.RandomForestClassifier` /
:class:`~mltrees.ensemble.forest.RandomForestRegressor` (``bootstrap=False``:
the sample is already drawn); the forest averages their probabilities or
predictions, as one machine's forest averages its trees.
"""

from __future__ import annotations

import numbers
from typing import Self

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from mltrees._input_checks import check_unique_columns
from mltrees._typing import ArrayLike, MatrixLike
from mltrees.dask._data import (
    as_dask_arrays,
    check_numeric_columns,
    dataframe_module,
    get_client,
    is_dask_collection,
    n_workers,
)
from mltrees.dask._malloc import prepare_workers
from mltrees.ensemble._common import class_codes
from mltrees.ensemble.forest import RandomForestClassifier, RandomForestRegressor

__all__ = ["DaskRandomForestClassifier", "DaskRandomForestRegressor"]

_TREE_PARAMS = (
    "criterion",
    "max_depth",
    "min_samples_split",
    "min_samples_leaf",
    "max_features",
    "max_bins",
    "missing",
)


def _clean(X, y, w):
    X = np.asarray(X, dtype=np.float64)
    w = np.ones(X.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
    return X, np.asarray(y), w


def _poisson_sample(part, seed: int, tree: int, index: int, rate: float):
    """The rows of one partition drawn for tree ``tree``, each with its Poisson count.

    Implements :eq:`eq-scale-poisson`: the counts are a function of the
    seed, the tree and the partition's index, so a retried task draws the
    same sample.
    """
    X, y, w = part
    rng = np.random.default_rng([seed, tree, index])
    counts = rng.poisson(rate, size=X.shape[0])
    rows = np.flatnonzero(counts)
    return X[rows], y[rows], w[rows] * counts[rows]


def _grow(member, seed: int, tree: int, *samples):
    """One member fitted on the concatenated samples of all partitions (a worker task)."""
    X = np.concatenate([s[0] for s in samples])
    y = np.concatenate([s[1] for s in samples])
    w = np.concatenate([s[2] for s in samples])
    if X.shape[0] == 0:
        raise ValueError(
            f"tree {tree} drew no row: max_samples is too small for the data ({seed=})"
        )
    member = member.set_params(
        random_state=np.random.SeedSequence([seed, tree]).generate_state(1)[0]
    )
    return member.fit(X, y, sample_weight=w)


def _partition_rows(part):
    return part[0].shape[0]


def _labels(part):
    return class_codes(np.asarray(part[1]))[0]


_PARAMS_DOC = """
    client : distributed.Client or None, default None
        The cluster; None: the session's default client.
    n_estimators : int, default 100
        Trees, each grown by one task on one worker.
    max_samples : None, int or float, default None
        Expected rows per tree: ``n`` (None, Poisson rate 1), an int, or a
        fraction of ``n``; the Poisson rate is ``max_samples / n``.
    criterion, max_depth, min_samples_split, min_samples_leaf, max_features, max_bins, missing
        As for :class:`~mltrees.ensemble.forest.RandomForestClassifier`.
    random_state : int or None, default None
        Seeds the samples and the trees' feature draws.
    n_partitions : int or None, default None
        Partitions a numpy or pandas ``X`` is cut into (None: one per worker).
"""


class _DaskForest(BaseEstimator):
    _member_class = None

    def _check(self):
        if not isinstance(self.n_estimators, numbers.Integral) or self.n_estimators < 1:
            raise ValueError(f"n_estimators must be an int >= 1, got {self.n_estimators!r}")
        m = self.max_samples
        if m is not None and not (
            (isinstance(m, numbers.Integral) and m >= 1)
            or (isinstance(m, numbers.Real) and 0 < m <= 1)
        ):
            raise ValueError(
                f"max_samples must be None, an int >= 1 or a float in (0, 1], got {m!r}"
            )

    def fit(self, X: MatrixLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow ``n_estimators`` trees, one per task, from Poisson samples of all partitions."""
        self._check()
        client = get_client(self.client)
        prepare_workers(client)  # NumPy temporaries off mmap in the workers (see _malloc)
        Xd, yd, wd, names = as_dask_arrays(
            X, y, sample_weight, self.n_partitions or n_workers(client), dtype=np.float64
        )
        self.n_features_in_ = int(Xd.shape[1])
        if names is not None:
            self.feature_names_in_ = names
        elif hasattr(self, "feature_names_in_"):
            del self.feature_names_in_
        xs, ys = Xd.to_delayed().ravel(), yd.to_delayed().ravel()
        ws = [None] * len(xs) if wd is None else list(wd.to_delayed().ravel())
        from dask import delayed

        parts = client.compute(
            [delayed(_clean)(a, b, c) for a, b, c in zip(xs, ys, ws, strict=True)]
        )
        n = int(sum(client.gather([client.submit(_partition_rows, p, pure=False) for p in parts])))
        m = self.max_samples
        rate = 1.0 if m is None else (m / n if isinstance(m, numbers.Integral) else float(m))
        member = self._member_class(
            n_estimators=1,
            bootstrap=False,
            **{name: getattr(self, name) for name in _TREE_PARAMS},
        )
        if isinstance(self, ClassifierMixin):
            labels = client.gather([client.submit(_labels, p, pure=False) for p in parts])
            self.classes_ = np.unique(np.concatenate(labels))
        seed = int(np.random.SeedSequence(self.random_state).generate_state(1)[0])
        members = []
        for t in range(self.n_estimators):
            samples = [
                client.submit(_poisson_sample, p, seed, t, i, rate, pure=False)
                for i, p in enumerate(parts)
            ]
            members.append(client.submit(_grow, member, seed, t, *samples, pure=False))
        self.estimators_ = client.gather(members)
        return self

    @property
    def feature_importances_(self) -> np.ndarray:
        """Mean decrease in impurity, averaged over the trees."""
        check_is_fitted(self, "estimators_")
        return np.mean([m.feature_importances_ for m in self.estimators_], axis=0)

    def _checked(self, X):
        """``X`` for the members: its columns checked against fit's, as numbers in fit's order.

        The members are fitted on arrays; the names and the number of
        columns are checked here, as every single-machine estimator does
        (a renamed or reordered frame is an error, not a silent reshuffle).
        """
        check_is_fitted(self, "estimators_")
        dd = dataframe_module()
        if dd is not None and isinstance(X, dd.DataFrame):
            validate_data(self, X._meta, reset=False, skip_check_array=True)
            return X
        if is_dask_collection(X):
            if X.ndim != 2 or X.shape[1] != self.n_features_in_:
                raise ValueError(
                    f"X has {X.shape[1] if X.ndim == 2 else 'no'} features, but "
                    f"{type(self).__name__} is expecting {self.n_features_in_} features"
                )
            return X
        check_unique_columns(X)
        validate_data(self, X, reset=False, skip_check_array=True)
        if isinstance(X, pd.DataFrame):
            check_numeric_columns(X.dtypes, X.columns)
            X = X.to_numpy(dtype=np.float64, na_value=np.nan)
        return X

    def to_local(self):
        """The fitted forest without its client: picklable, saved by :func:`mltrees.io.save_model`.

        It predicts numpy and pandas input on one machine exactly as this
        forest does (the trees are the same objects), and dask collections
        lazily under whatever client is current when they are computed.
        """
        check_is_fitted(self, "estimators_")
        model = type(self)(**{**self.get_params(), "client": None})
        model.__dict__.update({k: v for k, v in vars(self).items() if k.endswith("_")})
        return model

    def _lazy(self, X, method: str, n_columns, dtype):
        import dask.array as da
        import pandas as pd

        dd = dataframe_module()
        model = self.to_local()

        def block(part):
            out = getattr(model, method)(part)
            if isinstance(part, pd.DataFrame):
                return pd.Series(out, index=part.index) if out.ndim == 1 else pd.DataFrame(out)
            return out

        if dd is not None and isinstance(X, dd.DataFrame):
            meta = (
                pd.Series(np.empty(0, dtype=dtype))
                if n_columns is None
                else pd.DataFrame(np.empty((0, n_columns), dtype=dtype))
            )
            return X.map_partitions(block, meta=meta)
        if not isinstance(X, da.Array):
            raise TypeError("X must be a dask array or a dask dataframe")
        X = X.rechunk({1: -1})
        if n_columns is None:
            return X.map_blocks(block, drop_axis=1, dtype=dtype)
        return X.map_blocks(block, chunks=(X.chunks[0], (n_columns,)), dtype=dtype)

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole (nothing is cached)."""
        _rebuild_dask_forest(self)

    def _drawable_tree(self, tree_index):
        """Member ``tree_index``, a one-tree forest grown on a worker, for ``plot_tree``."""
        from mltrees.tree._drawable import forest_member_drawable
        from mltrees.tree.builder import TreeBuilder

        return forest_member_drawable(self, tree_index, TreeBuilder.accepts)


class DaskRandomForestClassifier(ClassifierMixin, _DaskForest):
    """Random forest classifier with its trees grown on Dask workers (chapter on scale).

    Each tree is fitted by one task on a Poisson bootstrap sample drawn
    per partition (:eq:`eq-scale-poisson`); probabilities are averaged
    over the trees (soft voting, :eq:`eq-bagging-vote`).

    Parameters
    ----------
    {params}

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_breast_cancer
    >>> from mltrees.dask import DaskRandomForestClassifier
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> forest = DaskRandomForestClassifier(n_estimators=10, random_state=0, client=client)
    >>> forest = forest.fit(X, y)
    >>> len(forest.estimators_), round(forest.score(X, y), 2)
    (10, 1.0)
    >>> client.close()
    """

    _member_class = RandomForestClassifier

    def __init__(
        self,
        *,
        client=None,
        n_estimators=100,
        max_samples=None,
        criterion="gini",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        max_features="sqrt",
        max_bins=None,
        missing="default_direction",
        random_state=None,
        n_partitions=None,
    ):
        self.client = client
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.max_bins = max_bins
        self.missing = missing
        self.random_state = random_state
        self.n_partitions = n_partitions

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Mean class probabilities of the trees; lazy for a dask ``X``."""
        X = self._checked(X)
        if is_dask_collection(X):
            return self._lazy(X, "predict_proba", len(self.classes_), np.float64)
        return self._mean_proba(X)

    def _mean_proba(self, X):
        total = np.zeros((len(X), len(self.classes_)))
        for member in self.estimators_:
            # A tree whose sample missed a class gives it probability 0.
            total[:, np.searchsorted(self.classes_, member.classes_)] += member.predict_proba(X)
        return total / len(self.estimators_)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The class of largest mean probability; lazy for a dask ``X``."""
        X = self._checked(X)
        if is_dask_collection(X):
            return self._lazy(X, "predict", None, self.classes_.dtype)
        return self.classes_[np.argmax(self._mean_proba(X), axis=1)]


class DaskRandomForestRegressor(RegressorMixin, _DaskForest):
    """Random forest regressor with its trees grown on Dask workers (chapter on scale).

    Each tree is fitted by one task on a Poisson bootstrap sample drawn
    per partition (:eq:`eq-scale-poisson`); predictions are the trees' mean.

    Parameters
    ----------
    {params}

    Examples
    --------
    >>> from distributed import Client
    >>> from sklearn.datasets import load_diabetes
    >>> from mltrees.dask import DaskRandomForestRegressor
    >>> client = Client(processes=False, dashboard_address=":0")  # threads in this process
    >>> X, y = load_diabetes(return_X_y=True)
    >>> forest = DaskRandomForestRegressor(n_estimators=10, random_state=0, client=client)
    >>> forest = forest.fit(X, y)
    >>> forest.predict(X[:3]).shape
    (3,)
    >>> client.close()
    """

    _member_class = RandomForestRegressor

    def __init__(
        self,
        *,
        client=None,
        n_estimators=100,
        max_samples=None,
        criterion="squared_error",
        max_depth=None,
        min_samples_split=2,
        min_samples_leaf=1,
        max_features=1.0,
        max_bins=None,
        missing="default_direction",
        random_state=None,
        n_partitions=None,
    ):
        self.client = client
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.max_features = max_features
        self.max_bins = max_bins
        self.missing = missing
        self.random_state = random_state
        self.n_partitions = n_partitions

    def predict(self, X: MatrixLike) -> np.ndarray:
        """Mean prediction of the trees; lazy for a dask ``X``."""
        X = self._checked(X)
        if is_dask_collection(X):
            return self._lazy(X, "predict", None, np.float64)
        return np.mean([member.predict(X) for member in self.estimators_], axis=0)


for _cls in (DaskRandomForestClassifier, DaskRandomForestRegressor):
    _cls.__doc__ = _cls.__doc__.replace("    {params}\n", _PARAMS_DOC.lstrip("\n"))


def _rebuild_dask_forest(forest) -> None:
    """A loaded Dask forest's state as a whole: members of the member class, agreeing columns."""
    from mltrees.io.format import expect, expect_array

    path = type(forest).__name__
    members = forest.estimators_
    expect(isinstance(members, list) and members, f"{path}.estimators_", "a non-empty list")
    n_features = forest.n_features_in_
    expect(type(n_features) is int and n_features >= 1, f"{path}.n_features_in_", "an int >= 1")
    for i, member in enumerate(members):
        where = f"{path}.estimators_[{i}]"
        expect(type(member) is forest._member_class, where, f"a {forest._member_class.__name__}")
        expect(member.n_features_in_ == n_features, where, f"{n_features} features")
    if isinstance(forest, ClassifierMixin):
        classes = forest.classes_
        expect_array(classes, f"{path}.classes_", kinds="biufUO", ndim=1)
        expect(classes.size >= 1, f"{path}.classes_", "at least one class")
        for i, member in enumerate(members):
            known = np.isin(member.classes_, classes).all()
            expect(bool(known), f"{path}.estimators_[{i}].classes_", "a subset of classes_")


def _register() -> None:
    from mltrees.io.registry import register_estimator

    for cls in (DaskRandomForestClassifier, DaskRandomForestRegressor):
        register_estimator(cls)  # its hook: _DaskForest._rebuild_caches


_register()

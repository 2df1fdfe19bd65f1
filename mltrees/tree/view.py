r"""A fitted tree model as a constant plus a sum of trees: what explainers and exporters read.

Every explanation in :mod:`mltrees.inspection` (and the ONNX export of
:mod:`mltrees.io`) works on a :class:`TreeModelView`: the model's output
written as a constant plus a sum of trees,

.. math:: F(x) = b + \\sum_t v_t(\\mathrm{leaf}_t(x)),

where each tree's leaf table ``v_t`` is already scaled (learning rate, vote,
``1/M`` of an average) and mapped to the output columns. Tree ensembles of
every kind in the book reduce to this form.

Each estimator writes its own view, next to the state it reads: the method
``_tree_model_view(self) -> TreeModelView``, the hook :func:`view_of` calls
(as scikit-learn's partial dependence calls an estimator's
``_compute_partial_dependence_recursion``). A new model type plugs in by
implementing that method; a class one cannot edit gets an adapter function
registered with :func:`register_adapter`. This module depends on
:class:`~mltrees.tree.Tree` only, so that estimators, explainers and
exporters can all import it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mltrees.tree._tree import MISSING_ALL_BRANCHES

__all__ = ["TreeModelView", "feature_names_of", "register_adapter", "view_of"]


@dataclass
class TreeModelView:
    """A fitted tree model as ``base + sum of scaled trees`` (what TreeSHAP reads).

    Attributes
    ----------
    trees : list of Tree
        Flat-array trees (:class:`mltrees.tree.Tree`); their features
        index the columns of :meth:`encode`'s output.
    tables : list of ndarray, shape (n_nodes_t, n_columns_t)
        What each node adds to the output when a row ends there (leaves; an
        internal node too when a row stops at it, e.g. an unseen category).
    columns : list of ndarray of int, shape (n_columns_t,)
        The output column each column of ``tables[t]`` adds to.
    n_outputs : int
        Number of output columns.
    base : ndarray of shape (n_outputs,)
        Constant part of the output (initial score, base margin).
    encode : callable
        ``encode(X) -> ndarray (n, n_features)`` of float64: the checked input
        as the trees read it (numbers, category codes, NaN for missing).
    output : callable
        ``output(X) -> ndarray (n, n_outputs)``: the model's own output that
        the view sums to (for checks of local accuracy).
    feature_names : list of str
    output_name : str
        Which output is explained, in words (for docstrings and plots).
    mixes_linearly : bool
        Whether a row split over several branches (C4.5's missing values) gets
        the weighted mix of its leaves' table rows. False for votes that are
        taken after mixing (SAMME's argmax, hard voting), which are not a sum
        over leaves.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from mltrees import RandomForestClassifier
    >>> from mltrees.inspection import view_of
    >>> X, y = load_iris(return_X_y=True)
    >>> view = view_of(RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y))
    >>> len(view.trees), view.n_outputs, view.output_name
    (3, 3, 'predict_proba (one column per class)')
    """

    trees: list
    tables: list
    columns: list
    n_outputs: int
    base: np.ndarray
    encode: Callable
    output: Callable
    feature_names: list
    output_name: str
    mixes_linearly: bool = True
    squeeze: bool = field(default=False)  # one output column reported as (n, p)

    @property
    def n_features(self) -> int:
        """Number of input columns the trees read."""
        return len(self.feature_names)

    def splits_missing(self) -> bool:
        """Whether some tree sends a missing value down every branch (C4.5)."""
        return any((t.missing_slot == MISSING_ALL_BRANCHES).any() for t in self.trees)


_ADAPTERS: list[tuple[type, Callable]] = []


def register_adapter(cls: type) -> Callable:
    """Decorator: ``function(model) -> TreeModelView`` explains instances of ``cls``.

    For classes one cannot give a ``_tree_model_view`` method. A registered
    adapter takes precedence over the model's own method; the most recently
    registered class that matches (``isinstance``) wins, so a subclass may
    override its parent's adapter.

    Examples
    --------
    >>> from mltrees.inspection import register_adapter
    >>> class MyBoosting: ...
    >>> @register_adapter(MyBoosting)
    ... def _view(model):  # doctest: +SKIP
    ...     return TreeModelView(...)
    """

    def decorate(function: Callable) -> Callable:
        _ADAPTERS.append((cls, function))
        return function

    return decorate


def view_of(model) -> TreeModelView:
    """The :class:`TreeModelView` of a fitted model: its own ``_tree_model_view()``.

    A view is returned as it is; an adapter registered for the model's class
    (:func:`register_adapter`) comes before the model's method. TypeError if
    neither exists.
    """
    if isinstance(model, TreeModelView):
        return model
    for cls, function in reversed(_ADAPTERS):
        if isinstance(model, cls):
            return function(model)
    hook = getattr(model, "_tree_model_view", None)
    if hook is not None:
        return hook()
    raise TypeError(
        f"model must be a fitted mltrees tree model (a tree, forest, bagging of mltrees trees, "
        f"AdaBoost, gradient boosting or XGBoost estimator), got {type(model).__name__}"
    )


def feature_names_of(model) -> list:
    """The names of a fitted model's input columns (``x0, x1, ...`` without names)."""
    names = getattr(model, "feature_names_in_", None)
    if names is not None:
        return [str(n) for n in names]
    return [f"x{j}" for j in range(model.n_features_in_)]

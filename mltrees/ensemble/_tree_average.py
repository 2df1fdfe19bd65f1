"""How bagging and random forests of mltrees trees average their members (chapter 9).

Every member tree contributes a table indexed by node: its class
distributions (soft voting), one-hot votes (hard voting) or its values
(regression). The average over members is one walk of all trees at once
(:class:`~mltrees.ensemble._walk.StackedTrees`), built at fit and kept while
the members and the voting are those it was built from. A C4.5 member sends
a row with a missing value down every branch, so such rows are averaged
tree by tree with the weighted walk (:eq:`eq-c45-predict`).
"""

from __future__ import annotations

import numpy as np

from mltrees.ensemble._common import StackedTrees, _Thresholds, prediction_values, threads_for_rows
from mltrees.ensemble._parallel import _n_workers
from mltrees.tree.builder import TreeBuilder

__all__ = [
    "build_stack",
    "mixed_values",
    "node_tables",
    "stored_codes",
    "tree_average",
    "tree_output",
    "walker_key",
]


def _hard(ensemble) -> bool:
    """Hard voting: each member votes for one class (bagging's ``voting="hard"``)."""
    return getattr(ensemble, "voting", "soft") == "hard"


def node_tables(ensemble) -> list[np.ndarray]:
    """What each node of each tree contributes to the average."""
    tables = [member.tree_.value for member in ensemble.estimators_]
    if not _hard(ensemble):
        return tables
    eye = np.eye(len(ensemble.classes_))
    return [eye[np.argmax(table, axis=1)] for table in tables]


def mixed_values(tree, table, values, *, n_threads=None, check_block=None) -> np.ndarray:
    """Per row, ``table`` mixed over the row's end nodes with their weights (:eq:`eq-c45-predict`).

    A row that meets no missing value ends in one node with weight 1 and
    gets that node's row of ``table`` exactly.
    """
    sample, node, weight = tree.apply_weighted(values, n_threads=n_threads, check_block=check_block)
    n_rows = values.shape[0]
    out = np.empty((n_rows, table.shape[1]))
    for k in range(table.shape[1]):
        out[:, k] = np.bincount(sample, weights=weight * table[node, k], minlength=n_rows)
    return out


def tree_output(tree, values, missing: str) -> np.ndarray:
    """A member tree's node values for ``values`` (mixed over branches with C4.5)."""
    if missing == "c45":  # a row may end in several leaves
        return mixed_values(tree, tree.value, values, n_threads=1)
    return tree.value[tree.apply(values, n_threads=1)]


def _member_mix(ensemble, tree, table, values, check) -> np.ndarray:
    """A C4.5 member's contribution: its node table mixed over the row's end nodes."""
    n_threads = _n_workers(ensemble.n_jobs)
    if not _hard(ensemble):
        return mixed_values(tree, table, values, n_threads=n_threads, check_block=check)
    # A hard vote goes to the class of the member's own (mixed) prediction.
    mixed = mixed_values(tree, tree.value, values, n_threads=n_threads, check_block=check)
    return np.eye(len(ensemble.classes_))[np.argmax(mixed, axis=1)]


def tree_average(ensemble, X) -> np.ndarray:
    """Mean over the member trees of their node tables, shape (n_samples, n_columns)."""
    missing = TreeBuilder(ensemble.estimator_).missing
    values, check = prediction_values(ensemble, X, "estimators_", allow_missing=missing != "error")
    trees = [member.tree_ for member in ensemble.estimators_]
    if missing == "c45" and np.isnan(values).any():
        # C4.5's method sends a row down every branch of a node whose value
        # it misses: tree by tree, with the weighted walk (chapter 6).
        # Rows without missing values get the same sums as the walk below.
        tables = node_tables(ensemble)
        total = np.zeros((values.shape[0], tables[0].shape[1]))
        for tree, table in zip(trees, tables, strict=True):
            total += _member_mix(ensemble, tree, table, values, check)
        return total / len(trees)
    # One walk for all trees (categorical nodes included); the sum runs in
    # member order, so the average does not depend on n_jobs.
    stored = getattr(ensemble, "_stack_key", None) == walker_key(ensemble)
    forest = ensemble._stack if stored else None
    if forest is None:  # members or voting changed since fit: a walk for this call
        forest = build_stack(ensemble, n_rows=values.shape[0])
    n_threads = threads_for_rows(values.shape[0], _n_workers(ensemble.n_jobs))
    total = forest.predict(values, check, n_threads=n_threads)
    return total / len(trees)


class _Identity:
    """Compares as equal only to a wrapper of the very same object (``is``, not ``==``)."""

    __slots__ = ("item",)

    def __init__(self, item):
        self.item = item

    def __eq__(self, other) -> bool:
        return isinstance(other, _Identity) and other.item is self.item

    def __hash__(self) -> int:
        return id(self.item)


def walker_key(ensemble) -> tuple:
    """What a stored walk was built from: the member trees (by identity) and the voting."""
    trees = tuple(_Identity(member.tree_) for member in ensemble.estimators_)
    return trees, getattr(ensemble, "voting", None)


def build_stack(ensemble, n_rows=None) -> StackedTrees:
    """The members' trees stacked for one walk (:class:`StackedTrees`), with stored codes."""
    trees = [member.tree_ for member in ensemble.estimators_]
    return StackedTrees(
        trees, node_tables(ensemble), n_rows=n_rows, **stored_codes(ensemble, trees)
    )


def stored_codes(ensemble, trees) -> dict:
    """The split codes stored at fit (histogram mode), as ``StackedTrees`` arguments.

    A member's codes are used only while it still holds the tree and the
    bins they were computed for: a member taken from another ensemble
    (other bin edges) or whose tree was replaced walks on floats.
    """
    codes = [
        TreeBuilder.split_codes(member)
        if TreeBuilder.split_codes(member) is not None
        and TreeBuilder.specs(member) is ensemble._specs
        and TreeBuilder.split_codes(member).shape == (tree.node_count,)
        else None
        for member, tree in zip(ensemble.estimators_, trees, strict=True)
    ]
    if all(c is None for c in codes):
        return {}
    return {"thresholds": _Thresholds.of_bins(ensemble._specs), "split_codes": codes}

"""Utgoff's ID5R: an incremental ID3 that restructures its tree by transposition.

Every node keeps the class counts of each (attribute, value) pair of the
examples that reached it; leaves also keep those examples. After each new
example the counts along its path change, and every node whose best test
(by ID3's rule) is no longer the one it holds pulls the best attribute up
from below by *transposing* the two top levels of its subtree
(:eq:`eq-id5r-transpose`). The resulting tree is, after every example, the
tree :class:`mltrees.ID3Classifier` grows on all the examples seen so far
(:eq:`eq-id5r-invariant`).
"""

from __future__ import annotations

from typing import Self

import numpy as np
import pandas as pd
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from mltrees._frames import refuse_dtype
from mltrees._typing import ArrayLike, MatrixLike
from mltrees._validation import check_labels
from mltrees.incremental._encoding import (
    as_table,
    check_columns,
    check_target,
    declare_classes,
    encode_labels,
    feature_names,
)

# ID3Classifier's rules (mltrees.tree._grow / _split), copied so the trees agree exactly:
PURE = 1e-14  # a node whose entropy is at most this is pure
MIN_GAIN = 1e-12  # ID3 splits only on a gain above this (its zero-gain stop)
TIE_TOLERANCE = 1e-10  # gains within this times the node's entropy are ties: lowest index wins


def _entropy_bits(counts: np.ndarray) -> np.ndarray:
    """Entropy in bits of count vectors along the last axis (0 for empty rows)."""
    total = counts.sum(axis=-1, keepdims=True)
    p = counts / np.where(total > 0, total, 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(np.where(p > 0, p, 1.0)), 0.0)
    return terms.sum(axis=-1)


def id3_choice(table: np.ndarray) -> int:
    """The attribute ID3 tests at a node with these counts, or -1 for a leaf.

    Implements :eq:`eq-id5r-choice`: the largest information gain
    :eq:`eq-ch4-gain` over attributes with at least two non-empty branches,
    ties (within ``1e-10`` times the node's entropy) to the lowest index,
    and a leaf when the node is pure, holds fewer than two examples, or no
    gain exceeds ``1e-12`` -- the rules of :class:`mltrees.ID3Classifier`.

    Parameters
    ----------
    table : ndarray of shape (n_features, n_values, n_classes)
        Counts of the examples at the node by attribute value and class.
    """
    class_counts = table[0].sum(axis=0)
    n = class_counts.sum()
    parent = float(_entropy_bits(class_counts))
    if n < 2 or parent <= PURE:
        return -1
    branch = table.sum(axis=2)  # (n_features, n_values)
    children = (branch * _entropy_bits(table)).sum(axis=1) / n
    gain = parent - children
    gain[(branch > 0).sum(axis=1) < 2] = -np.inf
    best = gain.max()
    if not np.isfinite(best) or best <= MIN_GAIN:
        return -1
    return int(np.argmax(gain >= best - TIE_TOLERANCE * parent))


def _holds_inf(values: np.ndarray) -> bool:
    """Whether an object column holds an infinite number (not a category)."""
    numbers_only = pd.to_numeric(pd.Series(values), errors="coerce").to_numpy(dtype=float)
    return bool(np.isinf(numbers_only).any())


# Dtypes that are no attribute values under the package's column rule (with datetime64
# and timedelta64, kinds M and m).
_NOT_ATTRIBUTES = (pd.DatetimeTZDtype, pd.PeriodDtype, pd.IntervalDtype)


class _Node:
    """A node: counts of its examples, its test (-1 at a leaf), children by value code."""

    __slots__ = ("children", "counts", "dirty", "rows", "test")

    def __init__(self, counts, rows):
        self.counts = counts  # (n_features, n_values, n_classes), int64
        self.test = -1
        self.children = {}
        self.rows = rows  # list of example indices at a leaf, None at a decision node
        self.dirty = True  # its examples or its subtree changed since it was last checked


class ID5RClassifier(ClassifierMixin, BaseEstimator):
    """Utgoff's ID5R: ID3's tree, maintained example by example.

    Every feature is categorical (any hashable value is a category; a value
    first seen in a later batch gets a new code). After each example the tree
    equals the tree :class:`mltrees.ID3Classifier` grows on every example
    seen so far (:eq:`eq-id5r-invariant`): same tests, same tie rule, same
    zero-gain stop. Nodes keep class counts per (attribute, value), leaves
    keep their examples, and a node whose best attribute changed pulls it up
    by transposition (:eq:`eq-id5r-transpose`).

    Attributes
    ----------
    classes_ : ndarray
        The declared classes (``classes=`` of the first :meth:`partial_fit`).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X had string column names.
    categories_ : list of list
        Per feature, the values in code order (first seen first).
    n_examples_ : int
        Examples seen so far.
    n_transpositions_ : int
        Transpositions performed so far (pull-ups of one level).
    n_test_changes_ : int
        Times a decision node's best attribute changed (where ID4 would have
        discarded the subtree below it).

    Examples
    --------
    >>> from mltrees import ID3Classifier, ID5RClassifier
    >>> from mltrees.datasets import load_weather
    >>> X, y = load_weather(return_X_y=True)
    >>> tree = ID5RClassifier()
    >>> for i in range(len(y)):  # one example at a time
    ...     tree = tree.partial_fit(X.iloc[[i]], y.iloc[[i]], classes=["no", "yes"])
    ...
    >>> tree.n_transpositions_ > 0, tree.score(X, y)
    (True, 1.0)
    >>> batch = ID3Classifier().fit(X, y)  # the same tree as ID3 on all the examples
    >>> tree.predict(X).tolist() == batch.predict(X).tolist()
    True
    """

    def __init__(self):
        pass

    # ----------------------------------------------------------------- input
    def _encode(self, X, *, first: bool) -> np.ndarray:
        table = as_table(X)
        if first:
            self.n_features_in_ = table.shape[1]
            names = feature_names(table)
            if names is not None:
                self.feature_names_in_ = names
            self.categories_ = []
            for j in range(table.shape[1]):
                column = table.iloc[:, j]
                declared = list(column.cat.categories) if hasattr(column, "cat") else []
                self.categories_.append(declared)
        else:
            check_columns(self, table)
        codes = np.empty(table.shape, dtype=np.intp)
        for j in range(table.shape[1]):
            column = table.iloc[:, j]
            if column.dtype.kind in "mM" or isinstance(column.dtype, _NOT_ATTRIBUTES):
                refuse_dtype(str(table.columns[j]), column.dtype)  # the package's column rule
            values = np.asarray(column, dtype=object)
            if pd.isna(values).any() or _holds_inf(values):
                raise ValueError(
                    f"X has missing values (NaN/None) or inf in column {table.columns[j]!r}; "
                    "ID5R needs every attribute value (impute them, e.g. with "
                    "sklearn.impute.SimpleImputer(strategy='most_frequent'), or use "
                    "ID3Classifier or C45Classifier, which route missing values)"
                )
            known = pd.Index(self.categories_[j], dtype=object)
            code = known.get_indexer(values)
            new = code < 0
            if new.any():  # a new value of the attribute: the next codes
                added = pd.unique(values[new])
                self.categories_[j].extend(added.tolist())
                known = pd.Index(self.categories_[j], dtype=object)
                code = known.get_indexer(values)
            codes[:, j] = code
        return codes

    def _grow_storage(self, codes, labels):
        n_new = codes.shape[0]
        need = self.n_examples_ + n_new
        if need > self._X.shape[0]:
            capacity = max(need, 2 * self._X.shape[0], 64)
            grown_x = np.zeros((capacity, self.n_features_in_), dtype=np.intp)
            grown_x[: self.n_examples_] = self._X[: self.n_examples_]
            grown_y = np.zeros(capacity, dtype=np.intp)
            grown_y[: self.n_examples_] = self._y[: self.n_examples_]
            self._X, self._y = grown_x, grown_y
        self._X[self.n_examples_ : need] = codes
        self._y[self.n_examples_ : need] = labels
        n_values = max(len(c) for c in self.categories_)
        if n_values > self._n_values:
            self._n_values = max(n_values, 2 * self._n_values)
            self._pad_counts(self._root)

    def _pad_counts(self, node):
        if node is None:
            return
        pad = self._n_values - node.counts.shape[1]
        if pad > 0:
            node.counts = np.pad(node.counts, ((0, 0), (0, pad), (0, 0)))
        for child in node.children.values():
            self._pad_counts(child)

    # ------------------------------------------------------------ public API
    def fit(self, X: MatrixLike, y: ArrayLike) -> Self:
        """Grow the tree example by example on (X, y); the classes are those of y.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Categorical attributes.
        y : array_like of shape (n_samples,)
        """
        for attr in ("classes_", "n_features_in_", "feature_names_in_", "categories_"):
            if hasattr(self, attr):
                delattr(self, attr)
        X = as_table(X)  # an empty or malformed X is named before y is read
        y = check_target(y)
        return self.partial_fit(X, y, classes=np.unique(check_labels(y, "y")))

    def partial_fit(self, X: MatrixLike, y: ArrayLike, classes: ArrayLike | None = None) -> Self:
        """Add examples one at a time, keeping the tree equal to ID3's.

        Implements :eq:`eq-id5r-invariant` by the update of
        :eq:`eq-id5r-transpose`.

        Parameters
        ----------
        X : array_like or DataFrame of shape (n_samples, n_features)
            Categorical attributes; a new value of an attribute is accepted.
        y : array_like of shape (n_samples,)
            Labels, each among ``classes``.
        classes : array_like, optional
            Every label the stream can hold; required on the first call,
            ignored afterwards (as in scikit-learn).
        """
        first = not hasattr(self, "classes_")
        if first:
            declared = declare_classes(y, classes)
        codes = self._encode(X, first=first)
        labels = encode_labels(y, declared if first else self.classes_, codes.shape[0])
        if first:
            self.classes_ = declared
            self._X = np.zeros((0, self.n_features_in_), dtype=np.intp)
            self._y = np.zeros(0, dtype=np.intp)
            self._n_values = 1
            self._root = None
            self.n_examples_ = 0
            self.n_transpositions_ = 0
            self.n_test_changes_ = 0
        self._grow_storage(codes, labels)
        self._flat = None
        for i in range(self.n_examples_, self.n_examples_ + codes.shape[0]):
            self._add_example(i)
        self._flatten()
        return self

    # ---------------------------------------------------------- the updates
    def _empty_counts(self):
        return np.zeros((self.n_features_in_, self._n_values, self.classes_.size), dtype=np.int64)

    def _counts_of(self, rows):
        counts = self._empty_counts()
        rows = np.asarray(rows, dtype=np.intp)
        feature = np.broadcast_to(np.arange(self.n_features_in_), (rows.size, self.n_features_in_))
        np.add.at(counts, (feature, self._X[rows], self._y[rows, None]), 1)
        return counts

    def _add_example(self, i):
        x, label = self._X[i], self._y[i]
        every = np.arange(self.n_features_in_)
        if self._root is None:
            self._root = _Node(self._empty_counts(), [])
        node = self._root
        while True:  # down the current path, counting the example at every node
            node.counts[every, x, label] += 1
            node.dirty = True
            if node.test < 0:
                node.rows.append(i)
                break
            value = int(x[node.test])
            if value not in node.children:
                node.children[value] = _Node(self._empty_counts(), [])
            node = node.children[value]
        self.n_examples_ = i + 1
        self._ensure(self._root)

    def _ensure(self, node):
        """Give every changed node ID3's test, top-down; unchanged subtrees are already right."""
        if not node.dirty:
            return
        wanted = id3_choice(node.counts)
        if wanted < 0:
            if node.test >= 0:
                self._collapse(node)
        elif node.test < 0:
            self._expand(node, wanted)
        elif node.test != wanted:
            self.n_test_changes_ += 1
            self._pull_up(node, wanted)
        node.dirty = False
        for child in node.children.values():
            self._ensure(child)

    def _collapse(self, node):
        rows = []
        stack = [node]
        while stack:
            current = stack.pop()
            if current.test < 0:
                rows.extend(current.rows)
            else:
                stack.extend(current.children.values())
        node.test, node.children, node.rows = -1, {}, rows

    def _expand(self, node, attribute):
        """A leaf becomes a test of ``attribute`` with one leaf per value present."""
        rows = np.asarray(node.rows, dtype=np.intp)
        values = self._X[rows, attribute]
        node.children = {}
        for value in np.unique(values):
            part = rows[values == value]
            node.children[int(value)] = _Node(self._counts_of(part), part.tolist())
        node.test, node.rows = attribute, None

    def _pull_up(self, node, attribute):
        """Make ``node`` test ``attribute`` by transposition (:eq:`eq-id5r-transpose`).

        First every child is made to test ``attribute`` (recursively, or by
        expanding a leaf); then the two levels swap: the grandchild reached by
        (old value v, new value w) becomes the child v of the new child w.
        """
        old = node.test
        for child in node.children.values():
            if child.test < 0:
                self._expand(child, attribute)
            elif child.test != attribute:
                self._pull_up(child, attribute)
        swapped = {}
        for v, child in node.children.items():
            for w, grandchild in child.children.items():
                swapped.setdefault(w, {})[v] = grandchild
        node.children = {}
        for w, grandchildren in swapped.items():
            middle = _Node(sum(g.counts for g in grandchildren.values()), None)
            middle.test, middle.children = old, grandchildren
            node.children[w] = middle
        node.test = attribute
        self.n_transpositions_ += 1

    # ------------------------------------------------------------ prediction
    def _flatten(self):
        """Flat arrays of the tree (built once per state) for vectorized prediction."""
        if self._flat is not None:
            return self._flat
        nodes, order = [self._root], 0
        while order < len(nodes):
            nodes.extend(nodes[order].children.values())
            order += 1
        index = {id(n): k for k, n in enumerate(nodes)}
        test = np.array([n.test for n in nodes], dtype=np.intp)
        child = np.full((len(nodes), self._n_values), -1, dtype=np.intp)
        for k, n in enumerate(nodes):
            for value, c in n.children.items():
                child[k, value] = index[id(c)]
        counts = np.array([n.counts[0].sum(axis=0) for n in nodes], dtype=np.float64)
        self._flat = (test, child, counts)
        return self._flat

    def _codes_for_predict(self, X):
        check_is_fitted(self, "classes_")
        table = as_table(X)
        check_columns(self, table)
        codes = np.empty(table.shape, dtype=np.intp)
        for j in range(table.shape[1]):
            values = np.asarray(table.iloc[:, j], dtype=object)
            if pd.isna(values).any() or _holds_inf(values):
                raise ValueError(
                    f"X has missing values (NaN/None) or inf in column {table.columns[j]!r}"
                )
            codes[:, j] = pd.Index(self.categories_[j], dtype=object).get_indexer(values)
        return codes

    def apply(self, X: MatrixLike) -> np.ndarray:
        """Node reached by each sample; a value unseen at a node stops the sample there."""
        codes = self._codes_for_predict(X)
        test, child, _ = self._flatten()
        node = np.zeros(codes.shape[0], dtype=np.intp)
        rows = np.arange(codes.shape[0])
        while True:
            feature = test[node]
            go = feature >= 0
            value = np.where(go, codes[rows, np.maximum(feature, 0)], -1)
            nxt = np.where(value >= 0, child[node, np.maximum(value, 0)], -1)
            move = go & (nxt >= 0)
            if not move.any():
                return node
            node = np.where(move, nxt, node)

    def predict_proba(self, X: MatrixLike) -> np.ndarray:
        """Class fractions of the node each sample reaches."""
        check_is_fitted(self, "classes_")
        _, _, counts = self._flatten()
        reached = counts[self.apply(X)]
        return reached / reached.sum(axis=1, keepdims=True)

    def predict(self, X: MatrixLike) -> np.ndarray:
        """The majority class of the node each sample reaches (ties: first class)."""
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def structure(self):
        """The tree as nested tuples, for comparison with another learner's tree.

        A leaf is ``("leaf", {class: count})`` over the classes present; a decision node is
        ``(feature, {value: subtree})`` over the values present at the node.
        """
        check_is_fitted(self, "classes_")

        def walk(node):
            if node.test < 0:
                counts = node.counts[0].sum(axis=0)
                return ("leaf", {self.classes_[k]: int(counts[k]) for k in np.flatnonzero(counts)})
            names = self.categories_[node.test]
            return (
                node.test,
                {names[v]: walk(c) for v, c in sorted(node.children.items())},
            )

        return walk(self._root)

    @property
    def node_count_(self):
        """Number of nodes of the current tree."""
        return len(self._flatten()[0])

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        tags.input_tags.allow_nan = False
        return tags

    # Model files (chapter 18): caches not stored, rebuilt by _rebuild_caches.
    _cache_attributes = ("_flat",)

    def _rebuild_caches(self) -> None:
        """Model files: check a loaded fitted state as a whole, then rebuild the caches."""
        from mltrees.incremental._model_file import _rebuild_id5r

        _rebuild_id5r(self)

    def _drawable_tree(self, tree_index):
        """The nodes as one tree: multiway tests on categories, one child per value seen."""
        from mltrees.tree._data import CATEGORICAL, FeatureSpec
        from mltrees.tree._drawable import (
            Drawable,
            check_tree_index,
            class_distributions,
            class_impurity,
            class_names,
            feature_names,
            tree_from_nodes,
        )
        from mltrees.tree._tree import CATEGORICAL_NODE

        check_is_fitted(self, "classes_")
        check_tree_index(tree_index, 1, type(self).__name__)
        test, child, counts = self._flatten()
        n = test.size
        children, routes = [], {}
        for k in range(n):
            if test[k] < 0:
                children.append([])
                continue
            values = np.flatnonzero(child[k] >= 0)
            children.append([int(c) for c in child[k, values]])
            route = np.full(len(self.categories_[test[k]]), -1, dtype=np.intp)
            route[values[values < route.size]] = np.arange(values.size)[values < route.size]
            routes[k] = route
        weight = counts.sum(axis=1)
        tree = tree_from_nodes(
            test,
            np.full(n, np.nan),
            np.full(n, CATEGORICAL_NODE),
            children,
            routes,
            class_distributions(counts),
            weight,
            weight,
            class_impurity(counts, "entropy"),
        )
        specs = [FeatureSpec(CATEGORICAL, np.asarray(c, dtype=object)) for c in self.categories_]
        return Drawable(
            tree=tree,
            specs=specs,
            feature_names=feature_names(self),
            class_names=class_names(self),
            criterion="entropy",
            n_features=int(self.n_features_in_),
        )


class ID4Classifier(ID5RClassifier):
    """Schlimmer & Fisher's ID4: ID3's counts at every node, no stored examples.

    Each example updates the counts along its path. When a node's best test
    (:func:`id3_choice`, the rule of :eq:`eq-id5r-choice`) differs from the
    one it holds, the subtree below is discarded and the node starts again
    with the new test and no children; the children then grow from later
    examples only. So the tree is in general *not* ID3's tree on the examples
    seen (compare :class:`ID5RClassifier`, which transposes instead). The
    chi-square test Schlimmer & Fisher use before expanding a leaf is left
    out, so that the difference from ID5R is the restructuring alone.

    Attributes
    ----------
    n_discarded_ : int
        Subtrees thrown away because a node's best test changed.

    Examples
    --------
    >>> from mltrees.datasets import load_weather
    >>> from mltrees.incremental import ID4Classifier
    >>> X, y = load_weather(return_X_y=True)
    >>> tree = ID4Classifier()
    >>> for i in range(len(y)):  # one example at a time
    ...     tree = tree.partial_fit(X.iloc[[i]], y.iloc[[i]], classes=["no", "yes"])
    ...
    >>> tree.structure()[0], tree.score(X, y)  # the root tests outlook (feature 0)
    (0, 0.7857142857142857)
    """

    def _add_example(self, i):
        x, label = self._X[i], self._y[i]
        every = np.arange(self.n_features_in_)
        if self._root is None:
            self._root = _Node(self._empty_counts(), None)
            self.n_discarded_ = 0
        node = self._root
        while True:
            node.counts[every, x, label] += 1
            wanted = id3_choice(node.counts)
            if wanted != node.test:
                if node.children:
                    self.n_discarded_ += 1
                    self.n_test_changes_ += 1
                node.test, node.children = wanted, {}
            if node.test < 0:
                break
            value = int(x[node.test])
            if value not in node.children:
                node.children[value] = _Node(self._empty_counts(), None)
            node = node.children[value]
        self.n_examples_ = i + 1

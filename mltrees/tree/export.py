"""Showing a fitted tree: indented text, Graphviz DOT and a matplotlib drawing (chapter 2).

All three read the flat arrays of :class:`mltrees.tree.Tree` and cover
every node kind of the book: binary threshold nodes (``x <= t`` / ``x > t``),
multiway category nodes (one branch per category, ``outlook = sunny``) and
binary category-subset nodes (``color in {green, dark}``).

How a branch is labelled: each child lists exactly the categories that are
routed to it -- a single category prints as ``= c``, several as
``in {c1, c2}``. A category that never reached a node in training (a ``-1``
in the node's routing table) is routed to *no* child and is not printed; a
sample with that category stops at the node and gets the node's own value
(:meth:`Tree.apply`). An empty branch of a multiway split (no training
samples) is a leaf that inherited its parent's distribution; it is marked
``(empty branch)``.
"""

from __future__ import annotations

import dataclasses
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from mltrees._optional import import_optional
from mltrees._validation import check_int
from mltrees.tree._drawable import drawable
from mltrees.tree._tree import CATEGORICAL_NODE, LEAF, Tree
from mltrees.tree.oblique import ObliqueTree

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["export_text", "plot_tree", "to_dot"]

# matplotlib's "tab10" colours, one per class (cycled beyond ten classes).
_PALETTE = (
    (31, 119, 180),
    (255, 127, 14),
    (44, 160, 44),
    (214, 39, 40),
    (148, 103, 189),
    (140, 86, 75),
    (227, 119, 194),
    (127, 127, 127),
    (188, 189, 34),
    (23, 190, 207),
)
_REGRESSION_RGB = (229, 129, 57)


@dataclass
class _View:
    """A fitted estimator reduced to what the three renderers need."""

    tree: Tree
    specs: list
    feature_names: list[str]
    class_names: list[str] | None  # None for a regressor
    decimals: int
    criterion: str

    @property
    def is_classifier(self) -> bool:
        return self.class_names is not None

    def number(self, x: float) -> str:
        return f"{x:.{self.decimals}f}"

    def counts(self, node: int) -> str:
        """Weighted class counts of a node, as integers when they are whole."""
        counts = self.tree.value[node] * self.tree.weighted_n_node_samples[node]
        if np.allclose(counts, np.round(counts)):
            return "[" + ", ".join(str(int(np.round(c))) for c in counts) + "]"
        return "[" + ", ".join(self.number(c) for c in counts) + "]"

    def prediction(self, node: int, sep: str) -> str:
        """``class: yes`` or ``value: 1.234`` (``sep`` is ``": "`` or ``" = "``)."""
        if self.is_classifier:
            return f"class{sep}{self.class_names[int(np.argmax(self.tree.value[node]))]}"
        return f"value{sep}{self.number(self.tree.value[node, 0])}"

    def is_empty(self, node: int) -> bool:
        return bool(self.tree.n_node_samples[node] == 0)

    def branches(self, node: int) -> list[tuple[str, str]]:
        """``(operator, operand)`` of each child slot of an internal node."""
        tree = self.tree
        if tree.kind[node] != CATEGORICAL_NODE:
            threshold = self.number(tree.threshold[node])
            return [("<=", threshold), (">", threshold)]
        offset, n_codes = tree.route_offset[node], tree.n_categories[node]
        table = tree.route_table[offset : offset + n_codes]
        categories = np.asarray(self.specs[tree.feature[node]].values)[: table.size]
        branches = []
        for slot in range(int(tree.n_children[node])):
            mine = [str(c) for c in categories[table == slot]]
            if len(mine) == 1:
                branches.append(("=", mine[0]))
            else:
                branches.append(("in", "{" + ", ".join(mine) + "}"))
        return branches

    def surrogate_line(self, node: int) -> str:
        """CART's surrogate splits of a node, as the conditions that send a row left.

        ``surrogates of feature_0, the first known decides, left if:
        feature_1 <= 0.5 (agreement 0.950), ...; none known: left``: a row
        whose ``feature_0`` is missing is routed by the first surrogate whose
        feature it knows, else goes to the majority child (chapter 6).
        """
        tree = self.tree
        parts = []
        for rank in np.flatnonzero(tree.surrogate_feature[node] >= 0):
            feature = self.feature_names[tree.surrogate_feature[node, rank]]
            left_is_low = tree.surrogate_low_slot[node, rank] == 0
            operator = "<=" if left_is_low else "> "
            threshold = self.number(tree.surrogate_threshold[node, rank])
            agreement = self.number(tree.surrogate_agreement[node, rank])
            parts.append(f"{feature} {operator} {threshold} (agreement {agreement})")
        majority = "left" if tree.missing_slot[node] == 0 else "right"
        name = self.feature_names[tree.feature[node]]
        return (
            f"surrogates of {name}, the first known decides, left if: "
            + ", ".join(parts)
            + f"; none known: {majority}"
        )

    def children(self, node: int) -> range:
        first = int(self.tree.first_child[node])
        return range(first, first + int(self.tree.n_children[node]))

    def node_lines(self, node: int, *, impurity: bool) -> list[str]:
        """The lines of a node's box in the DOT and matplotlib renderings."""
        tree = self.tree
        leaf = tree.feature[node] == LEAF
        lines = [self.prediction(node, " = ")] if leaf else [self.feature_names[tree.feature[node]]]
        if impurity:
            lines.append(f"{self.criterion} = {self.number(tree.impurity[node])}")
        lines.append(f"samples = {int(tree.n_node_samples[node])}")
        if self.is_classifier:
            lines.append(f"value = {self.counts(node)}")
        if not leaf:
            lines.append(self.prediction(node, " = "))
        if leaf and self.is_empty(node):
            lines.append("(empty branch)")
        return lines

    def rgb(self, node: int) -> tuple[float, float, float]:
        """Class colour faded towards white as the node gets less pure (sklearn's rule)."""
        value = self.tree.value[node]
        if self.is_classifier:
            base = _PALETTE[int(np.argmax(value)) % len(_PALETTE)]
            top = np.sort(value)[::-1]
            second = top[1] if top.size > 1 else 0.0
            alpha = (top[0] - second) / (1.0 - second) if second < 1.0 else 0.0
        else:
            base = _REGRESSION_RGB
            values = self.tree.value[:, 0]
            spread = values.max() - values.min()
            alpha = (value[0] - values.min()) / spread if spread > 0 else 0.0
        alpha = float(np.clip(alpha, 0.0, 1.0))
        return tuple(alpha * c + (1.0 - alpha) * 255.0 for c in base)


def _names(value, name: str, expected: int, what: str) -> list[str]:
    if isinstance(value, str | bytes) or not hasattr(value, "__iter__"):
        raise TypeError(f"{name} must be a list of {expected} strings, got {type(value).__name__}")
    names = [str(v) for v in value]
    if len(names) != expected:
        raise ValueError(f"{name} has {len(names)} entries, but the tree has {expected} {what}")
    return names


def _decimals(decimals, precision):
    """``decimals``, or ``precision`` (the namesakes' name for it) when that is given."""
    if precision is None:
        return decimals
    if decimals != 3:
        raise ValueError(
            f"pass decimals or precision (the same setting), not both: got decimals={decimals!r} "
            f"and precision={precision!r}"
        )
    check_int(precision, "precision", 0)
    return precision


def _view(estimator, function: str, feature_names, class_names, decimals, tree_index=0) -> _View:
    """Validate the common arguments of every renderer; pick tree ``tree_index``."""
    drawn = drawable(estimator, tree_index, function)
    check_int(decimals, "decimals", 0)
    n_features = drawn.n_features
    if feature_names is None:
        names = drawn.feature_names or [f"feature_{j}" for j in range(n_features)]
    else:
        names = _names(feature_names, "feature_names", n_features, "features")
    if drawn.class_names is not None:
        if class_names is None:
            labels = drawn.class_names
        else:
            labels = _names(class_names, "class_names", len(drawn.class_names), "classes")
    else:
        if class_names is not None:
            raise ValueError(
                f"class_names applies to classifiers only (trees that predict class "
                f"distributions); the trees of {type(estimator).__name__} predict values"
            )
        labels = None
    view = _View(
        tree=drawn.tree,
        specs=drawn.specs,
        feature_names=names,
        class_names=labels,
        decimals=int(decimals),
        criterion=drawn.criterion,
    )
    if isinstance(drawn.tree, ObliqueTree):
        return _linear_tests(view, per_line=3 if function == "plot_tree" else None)
    return view


def _linear_tests(view: _View, per_line: int | None) -> _View:
    """An oblique tree's view (chapter 8): each internal node tests a weighted sum.

    The renderers print ``feature_names[feature[node]]`` before ``<= t``, so
    the view gets one "feature" per internal node, the text of its weighted
    sum (weights with ``decimals + 1`` significant digits, zero weights left
    out; ``per_line`` terms a line in drawings).
    """
    tree = view.tree
    internal = np.flatnonzero(tree.feature != LEAF)
    tests = []
    for node in internal:
        terms = []
        for name, weight in zip(view.feature_names, tree.coef[node], strict=True):
            if weight == 0.0:
                continue
            # Significant digits, not fixed decimals: a tiny weight on a
            # feature in large units still matters and must not print as 0.
            text = f"{abs(weight):#.{view.decimals + 1}g}"
            sign = "-" if weight < 0 else "+"
            terms.append((sign, f"{text}*{name}"))
        pieces = [
            ("-" if sign == "-" else "") + term if i == 0 else f" {sign} {term}"
            for i, (sign, term) in enumerate(terms)
        ]
        if per_line:
            pieces = [
                p if i == 0 or i % per_line else "\n" + p.lstrip() for i, p in enumerate(pieces)
            ]
        tests.append("".join(pieces))
    feature = tree.feature.copy()
    feature[internal] = np.arange(internal.size)
    return dataclasses.replace(
        view, tree=dataclasses.replace(tree, feature=feature), feature_names=tests
    )


def _subtree_heights(tree: Tree) -> np.ndarray:
    """Number of tests on the longest path below each node (0 at leaves)."""
    height = np.zeros(tree.node_count, dtype=np.intp)
    for level in range(tree.max_depth, 0, -1):
        nodes = np.flatnonzero(tree.depth == level)
        np.maximum.at(height, tree.parent[nodes], height[nodes] + 1)
    return height


def export_text(
    estimator: object,
    *,
    tree_index: int = 0,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    decimals: int = 3,
    max_depth: int | None = None,
    show_weights: bool = False,
) -> str:
    """Indented text rendering of a fitted tree, one line per branch and leaf.

    The layout follows scikit-learn's ``export_text``, extended to the node
    kinds of chapter 2: numeric tests print as ``x <= t`` / ``x >  t``, a
    multiway split on a category prints one ``x = c`` line per branch, and a
    binary category-subset split (CART) lists the categories each branch
    receives, ``x in {a, b}``. Categories that never reached a node are routed
    to no branch and are not listed (a sample carrying one stops at that node).
    Leaves print ``class: c`` or ``value: v``; an empty branch of a multiway
    split, which inherits its parent's distribution, is marked
    ``(empty branch)``. A node with CART's surrogate splits
    (``missing="surrogate"``, chapter 6) prints them on a line before its
    branches: the condition of each surrogate that sends a row to the left
    branch, best first, and the majority branch taken when none applies.

    Parameters
    ----------
    estimator : fitted mltrees tree or tree ensemble
        A single tree (CART, C4.5, ID3, oblique, the Hoeffding tree, ID5R) or
        an ensemble of trees (random forest, bagging, AdaBoost, gradient
        boosting, XGBoost, LightGBM, oblivious boosting, an imported model).
    tree_index : int, default 0
        Which tree of an ensemble (LightGBM's ``tree_index``, XGBoost's
        ``tree_idx``): forests (Dask ones too), bagging and AdaBoost count
        members; boosting counts rounds, then outputs within a round
        (``round * n_outputs + output``). Negative values count from the end. The trees of boosting
        show at every node what a row ending there adds to the margin (the
        learning rate included); the others show class counts or values.
    feature_names : list of str, optional
        One name per feature. Default: ``estimator.feature_names_in_`` when the
        tree was fitted on a DataFrame, else ``feature_0``, ``feature_1``, ...
    class_names : list of str, optional
        One name per entry of ``estimator.classes_`` (classifiers only).
        Default: the classes themselves.
    decimals : int, default 3
        Digits after the decimal point of thresholds, values and weights.
    max_depth : int or None, default None
        Show the tests of nodes down to this depth (the root has depth 0);
        deeper internal nodes print as ``truncated branch of depth k``, with
        ``k`` the number of tests on the longest path below them.
    show_weights : bool, default False
        Classifiers: print the weighted class counts of every leaf,
        ``weights: [2, 3] class: yes``. Regressors: append the weighted number
        of samples, ``value: 1.234 (weight: 5.000)``.

    Returns
    -------
    str
        The rendering, one line per branch or leaf, ending with a newline.

    Raises
    ------
    TypeError
        If ``estimator`` is not an mltrees tree, or the names are not a list.
    ValueError
        If the estimator is not fitted (``NotFittedError``), a list of names
        has the wrong length, ``decimals`` or ``max_depth`` is negative.

    See Also
    --------
    to_dot, plot_tree

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from mltrees.tree import CARTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> tree = CARTClassifier(max_depth=1).fit(X, y)
    >>> print(export_text(tree, decimals=2), end="")
    |--- feature_2 <= 2.45
    |   |--- class: 0
    |--- feature_2 >  2.45
    |   |--- class: 1
    """
    view = _view(estimator, "export_text", feature_names, class_names, decimals, tree_index)
    check_int(max_depth, "max_depth", 0, allow_none=True)
    tree = view.tree
    height = _subtree_heights(tree) if max_depth is not None else None

    def leaf_text(node: int) -> str:
        if view.is_classifier:
            text = view.prediction(node, ": ")
            if show_weights:
                counts = tree.value[node] * tree.weighted_n_node_samples[node]
                text = "weights: [" + ", ".join(map(view.number, counts)) + "] " + text
        else:
            text = view.prediction(node, ": ")
            if show_weights:
                text += f" (weight: {view.number(tree.weighted_n_node_samples[node])})"
        return text + (" (empty branch)" if view.is_empty(node) else "")

    lines = []
    stack: list[tuple[int, str | None]] = [(0, None)]  # (node, its branch condition)
    while stack:
        node, condition = stack.pop()
        depth = int(tree.depth[node])
        if condition is not None:
            lines.append("|   " * (depth - 1) + "|--- " + condition)
        indent = "|   " * depth + "|--- "
        if tree.feature[node] == LEAF:
            lines.append(indent + leaf_text(node))
        elif max_depth is not None and depth > max_depth:
            lines.append(indent + f"truncated branch of depth {int(height[node])}")
        else:
            name = view.feature_names[tree.feature[node]]
            children = view.children(node)
            conditions = [
                f"{name} {'>  ' if op == '>' else op + ' '}{operand}"
                for op, operand in view.branches(node)
            ]
            if tree.has_surrogates and tree.surrogate_feature[node, 0] >= 0:
                lines.append(indent + view.surrogate_line(node))
            stack.extend(reversed(list(zip(children, conditions, strict=True))))
    return "\n".join(lines) + "\n"


def _dot_string(text: str) -> str:
    """A double-quoted DOT string; backslashes, quotes and newlines escaped."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{escaped}"'


def _hex(rgb) -> str:
    return "#" + "".join(f"{round(c):02x}" for c in rgb)


def to_dot(
    estimator: object,
    *,
    tree_index: int = 0,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    decimals: int = 3,
    filled: bool = False,
    precision: int | None = None,
) -> str:
    """Graphviz DOT text of a fitted tree (render it with ``dot -Tsvg``).

    Every node becomes one box: an internal node shows the feature it tests,
    a leaf its prediction, followed by the node's impurity, number of
    training samples, weighted class counts (classifiers) and majority class
    or mean. Edges carry the branch condition: ``<= t`` / ``> t`` for numeric
    tests, ``= c`` for a single category and ``in {a, b}`` for a subset (see
    :func:`export_text` for categories that reach no branch). No graphviz
    package is needed to produce the text.

    Parameters
    ----------
    estimator : fitted mltrees tree or tree ensemble
        A single tree (CART, C4.5, ID3, oblique, the Hoeffding tree, ID5R) or
        an ensemble of trees (random forest, bagging, AdaBoost, gradient
        boosting, XGBoost, LightGBM, oblivious boosting, an imported model).
    tree_index : int, default 0
        Which tree of an ensemble (LightGBM's ``tree_index``, XGBoost's
        ``tree_idx``): forests (Dask ones too), bagging and AdaBoost count
        members; boosting counts rounds, then outputs within a round
        (``round * n_outputs + output``). Negative values count from the end. The trees of boosting
        show at every node what a row ending there adds to the margin (the
        learning rate included); the others show class counts or values.
    feature_names : list of str, optional
        One name per feature; defaults as in :func:`export_text`.
    class_names : list of str, optional
        One name per class (classifiers only); defaults to ``classes_``.
    decimals : int, default 3
        Digits after the decimal point of thresholds, impurities and values.
    filled : bool, default False
        Fill every node with the colour of its majority class, faded towards
        white as the node gets less pure (regressors: one hue, darker for a
        larger mean), as scikit-learn's ``export_graphviz`` does.
    precision : int, optional
        ``decimals`` under the name scikit-learn's ``export_graphviz`` gives
        it; pass one of the two.

    Returns
    -------
    str
        A ``digraph Tree { ... }`` description, one line per node and edge.

    Raises
    ------
    TypeError
        If ``estimator`` is not an mltrees tree, or the names are not a list.
    ValueError
        If the estimator is not fitted, a list of names has the wrong length,
        or ``decimals`` is negative.

    See Also
    --------
    export_text, plot_tree

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from mltrees.tree import CARTClassifier
    >>> X, y = load_iris(return_X_y=True)
    >>> dot = to_dot(CARTClassifier(max_depth=1).fit(X, y), filled=True)
    >>> dot.splitlines()[0], dot.count("->")
    ('digraph Tree {', 2)
    """
    decimals = _decimals(decimals, precision)
    view = _view(estimator, "to_dot", feature_names, class_names, decimals, tree_index)
    tree = view.tree
    style = '"filled, rounded"' if filled else '"rounded"'
    lines = [
        "digraph Tree {",
        f'node [shape=box, style={style}, color="black", fontname="helvetica"] ;',
        'edge [fontname="helvetica"] ;',
    ]
    for node in range(tree.node_count):
        lines_of_node = view.node_lines(node, impurity=True)
        label = "\\n".join(_dot_string(line)[1:-1] for line in lines_of_node)
        attributes = f'label="{label}"'
        if filled:
            attributes += f', fillcolor="{_hex(view.rgb(node))}"'
        lines.append(f"{node} [{attributes}] ;")
        if tree.feature[node] != LEAF:
            for child, (op, operand) in zip(view.children(node), view.branches(node), strict=True):
                lines.append(f"{node} -> {child} [label={_dot_string(f'{op} {operand}')}] ;")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _layout(tree: Tree, shown: np.ndarray, expanded: np.ndarray) -> np.ndarray:
    """Horizontal position of each shown node; the drawing's leaves get 0, 1, 2, ...

    A node whose children are drawn sits midway between its first and last
    child, so the drawing is tidy for any number of children.
    """
    x = np.full(tree.node_count, np.nan)
    column = 0
    stack = [0]
    while stack:  # pre-order walk: the drawing's leaves in left-to-right order
        node = stack.pop()
        if expanded[node]:
            first = int(tree.first_child[node])
            stack.extend(range(first + int(tree.n_children[node]) - 1, first - 1, -1))
        else:
            x[node] = column
            column += 1
    for level in range(int(tree.depth[shown].max()), -1, -1):
        nodes = np.flatnonzero(shown & expanded & (tree.depth == level))
        first = tree.first_child[nodes]
        x[nodes] = (x[first] + x[first + tree.n_children[nodes] - 1]) / 2.0
    return x


EDGE_LABEL_POSITION = 0.6  # where a branch label sits, from parent (0) to child (1)


def plot_tree(
    estimator: object,
    *,
    tree_index: int = 0,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    decimals: int = 3,
    max_depth: int | None = None,
    ax: Axes | None = None,
    fontsize: float | None = None,
    precision: int | None = None,
) -> Axes:
    """Draw a fitted tree with matplotlib: boxes for nodes, labelled lines for branches.

    The layout is the simple tidy one: the leaves of the drawing are spaced
    evenly from left to right, every internal node is centred over its
    children, and depth runs down the y axis, so multiway nodes need no
    special care. Internal nodes show the tested feature, the number of
    training samples, the weighted class counts (classifiers) and the
    majority class or mean; leaves start with their prediction. Branches are
    labelled as in :func:`to_dot`; leaves are tinted with their class colour.

    Parameters
    ----------
    estimator : fitted mltrees tree or tree ensemble
        A single tree (CART, C4.5, ID3, oblique, the Hoeffding tree, ID5R) or
        an ensemble of trees (random forest, bagging, AdaBoost, gradient
        boosting, XGBoost, LightGBM, oblivious boosting, an imported model).
    tree_index : int, default 0
        Which tree of an ensemble (LightGBM's ``tree_index``, XGBoost's
        ``tree_idx``): forests (Dask ones too), bagging and AdaBoost count
        members; boosting counts rounds, then outputs within a round
        (``round * n_outputs + output``). Negative values count from the end. The trees of boosting
        show at every node what a row ending there adds to the margin (the
        learning rate included); the others show class counts or values.
    feature_names : list of str, optional
        One name per feature; defaults as in :func:`export_text`.
    class_names : list of str, optional
        One name per class (classifiers only); defaults to ``classes_``.
    decimals : int, default 3
        Digits after the decimal point of thresholds and values.
    max_depth : int or None, default None
        Draw the tests of nodes down to this depth (as in :func:`export_text`);
        a deeper internal node is drawn as ``(...)``.
    ax : matplotlib Axes, optional
        Where to draw. Default: a new figure sized to the tree.
    fontsize : float, optional
        Font size of the node boxes; by default the largest size (at most 10)
        at which the boxes do not overlap.
    precision : int, optional
        ``decimals`` under the name scikit-learn's and LightGBM's
        ``plot_tree`` give it; pass one of the two.

    Returns
    -------
    matplotlib.axes.Axes
        The Axes drawn on, with its axis turned off. Node boxes are the texts
        that have a bbox patch; branch labels and ``(...)`` have none.

    Raises
    ------
    TypeError
        If ``estimator`` is not an mltrees tree, or the names are not a list.
    ValueError
        If the estimator is not fitted, a list of names has the wrong length,
        or ``decimals`` or ``max_depth`` is negative.

    See Also
    --------
    export_text, to_dot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from sklearn.datasets import load_iris
    >>> from mltrees.tree import CARTClassifier
    >>> X, y = load_iris(return_X_y=True, as_frame=True)
    >>> ax = plot_tree(CARTClassifier(max_depth=2).fit(X, y))
    >>> sum(text.get_bbox_patch() is not None for text in ax.texts)
    5
    """
    decimals = _decimals(decimals, precision)
    view = _view(estimator, "plot_tree", feature_names, class_names, decimals, tree_index)
    check_int(max_depth, "max_depth", 0, allow_none=True)
    if fontsize is not None and (
        isinstance(fontsize, bool) or not isinstance(fontsize, numbers.Real) or fontsize <= 0
    ):
        raise ValueError(f"fontsize must be a positive number or None, got {fontsize!r}")
    plt = import_optional("matplotlib.pyplot", extra="plot", feature="plot_tree")
    from matplotlib import patheffects

    tree = view.tree
    limit = np.inf if max_depth is None else max_depth
    internal = tree.feature != LEAF
    expanded = internal & (tree.depth <= limit)
    shown = tree.depth <= limit + 1
    x = _layout(tree, shown, expanded)
    n_columns = int(np.nanmax(x)) + 1
    n_levels = int(tree.depth[shown].max()) + 1
    boxes = {int(i): view.node_lines(int(i), impurity=False) for i in np.flatnonzero(shown)}
    truncated = {i for i in boxes if internal[i] and not expanded[i]}
    widest = max(max(len(line) for line in lines) for lines in boxes.values())
    tallest = max(len(lines) for lines in boxes.values())

    # Box size in units of the font size: ~0.6 em per character, 1.2 em per line.
    box_width, box_height = 0.62 * widest + 1.2, 1.25 * tallest + 1.0
    if ax is None:
        width = np.clip(n_columns * box_width * 9 / 0.85 / 72, 3.0, 40.0)
        height = np.clip(n_levels * box_height * 9 / 0.55 / 72, 2.0, 30.0)
        figure = plt.figure(figsize=(float(width), float(height)))
        ax = figure.add_axes((0.01, 0.01, 0.98, 0.98))
    figure = ax.figure
    ax.set_xlim(-0.5, n_columns - 0.5)
    ax.set_ylim(-(n_levels - 1) - 0.5, 0.5)
    ax.axis("off")
    position = ax.get_position()
    ax_width = position.width * figure.get_figwidth() * 72.0  # points
    ax_height = position.height * figure.get_figheight() * 72.0
    column_pts, level_pts = ax_width / n_columns, ax_height / n_levels
    size = fontsize
    if size is None:
        size = min(10.0, 0.85 * column_pts / box_width, 0.55 * level_pts / box_height)

    def draw_edge(parent: int, child: int, label: str):
        xp, yp, xc, yc = x[parent], -tree.depth[parent], x[child], -tree.depth[child]
        ax.plot([xp, xc], [yp, yc], color="0.35", linewidth=0.9, zorder=1)
        # Beside the line, nearer the child than the parent: siblings' labels
        # sit at one height and are spread by most of their children's spacing.
        along = EDGE_LABEL_POSITION
        side = np.sign(xc - xp)
        return ax.annotate(
            label,
            xy=(xp + along * (xc - xp), yp + along * (yc - yp)),
            xytext=(4.0 * side if side else 4.0, 0.0),
            textcoords="offset points",
            ha="right" if side < 0 else "left",
            va="center",
            fontsize=0.85 * size,
            color="0.15",
            # a white halo, not a bbox: node boxes are the texts with a bbox patch
            path_effects=[patheffects.withStroke(linewidth=3, foreground="white")],
            zorder=2,
        )

    node_texts, edge_texts = [], []
    for node, lines in boxes.items():
        if node > 0:
            op, operand = view.branches(int(tree.parent[node]))[
                node - tree.first_child[tree.parent[node]]
            ]
            edge_texts.append(draw_edge(int(tree.parent[node]), node, f"{op} {operand}"))
        xy = (x[node], -tree.depth[node])
        if node in truncated:
            edge_texts.append(
                ax.text(*xy, "(...)", ha="center", va="center", fontsize=size, zorder=3)
            )
            continue
        leaf = not internal[node]
        face = "white"
        if leaf:
            face = _hex(0.45 * np.asarray(view.rgb(node)) + 0.55 * 255.0)
        bbox = {
            "boxstyle": "round,pad=0.4",
            "facecolor": face,
            "edgecolor": "0.25",
            "linewidth": 0.8,
        }
        node_texts.append(
            ax.text(
                *xy, "\n".join(lines), ha="center", va="center", fontsize=size, bbox=bbox, zorder=3
            )
        )

    if fontsize is None:
        _shrink_to_fit(figure, node_texts, edge_texts, column_pts, level_pts)
    return ax


def _shrink_to_fit(figure, node_texts, edge_texts, column_pts, level_pts) -> None:
    """Measure the drawn texts and scale all fonts down until none overlap.

    Node boxes must fit their column and level; then branch labels and boxes
    are checked pairwise, and the fonts shrink step by step while any two
    overlap (a label crossing its own edge line is fine: it has a white
    halo).
    """
    get_renderer = getattr(figure.canvas, "get_renderer", None)
    if get_renderer is None or not node_texts:
        return
    try:
        renderer = get_renderer()
        extents = _extents(node_texts, renderer)
    except Exception:  # a backend without a usable renderer: keep the estimate
        return
    to_points = 72.0 / figure.dpi
    widest = (extents[:, 2] - extents[:, 0]).max() * to_points
    tallest = (extents[:, 3] - extents[:, 1]).max() * to_points
    scale = min(1.0, 0.92 * column_pts / widest, 0.62 * level_pts / tallest)
    texts = node_texts + edge_texts
    for _ in range(12):
        if scale < 1.0:
            for text in texts:
                text.set_fontsize(text.get_fontsize() * scale)
        # A gap of a few points between texts, so that neighbours do not read as one.
        gap = 3.0 / to_points
        if not _any_overlap(_extents(texts, renderer) + np.array([-gap, -gap, gap, gap]) / 2):
            return
        scale = 0.9


def _extents(texts, renderer) -> np.ndarray:
    """Display-space boxes (x0, y0, x1, y1) of texts, their bbox patch included."""
    boxes = []
    for text in texts:
        if text.get_bbox_patch() is not None:
            text.update_bbox_position_size(renderer)
            boxes.append(text.get_bbox_patch().get_window_extent(renderer).extents)
        else:
            boxes.append(text.get_window_extent(renderer).extents)
    return np.array(boxes)


def _any_overlap(extents: np.ndarray) -> bool:
    """Whether any two of the boxes intersect (touching edges do not count)."""
    x0, y0, x1, y1 = (extents[:, k] for k in range(4))
    apart = (
        (x1[:, None] <= x0[None, :])
        | (x1[None, :] <= x0[:, None])
        | (y1[:, None] <= y0[None, :])
        | (y1[None, :] <= y0[:, None])
    )
    np.fill_diagonal(apart, True)
    return not apart.all()

"""mltrees against scikit-learn 1.9 on drawn tables and parameters (issue 30).

What is claimed equal, and compared here:

* ``CARTClassifier`` / ``CARTRegressor`` and ``DecisionTree*``: criterion,
  max_depth, min_samples_split, min_samples_leaf, min_weight_fraction_leaf,
  max_leaf_nodes, min_impurity_decrease, ccp_alpha, class_weight, sample
  weights with zeros, and max_features where it draws nothing (None, 1.0 or
  every feature: scikit-learn's draws come from its own generator, which
  mltrees does not reproduce). The tree node by node (feature, threshold,
  rows, values, the side of NaN) and every prediction.
* ``RandomForest*`` where seeds allow: without bootstrap and with every
  feature at every node each tree is CART's tree, in both libraries; the
  members node by node and the forest's predictions.
* ``GradientBoosting*``: squared error and log-loss (binary, multiclass),
  without subsampling, max_features drawing nothing; every tree of every
  round node by node, and the raw scores. Absolute error and Huber are not
  claimed: scikit-learn's leaves take the lower weighted median (and the
  lower quantile for Huber's delta), mltrees the midpoint, as numpy.
* ``HistGradientBoostingRegressor`` (squared error) with depth-limited or
  leaf-budget trees, no regularisation, no early stopping and at most 255
  distinct values per feature: the training rows' predictions. New rows are
  not claimed (scikit-learn keeps the highest of the thresholds that part the
  training rows alike, mltrees the lowest), nor the classifier (its trees are
  grown with the second-order gain, Friedman's with the residuals' variance).
  Named exceptions: ``float32 tie`` (two splits whose decreases agree to
  scikit-learn's float32 gradients), ``zero-gain split`` (a split whose
  decrease is zero to that precision, made by one library only: scikit-learn
  needs a positive float32 gain, and residuals at rounding level give one by
  chance), ``min_hessian_to_split`` and ``best-first tie``.
* ``Stacking*``: the same members, folds and final estimator give the same
  level-1 features and predictions, bit for bit. Named exception
  ``passthrough NaN refused early``: with ``passthrough=True`` and a final
  estimator that refuses NaN, mltrees' ``transform`` refuses rows with NaN,
  naming the column and the fix (its ``allow_nan`` tag says so), where
  scikit-learn's returns them and its final estimator fails at ``predict``.

scikit-learn works on float32 copies of X, so every table is made
float32-representable first. The oracle accepts a difference only as a named
exception that the test detects by itself at the first node where the trees
part, and counts (``differential/report.py``):

* ``tie``: both split the node's rows, differently, with the same impurity
  decrease (recomputed in float64 from the rows, to 1e-9 of the node's scale).
  scikit-learn keeps the first of tied splits in a random feature order
  (``_sklearn_ties``: its eight seeds are tried first; one of them usually
  grows mltrees' tree), mltrees the lowest feature index.
* ``best-first tie``: with max_leaf_nodes, two leaves whose best splits have
  the same impurity decrease (both split in the end or not), split in a
  different order before the budget ran out; ``best-first after a tie``: a
  leaf split in one tree only because a tie elsewhere (a parting tie, or two
  splits both trees made with equal decreases, so possibly in the other
  order) made the two trees spend their leaf budget on different subtrees;
  ``best-first after a pure node split``: likewise after a ``pure node
  split``, which spends one of scikit-learn's leaves (mltrees then has one
  left for a leaf scikit-learn never reaches).
* ``pure node split``: scikit-learn splits a node whose rows all have one class
  (or one target), because its impurity came out above ``EPSILON`` (2.2e-16)
  by rounding; the children predict what the node did.
* ``near values``: scikit-learn never cuts between two float32 values less
  than ``FEATURE_THRESHOLD`` (1e-7) apart; mltrees cut there.
* ``impurity floor``: scikit-learn's node impurity came out at most ``EPSILON``
  without the node being pure, and it made a leaf of it.
* ``min_impurity_decrease boundary``: the decrease equals the parameter to rounding.
* ``min_weight_fraction_leaf boundary``: a child of one library's split weighs
  ``min_weight_fraction_leaf`` times the total weight to rounding (with
  balanced class weights, 3 x 284/300 against 0.01 x 284): the float sums
  decide whether the child is allowed.

Rows that pass through a node where the trees part by a tie are left out of
the prediction comparison; every other row must be predicted identically.
"""

from __future__ import annotations

import numpy as np
import pytest
from _sklearn_ties import SEEDS
from hypothesis import given, note, settings
from hypothesis import strategies as st
from sklearn import ensemble as sk_ensemble
from sklearn import tree as sk_tree
from sklearn.utils.class_weight import compute_class_weight

import mltrees
from differential.conftest import PROFILE
from differential.report import record
from differential.strategies import NAN_PATTERNS, make_table, tables

SK_EPSILON = np.finfo(np.float64).eps  # scikit-learn's floor of a node's impurity
FEATURE_THRESHOLD = np.float32(1e-7)  # scikit-learn never cuts between closer values
SK_LEAF = -1  # children_left of a leaf in scikit-learn
#: Exceptions after which the rows through the node are predicted differently.
PARTING = (
    "tie",
    "best-first tie",
    "best-first after a tie",
    "best-first after a pure node split",
    "near values",
    "impurity floor",
    "min_impurity_decrease boundary",
    "min_weight_fraction_leaf boundary",
)


def _float32(X: np.ndarray) -> np.ndarray:
    return np.asarray(X, dtype=np.float32).astype(np.float64)


def _inputs(table, task):
    """What both libraries are fitted on: ``classification, X, X_test, y, weights``.

    Shared by the CART, forest and gradient boosting comparisons: features
    rounded to float32 (scikit-learn's trees split in float32), integer labels
    for classification.
    """
    classification = task != "regression"
    X, X_test = _float32(table.X), _float32(table.X_test)
    y = table.y.astype(int) if classification else table.y
    return classification, X, X_test, y, table.sample_weight


# ---------------------------------------------------------------------------
# Impurity decreases recomputed from the rows, independently of both libraries
# ---------------------------------------------------------------------------


class Targets:
    """The training rows' targets and final weights, and the impurity of any subset.

    ``impurity(mask)`` is the node impurity times the node weight (the
    quantity whose decrease CART maximises): Gini ``W - sum c^2 / W``,
    entropy ``W H(c / W)`` in bits, squared error ``sum w (y - mean)^2``,
    absolute error ``sum w |y - median|`` (scikit-learn's weighted median:
    the midpoint where the cumulative weight is exactly one half).
    """

    def __init__(self, y, weights, criterion: str, n_classes: int = 0):
        self.y, self.w, self.criterion = np.asarray(y), np.asarray(weights, float), criterion
        self.classification = criterion in ("gini", "entropy", "log_loss")
        if self.classification:
            self.onehot = np.eye(n_classes)[self.y.astype(int)] * self.w[:, None]
        squares = self.w * np.asarray(y, float) ** 2
        # Rounding of the libraries' sums is relative to the node's raw moments.
        self.scale = self.w.sum() if self.classification else squares.sum() + self.w.sum()

    def impurity(self, mask: np.ndarray) -> float:
        w = self.w[mask]
        total = w.sum()
        if total <= 0:
            return 0.0
        if self.classification:
            counts = self.onehot[mask].sum(axis=0)
            if self.criterion == "gini":
                return float(total - (counts**2).sum() / total)
            p = counts[counts > 0] / total
            return float(-total * (p * np.log2(p)).sum())
        y = self.y[mask].astype(float)
        if self.criterion == "squared_error":
            mean = (w * y).sum() / total
            return float((w * (y - mean) ** 2).sum())
        order = np.argsort(y, kind="stable")
        y, w = y[order], w[order]
        cumulative = np.cumsum(w)
        k = int(np.searchsorted(cumulative, total / 2, side="right"))
        median = (y[k - 1] + y[k]) / 2 if k > 0 and cumulative[k - 1] == total / 2 else y[k]
        return float((w * np.abs(y - median)).sum())

    def pure(self, mask: np.ndarray) -> bool:
        kept = mask & (self.w > 0)
        return np.unique(self.y[kept]).size <= 1


def _left_rows(X, feature: int, threshold: float, missing_left: bool) -> np.ndarray:
    column = X[:, feature]
    return np.where(np.isnan(column), missing_left, column <= threshold)


def _decrease(targets: Targets, X, rows, feature, threshold, missing_left) -> float:
    left = rows & _left_rows(X, feature, threshold, missing_left)
    return targets.impurity(rows) - targets.impurity(left) - targets.impurity(rows & ~left)


def _child_at_weight(targets: Targets, X, rows, feature, threshold, missing_left, weight) -> bool:
    """Whether a child of the split weighs ``weight`` (min_weight_leaf) to rounding."""
    left = rows & _left_rows(X, feature, threshold, missing_left)
    children = (targets.w[left].sum(), targets.w[rows & ~left].sum())
    return any(abs(child - weight) <= 1e-9 * weight for child in children)


def _cut_between_near_values(X, rows, feature: int, threshold: float) -> bool:
    """Whether the cut parts two known values scikit-learn reads as one (FEATURE_THRESHOLD)."""
    column = X[rows, feature]
    column = column[~np.isnan(column)].astype(np.float32)
    below, above = column[column <= threshold], column[column > threshold]
    if below.size == 0 or above.size == 0:
        return False
    return bool(above.min() <= below.max() + FEATURE_THRESHOLD)  # float32, as scikit-learn


# ---------------------------------------------------------------------------
# Two trees node by node
# ---------------------------------------------------------------------------


def _ours_missing_left(tree, node: int) -> bool:
    slot = None if tree.missing_slot is None else int(tree.missing_slot[node])
    return slot == 0


def _parting_nodes(ours, theirs, compare_missing: bool) -> list[tuple[int, int]]:
    """Pairs (our node, scikit-learn's node) where the trees part, walking both from the root.

    Nodes reached by the same tests in both trees are compared: both leaves,
    or the same feature, threshold and side of NaN, and then their children.
    The walk does not go below a pair that differs.
    """
    a, b = ours, theirs
    out, stack = [], [(0, 0)]
    while stack:
        i, k = stack.pop()
        ours_leaf, their_leaf = a.feature[i] < 0, b.children_left[k] == SK_LEAF
        if ours_leaf and their_leaf:
            continue
        if (
            ours_leaf != their_leaf
            or a.feature[i] != b.feature[k]
            or a.threshold[i] != b.threshold[k]
            or (compare_missing and _ours_missing_left(a, i) != bool(b.missing_go_to_left[k]))
        ):
            out.append((i, k))
            continue
        left = int(a.first_child[i])
        stack += [(left, int(b.children_left[k])), (left + 1, int(b.children_right[k]))]
    return out


def _same_nodes(ours, theirs, pairs_ok, internal_values=True, rtol=1e-12) -> None:
    """Rows and values of every node both trees reach by the same tests.

    ``internal_values=False`` compares the values of the leaves only (gradient
    boosting's line search rewrites those alone in scikit-learn).
    """
    a, b = ours, theirs
    stack = [(0, 0)]
    while stack:
        i, k = stack.pop()
        if (i, k) in pairs_ok:
            continue
        assert a.n_node_samples[i] == b.n_node_samples[k], f"rows of node {i}"
        if internal_values or a.feature[i] < 0:
            values = b.value[k].reshape(-1)
            scale = rtol * (np.abs(values).max() + 1e-3)
            np.testing.assert_allclose(a.value[i].reshape(-1), values, rtol=rtol, atol=scale)
        if a.feature[i] >= 0:
            left = int(a.first_child[i])
            stack += [(left, int(b.children_left[k])), (left + 1, int(b.children_right[k]))]


def _split_of(tree_arrays, node, sklearn: bool):
    if sklearn:
        return (
            int(tree_arrays.feature[node]),
            float(tree_arrays.threshold[node]),
            bool(tree_arrays.missing_go_to_left[node]),
        )
    return (
        int(tree_arrays.feature[node]),
        float(tree_arrays.threshold[node]),
        _ours_missing_left(tree_arrays, node),
    )


def _classify(
    ours_model, their_model, pairs, X, targets: Targets, params: dict, total_weight: float
):
    """Name each parting pair's exception, or return the unexplained ones as text."""
    a, b = ours_model.tree_, their_model.tree_
    rows_of = ours_model.decision_path(X).tocsc()
    tol = 1e-9 * targets.scale
    min_decrease = float(params.get("min_impurity_decrease", 0.0)) * total_weight
    min_weight = float(params.get("min_weight_fraction_leaf", 0.0)) * total_weight
    named, unexplained, budget = {}, [], []
    for i, k in pairs:
        rows = rows_of[:, i].toarray().ravel().astype(bool) & (targets.w > 0)
        ours_leaf, their_leaf = a.feature[i] < 0, b.children_left[k] == SK_LEAF
        ours_split = None if ours_leaf else _split_of(a, i, sklearn=False)
        their_split = None if their_leaf else _split_of(b, k, sklearn=True)
        gain_ours = None if ours_leaf else _decrease(targets, X, rows, *ours_split)
        gain_theirs = None if their_leaf else _decrease(targets, X, rows, *their_split)
        if ours_leaf and targets.pure(rows):
            named[(i, k)] = "pure node split"
        elif ours_split and _cut_between_near_values(X, rows, *ours_split[:2]):
            named[(i, k)] = "near values"
        elif their_leaf and b.impurity[k] <= SK_EPSILON:
            named[(i, k)] = "impurity floor"
        elif not (ours_leaf or their_leaf) and abs(gain_ours - gain_theirs) <= tol:
            named[(i, k)] = "tie"
        elif min_decrease > 0 and any(
            g is not None and abs(g - min_decrease) <= tol for g in (gain_ours, gain_theirs)
        ):
            named[(i, k)] = "min_impurity_decrease boundary"
        elif min_weight > 0 and any(
            split is not None and _child_at_weight(targets, X, rows, *split, min_weight)
            for split in (ours_split, their_split)
        ):
            named[(i, k)] = "min_weight_fraction_leaf boundary"
        elif params.get("max_leaf_nodes") is not None and (ours_leaf or their_leaf):
            budget.append(((i, k), ours_leaf, gain_theirs if ours_leaf else gain_ours))
        else:
            unexplained.append(
                f"node {i}: ours {ours_split} (decrease {gain_ours}), scikit-learn "
                f"{their_split} (decrease {gain_theirs}), {int(rows.sum())} rows"
            )
    # Best first: a leaf split in one tree only is a tie of the order of splitting
    # when a leaf split in the other tree only has the same decrease.
    # After a tie elsewhere the two trees spend the leaf budget on different
    # subtrees, so leaves split in one tree only follow from that tie; and
    # likewise after a pure node split, which spends scikit-learn's budget.
    # A tie with a split both trees made counts too: equal decreases popped in
    # the other order (rounding decides), and the first split's children
    # then take the budget the second would have had.
    both_split = []
    if budget:
        for node in np.flatnonzero(a.feature >= 0):
            if not any(node == i for (i, _), _, _ in budget):
                rows = rows_of[:, node].toarray().ravel().astype(bool) & (targets.w > 0)
                both_split.append(_decrease(targets, X, rows, *_split_of(a, node, sklearn=False)))
    for pair, ours_leaf, gain in budget:
        others = [g for _, leaf, g in budget if leaf != ours_leaf] + both_split
        if any(abs(gain - g) <= tol for g in others):
            named[pair] = "best-first tie"
    # Two splits both trees made with equal decreases may also have been made
    # in the other order, and their children then compete for the last leaves.
    gains = np.sort(np.asarray(both_split))
    tied_order = bool(gains.size > 1 and (np.diff(gains) <= tol).any())
    tied = tied_order or any(name in PARTING for name in named.values())
    pure_split = "pure node split" in named.values()
    for pair, ours_leaf, gain in budget:
        if pair in named:
            continue
        if tied:
            named[pair] = "best-first after a tie"
        elif pure_split and not ours_leaf:
            named[pair] = "best-first after a pure node split"
        else:
            unexplained.append(f"node {pair[0]}: split by one library only (decrease {gain})")
    return named, unexplained


def _rows_avoiding(model, X, nodes) -> np.ndarray:
    """Rows of X that pass through none of our ``nodes``."""
    if not nodes:
        return np.ones(X.shape[0], bool)
    paths = model.decision_path(X).tocsc()
    through = np.zeros(X.shape[0], bool)
    for node in nodes:
        through |= paths[:, node].toarray().ravel().astype(bool)
    return ~through


def compare_trees(
    ours, candidates, X, targets, params, total_weight, compare_missing, internal_values=True
):
    """Compare our fitted tree with scikit-learn's trees fitted with the seeds of ``SEEDS``.

    Returns ``(outcome, reference, parting)``: ``"equal"`` and the seed's model
    whose tree is ours node by node; or the exception names found against
    the first seed's tree, that model and our nodes whose rows are predicted
    differently. Fails on a difference that no named exception explains.
    """
    for model in candidates:
        pairs = _parting_nodes(ours.tree_, model.tree_, compare_missing)
        if not pairs:
            _same_nodes(
                ours.tree_, model.tree_, set(), internal_values, 1e-12 if internal_values else 1e-9
            )
            return "equal", model, []
    reference = candidates[0]
    pairs = _parting_nodes(ours.tree_, reference.tree_, compare_missing)
    named, unexplained = _classify(ours, reference, pairs, X, targets, params, total_weight)
    assert not unexplained, "trees differ:\n" + "\n".join(unexplained)
    _same_nodes(
        ours.tree_, reference.tree_, set(pairs), internal_values, 1e-12 if internal_values else 1e-9
    )
    parting = [i for (i, _), name in named.items() if name in PARTING]
    outcome = "+".join(sorted(set(named.values())))
    return outcome, reference, parting


def _assert_same_predictions(ours, theirs, X, rows, classification: bool) -> None:
    if not rows.any():
        return
    X = X[rows]
    if classification:
        p_ours, p_theirs = ours.predict_proba(X), theirs.predict_proba(X)
        np.testing.assert_allclose(p_ours, p_theirs, rtol=1e-12, atol=1e-13)
        top = np.sort(p_theirs, axis=1)
        clear = top[:, -1] - top[:, -2] > 1e-9 if top.shape[1] > 1 else np.ones(len(X), bool)
        np.testing.assert_array_equal(ours.predict(X)[clear], theirs.predict(X)[clear])
    else:
        expected = theirs.predict(X)
        scale = 1e-12 * (np.abs(expected).max() + 1)
        np.testing.assert_allclose(ours.predict(X), expected, rtol=1e-12, atol=scale)


def _refuses_nan(error: Exception) -> bool:
    return isinstance(error, ValueError) and "missing" in str(error).lower()


# ---------------------------------------------------------------------------
# Drawn parameters
# ---------------------------------------------------------------------------


@st.composite
def tree_parameters(draw, classification: bool, n_features: int):
    params = {
        "max_depth": draw(st.one_of(st.none(), st.integers(1, 10))),
        "min_samples_split": draw(st.sampled_from([2, 2, 3, 5, 10, 30])),
        "min_samples_leaf": draw(st.sampled_from([1, 1, 2, 3, 7, 20])),
        "min_weight_fraction_leaf": draw(st.sampled_from([0.0, 0.0, 0.01, 0.05, 0.2])),
        "max_leaf_nodes": draw(st.one_of(st.none(), st.none(), st.integers(2, 40))),
        # Only the values that draw every feature: scikit-learn's draws are its own.
        "max_features": draw(
            st.sampled_from([None, 1.0, n_features] + (["sqrt", "log2"] if n_features == 1 else []))
        ),
    }
    if classification:
        params["criterion"] = draw(st.sampled_from(["gini", "entropy", "log_loss"]))
    else:
        params["criterion"] = draw(
            st.sampled_from(["squared_error", "squared_error", "absolute_error"])
        )
    return params


def _class_weight(draw_value, n_classes: int):
    if draw_value is None or isinstance(draw_value, str):
        return draw_value
    rng = np.random.default_rng(draw_value)
    return {c: float(rng.choice([0.5, 1.0, 2.0, 3.7])) for c in range(n_classes)}


def _fit_pair(ours_class, their_class, params, X, y, weights, seeds=SEEDS):
    ours = ours_class(**params).fit(X, y, sample_weight=weights)
    theirs = [their_class(random_state=s, **params).fit(X, y, sample_weight=weights) for s in seeds]
    return ours, theirs


def _targets_for(model, y, weights, criterion, n_classes=0) -> Targets:
    """The rows' final weights: sample weights times class weights (as both libraries)."""
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    class_weight = getattr(model, "class_weight", None)
    if class_weight is not None:
        from sklearn.utils.class_weight import compute_sample_weight

        w = w * compute_sample_weight(class_weight, y)
    return Targets(y, w, criterion, n_classes)


# ---------------------------------------------------------------------------
# CART against DecisionTree*
# ---------------------------------------------------------------------------

TASKS = st.sampled_from(["regression", "binary", "multiclass3", "multiclass4"])


def _table_for(task: str, max_rows: int, nan: bool = True):
    kind, n_classes = (
        (task, 2) if not task.startswith("multiclass") else ("multiclass", int(task[-1]))
    )
    # Tables without NaN come up about half the time: most parameters are about splits.
    patterns = ("none", "none", "none", *NAN_PATTERNS[1:]) if nan else ("none",)
    return tables(
        task=kind, min_rows=20, max_rows=max_rows, n_classes=n_classes, nan_patterns=patterns
    )


def _tasks_with_tables(max_rows: int, nan: bool = True):
    """Hypothesis strategy: ``(task, table)``, a task of ``TASKS`` and a table drawn for it."""
    return TASKS.flatmap(lambda t: st.tuples(st.just(t), _table_for(t, max_rows, nan)))


def _separated_alphas(path) -> np.ndarray:
    """0 and the path's effective alphas that rounding cannot move across a midpoint.

    Subtrees whose split decreases the impurity by nothing in exact arithmetic
    come out with effective alphas of +-1e-17 (even negative); the midpoint of
    two such alphas is a parameter whose pruning rounding decides (or a
    negative one, which both libraries refuse). Alphas within 1e-9 of the
    root impurity of 0 or of the previous kept alpha are dropped.
    """
    tol = 1e-9 * max(float(np.max(path.impurities)), np.finfo(float).tiny)
    kept = [0.0]
    for alpha in np.unique(path.ccp_alphas):
        if alpha - kept[-1] > tol:
            kept.append(float(alpha))
    return np.array(kept)


def check_cart(table, task, data, test_name="cart"):
    classification, X, X_test, y, weights = _inputs(table, task)
    params = data.draw(tree_parameters(classification, X.shape[1]), label="params")
    if classification:
        n_classes = int(y.max()) + 1
        cw = data.draw(st.sampled_from([None, None, "balanced", 1, 2]), label="class_weight")
        params["class_weight"] = _class_weight(cw, n_classes)
    ours_class = mltrees.CARTClassifier if classification else mltrees.CARTRegressor
    their_class = (
        sk_tree.DecisionTreeClassifier if classification else sk_tree.DecisionTreeRegressor
    )
    # ccp_alpha: halfway between two effective alphas of scikit-learn's path,
    # so that no rounding decides which subtrees it prunes.
    if data.draw(st.booleans(), label="prune"):
        path = their_class(random_state=0, **params).cost_complexity_pruning_path(X, y, weights)
        alphas = _separated_alphas(path)
        if alphas.size > 1:
            k = data.draw(st.integers(0, alphas.size - 2), label="alpha index")
            params["ccp_alpha"] = float((alphas[k] + alphas[k + 1]) / 2)
    # min_impurity_decrease on the scale of the root's impurity.
    if data.draw(st.booleans(), label="min_impurity_decrease"):
        root = their_class(random_state=0, max_depth=1).fit(X, y, weights).tree_.impurity[0]
        params["min_impurity_decrease"] = float(
            root * data.draw(st.sampled_from([1e-3, 0.01, 0.05, 0.2]), label="share")
        )
    note(f"params={params}")
    try:
        ours = ours_class(**params).fit(X, y, sample_weight=weights)
    except ValueError as error:
        if np.isnan(X).any() and _refuses_nan(error):
            record(test_name, "NaN refused at the defaults")
            return
        raise
    theirs = [their_class(random_state=s, **params).fit(X, y, weights) for s in SEEDS]
    w = np.ones(len(y)) if weights is None else weights
    targets = _targets_for(
        ours, y, w, params["criterion"], int(y.max()) + 1 if classification else 0
    )
    total = float(targets.w.sum())
    has_nan = bool(np.isnan(X).any() or np.isnan(X_test).any())
    try:
        outcome, reference, parting = compare_trees(
            ours, theirs, X, targets, params, total, compare_missing=has_nan
        )
        for rows_of in (X, X_test):
            if np.isnan(rows_of).any() and not ours.__sklearn_tags__().input_tags.allow_nan:
                continue
            rows = _rows_avoiding(ours, rows_of, parting)
            _assert_same_predictions(ours, reference, rows_of, rows, classification)
    except AssertionError:
        record(test_name, "failed", f"{table!r} {params}")
        raise
    record(test_name, outcome)


@settings(parent=settings.get_profile(PROFILE))
@given(task=_tasks_with_tables(600), data=st.data())
def test_cart_equals_decision_tree(task, data):
    task, table = task
    check_cart(table, task, data)


def test_cart_takes_nan_at_its_defaults():
    """The NaN cases above compare only when CART accepts NaN at its defaults.

    scikit-learn's trees do (1.3 and later), with the rule issue 32 gives
    CART's default: until it lands the drawn tables with NaN are recorded as
    refused and compare nothing.
    """
    X = np.array([[0.0], [1.0], [np.nan], [3.0]])
    try:
        mltrees.CARTClassifier().fit(X, [0, 0, 1, 1])
    except ValueError as error:
        if _refuses_nan(error):
            pytest.skip("CARTClassifier() refuses NaN at its defaults: the NaN cases are inactive")
        raise


# ---------------------------------------------------------------------------
# Forests without their randomness: every tree is CART's
# ---------------------------------------------------------------------------


def check_forest(table, task, data, test_name="random forest"):
    classification = task != "regression"
    X = _float32(table.X)
    y = table.y.astype(int) if classification else table.y
    params = data.draw(tree_parameters(classification, X.shape[1]), label="params")
    params.pop("max_leaf_nodes")  # mltrees' forests have no leaf budget
    params["n_estimators"] = data.draw(st.integers(1, 4), label="n_estimators")
    params["bootstrap"] = False  # the rows and features scikit-learn draws are its own
    if classification:
        cw = data.draw(st.sampled_from([None, "balanced", "balanced_subsample", 1]), label="cw")
        params["class_weight"] = _class_weight(cw, int(y.max()) + 1)
    note(f"params={params}")
    compare_forest(table, task, params, test_name)


def compare_forest(table, task, params, test_name="random forest"):
    """Fit both libraries' forests with ``params`` and compare them tree by tree (or fail)."""
    classification, X, X_test, y, weights = _inputs(table, task)
    ours_class = mltrees.RandomForestClassifier if classification else mltrees.RandomForestRegressor
    their_class = (
        sk_ensemble.RandomForestClassifier if classification else sk_ensemble.RandomForestRegressor
    )
    try:
        ours = ours_class(random_state=0, **params).fit(X, y, sample_weight=weights)
    except ValueError as error:
        if np.isnan(X).any() and _refuses_nan(error):
            record(test_name, "NaN refused at the defaults")
            return
        raise
    theirs = their_class(random_state=0, **params).fit(X, y, sample_weight=weights)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    cw = params.get("class_weight")
    if classification and isinstance(cw, str):
        # A forest's presets weigh the class totals by the sample weights
        # (scikit-learn 1.8 and later; its single trees count rows).
        classes = np.arange(int(y.max()) + 1)
        per_class = compute_class_weight("balanced", classes=classes, y=y, sample_weight=w)
        w = w * per_class[y]
        cw = None
    targets = _targets_for(
        mltrees.CARTClassifier(class_weight=cw) if classification else ours,
        y,
        w,
        params["criterion"],
        int(y.max()) + 1 if classification else 0,
    )
    has_nan = bool(np.isnan(X).any() or np.isnan(X_test).any())
    outcomes, parting = [], {}
    try:
        for j, (mine, reference) in enumerate(
            zip(ours.estimators_, theirs.estimators_, strict=True)
        ):
            outcome, _, nodes = compare_trees(
                mine, [reference], X, targets, params, float(targets.w.sum()), has_nan
            )
            outcomes.append(outcome)
            parting[j] = nodes
        for rows_of in (X, X_test):
            if np.isnan(rows_of).any() and not ours.__sklearn_tags__().input_tags.allow_nan:
                continue
            rows = np.ones(len(rows_of), bool)
            for j, nodes in parting.items():
                rows &= _rows_avoiding(ours.estimators_[j], rows_of, nodes)
            _assert_same_predictions(ours, theirs, rows_of, rows, classification)
    except AssertionError:
        record(test_name, "failed", f"{table!r} {params}")
        raise
    named = sorted({o for outcome in outcomes for o in outcome.split("+")} - {"equal"})
    record(test_name, "+".join(named) or "equal")


@settings(parent=settings.get_profile(PROFILE))
@given(task=_tasks_with_tables(400), data=st.data())
def test_forest_without_randomness_equals_sklearn(task, data):
    task, table = task
    check_forest(table, task, data)


# ---------------------------------------------------------------------------
# Gradient boosting: every tree of every round
# ---------------------------------------------------------------------------


def _residuals(model, loss: str, X, y, m: int) -> np.ndarray:
    """The negative gradients scikit-learn's round ``m`` fits its trees to, one column per tree."""
    raw = model._raw_predict_init(X).astype(float)
    for j in range(m):
        for k, tree in enumerate(model.estimators_[j]):
            raw[:, k] += model.learning_rate * tree.predict(X)
    if loss == "squared_error":
        return (y - raw[:, 0])[:, None]
    if raw.shape[1] == 1:
        return (y - 1 / (1 + np.exp(-raw[:, 0])))[:, None]
    p = np.exp(raw - raw.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    return np.eye(raw.shape[1])[y.astype(int)] - p


def _boosting_parts(ours, theirs, X, y, weights, params, loss, has_nan):
    """Compare the rounds in order: ``(outcome, m)``, the rounds before ``m`` being equal.

    A tree that parts from scikit-learn's is classified on the residuals of
    its round (:func:`compare_trees`); the later rounds are not compared.
    """
    w = np.ones(len(y)) if weights is None else np.asarray(weights, float)
    total = float(w.sum())
    n_rounds = theirs.estimators_.shape[0]
    for m in range(n_rounds):
        residuals = None
        for k in range(theirs.estimators_.shape[1]):
            mine, reference = ours.estimators_[m, k], theirs.estimators_[m, k]
            if not _parting_nodes(mine.tree_, reference.tree_, has_nan):
                _same_nodes(mine.tree_, reference.tree_, set(), internal_values=False, rtol=1e-9)
                continue
            if residuals is None:
                residuals = _residuals(theirs, loss, X, y, m)
            targets = Targets(residuals[:, k], w, "squared_error")
            outcome, _, _ = compare_trees(
                mine, [reference], X, targets, params, total, has_nan, internal_values=False
            )
            return outcome, m
    return "equal", n_rounds


def _assert_same_scores(ours, theirs, X, y, classification, rounds=None) -> None:
    """Probabilities or predictions after ``rounds`` rounds (all by default)."""
    if classification:
        mine = list(ours.staged_predict_proba(X))[rounds - 1] if rounds else ours.predict_proba(X)
        ref = (
            list(theirs.staged_predict_proba(X))[rounds - 1] if rounds else theirs.predict_proba(X)
        )
        np.testing.assert_allclose(mine, ref, rtol=1e-9, atol=1e-12)
    else:
        mine = list(ours.staged_predict(X))[rounds - 1] if rounds else ours.predict(X)
        ref = list(theirs.staged_predict(X))[rounds - 1] if rounds else theirs.predict(X)
        np.testing.assert_allclose(mine, ref, rtol=1e-9, atol=1e-9 * (np.abs(y).max() + 1))


def check_gradient_boosting(table, task, data, test_name="gradient boosting"):
    classification = task != "regression"
    X = _float32(table.X)
    y = table.y.astype(int) if classification else table.y
    tree = data.draw(tree_parameters(classification, X.shape[1]), label="tree")
    params = {
        "n_estimators": data.draw(st.integers(1, 25), label="n_estimators"),
        "learning_rate": data.draw(st.sampled_from([0.05, 0.1, 0.3, 1.0]), label="learning_rate"),
        "max_depth": data.draw(st.one_of(st.none(), st.integers(1, 5)), label="max_depth"),
        **{
            key: tree[key]
            for key in (
                "min_samples_split",
                "min_samples_leaf",
                "min_weight_fraction_leaf",
                "max_leaf_nodes",
                "max_features",
            )
        },
    }
    if params["max_depth"] is None and params["max_leaf_nodes"] is None:
        params["max_leaf_nodes"] = 12
    if data.draw(st.booleans(), label="min_impurity_decrease"):
        spread = float(np.var(y)) if not classification else 0.25
        params["min_impurity_decrease"] = spread * data.draw(st.sampled_from([1e-3, 0.01, 0.05]))
    note(f"params={params}")
    compare_gradient_boosting(table, task, params, test_name)


def compare_gradient_boosting(table, task, params, test_name="gradient boosting"):
    """Fit both libraries' gradient boosting with ``params`` and compare (or fail)."""
    classification, X, X_test, y, weights = _inputs(table, task)
    loss = "log_loss" if classification else "squared_error"
    ours_class = (
        mltrees.GradientBoostingClassifier if classification else mltrees.GradientBoostingRegressor
    )
    their_class = (
        sk_ensemble.GradientBoostingClassifier
        if classification
        else sk_ensemble.GradientBoostingRegressor
    )
    try:
        ours = ours_class(**params).fit(X, y, sample_weight=weights)
    except ValueError as error:
        if np.isnan(X).any() and _refuses_nan(error):
            record(test_name, "NaN refused at the defaults")
            return
        raise
    has_nan = bool(np.isnan(X).any() or np.isnan(X_test).any())
    rows_sets = [
        rows_of
        for rows_of in (X, X_test)
        if not np.isnan(rows_of).any() or ours.__sklearn_tags__().input_tags.allow_nan
    ]
    try:
        first = None
        for seed in SEEDS:
            theirs = their_class(random_state=seed, **params).fit(X, y, sample_weight=weights)
            outcome, rounds = _boosting_parts(ours, theirs, X, y, weights, params, loss, has_nan)
            if outcome == "equal":
                for rows_of in rows_sets:
                    _assert_same_scores(ours, theirs, rows_of, y, classification)
                record(test_name, "equal")
                return
            first = first or (outcome, rounds, theirs)
        outcome, rounds, theirs = first
        if rounds:  # the rounds before the parting tree are equal
            for rows_of in rows_sets:
                _assert_same_scores(ours, theirs, rows_of, y, classification, rounds)
    except AssertionError:
        record(test_name, "failed", f"{table!r} {params}")
        raise
    record(test_name, outcome)


@settings(parent=settings.get_profile(PROFILE))
@given(
    # scikit-learn's GradientBoosting* refuses NaN.
    task=_tasks_with_tables(300, nan=False),
    data=st.data(),
)
def test_gradient_boosting_equals_sklearn(task, data):
    task, table = task
    check_gradient_boosting(table, task, data)


# ---------------------------------------------------------------------------
# HistGradientBoostingRegressor: the same least-squares trees on the training rows
# ---------------------------------------------------------------------------


def _hgb_leaves(nodes, X) -> np.ndarray:
    """The leaf each row of X reaches in one of HistGradientBoosting's trees (its node array)."""
    node = np.zeros(X.shape[0], dtype=np.intp)
    while True:
        inner = ~nodes["is_leaf"][node].astype(bool)
        if not inner.any():
            return node
        at = node[inner]
        values = X[np.flatnonzero(inner), nodes["feature_idx"][at]]
        left = np.where(
            np.isnan(values),
            nodes["missing_go_to_left"][at] == 1,
            values <= nodes["num_threshold"][at],
        )
        node[inner] = np.where(left, nodes["left"][at], nodes["right"][at]).astype(np.intp)


def _hgb_parting(ours_model, nodes, X, targets: Targets, best_first: bool):
    """Walk our tree and HistGradientBoosting's by the rows they send left; name where they part.

    The thresholds differ (scikit-learn's are the midpoints of the bins of
    all rows, ours of the node's rows), so nodes are compared by the rows
    they part. Returns the named exceptions and the unexplained differences.
    """
    a = ours_model.tree_
    named, unexplained, budget = [], [], []
    tol = 1e-6 * targets.scale  # scikit-learn's gradients are float32
    stack = [(0, 0, targets.w > 0)]
    while stack:
        i, k, rows = stack.pop()
        ours_leaf, their_leaf = a.feature[i] < 0, bool(nodes["is_leaf"][k])
        if ours_leaf and their_leaf:
            continue
        ours_left = their_left = None
        if not ours_leaf:
            ours_left = rows & _left_rows(
                X, int(a.feature[i]), a.threshold[i], _ours_missing_left(a, i)
            )
        if not their_leaf:
            f, t = int(nodes["feature_idx"][k]), float(nodes["num_threshold"][k])
            their_left = rows & _left_rows(X, f, t, bool(nodes["missing_go_to_left"][k]))
        if not (ours_leaf or their_leaf) and (
            np.array_equal(ours_left, their_left) or np.array_equal(ours_left, rows & ~their_left)
        ):
            same_side = np.array_equal(ours_left, their_left)
            right_k = nodes["right"][k] if same_side else nodes["left"][k]
            left_k = nodes["left"][k] if same_side else nodes["right"][k]
            first = int(a.first_child[i])
            stack += [(first, int(left_k), ours_left), (first + 1, int(right_k), rows & ~ours_left)]
            continue

        parent = targets.impurity(rows)
        gain_ours = gain_theirs = None
        if not ours_leaf:
            gain_ours = parent - targets.impurity(ours_left) - targets.impurity(rows & ~ours_left)
        if not their_leaf:
            gain_theirs = (
                parent - targets.impurity(their_left) - targets.impurity(rows & ~their_left)
            )
        if not (ours_leaf or their_leaf) and abs(gain_ours - gain_theirs) <= tol:
            named.append("float32 tie")
        elif their_leaf and gain_ours <= tol:
            named.append("zero-gain split")  # scikit-learn needs a positive gain
        elif ours_leaf and gain_theirs <= tol:
            # residuals at rounding level (after rounds at learning rate 1): the
            # float32 gain of a split of them came out positive in scikit-learn
            named.append("zero-gain split")
        elif (
            their_leaf
            and min(targets.w[ours_left].sum(), targets.w[rows & ~ours_left].sum()) < 1e-3
        ):
            named.append("min_hessian_to_split")
        elif best_first and (ours_leaf or their_leaf):
            budget.append((ours_leaf, gain_theirs if ours_leaf else gain_ours))
        else:
            unexplained.append(
                f"node {i}: decrease {gain_ours} (mltrees) against {gain_theirs}, "
                f"{int(rows.sum())} rows"
            )
    for ours_leaf, g in budget:
        if any(abs(g - other) <= tol for leaf, other in budget if leaf != ours_leaf):
            named.append("best-first tie")
        else:
            unexplained.append(f"a node split by one library only (decrease {g})")
    return named, unexplained


def check_hist_gradient_boosting(table, data, test_name="hist gradient boosting"):
    depth = data.draw(st.one_of(st.none(), st.integers(1, 6)), label="max_depth")
    leaves = data.draw(
        st.one_of(st.none(), st.integers(2, 31)) if depth else st.integers(2, 31), label="leaves"
    )
    rounds = data.draw(st.integers(1, 15), label="rounds")
    rate = data.draw(st.sampled_from([0.1, 0.3, 1.0]), label="learning_rate")
    min_leaf = data.draw(st.sampled_from([1, 1, 2, 5, 20]), label="min_samples_leaf")
    max_bins = data.draw(st.sampled_from([None, 255]), label="max_bins")
    params = {"max_depth": depth, "leaves": leaves, "rounds": rounds, "rate": rate}
    params["min_samples_leaf"] = min_leaf
    note(f"params={params}, max_bins={max_bins}")
    compare_hist_gradient_boosting(table, params, max_bins, test_name)


def compare_hist_gradient_boosting(table, params, max_bins, test_name="hist gradient boosting"):
    """Fit GradientBoostingRegressor and HistGradientBoostingRegressor alike; compare (or fail)."""
    X, y, weights = _float32(table.X), table.y, table.sample_weight
    if weights is not None:  # scikit-learn counts zero-weight rows in min_samples_leaf
        keep = weights > 0
        X, y, weights = X[keep], y[keep], weights[keep]
    depth, leaves, rounds, rate = (params[key] for key in ("max_depth", "leaves", "rounds", "rate"))
    min_leaf = params["min_samples_leaf"]
    try:
        ours = mltrees.GradientBoostingRegressor(
            n_estimators=rounds,
            learning_rate=rate,
            max_depth=depth,
            max_leaf_nodes=leaves,
            min_samples_leaf=min_leaf,
            max_bins=max_bins,
        ).fit(X, y, sample_weight=weights)
    except ValueError as error:
        if np.isnan(X).any() and _refuses_nan(error):
            record(test_name, "NaN refused at the defaults")
            return
        raise
    theirs = sk_ensemble.HistGradientBoostingRegressor(
        max_iter=rounds,
        learning_rate=rate,
        max_depth=depth,
        max_leaf_nodes=leaves,
        min_samples_leaf=min_leaf,
        l2_regularization=0.0,
        early_stopping=False,
    ).fit(X, y, sample_weight=weights)
    w = np.ones(len(y)) if weights is None else weights
    staged = [np.full(len(y), ours.init_), *ours.staged_predict(X)]
    try:
        outcome = "equal"
        for m in range(rounds):
            targets = Targets(y - staged[m], w, "squared_error")
            named, unexplained = _hgb_parting(
                ours.estimators_[m, 0],
                theirs._predictors[m][0].nodes,
                X,
                targets,
                leaves is not None,
            )
            assert not unexplained, f"round {m + 1}: trees differ:\n" + "\n".join(unexplained)
            if named:
                outcome = "+".join(sorted(set(named)))
                break
        if outcome == "equal":
            scale = 1e-6 * (np.abs(y).max() + 1)
            np.testing.assert_allclose(ours.predict(X), theirs.predict(X), rtol=0, atol=scale)
    except AssertionError:
        record(test_name, "failed", f"{table!r} {params} max_bins={max_bins}")
        raise
    record(test_name, outcome)


@settings(parent=settings.get_profile(PROFILE))
@given(
    # At most 250 rows: every feature has fewer distinct values than 255 bins,
    # where scikit-learn's bins are the midpoints of the distinct values.
    table=tables(task="regression", min_rows=20, max_rows=250, nan_patterns=("none", "train")),
    data=st.data(),
)
def test_hist_gradient_boosting_training_rows_equal_sklearn(table, data):
    check_hist_gradient_boosting(table, data)


# ---------------------------------------------------------------------------
# Stacking: the same members, folds and final estimator
# ---------------------------------------------------------------------------


def _stacking_members(classification: bool):
    """Deterministic members of both kinds: mltrees' trees and ensembles, scikit-learn's models."""
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.neighbors import KNeighborsClassifier, KNeighborsRegressor

    if classification:
        return {
            "cart": mltrees.CARTClassifier(max_depth=3),
            "gb": mltrees.GradientBoostingClassifier(n_estimators=4, max_depth=2),
            "forest": mltrees.RandomForestClassifier(n_estimators=4, random_state=0),
            "xgb": mltrees.XGBoostClassifier(n_estimators=3, max_depth=2),
            "logistic": LogisticRegression(max_iter=300),
            "knn": KNeighborsClassifier(3),
        }
    return {
        "cart": mltrees.CARTRegressor(max_depth=3),
        "gb": mltrees.GradientBoostingRegressor(n_estimators=4, max_depth=2),
        "forest": mltrees.RandomForestRegressor(n_estimators=4, random_state=0),
        "xgb": mltrees.XGBoostRegressor(n_estimators=3, max_depth=2),
        "linear": LinearRegression(),
        "knn": KNeighborsRegressor(3),
    }


def _final_estimators(classification: bool):
    from sklearn.linear_model import LogisticRegression, Ridge

    if classification:
        return [None, LogisticRegression(C=0.5), mltrees.CARTClassifier(max_depth=2)]
    return [None, Ridge(1.0), mltrees.CARTRegressor(max_depth=2)]


def _outcome_of(call):
    """``("value", result)`` or ``("error", exception type)``."""
    try:
        return "value", call()
    except (ValueError, TypeError, AttributeError) as error:
        return "error", type(error)


def check_stacking(table, task, data, test_name="stacking"):
    from sklearn.model_selection import KFold, StratifiedKFold

    classification = task != "regression"
    X, X_test = table.X, table.X_test
    y = table.y.astype(int) if classification else table.y
    pool = _stacking_members(classification)
    names = data.draw(
        st.lists(st.sampled_from(sorted(pool)), min_size=1, max_size=3, unique=True),
        label="members",
    )
    members = [(name, pool[name]) for name in names]
    final = data.draw(st.sampled_from(_final_estimators(classification)), label="final")
    folds = data.draw(st.sampled_from(["int", "kfold", "stratified"]), label="cv")
    k = data.draw(st.integers(2, 5), label="folds")
    cv = {
        "int": k,
        "kfold": KFold(k, shuffle=True, random_state=k),
        "stratified": StratifiedKFold(k, shuffle=True, random_state=k),
    }[folds if classification or folds != "stratified" else "kfold"]
    params = {"cv": cv, "passthrough": data.draw(st.booleans(), label="passthrough")}
    if classification:
        params["stack_method"] = data.draw(
            st.sampled_from(["auto", "predict_proba", "predict", "decision_function"]),
            label="method",
        )
    weights = table.sample_weight if data.draw(st.booleans(), label="weights") else None
    ours_class = mltrees.StackingClassifier if classification else mltrees.StackingRegressor
    their_class = (
        sk_ensemble.StackingClassifier if classification else sk_ensemble.StackingRegressor
    )
    note(f"members={names}, final={final}, params={params}, weights={weights is not None}")
    ours = ours_class(members, final, **params)
    theirs = their_class(members, final, **params)
    # scikit-learn passes sample_weight=None on to members that may not take it.
    fit_params = {} if weights is None else {"sample_weight": weights}
    fitted_ours = _outcome_of(lambda: ours.fit(X, y, **fit_params))
    fitted_theirs = _outcome_of(lambda: theirs.fit(X, y, **fit_params))
    try:
        if fitted_theirs[0] == "error" or fitted_ours[0] == "error":
            # Both refuse (a member without the stack method, NaN for a member that
            # refuses it, a fold without a class...), each with its own message.
            assert fitted_ours[0] == fitted_theirs[0] == "error", (fitted_ours, fitted_theirs)
            record(test_name, "both refuse")
            return
        methods = ["transform", "predict"] + (["predict_proba"] if classification else [])
        for rows in (X, X_test):
            for method in methods:
                got = _outcome_of(lambda m=method, r=rows: getattr(ours, m)(r))
                expected = _outcome_of(lambda m=method, r=rows: getattr(theirs, m)(r))
                if _passthrough_nan_refused_early(ours, method, rows, got, expected):
                    record(test_name, "passthrough NaN refused early")
                    continue
                assert got[0] == expected[0], (method, got, expected)
                if got[0] == "value":
                    np.testing.assert_array_equal(got[1], expected[1], err_msg=method)
    except AssertionError:
        record(test_name, "failed", f"{table!r} {names} {params}")
        raise
    record(test_name, "equal")


def _passthrough_nan_refused_early(ours, method, rows, got, expected) -> bool:
    """mltrees' transform refused, by name, passthrough NaN that scikit-learn's returned."""
    if not (method == "transform" and ours.passthrough and got[0] == "error"):
        return False
    if expected[0] != "value" or not np.isnan(expected[1]).any():
        return False
    try:
        ours.transform(rows)
    except ValueError as error:
        return "passthrough=True hands them to the final estimator" in str(error)
    return False


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.filterwarnings("ignore:The least populated class:UserWarning")
@settings(parent=settings.get_profile(PROFILE))
@given(task=_tasks_with_tables(200), data=st.data())
def test_stacking_equals_sklearn(task, data):
    task, table = task
    check_stacking(table, task, data)


# ---------------------------------------------------------------------------
# Regression tests: the examples hypothesis shrank
# ---------------------------------------------------------------------------


def test_forest_balanced_weights_the_class_totals_by_sample_weight():
    """Shrunk by the forest test (20 rows, one column, weights): scikit-learn's
    forests (1.8 and later) compute "balanced" from sample-weighted class
    totals; mltrees counted rows, so the root's class distribution differed
    (0.459/0.541 against 0.5/0.5) and so did the trees."""
    from differential.strategies import make_table

    table = make_table(0, 20, ("continuous",), "none", 0.0, "binary", True)
    X, y, w = _float32(table.X), table.y.astype(int), table.sample_weight
    for class_weight in ("balanced", "balanced_subsample"):
        params = {"n_estimators": 2, "bootstrap": False, "max_features": None}
        params |= {"class_weight": class_weight, "random_state": 0}
        ours = mltrees.RandomForestClassifier(**params).fit(X, y, sample_weight=w)
        theirs = sk_ensemble.RandomForestClassifier(**params).fit(X, y, sample_weight=w)
        root = ours.estimators_[0].tree_.value[0]
        np.testing.assert_allclose(root, [0.5, 0.5], rtol=1e-12)
        np.testing.assert_allclose(root, theirs.estimators_[0].tree_.value[0, 0], rtol=1e-12)
        for rows in (X, _float32(table.X_test)):
            np.testing.assert_allclose(ours.predict_proba(rows), theirs.predict_proba(rows))


def _compare_one_best_first_round(table, min_samples_leaf):
    """One round of 3-class gradient boosting grown best-first to 12 leaves.

    The setting of the three ``test_gradient_boosting_leaf_budget_*``
    regression tests (shrunk by the long profile), which differ only in the
    table and the minimum leaf size.
    """
    params = {
        "n_estimators": 1,
        "learning_rate": 0.05,
        "max_depth": None,
        "min_samples_split": 2,
        "min_samples_leaf": min_samples_leaf,
        "min_weight_fraction_leaf": 0.0,
        "max_leaf_nodes": 12,
        "max_features": None,
    }
    compare_gradient_boosting(table, "multiclass3", params)


def test_gradient_boosting_leaf_budget_after_a_pure_node_split():
    """Shrunk by the long profile: with max_leaf_nodes=12, scikit-learn split a
    node whose residuals are all equal (impurity 2.6e-16 by rounding), spending
    a leaf; mltrees spent it on a zero-decrease split of another leaf. Named
    'best-first after a pure node split'; the first round's scores before it
    are equal."""
    table = make_table(
        0, 75, ("mostly_zero", "integer0", "few"), "none", 0.0, "multiclass", False, 3
    )
    _compare_one_best_first_round(table, min_samples_leaf=1)


def test_forest_child_weight_on_the_min_weight_fraction_leaf_boundary():
    """Shrunk by the long profile: balanced class weights (284/300 for class 0)
    and min_weight_fraction_leaf=0.01; mltrees' best split of an 8-row node has
    a child of three class-0 rows, 2.84 against 0.01 x 284 = 2.84 in exact
    arithmetic. scikit-learn's float sums reject it and it takes its next best
    split. Named 'min_weight_fraction_leaf boundary'."""
    table = make_table(285, 284, ("continuous",), "none", 0.0, "multiclass", False, 3)
    params = {
        "max_depth": None,
        "min_samples_split": 2,
        "min_samples_leaf": 1,
        "min_weight_fraction_leaf": 0.01,
        "max_features": None,
        "criterion": "gini",
        "n_estimators": 1,
        "bootstrap": False,
        "class_weight": "balanced",
    }
    compare_forest(table, "multiclass3", params)


def test_cart_ccp_alpha_away_from_rounding_level_alphas():
    """Shrunk by the long profile: the absolute-error pruning path of this
    table starts with effective alphas of -2.8e-17 and 0 (subtrees that
    decrease nothing), and the midpoint drawn between them, -1.4e-17, was
    refused by both libraries; other draws fell between two alphas of 1e-17.
    Only alphas rounding cannot move are drawn now, and both libraries prune
    alike at every midpoint of them."""
    table = make_table(0, 34, ("continuous",), "none", 0.0, "regression", False)
    X, y = _float32(table.X), table.y
    params = {"min_samples_leaf": 2, "criterion": "absolute_error"}
    path = sk_tree.DecisionTreeRegressor(**params).cost_complexity_pruning_path(X, y)
    assert path.ccp_alphas.min() < 1e-15  # rounding-level alphas are there
    alphas = _separated_alphas(path)
    assert alphas[0] == 0.0
    assert np.all(np.diff(alphas) > 1e-9 * path.impurities.max())
    for alpha in (alphas[:-1] + alphas[1:]) / 2:
        ours = mltrees.CARTRegressor(ccp_alpha=alpha, **params).fit(X, y)
        theirs = sk_tree.DecisionTreeRegressor(ccp_alpha=alpha, random_state=0, **params).fit(X, y)
        np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))
        np.testing.assert_array_equal(ours.predict(table.X_test), theirs.predict(table.X_test))


def test_hist_gradient_boosting_split_of_rounding_level_residuals():
    """Shrunk by the long profile: 20 rows, 6 leaves, learning rate 1: by the
    ninth round the residuals are rounding noise, and scikit-learn split a node
    whose decrease is 8e-30 (its float32 gain came out positive); mltrees made
    it a leaf. Named 'zero-gain split'; the eight rounds before are equal."""
    table = make_table(0, 20, ("continuous",), "none", 0.0, "regression", False)
    params = {"max_depth": None, "leaves": 6, "rounds": 9, "rate": 1.0, "min_samples_leaf": 1}
    compare_hist_gradient_boosting(table, params, None)


def test_stacking_decision_function_with_a_fold_missing_a_class():
    """Shrunk by the long profile: 20 rows of 4 classes, cv=2, members logistic
    regression and XGBoost, stack_method='decision_function'. A training fold
    lacks a class, and mltrees failed with numpy's shape mismatch where
    scikit-learn warns and fills the missing class's column with the lowest
    float. Both now give the same level-1 features and predictions; with a
    fold of at most two classes both refuse."""
    from sklearn.linear_model import LogisticRegression

    table = make_table(
        14529,
        20,
        ("integer1", "integer0", "binary", "integer0"),
        "none",
        0.0,
        "multiclass",
        False,
        4,
    )
    X, y = table.X, table.y.astype(int)
    members = [
        ("logistic", LogisticRegression(max_iter=300)),
        ("xgb", mltrees.XGBoostClassifier(n_estimators=3, max_depth=2)),
    ]
    params = {"cv": 2, "stack_method": "decision_function"}
    with pytest.warns(RuntimeWarning, match="Number of classes in training fold"):
        ours = mltrees.StackingClassifier(members, **params).fit(X, y)
    with pytest.warns(RuntimeWarning, match="Number of classes in training fold"):
        theirs = sk_ensemble.StackingClassifier(members, **params).fit(X, y)
    assert ours.oof_predictions_.min() == np.finfo(np.float64).min
    for rows in (X, table.X_test):
        for method in ("transform", "predict", "predict_proba"):
            np.testing.assert_array_equal(
                getattr(ours, method)(rows), getattr(theirs, method)(rows), err_msg=method
            )
    # Rows sorted by class and unshuffled folds: a training fold holds two classes
    from sklearn.model_selection import KFold

    order = np.argsort(y, kind="stable")
    halves = {"cv": KFold(2), "stack_method": "decision_function"}
    for model in (mltrees.StackingClassifier, sk_ensemble.StackingClassifier):
        with (
            pytest.warns(RuntimeWarning),
            pytest.raises(ValueError, match=r"(?i)only 2 (of the 4 )?class"),
        ):
            model(members, **halves).fit(X[order], y[order])


def test_gradient_boosting_leaf_budget_after_equal_decreases_in_both_trees():
    """Shrunk by the long profile: two leaves whose splits decrease the
    impurity by 8/15 each (0.533333333333333 and 0.5333333333333332 in
    float64); the libraries pop them in the other order, the first one's child
    (decrease 2/3) takes the last leaf, and each tree ends with one of the two
    splits the other lacks. Named 'best-first tie' (a tie with a split both
    trees made) and 'best-first after a tie'."""
    table = make_table(
        0,
        75,
        ("integer0", "integer0", "mostly_zero", "integer0", "few"),
        "none",
        0.0,
        "multiclass",
        False,
        3,
    )
    _compare_one_best_first_round(table, min_samples_leaf=1)


def test_gradient_boosting_leaf_budget_after_two_equal_splits_made_in_both_trees():
    """Shrunk by the long profile: two splits both trees made decrease the
    impurity by 32/105 each (0.3047619047619039 and 0.30476190476190523); made
    in the other order, their children competed for the last leaf, and each
    tree ends with a leaf split the other lacks (decreases 0.76 and 0.43).
    Named 'best-first after a tie'."""
    table = make_table(
        7656226,
        78,
        ("negative", "constant", "duplicate", "negative", "duplicate", "continuous"),
        "none",
        0.0,
        "multiclass",
        False,
        3,
    )
    _compare_one_best_first_round(table, min_samples_leaf=3)

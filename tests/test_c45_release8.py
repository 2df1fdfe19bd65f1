"""C4.5 release 8's rules in C45Classifier, checked by hand and by brute force.

The comparison with Weka's J48 itself is tests/test_c45_vs_j48.py (it needs
Java and Weka); these tests need neither.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from mltrees.criteria import c45_min_split, mdl_correction
from mltrees.datasets import load_watermelon
from mltrees.tree import C45Classifier
from mltrees.tree.pruning import prune_collapse


def _entropy(counts) -> float:
    p = np.asarray(counts, dtype=float)
    p = p[p > 0] / p.sum()
    return float(-(p * np.log2(p)).sum())


def test_mdl_correction_by_hand():
    # Watermelon 3.0's root: 17 melons, 16 distinct densities, 14 cuts with 2 a side.
    assert mdl_correction(14, 17) == pytest.approx(3.807354922057604 / 17)
    assert mdl_correction(1, 5.0) == 0.0  # one candidate: nothing to name
    np.testing.assert_allclose(mdl_correction([2, 8], [4, 6]), [0.25, 0.5])


@pytest.mark.parametrize(
    ("weight", "n_classes", "min_cases", "expected"),
    [
        (100, 2, 2, 5.0),  # 0.1 * 100 / 2
        (30, 2, 2, 2.0),  # 1.5 is below MINOBJS
        (1000, 2, 2, 25.0),  # 50 is above the cap
        (1000, 5, 2, 20.0),
        (40, 2, 2, 2.0),  # exactly MINOBJS
        (250.0000001, 1, 2, 25.0),  # within 1e-6 of the cap: 25.00000001 is kept at 25
    ],
)
def test_min_split_by_hand(weight, n_classes, min_cases, expected):
    assert c45_min_split(weight, n_classes, min_cases) == pytest.approx(expected, abs=1e-7)


@pytest.mark.parametrize(
    ("call", "match"),
    [
        (lambda: mdl_correction(0, 10), "n_thresholds must be integers >= 1"),
        (lambda: mdl_correction(2.5, 10), "n_thresholds must be integers >= 1"),
        (lambda: mdl_correction(3, 0), "weight must be finite and > 0"),
        (lambda: c45_min_split(-1, 2), "weight must be finite and >= 0"),
        (lambda: c45_min_split(10, 0), "n_classes must be an int >= 1"),
        (lambda: c45_min_split(10, 2, min_cases=0), "min_cases must be a positive number"),
    ],
)
def test_bad_arguments(call, match):
    with pytest.raises(ValueError, match=match):
        call()


def test_watermelon_3_root_by_hand():
    """Zhou's watermelon 3.0 root. Gains: texture 0.381, navel 0.289, root 0.143,
    sound 0.141, color 0.109, touch 0.006; density 0.262 and sugar 0.349 at their
    best thresholds. 16 and 17 distinct values leave 14 cuts with 2 melons a side
    each, so both numeric gains lose lg(14)/17 = 0.224: density 0.038, sugar 0.125.
    The average over the eight useful attributes is 0.154, so only texture (0.381)
    and navel (0.289) are eligible, and texture has the larger gain ratio. The 1993
    rules average the uncorrected gains (0.210) and pick sugar, whose binary split
    has the largest ratio (0.400)."""
    X, y = load_watermelon("3.0", return_X_y=True)
    release8 = C45Classifier(pruning=None).fit(X, y)
    book = C45Classifier(pruning=None, release="1993").fit(X, y)
    assert X.columns[release8.tree_.feature[0]] == "texture"
    assert X.columns[book.tree_.feature[0]] == "sugar"
    assert (0.349 - math.log2(14) / 17) < 0.154 < 0.289


def test_min_split_rejects_a_small_pure_side():
    """100 cases, x = 0..99, class 1 for x <= 2 only. The 1993 rules cut at the pure
    split 2.5 (3 cases left). Release 8 wants max(2, 0.1 * 100 / 2) = 5 cases a side:
    its best cut is x <= 4 (3 of class 1 and 2 of class 0 left), of gain
    H(3/100) - 0.05 H(3/5) = 0.1944 - 0.0485 = 0.146 bits, above the correction
    lg(91) / 100 = 0.065 for the 91 admissible cuts; its threshold is the data value 4."""
    x = np.arange(100.0).reshape(-1, 1)
    y = (x[:, 0] <= 2).astype(int)
    book = C45Classifier(pruning=None, release="1993").fit(x, y)
    release8 = C45Classifier(pruning=None).fit(x, y)
    assert book.tree_.threshold[0] == 2.5
    assert release8.tree_.threshold[0] == 4.0
    gain = _entropy([97, 3]) - 0.05 * _entropy([3, 2])
    assert gain - mdl_correction(91, 100) > 0.08


@pytest.mark.parametrize("seed", range(12))
def test_numeric_split_iff_corrected_gain_is_positive(seed):
    """One numeric attribute, 20 cases with distinct values, noisy classes: release 8
    splits the root exactly when the best gain of a cut with 2 cases a side (brute
    force) exceeds lg(17)/20, the correction for its 17 admissible cuts, and the
    stump has fewer training errors than a leaf (else it is collapsed)."""
    rng = np.random.default_rng(seed)
    x = rng.permutation(20).astype(float).reshape(-1, 1)
    y = (rng.random(20) < 0.3 + 0.4 * (x[:, 0] > 9)).astype(int)
    if y.min() == y.max():
        pytest.skip("one class only")
    order = np.argsort(x[:, 0])
    labels = y[order]
    gains = [
        _entropy(np.bincount(labels, minlength=2))
        - i / 20 * _entropy(np.bincount(labels[:i], minlength=2))
        - (20 - i) / 20 * _entropy(np.bincount(labels[i:], minlength=2))
        for i in range(2, 19)
    ]
    best = 2 + int(np.argmax(gains))
    errors = sum(min(np.bincount(part, minlength=2)) for part in (labels[:best], labels[best:]))
    fewer_errors = errors < min(np.bincount(labels, minlength=2)) - 1e-3
    splits = max(gains) - math.log2(17) / 20 > 1e-6 and fewer_errors
    model = C45Classifier(pruning=None, max_depth=1).fit(x, y)
    assert (model.tree_.node_count > 1) == splits
    assert C45Classifier(pruning=None, max_depth=1, release="1993").fit(x, y).tree_.node_count == 3


def _colors():
    """Among the red samples size decides nothing the leaf does not: 3 yes, 1 no.

    The table of ``test_tree_validation`` (color at the root, size under red).
    """
    from test_tree_validation import _weather

    X, y = _weather()
    return X.astype("category"), y


def test_collapse_by_hand():
    """Under red (3 yes, 1 no: 1 error as a leaf) the size split has leaves S (2 yes),
    L (1 yes, 1 no) and M (empty): 1 error too, not fewer, so C4.5 collapses it.
    The tree keeps the color split, which lowers the errors from 4 to 1."""
    X, y = _colors()
    grown = C45Classifier(min_cases=1, pruning=None, release="1993").fit(X, y)
    assert grown.get_n_leaves() == 5  # blue, green, red: S, L, M
    collapsed = prune_collapse(grown.tree_)
    assert collapsed.n_leaves == 3
    assert (collapsed.feature[collapsed.feature >= 0] == 0).all()
    release8 = C45Classifier(min_cases=1, pruning=None).fit(X, y)
    np.testing.assert_array_equal(release8.tree_.feature, collapsed.feature)
    np.testing.assert_allclose(release8.tree_.value, collapsed.value)


def test_integer_weights_are_repeated_cases():
    """C4.5's minimum sizes read weights as numbers of cases: weights 3 equal
    three copies of each row (thresholds, minimum split size, collapse)."""
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": rng.normal(size=60), "b": rng.integers(0, 4, 60).astype(str)})
    X["b"] = X["b"].astype("category")
    y = (X["a"] + (X["b"] == "1") + rng.normal(0, 0.7, 60) > 0.5).astype(int)
    weights = rng.integers(1, 4, 60)
    rows = np.repeat(np.arange(60), weights)
    for pruning in (None, "pessimistic"):
        weighted = C45Classifier(pruning=pruning).fit(X, y, sample_weight=weights)
        repeated = C45Classifier(pruning=pruning).fit(X.iloc[rows], y.iloc[rows])
        np.testing.assert_array_equal(weighted.tree_.feature, repeated.tree_.feature)
        np.testing.assert_array_equal(weighted.tree_.threshold, repeated.tree_.threshold)
        np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X))

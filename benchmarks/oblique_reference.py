"""Reference accuracies of treeple's oblique tree, for the statistical check of OC1 (chapter 8).

The one OC1 package on PyPI (oblique-classifier-1 0.3.0) leaves out the
paper's random jumps and equal-cost moves and scores splits by sum minority
(chapter 8 reads its source), so the reference is another oblique tree:
treeple's (random sparse oblique projections, Tomita et al. 2020). treeple
needs scikit-learn <= 1.6, so it runs in a separate environment and its
results are committed as data::

    python3.11 -m venv /tmp/tp
    /tmp/tp/bin/pip install "scikit-learn==1.6.1" "treeple==0.10.3"
    /tmp/tp/bin/python benchmarks/oblique_reference.py > tests/data/oblique_treeple.json

``tests/test_oblique_vs_treeple.py`` builds the same data and folds with NumPy
alone (the split into folds does not depend on scikit-learn's version) and
compares ``ObliqueTreeClassifier`` (OC1) with these numbers.
"""

from __future__ import annotations

import json
import sys

import numpy as np


def cases():
    """The data sets of the comparison: (name, X, y, max_depth)."""
    from sklearn.datasets import load_breast_cancer, load_wine

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(2000, 2))
    angle = np.pi / 4
    rotated = X @ np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
    y = (rotated[:, 0] > 0).astype(int)
    yield "rotated_square_depth3", X, y, 3
    yield "rotated_square", X, y, None
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", X, y, None
    X, y = load_wine(return_X_y=True)
    yield "wine", X, y, None


def folds(n: int, k: int = 10, seed: int = 0) -> np.ndarray:
    """Fold of every row: a seeded permutation cut into k parts (NumPy only)."""
    fold = np.empty(n, dtype=int)
    fold[np.random.default_rng(seed).permutation(n)] = np.arange(n) % k
    return fold


def main() -> None:
    import sklearn
    import treeple
    from treeple.tree import ObliqueDecisionTreeClassifier

    out = {
        "library": f"treeple {treeple.__version__}, scikit-learn {sklearn.__version__}",
        "model": "treeple.tree.ObliqueDecisionTreeClassifier(max_depth, random_state=fold)",
        "folds": "10 folds from folds(n) in benchmarks/oblique_reference.py",
        "cases": {},
    }
    for name, X, y, depth in cases():
        fold = folds(len(y))
        accuracy, leaves = [], []
        for f in range(10):
            train, test = fold != f, fold == f
            model = ObliqueDecisionTreeClassifier(max_depth=depth, random_state=f)
            model.fit(X[train], y[train])
            accuracy.append(float((model.predict(X[test]) == y[test]).mean()))
            leaves.append(int(model.get_n_leaves()))
        out["cases"][name] = {"accuracy": accuracy, "leaves": leaves}
    json.dump(out, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()

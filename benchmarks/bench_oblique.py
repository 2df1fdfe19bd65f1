"""Oblique trees against axis-parallel CART: fit and predict time, accuracy, size.

    python benchmarks/bench_oblique.py [--n-samples 100000] [--max-depth 8] [--n-restarts 0]
    python benchmarks/bench_oblique.py --rotated [--n-rotations 3]

``--rotated`` measures what OC1's defaults (those of Murthy et al.'s program
OC1 3.0: 20 searches per node, 5 random jumps, up to 10 equal-cost moves in a
row, axis-parallel splits at nodes of at most 2 d rows) buy over the defaults
``ObliqueTreeClassifier`` had before (3 searches, strict improvements only,
oblique search at every node), and over CART, on real tables whose features
are standardised and then rotated by a random orthogonal matrix (a rotation
leaves the problem as hard for an oblique tree and makes it harder for an
axis-parallel one). Each table is cut into the same 10 folds for every
learner; the table reports mean accuracy and the paired difference with its
standard error over folds and rotations, then each change of defaults alone.

Data: ``make_classification(n_samples + 20000, n_features=20, n_informative=10,
n_redundant=5, flip_y=0.05, random_state=0)``; the last 20,000 rows are the
test set. Every learner grows a tree of depth ``--max-depth`` (8 by default):

* ``ObliqueTreeClassifier`` with OC1 (``--n-restarts`` random restarts after
  the axis-parallel start, 0 by default: each restart adds about the time of
  the first search), with the least-squares splitter and with the pocket
  perceptron;
* ``CARTClassifier`` (exact thresholds) and scikit-learn's
  ``DecisionTreeClassifier`` as the axis-parallel references.

Goal (issue 16): report OC1's fit time at 100k x 20, depth 8, next to
CART's. OC1 sorts a node's rows once per coefficient tried, so it costs
about (coefficients x cycles x restarts) CART-like searches per node; the
ratio column is fit time / CARTClassifier's fit time. A few minutes on two
cores at the default size.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

from mltrees import CARTClassifier, ObliqueTreeClassifier


def rotated_tables(n_rotations: int):
    """Real tables, standardised and rotated: yields (name, X, y)."""
    from scipy.stats import ortho_group
    from sklearn.datasets import load_breast_cancer, load_wine

    from mltrees.datasets import load_covertype, load_higgs

    tables = {
        "breast cancer": load_breast_cancer(return_X_y=True),
        "wine": load_wine(return_X_y=True),
    }
    cover = load_covertype()
    rows = np.random.default_rng(0).permutation(len(cover.target))[:2000]
    tables["covertype (2,000 rows, 10 numeric)"] = (
        cover.data.to_numpy(np.float64)[rows, :10],
        np.asarray(cover.target)[rows],
    )
    higgs = load_higgs()
    tables["higgs (2,000 rows)"] = (
        higgs.data.to_numpy(np.float64)[:2000],
        np.asarray(higgs.target)[:2000].astype(int),
    )
    for name, (X, y) in tables.items():
        Z = (X - X.mean(axis=0)) / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
        for r in range(n_rotations):
            yield name, Z @ ortho_group.rvs(Z.shape[1], random_state=r), np.asarray(y)


OLD_DEFAULTS = {"n_restarts": 2, "max_stagnant_moves": 0, "min_samples_oblique": 1}
LEARNERS = {
    "CART": None,
    "OC1, former defaults": OLD_DEFAULTS,
    "  + 20 searches": {**OLD_DEFAULTS, "n_restarts": 19},
    "  + stagnant moves": {**OLD_DEFAULTS, "max_stagnant_moves": 10},
    "  + axis-parallel at n <= 2d": {**OLD_DEFAULTS, "min_samples_oblique": None},
    "OC1, defaults (OC1 3.0's)": {},
}


def rotated(n_rotations: int) -> None:
    from sklearn.model_selection import StratifiedKFold

    scores: dict = {}
    for name, X, y in rotated_tables(n_rotations):
        folds = StratifiedKFold(10, shuffle=True, random_state=0).split(X, y)
        for f, (train, test) in enumerate(folds):
            for learner, params in LEARNERS.items():
                if params is None:
                    model = CARTClassifier(min_samples_leaf=5)
                else:
                    model = ObliqueTreeClassifier(min_samples_leaf=5, random_state=f, **params)
                accuracy = model.fit(X[train], y[train]).score(X[test], y[test])
                scores.setdefault((name, learner), []).append(accuracy)
        print(f"{name}: done", flush=True)
    print(f"\n{'table':38s} {'learner':30s} {'accuracy':>8s} {'- former':>9s} {'(se)':>7s}")
    for (name, learner), values in scores.items():
        values = np.asarray(values)
        former = np.asarray(scores[name, "OC1, former defaults"])
        gap = values - former
        se = gap.std(ddof=1) / np.sqrt(gap.size)
        print(f"{name:38s} {learner:30s} {values.mean():8.4f} {gap.mean():+9.4f} {se:7.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--max-depth", type=int, default=8)
    parser.add_argument("--n-restarts", type=int, default=0)
    parser.add_argument("--rotated", action="store_true")
    parser.add_argument("--n-rotations", type=int, default=3)
    args = parser.parse_args()
    if args.rotated:
        rotated(args.n_rotations)
        return
    X, y = make_classification(
        n_samples=args.n_samples + 20_000,
        n_features=20,
        n_informative=10,
        n_redundant=5,
        flip_y=0.05,
        random_state=0,
    )
    X_train, y_train = X[: args.n_samples], y[: args.n_samples]
    X_test, y_test = X[args.n_samples :], y[args.n_samples :]
    depth = args.max_depth
    learners = {
        "CARTClassifier (exact)": CARTClassifier(max_depth=depth),
        "sklearn DecisionTreeClassifier": DecisionTreeClassifier(max_depth=depth),
        f"Oblique OC1, n_restarts={args.n_restarts}": ObliqueTreeClassifier(
            max_depth=depth, n_restarts=args.n_restarts, random_state=0
        ),
        "Oblique least_squares": ObliqueTreeClassifier(max_depth=depth, splitter="least_squares"),
        "Oblique perceptron": ObliqueTreeClassifier(max_depth=depth, splitter="perceptron"),
    }
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"{args.n_samples} x 20 training rows, depth {depth}; load average {load:.1f}")
    print(
        f"{'learner':34s} {'fit s':>8s} {'/CART':>7s} {'predict s':>10s} {'acc':>7s} {'leaves':>7s}"
    )
    reference = None
    for name, model in learners.items():
        start = time.perf_counter()
        model.fit(X_train, y_train)
        fit = time.perf_counter() - start
        start = time.perf_counter()
        accuracy = float(np.mean(model.predict(X_test) == y_test))
        predict = time.perf_counter() - start
        reference = fit if reference is None else reference
        leaves = model.get_n_leaves()
        print(
            f"{name:34s} {fit:8.2f} {fit / reference:7.1f} {predict:10.3f} "
            f"{accuracy:7.4f} {leaves:7d}",
            flush=True,
        )


if __name__ == "__main__":
    main()

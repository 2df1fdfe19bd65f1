"""Oblique trees against axis-parallel CART: fit and predict time, accuracy, size.

    python benchmarks/bench_oblique.py [--n-samples 100000] [--max-depth 8] [--n-restarts 0]

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=100_000)
    parser.add_argument("--max-depth", type=int, default=8)
    parser.add_argument("--n-restarts", type=int, default=0)
    args = parser.parse_args()
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

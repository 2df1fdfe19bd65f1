"""Pruning against growing: does pruning a large tree cost less than growing it?

    python benchmarks/bench_pruning.py [--n-samples 1000000]

Data: ``make_classification(n_samples, n_features=28, n_informative=20,
flip_y=0.1, random_state=0)`` (10% label noise, so the unpruned trees are
large). In one process per learner, the script grows an unpruned tree with
256-bin histograms and then times each pruning method on it:

* CART (``CARTClassifier(max_bins=255)``): the weakest-link path
  (:func:`mltrees.tree.pruning.cost_complexity_path`) and the pruned tree at
  the path's median alpha (:func:`prune_cost_complexity`); scikit-learn's
  ``cost_complexity_pruning_path`` on its own full tree is printed alongside
  (it includes sklearn's growth, which it repeats internally);
* C4.5 (``C45Classifier(max_bins=255, pruning=None)``): collapse plus
  pessimistic pruning without and with subtree raising (raising re-routes the
  training rows, so it is timed with them).

Goal (issue 4): each pruning step takes less time than growing the tree.
Prints one table; the ratio column is pruning time / growing time.
"""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path

import numpy as np
from _harness import run_child
from sklearn.datasets import make_classification

CHILD = r"""
import json, sys, time
import numpy as np
from mltrees.tree import C45Classifier, CARTClassifier
from mltrees.tree._data import encode_features
from mltrees.tree.pruning import cost_complexity_path, prune_cost_complexity, prune_pessimistic

data = np.load(sys.argv[1])
X, y = data["X"], data["y"]
learner = sys.argv[2]
out = {}
if learner == "cart":
    model = CARTClassifier(max_bins=255)
    start = time.perf_counter(); model.fit(X, y); out["grow"] = time.perf_counter() - start
    out["nodes"] = model.tree_.node_count
    start = time.perf_counter(); path = cost_complexity_path(model.tree_)
    out["ccp path"] = time.perf_counter() - start
    alpha = float(np.median(path[0]))
    start = time.perf_counter(); pruned = prune_cost_complexity(model.tree_, alpha, path)
    out["ccp prune (given the path)"] = time.perf_counter() - start
elif learner == "c45":
    model = C45Classifier(max_bins=255, pruning=None)
    start = time.perf_counter(); model.fit(X, y); out["grow"] = time.perf_counter() - start
    out["nodes"] = model.tree_.node_count
    start = time.perf_counter(); prune_pessimistic(model.tree_)
    out["pessimistic"] = time.perf_counter() - start
    values = encode_features(X, model._specs)
    codes = np.searchsorted(model.classes_, y)
    start = time.perf_counter()
    prune_pessimistic(model.tree_, subtree_raising=True, data=(values, codes, np.ones(y.size)))
    out["pessimistic + raising"] = time.perf_counter() - start
else:
    from sklearn.tree import DecisionTreeClassifier
    start = time.perf_counter()
    DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(X, y)
    out["grow + ccp path"] = time.perf_counter() - start
print(json.dumps(out))
"""


def run(path: Path, learner: str) -> dict:
    return run_child(CHILD, path, learner)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    args = parser.parse_args()
    X, y = make_classification(
        args.n_samples, n_features=28, n_informative=20, flip_y=0.1, random_state=0
    )
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "data.npz"
        np.savez(path, X=X, y=y)
        print(f"{args.n_samples} rows, 28 features, 10% label noise")
        print(f"{'learner':8s} {'step':30s} {'seconds':>9s} {'/ grow':>7s}")
        for learner in ("cart", "c45", "sklearn"):
            out = run(path, learner)
            grow = out.pop("grow", None)
            nodes = out.pop("nodes", None)
            if grow is not None:
                print(f"{learner:8s} {'grow (' + str(nodes) + ' nodes)':30s} {grow:9.2f} {1:7.2f}")
            for step, seconds in out.items():
                ratio = f"{seconds / grow:7.2f}" if grow else "       "
                print(f"{learner:8s} {step:30s} {seconds:9.2f} {ratio}")


if __name__ == "__main__":
    main()

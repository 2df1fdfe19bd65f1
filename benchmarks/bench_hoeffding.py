"""Hoeffding tree (incremental trees): rows per second, mltrees in batches vs river row by row.

    python benchmarks/bench_hoeffding.py [--n-samples 200000] [--river-samples 20000]

Data: the seeded synthetic stream of the book's section on incremental trees
(ten uniform features, a hidden random tree of depth 6 gives the class, 10%
of labels flipped), and the covertype table (20,000 x 54, 7 classes,
shuffled). mltrees' ``HoeffdingTreeClassifier.partial_fit`` takes batches of
1,000 rows; river's ``tree.HoeffdingTreeClassifier.learn_one`` takes one row
(a dict) at a time, as river is meant to be used. Same parameters
(``grace_period=200, delta=1e-7, tau=0.05, leaf_prediction="nba"``). Each
learner sees the stream once; the table gives rows per second, the tree size
and the accuracy on held-out rows. river is timed on a prefix
(``--river-samples``) because it is slow; its rate does not depend much on
the prefix length. The load average is printed: on a shared machine the
rates are lower bounds.

Goal (issue 16): at least 100,000 rows/s in batches of 1,000.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np

from mltrees import HoeffdingTreeClassifier
from mltrees.datasets import load_covertype


def hidden_tree_stream(n, n_features=10, depth=6, noise=0.1, seed=0):
    """The book's synthetic stream: a hidden random tree labels uniform features."""
    rng = np.random.default_rng(seed)
    n_inner = 2**depth - 1
    feature = rng.integers(0, n_features, n_inner)
    threshold = rng.uniform(0.2, 0.8, n_inner)
    leaf_class = rng.integers(0, 2, 2**depth)
    X = rng.uniform(size=(n, n_features))
    node = np.zeros(n, dtype=np.intp)
    for _ in range(depth):
        node = 2 * node + 1 + (X[np.arange(n), feature[node]] > threshold[node])
    y = leaf_class[node - n_inner]
    return X, np.where(rng.uniform(size=n) < noise, 1 - y, y)


PARAMS = {"grace_period": 200, "delta": 1e-7, "tau": 0.05, "leaf_prediction": "nba"}


def run_mltrees(X, y, X_test, y_test, batch):
    model = HoeffdingTreeClassifier(**PARAMS)
    classes = np.unique(y)
    start = time.perf_counter()
    for s in range(0, len(y), batch):
        model.partial_fit(X[s : s + batch], y[s : s + batch], classes=classes)
    seconds = time.perf_counter() - start
    return len(y) / seconds, model.n_nodes_, model.score(X_test, y_test)


def run_river(X, y, X_test, y_test):
    from river import tree

    model = tree.HoeffdingTreeClassifier(**PARAMS)
    rows = [dict(enumerate(r.tolist())) for r in X]  # conversion not timed
    start = time.perf_counter()
    for row, label in zip(rows, y.tolist(), strict=True):
        model.learn_one(row, label)
    seconds = time.perf_counter() - start
    predicted = [model.predict_one(dict(enumerate(r.tolist()))) for r in X_test]
    return len(y) / seconds, model.n_nodes, float(np.mean(np.asarray(predicted) == y_test))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n-samples", type=int, default=1_000_000)
    parser.add_argument("--river-samples", type=int, default=50_000)
    parser.add_argument("--batch", type=int, default=1_000)
    args = parser.parse_args()

    X, y = hidden_tree_stream(args.n_samples + 20_000)
    streams = {"synthetic": (X[:-20_000], y[:-20_000], X[-20_000:], y[-20_000:])}
    cover = load_covertype()
    order = np.random.default_rng(0).permutation(len(cover.target))
    Xc = cover.data.to_numpy(np.float64)[order]
    yc = np.asarray(cover.target)[order]
    streams["covertype"] = (Xc[:15_000], yc[:15_000], Xc[15_000:], yc[15_000:])

    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores; batch {args.batch}")
    header = ("stream", "learner", "rows", "rows/s", "nodes", "test acc")
    print("{:10s} {:22s} {:>9s} {:>10s} {:>6s} {:>9s}".format(*header))
    line = "{:10s} {:22s} {:9d} {:10,.0f} {:6d} {:9.4f}"
    for name, (Xs, ys, Xt, yt) in streams.items():
        result = run_mltrees(Xs, ys, Xt, yt, args.batch)
        print(line.format(name, "mltrees (batches)", len(ys), *result))
        n_river = min(args.river_samples, len(ys))
        head_X, head_y = Xs[:n_river], ys[:n_river]
        print(line.format(name, "river (row by row)", n_river, *run_river(head_X, head_y, Xt, yt)))
        if n_river < len(ys):
            result = run_mltrees(head_X, head_y, Xt, yt, args.batch)
            print(line.format(name, "mltrees, same prefix", n_river, *result))


if __name__ == "__main__":
    main()

"""Size and speed of mltrees model files (chapter 18), against pickle.

Run: PYTHONPATH=. python benchmarks/bench_model_files.py [n_estimators]
Timings depend on the machine and its load; sizes do not.
"""

import pickle
import sys
import time

import numpy as np

import mltrees
from mltrees.datasets import load_covertype


def main(n_estimators: int = 50) -> None:
    X, y = load_covertype(return_X_y=True)
    X = X.select_dtypes("number")
    forest = mltrees.RandomForestClassifier(
        n_estimators=n_estimators, random_state=0, n_jobs=2
    ).fit(X, y)
    nodes = sum(m.tree_.node_count for m in forest.estimators_)
    start = time.perf_counter()
    text = mltrees.to_json(forest)
    write = time.perf_counter() - start
    start = time.perf_counter()
    back = mltrees.from_json(text)
    read = time.perf_counter() - start
    blob = pickle.dumps(forest)
    start = time.perf_counter()
    pickle.loads(blob)  # our own object, written just above
    unpickle = time.perf_counter() - start
    same = np.array_equal(back.predict_proba(X[:2000]), forest.predict_proba(X[:2000]))
    print(f"random forest, {n_estimators} trees, {nodes} nodes, {X.shape[0]} rows")
    print(f"  JSON   {len(text) / 2**20:7.1f} MiB  write {write:6.2f} s  read {read:6.2f} s")
    print(f"  pickle {len(blob) / 2**20:7.1f} MiB                 read {unpickle:6.2f} s")
    print(f"  identical predictions after loading: {same}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50)

"""Chapter 1 functions against SciPy and scikit-learn, same data, same run.

    python benchmarks/bench_information.py [--repeat 5]

Prints the best-of-``repeat`` wall time of each call and the ratio
mltrees / reference. Results are also checked for equality, so a fast wrong
answer cannot pass unnoticed.
"""

from __future__ import annotations

import argparse
import math
import time

import numpy as np
import scipy.stats
import sklearn.metrics

import mltrees


def best_time(function, repeat: int) -> tuple[float, object]:
    result, best = None, math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - start)
    return best, result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(0)

    rows = []
    distributions = rng.dirichlet(np.ones(16), size=1_000_000)
    ours, h_ours = best_time(lambda: mltrees.entropy(distributions), args.repeat)
    ref, h_ref = best_time(lambda: scipy.stats.entropy(distributions, base=2, axis=-1), args.repeat)
    np.testing.assert_allclose(h_ours, h_ref, rtol=1e-12, atol=1e-12)
    rows.append(("entropy, 1e6 distributions x 16", ours, "scipy.stats.entropy", ref))

    p, q = distributions, distributions[::-1].copy()
    ours, kl_ours = best_time(lambda: mltrees.kl_divergence(p, q), args.repeat)
    ref, kl_ref = best_time(lambda: scipy.stats.entropy(p, q, base=2, axis=-1), args.repeat)
    np.testing.assert_allclose(kl_ours, kl_ref, rtol=1e-10)
    rows.append(("KL divergence, 1e6 pairs x 16", ours, "scipy.stats.entropy(p, q)", ref))

    x = rng.integers(0, 50, size=2_000_000)
    y = (x + rng.integers(0, 5, size=x.size)) % 7

    def ours_mi():
        table, _, _ = mltrees.contingency_table(x, y)
        return mltrees.mutual_information(table, base=math.e, counts=True)

    ours, mi_ours = best_time(ours_mi, args.repeat)
    ref, mi_ref = best_time(lambda: sklearn.metrics.mutual_info_score(x, y), args.repeat)
    np.testing.assert_allclose(mi_ours, mi_ref, rtol=1e-9)
    rows.append(("mutual information, 2e6 labels", ours, "sklearn mutual_info_score", ref))

    print(f"{'measurement':34} {'mltrees':>10} {'reference':>28} {'ref time':>10} {'ratio':>7}")
    for name, ours, ref_name, ref in rows:
        print(f"{name:34} {ours:9.3f}s {ref_name:>28} {ref:9.3f}s {ours / ref:7.2f}")


if __name__ == "__main__":
    main()

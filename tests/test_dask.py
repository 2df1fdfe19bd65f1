"""mltrees.dask: training on a Dask cluster gives the trees one machine grows.

The cluster (two worker processes, one thread each) is started once for
the module and stopped at its end; nothing leaves the machine.
"""

import os
import signal
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("distributed")

import dask.array as da
import dask.dataframe as dd
from distributed import Client, LocalCluster
from sklearn.datasets import load_breast_cancer, load_diabetes

import mltrees.dask.xgboost as dask_xgboost
from mltrees.dask import (
    DaskRandomForestClassifier,
    DaskRandomForestRegressor,
    DaskRows,
    DaskXGBoostClassifier,
    DaskXGBoostRegressor,
    histogram_bytes,
    merged_cuts,
    pv_tree_candidates,
    row_bytes,
    tree_reduce_bytes,
)
from mltrees.dask._data import as_dask_arrays, partitions
from mltrees.datasets import load_car_evaluation, load_heart_disease, load_penguins
from mltrees.ensemble.forest import RandomForestClassifier
from mltrees.ensemble.xgboost import XGBoostClassifier, XGBoostRegressor, xgboost_binned
from mltrees.hist.binning import BinnedData

SMALL = {"n_estimators": 3, "max_depth": 3, "random_state": 0}


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(
        n_workers=2, processes=True, threads_per_worker=1, dashboard_address=":0"
    )
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


@pytest.fixture(scope="module")
def cancer_model(client):
    X, y = load_breast_cancer(return_X_y=True)
    return X, y, DaskXGBoostClassifier(**SMALL, client=client).fit(X, y)


def _numeric(X: pd.DataFrame) -> np.ndarray:
    """Category columns as their codes, missing as NaN: what the XGBoost estimators take."""
    out = X.copy()
    for c in out.columns:
        if isinstance(out[c].dtype, pd.CategoricalDtype):
            out[c] = out[c].cat.codes.astype(float).where(out[c].notna())
    return out.to_numpy(dtype=np.float32)


def _same_trees(a, b):
    ta = [t for stage in a.trees_ for t in stage]
    tb = [t for stage in b.trees_ for t in stage]
    assert len(ta) == len(tb)
    for x, y in zip(ta, tb, strict=True):
        np.testing.assert_array_equal(x.feature, y.feature)
        np.testing.assert_array_equal(x.threshold, y.threshold)
        np.testing.assert_array_equal(x.missing_slot, y.missing_slot)
        np.testing.assert_array_equal(x.n_node_samples, y.n_node_samples)
        np.testing.assert_allclose(x.value, y.value, rtol=1e-9, atol=1e-12)


# ------------------------------------------------------------ identity
def test_heart_disease_with_nan_and_categories_from_merged_sketch(client):
    # Every feature has at most max_bin distinct values: the merged summaries
    # are exact, so the cuts are one machine's without passing them in.
    X, y = load_heart_disease(return_X_y=True)
    X = _numeric(X)
    assert np.isnan(X).any()
    local = XGBoostClassifier(**SMALL, n_jobs=1).fit(X, y)
    dist = DaskXGBoostClassifier(**SMALL, client=client, n_partitions=3).fit(X, y)
    for ours, theirs in zip(dist._cuts, BinnedData.fit(X, 256).cuts, strict=True):
        np.testing.assert_array_equal(ours, theirs)
    _same_trees(local, dist)
    np.testing.assert_allclose(
        dist.predict_proba(X), local.predict_proba(X), rtol=1e-12, atol=1e-14
    )


def test_penguins_three_classes_with_nan(client):
    X, y = load_penguins(return_X_y=True)
    X = _numeric(X)
    params = {**SMALL, "n_estimators": 2, "colsample_bynode": 0.7}
    local = XGBoostClassifier(**params, n_jobs=1).fit(X, y)
    dist = DaskXGBoostClassifier(**params, client=client).fit(X, y)
    _same_trees(local, dist)
    np.testing.assert_allclose(dist.decision_function(X), local.decision_function(X), atol=1e-12)


def test_car_evaluation_ordinal_codes_dask_dataframe(client):
    X, y = load_car_evaluation(return_X_y=True)
    frame = pd.DataFrame(_numeric(X), columns=X.columns)
    target = pd.Series(np.unique(np.asarray(y, dtype=str), return_inverse=True)[1], name="y")
    params = {**SMALL, "n_estimators": 2}
    local = XGBoostClassifier(**params, n_jobs=1).fit(frame, target)
    dist = DaskXGBoostClassifier(**params, client=client).fit(
        dd.from_pandas(frame, npartitions=3), dd.from_pandas(target, npartitions=3)
    )
    assert list(dist.feature_names_in_) == list(frame.columns)
    _same_trees(local, dist)


@pytest.mark.parametrize("loader", [load_diabetes, load_breast_cancer])
def test_many_distinct_values_with_cuts_passed_in(client, loader):
    X, y = loader(return_X_y=True)
    X = X.astype(np.float32)
    X[::5, 1] = np.nan
    w = np.linspace(0.5, 2.0, len(y))
    cuts = BinnedData.fit(X, 32, weights=w).cuts  # one machine's weighted quantiles
    Model = XGBoostRegressor if loader is load_diabetes else XGBoostClassifier
    DaskModel = DaskXGBoostRegressor if loader is load_diabetes else DaskXGBoostClassifier
    local = Model(**SMALL, max_bin=32, n_jobs=1).fit(X, y, sample_weight=w)
    dist = DaskModel(**SMALL, max_bin=32, client=client, cuts=cuts, n_partitions=4).fit(
        da.from_array(X, chunks=(150, 10)), y, sample_weight=w
    )
    _same_trees(local, dist)
    np.testing.assert_allclose(
        dist.predict(X, output_margin=True), local.predict(X, output_margin=True), atol=1e-12
    )


def _continuous(n, seed):
    """Continuous columns, more distinct values than max_bin and beyond one sketch block."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5)).astype(np.float32)
    X[:, 1] = np.exp(X[:, 1])  # skewed
    X[:, 2] = np.round(X[:, 2], 1)  # ties: about 80 distinct values
    X[rng.random((n, 5)) < 0.03] = np.nan
    signal = np.nan_to_num(X[:, 0]) + np.log(np.nan_to_num(X[:, 1], nan=1.0)) * X[:, 3]
    return X, np.nan_to_num(signal) + rng.normal(0, 0.3, n)


@pytest.mark.parametrize("weighted", [False, True])
def test_continuous_columns_get_one_machines_cuts_and_trees(client, weighted):
    # 30 000 rows of continuous columns: the one-machine sketch prunes blocks
    # of 8 194 values in row order, so its cuts depend on that order; the
    # column shuffle cuts each column in the global row order, as one machine.
    X, target = _continuous(30_000, seed=1)
    y = (target > np.median(target)).astype(int)
    w = None
    if weighted:
        w = np.random.default_rng(2).uniform(0.0, 2.0, len(y))
        w[::7] = 0.0  # dropped from the cuts and the sums, as on one machine
    params = {**SMALL, "max_depth": 4, "max_bin": 64}
    local = XGBoostClassifier(**params, n_jobs=1).fit(X, y, sample_weight=w)
    chunks = (7_000, 5_000, 9_000, 9_000)  # unequal partitions
    dist = DaskXGBoostClassifier(**params, client=client).fit(
        da.from_array(X, chunks=(chunks, 5)), y, sample_weight=w
    )
    keep = slice(None) if w is None else w > 0
    expected = xgboost_binned(X[keep], 64, None if w is None else w[keep])
    for j, (ours, theirs) in enumerate(zip(dist._cuts, expected.cuts, strict=True)):
        assert np.unique(X[:, j][~np.isnan(X[:, j])]).size > 64  # more values than bins
        np.testing.assert_array_equal(ours, theirs)
    _same_trees(local, dist)
    np.testing.assert_allclose(dist.decision_function(X), local.decision_function(X), atol=1e-9)


def test_continuous_regression_same_trees_and_a_merged_sketch_on_request(client):
    X, y = _continuous(20_000, seed=4)
    params = {**SMALL, "max_bin": 128}
    local = XGBoostRegressor(**params, n_jobs=1).fit(X, y)
    dist = DaskXGBoostRegressor(**params, client=client, n_partitions=3).fit(X, y)
    _same_trees(local, dist)
    # sketch_eps asks for the merged sketch instead (summaries only, no column
    # shuffle): cuts within eps of their ranks, not one machine's.
    sketched = DaskXGBoostRegressor(**params, client=client, n_partitions=3, sketch_eps=0.01)
    sketched.fit(X, y)
    assert any(not np.array_equal(a, b) for a, b in zip(sketched._cuts, dist._cuts, strict=True))


def test_merged_sketch_cut_ranks_within_eps(client):
    # diabetes' columns have up to 214 distinct values: with max_bin = 16 the
    # cuts come from pruned, merged summaries. Each cut's exact weighted rank
    # interval, computed by brute force, must come within eps of its target.
    X, _ = load_diabetes(return_X_y=True)
    X = X.astype(np.float32)
    w = np.random.default_rng(0).uniform(0.5, 2.0, len(X))
    eps, max_bin = 0.02, 16
    Xd, yd, wd, _ = as_dask_arrays(X, np.zeros(len(X)), w, 5)
    cuts, minimum, summaries = merged_cuts(client, partitions(client, Xd, yd, wd), max_bin, eps)
    total = w.sum()
    for j, cut in enumerate(cuts):
        assert summaries[j].max_error() <= eps
        assert minimum[j] == X[:, j].min()
        col = X[:, j]
        for c in cut[:-1]:
            below = w[col < c].sum() / total
            upto = w[col <= c].sum() / total
            # The target rank of the nearest k / max_bin must lie in [below - eps, upto + eps].
            targets = np.arange(1, max_bin) / max_bin
            assert np.any(
                (targets >= below - eps / 2 - 1e-12) & (targets <= upto + eps / 2 + 1e-12)
            )
        assert cut[-1] > col.max()
    # Cuts from the sketch, passed to one machine, give the same trees again.
    y = load_diabetes(return_X_y=True)[1]
    local = XGBoostRegressor(**SMALL, max_bin=max_bin, n_jobs=1)
    local.fit(X, y)  # its own exact quantile cuts
    dist = DaskXGBoostRegressor(
        **SMALL, max_bin=max_bin, sketch_eps=eps, client=client, n_partitions=5
    ).fit(X, y)
    rmse_local = np.sqrt(np.mean((local.predict(X) - y) ** 2))
    rmse_dist = np.sqrt(np.mean((dist.predict(X) - y) ** 2))
    assert abs(rmse_dist - rmse_local) < 0.05 * rmse_local


# ------------------------------------------------------------ prediction and input
def test_lazy_prediction_on_dask_collections(cancer_model):
    X, _, model = cancer_model
    Xd = da.from_array(X, chunks=(200, 30))
    lazy = model.predict_proba(Xd)
    assert isinstance(lazy, da.Array)  # nothing computed yet
    np.testing.assert_allclose(lazy.compute(), model.predict_proba(X))
    frame = dd.from_pandas(pd.DataFrame(X), npartitions=2)
    labels = model.predict(frame)
    assert isinstance(labels, dd.Series)
    np.testing.assert_array_equal(labels.compute().to_numpy(), model.predict(X))
    local = model.to_local()
    assert type(local) is XGBoostClassifier
    np.testing.assert_array_equal(local.predict(X), model.predict(X))


def test_bad_input_and_unsupported_options(client):
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ValueError, match="tree_method"):
        DaskXGBoostRegressor(client=client, tree_method="approx").fit(X, y)
    with pytest.raises(ValueError, match="subsample"):
        DaskXGBoostRegressor(client=client, subsample=0.5).fit(X, y)
    bad = X.copy()
    bad[3, 2] = np.inf
    with pytest.raises(ValueError, match="inf"):
        DaskXGBoostRegressor(**SMALL, client=client).fit(bad, y)
    frame = pd.DataFrame({"a": pd.Categorical(["x", "y"] * 10), "b": np.arange(20.0)})
    # One machine reads categories as their codes (issue 32); the cluster refuses them.
    codes = frame.assign(a=frame["a"].cat.codes.astype(float))
    np.testing.assert_array_equal(
        XGBoostRegressor(**SMALL).fit(frame, np.arange(20.0)).predict(frame),
        XGBoostRegressor(**SMALL).fit(codes, np.arange(20.0)).predict(codes),
    )
    with pytest.raises(TypeError, match="encode categories"):
        DaskXGBoostRegressor(client=client).fit(frame, np.arange(20.0))
    with pytest.raises(ValueError, match="cuts"):
        DaskXGBoostRegressor(client=client, cuts=[[1.0]]).fit(X, y)


def test_dask_stays_optional():
    code = (
        "import sys; import mltrees; assert 'dask' not in sys.modules; "
        "sys.modules['dask'] = None\n"
        "try:\n    import mltrees.dask\nexcept ImportError as e:\n    print(e)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    ).stdout
    # mltrees installs from a clone: the extra is named with the clone's path (not PyPI)
    assert 'pip install "path/to/mltrees[dask]"' in out


# ------------------------------------------------------------ forests
def test_forest_trees_grown_on_workers(client):
    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.default_rng(0)
    test = rng.random(len(y)) < 0.3
    forest = DaskRandomForestClassifier(
        client=client, n_estimators=8, max_depth=6, random_state=0
    ).fit(X[~test], y[~test])
    rows = -(-int((~test).sum()) // 2)  # the two partitions a numpy X is cut into
    again = DaskRandomForestClassifier(
        client=client, n_estimators=8, max_depth=6, random_state=0
    ).fit(da.from_array(X[~test], chunks=(rows, 30)), y[~test])
    assert len(forest.estimators_) == 8
    # Each tree's Poisson sample depends on (seed, tree, partition): same partitions, same forest.
    np.testing.assert_array_equal(forest.predict_proba(X[test]), again.predict_proba(X[test]))
    one_machine = RandomForestClassifier(n_estimators=8, max_depth=6, random_state=0)
    one_machine.fit(X[~test], y[~test])
    assert forest.score(X[test], y[test]) > one_machine.score(X[test], y[test]) - 0.05
    lazy = forest.predict(da.from_array(X[test], chunks=(50, 30)))
    np.testing.assert_array_equal(lazy.compute(), forest.predict(X[test]))


def test_forest_regressor_small_samples(client):
    X, y = load_diabetes(return_X_y=True)
    forest = DaskRandomForestRegressor(
        client=client, n_estimators=6, max_samples=0.2, random_state=1, min_samples_leaf=5
    ).fit(X, y)
    sizes = [m.estimators_[0].tree_.weighted_n_node_samples[0] for m in forest.estimators_]
    # Poisson(0.2) counts: about 0.2 n rows of weight per tree (n = 442).
    assert 0.12 * len(y) < np.mean(sizes) < 0.28 * len(y)
    r2 = forest.score(X, y)
    assert 0.3 < r2 < 1.0


@pytest.mark.filterwarnings("ignore:X does not have valid feature names:UserWarning")
def test_forest_checks_column_names_and_order_at_predict(client):
    """The review's case: reversed columns changed 60/120 predictions with only a warning."""
    from sklearn.exceptions import NotFittedError

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    X = X.iloc[:, :4]
    forest = DaskRandomForestClassifier(client=client, n_estimators=3, random_state=0).fit(X, y)
    np.testing.assert_array_equal(forest.feature_names_in_, X.columns)
    with pytest.raises(ValueError, match="feature names"):
        forest.predict(X[X.columns[::-1]])
    with pytest.raises(ValueError, match="feature names"):
        forest.predict_proba(X.rename(columns={X.columns[0]: "other"}))
    with pytest.raises(ValueError, match="4 features"):
        forest.predict(X.iloc[:, :3].to_numpy())
    with pytest.warns(UserWarning, match="does not have valid feature names"):
        unnamed = forest.predict(X.to_numpy())  # as scikit-learn: a warning, by position
    np.testing.assert_array_equal(forest.predict(X), unnamed)
    with pytest.raises(NotFittedError):
        DaskRandomForestClassifier(client=client).predict(X)
    with pytest.raises(ValueError, match="y has 568 rows, X has 569"):
        DaskRandomForestRegressor(client=client, n_estimators=2).fit(X, y[:-1])
    # values near the largest float: float64 members, thresholds between neighbours
    huge = np.ldexp(X.to_numpy(), 1000)
    regressor = DaskRandomForestRegressor(client=client, n_estimators=2, random_state=0)
    plain = regressor.fit(X.to_numpy(), y).predict(X.to_numpy())
    np.testing.assert_array_equal(regressor.fit(huge, y).predict(huge), plain)


# ------------------------------------------------------------ communication arithmetic
def test_histogram_bytes_by_hand():
    # A depth-6 tree builds 1 + 1 + 2 + 4 + 8 + 16 = 32 nodes' histograms:
    # 32 nodes x 28 features x 256 bins x 2 statistics (sum g, sum h) x 8 bytes
    # = 3 670 016 bytes; with a row count per bin as a third statistic, 5 505 024.
    assert histogram_bytes(32, 28, 256) == 3_670_016
    assert histogram_bytes(32, 28, 256, n_statistics=3) == 5_505_024
    levels = [histogram_bytes(1 if d == 0 else 2 ** (d - 1), 28, 256) for d in range(6)]
    assert sum(levels) == 3_670_016
    with pytest.raises(ValueError, match="n_bins"):
        histogram_bytes(1, 28, 0)


def test_histogram_bytes_default_counts_what_the_boosting_learner_sums():
    # The default n_statistics is the number of sums per bin that the
    # boosting learner of mltrees.dask actually builds and sends: (sum g, sum h).
    import inspect

    from mltrees.hist.grower import NodeRows

    rng = np.random.default_rng(0)
    binned = BinnedData.fit(rng.normal(size=(50, 3)).astype(np.float32), 8)
    rows = NodeRows(binned, rng.normal(size=50), rng.uniform(0.1, 1.0, size=50))
    default = inspect.signature(histogram_bytes).parameters["n_statistics"].default
    assert rows.histograms().shape[-1] == default == 2


def test_local_feature_gains_equal_a_brute_force_search():
    # Few distinct values per column, so every value has its own bin and the
    # best cut can be found by trying every threshold between neighbours.
    from mltrees.dask import local_feature_gains

    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(400, 3)).astype(float)
    g, h = rng.normal(size=400), rng.uniform(0.2, 1.0, size=400)
    partitions = [np.arange(0, 150), np.arange(150, 400), np.array([], dtype=int)]

    def brute_force(rows, j, lam=1.0, min_child_weight=1.0):
        G, H, best = g[rows].sum(), h[rows].sum(), 0.0
        for cut in np.unique(X[rows, j])[:-1]:
            left = rows[X[rows, j] <= cut]
            gl, hl = g[left].sum(), h[left].sum()
            if hl >= min_child_weight and H - hl >= min_child_weight:
                gain = gl**2 / (hl + lam) + (G - gl) ** 2 / (H - hl + lam) - G**2 / (H + lam)
                best = max(best, gain)
        return best

    gains = local_feature_gains(X, g, h, partitions, max_bin=16)
    assert gains.shape == (3, 3)
    expected = [[brute_force(rows, j) for j in range(3)] for rows in partitions[:2]]
    np.testing.assert_allclose(gains[:2], expected, rtol=1e-5)
    assert np.all(gains[2] == 0)  # a worker without rows has nothing to vote with
    with pytest.raises(ValueError, match="partitions"):
        local_feature_gains(X, g, h, [np.array([400])])
    with pytest.raises(ValueError, match="X must be 2-D"):
        local_feature_gains(X[:, 0], g, h, partitions)
    with pytest.raises(ValueError, match="g and h must have shape"):
        local_feature_gains(X, g[:10], h, partitions)


def test_to_local_before_fit_is_a_not_fitted_error():
    from sklearn.exceptions import NotFittedError

    for forest in (DaskRandomForestClassifier(), DaskRandomForestRegressor()):
        with pytest.raises(NotFittedError):
            forest.to_local()


def test_partitions_are_spread_over_the_workers_in_runs():
    from mltrees.dask.allreduce import _placement

    # Four partitions all on worker a: a keeps the first run, b gets the second.
    assert _placement([["a"]] * 4, ["a", "b"]) == {"a": [0, 1], "b": [2, 3]}
    # Each run goes where most of it is; a partition held twice counts for both holders.
    assert _placement([["b"], ["a", "b"], ["a"]], ["a", "b"]) == {"b": [0, 1], "a": [2]}
    assert _placement([["a"], ["a"], ["a"]], ["a", "b", "c"]) == {"a": [0], "b": [1], "c": [2]}
    assert _placement([["b"], ["a"]], ["a", "b", "c"]) == {"b": [0], "a": [1]}


@pytest.mark.parametrize("n_partitions", [1, 2, 3, 5, 8])
def test_sums_do_not_depend_on_which_worker_holds_which_partition(n_partitions):
    from mltrees.dask.allreduce import fold

    rng = np.random.default_rng(n_partitions)
    # Values whose float sums depend on the order of the additions.
    parts = [rng.normal(size=50) * 10.0 ** rng.integers(-8, 8, 50) for _ in range(n_partitions)]

    def by_tree(items):  # tree_sum's pairing, by hand
        while len(items) > 1:
            paired = [items[i] + items[i + 1] for i in range(0, len(items) - 1, 2)]
            items = paired + ([items[-1]] if len(items) % 2 else [])
        return items[0]

    expected = by_tree(parts)
    for _ in range(20):
        owner = rng.integers(0, 3, n_partitions)  # any placement on 3 workers
        answers = {}
        for w in range(3):
            local = {(0, i): parts[i] for i in np.flatnonzero(owner == w)}
            answers.update(fold(local, n_partitions))
        (total,) = fold(answers, n_partitions).values()
        np.testing.assert_array_equal(total, expected)
    assert not np.array_equal(sum(parts[::-1]), expected) or n_partitions < 3


def test_tree_reduce_and_rows_by_hand():
    out = tree_reduce_bytes(100, 10.0)
    assert out == {"total": 990.0, "steps": 7, "max_received": 70.0, "gather_received": 1000.0}
    assert tree_reduce_bytes(1, 10.0)["steps"] == 0
    assert row_bytes(10**9, 28) == {"once": 28e9, "per_tree": 16e9}


def test_pv_tree_vote_by_hand():
    gains = np.array(
        [
            [5.0, 1.0, 4.0, 0.0, 2.0],  # top-1: feature 0; top-2: 0, 2
            [1.0, 6.0, 5.0, 0.0, 2.0],  # top-1: 1;         top-2: 1, 2
            [4.0, 0.0, 5.0, 0.0, 1.0],  # top-1: 2;         top-2: 2, 0
        ]
    )
    # k = 1: one vote each for 0, 1, 2; ties to the smaller index: 0, 1.
    np.testing.assert_array_equal(pv_tree_candidates(gains, 1), [0, 1])
    # k = 2: votes 0 -> 2, 1 -> 1, 2 -> 3: candidates 2, 0, 1, then 3 (0 votes, smaller than 4).
    np.testing.assert_array_equal(pv_tree_candidates(gains, 2), [2, 0, 1, 3])
    with pytest.raises(ValueError, match="k must be"):
        pv_tree_candidates(gains, 0)
    with pytest.raises(ValueError, match="2-D"):
        pv_tree_candidates(gains[0], 1)


# ------------------------------------------------------------ failures (last: a worker restarts)
def test_killed_worker_gives_the_same_model_or_an_error(client, cancer_model, monkeypatch):
    X, y, reference = cancer_model
    killed = []

    class KillingRows(DaskRows):
        def split(self, *args):
            if not killed and len(dask_xgboost_trees) == 1:
                # Mid-fit, with partition state on both workers: one worker dies.
                victim = sorted(client.scheduler_info()["workers"])[0]
                pid = client.run(os.getpid, workers=[victim])[victim]
                os.kill(pid, signal.SIGKILL)
                killed.append(victim)
            return super().split(*args)

    dask_xgboost_trees = []
    original_grow = dask_xgboost.DepthwiseGrower.grow_rows

    def counting_grow(self, rows, features=None):
        grown = original_grow(self, rows, features)
        dask_xgboost_trees.append(grown)
        return grown

    monkeypatch.setattr(dask_xgboost, "DaskRows", KillingRows)
    monkeypatch.setattr(dask_xgboost.DepthwiseGrower, "grow_rows", counting_grow)
    # The lost worker ends the first attempt (its partitions' states were in
    # its memory); the fit starts again from the input and gives the same model.
    model = DaskXGBoostClassifier(**SMALL, client=client).fit(X, y)
    assert killed
    _same_trees(reference, model)
    client.wait_for_workers(2, timeout=30)


def test_a_worker_lost_in_both_attempts_is_a_clear_error(client, monkeypatch):
    from mltrees.dask import WorkerLost

    X, y = load_breast_cancer(return_X_y=True)
    kills = []

    class KillingRows(DaskRows):
        def split(self, *args):
            if self._depth == 1 and len(kills) < 2:  # in each attempt, in the first tree
                victim = self.group._hosts[0][0]  # a worker holding partitions
                os.kill(client.run(os.getpid, workers=[victim])[victim], signal.SIGKILL)
                kills.append(victim)
            return super().split(*args)

    monkeypatch.setattr(dask_xgboost, "DaskRows", KillingRows)
    with pytest.raises(WorkerLost, match="was lost mid-fit"):
        DaskXGBoostClassifier(**SMALL, client=client).fit(X, y)
    assert len(kills) == 2
    client.wait_for_workers(2, timeout=30)


def test_every_dask_estimator_is_saved_and_loaded(client, tmp_path):
    """save_model writes a cluster's model without its client; loaded, it predicts the same."""
    from mltrees.io import load_model, save_model

    X, y = load_breast_cancer(return_X_y=True)
    frame = pd.DataFrame(X[:, :6], columns=[f"f{i}" for i in range(6)])
    y3 = np.where(X[:, 0] > 15, 2, y)  # three classes, one rare
    for model, target in [
        (DaskXGBoostClassifier(**SMALL, client=client), y),
        (DaskXGBoostRegressor(**SMALL, client=client), X[:, 7]),
        (DaskRandomForestClassifier(n_estimators=4, max_samples=0.1, random_state=0), y3),
        (DaskRandomForestRegressor(n_estimators=4, random_state=0), X[:, 7]),
    ]:
        if model.client is None:
            model.set_params(client=client)
        model.fit(frame, target)
        path = tmp_path / f"{type(model).__name__}.json"
        save_model(model, path)
        loaded = load_model(path)
        assert loaded.get_params().get("client") is None
        for method in ("predict", "predict_proba"):
            if hasattr(model, method):
                np.testing.assert_array_equal(
                    getattr(loaded, method)(frame), getattr(model, method)(frame)
                )
        with pytest.raises(ValueError, match="feature names"):
            loaded.predict(frame[frame.columns[::-1]])


def test_a_dask_forest_file_is_loaded_in_a_fresh_process(client, tmp_path):
    """The file names the Dask class; loading imports mltrees.dask (its registration) first."""
    import subprocess
    import sys

    from mltrees.io import save_model

    X, y = load_breast_cancer(return_X_y=True)
    forest = DaskRandomForestClassifier(client=client, n_estimators=3, random_state=0).fit(X, y)
    path = tmp_path / "forest.json"
    save_model(forest, path)
    expected = forest.predict_proba(X[:20])
    np.save(tmp_path / "x.npy", X[:20])
    code = (
        "import sys, numpy as np\n"
        "from mltrees.io import load_model\n"
        f"model = load_model({str(path)!r})\n"
        "assert 'mltrees.dask.forest' in sys.modules\n"
        f"X = np.load({str(tmp_path / 'x.npy')!r})\n"
        f"np.save({str(tmp_path / 'p.npy')!r}, model.predict_proba(X))\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)
    np.testing.assert_array_equal(np.load(tmp_path / "p.npy"), expected)


def test_partition_group_refuses_no_partitions(client):
    """The public reduction primitive: no partitions is a clear error; two sum as one array."""
    from mltrees.dask import PartitionGroup

    with pytest.raises(ValueError, match="PartitionGroup needs at least one partition"):
        PartitionGroup(client, [], np.asarray)
    group = PartitionGroup(client, client.scatter([np.arange(3.0), np.arange(2.0)]), np.asarray)
    try:
        assert group.sum(np.sum) == 4.0
    finally:
        group.close()

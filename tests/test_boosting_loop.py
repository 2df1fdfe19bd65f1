"""The one boosting loop of the second-order learners (mltrees.hist.boosting)."""

import numpy as np
import pytest

from mltrees.hist.boosting import BoostingLoop, EvalSets, draw_columns


class _Grower:
    closed = False

    def close(self):
        self.closed = True


class _Grown:
    def __init__(self, m):
        self.tree = f"tree {m}"
        self.gain = np.array([float(m)])


class _Rounds(BoostingLoop):
    """Rounds whose metric is read from a list: the loop sees only the hooks."""

    def __init__(self, metric, *, stop_before=None, last=None, fail_at=None):
        super().__init__(_Grower(), rng=np.random.default_rng(0), n_features=4)
        self.metric, self.stop_before, self.last, self.fail_at = metric, stop_before, last, fail_at

    def statistics(self, m):
        if m == self.fail_at:
            raise RuntimeError("gradients failed")
        return m

    def grow_stage(self, m, statistics, features):
        assert statistics == m
        assert features is None  # column_share 1: every column
        return None if m == self.stop_before else [_Grown(m)]

    def stop_after(self, stage):
        return stage[0].tree == f"tree {self.last}"

    def round_scores(self, stage):
        return [self.metric[int(stage[0].gain[0])]]


def _run(rounds, n=10, patience=None):
    return rounds.run(n, verbose=0, patience=patience, name="Model", prefix="eval")


def test_early_stopping_keeps_patience_rounds_after_the_best():
    metric = [5.0, 4.0, 3.0, 3.5, 3.2, 3.1, 2.0, 1.0, 0.5, 0.1]
    boosted = _run(_Rounds(metric), patience=3)
    assert boosted.best_round == 2
    assert len(boosted.trees) == 6  # rounds 3, 4, 5 do not beat round 2
    assert boosted.history == [metric[:6]]
    assert boosted.gains[5][0][0] == 5.0


def test_without_patience_every_round_runs():
    metric = [5.0, 6.0, 7.0, 8.0]
    boosted = _run(_Rounds(metric), n=4)
    assert len(boosted.trees) == 4
    assert boosted.best_round == 0


def test_a_hook_ends_training_before_or_after_a_round():
    metric = list(range(10, 0, -1))
    assert len(_run(_Rounds(metric, stop_before=3)).trees) == 3  # round 3 not kept
    assert len(_run(_Rounds(metric, last=3)).trees) == 4  # round 3 kept


def test_the_grower_is_closed_even_when_a_round_fails():
    rounds = _Rounds([1.0, 0.5], fail_at=1)
    with pytest.raises(RuntimeError, match="gradients failed"):
        _run(rounds, n=2)
    assert rounds.grower.closed


def test_column_counts_follow_each_library_at_exact_halves():
    # 0.5 * 5 = 2.5 columns: XGBoost rounds half to even (2), LightGBM adds 0.5 and truncates (3).
    xgboost = draw_columns(np.random.default_rng(1), 5, 0.5)
    lightgbm = draw_columns(np.random.default_rng(1), 5, 0.5, lambda x: int(x + 0.5))
    assert xgboost.size == 2
    assert lightgbm.size == 3
    assert np.all(np.diff(lightgbm) > 0)
    assert draw_columns(np.random.default_rng(1), 5, 1.0) is None
    assert draw_columns(np.random.default_rng(1), 5, 0.01).size == 1


def test_eval_sets_add_each_output_tree_in_float64():
    class Tree:
        value = np.array([[0.0], [0.25], [-0.5]])

        def apply(self, X):
            return np.where(X[:, 0] > 0, 1, 2)

    class Grown:
        tree = Tree()

    X = np.array([[1.0], [-1.0]])
    start = np.zeros((2, 2))
    evals = EvalSets([(X, None, None, start)], lambda y, margin, w: float(margin.sum()))
    assert evals.scores([Grown(), Grown()]) == [-0.5]
    np.testing.assert_array_equal(start, [[0.25, 0.25], [-0.5, -0.5]])

"""The one record of a node's best split (mltrees.hist.candidates)."""

import numpy as np
import pytest

from mltrees.hist.candidates import SplitCandidates


def test_old_names_of_the_record_warn_and_give_the_one_record():
    import mltrees.hist.lightgbm.splitting as leafwise_splitting
    import mltrees.hist.xgboost.splitting as splitting

    with pytest.warns(DeprecationWarning, match="SplitCandidates"):
        assert splitting.BestSplits is SplitCandidates
    with pytest.warns(DeprecationWarning, match="SplitCandidates"):
        assert leafwise_splitting.LeafSplits is SplitCandidates
    with pytest.raises(AttributeError):
        splitting.NoSuchName  # noqa: B018


def test_take_gives_one_node_as_plain_values():
    found = SplitCandidates(
        gain=np.array([0.5, -np.inf]),
        feature=np.array([3, 7], dtype=np.intp),
        split_bin=np.array([4, 0], dtype=np.intp),
        default_left=np.array([True, False]),
        left=np.array([[1.0, 2.0], [0.0, 0.0]]),
        child_l2=np.array([0.25, 1.0]),
    )
    one = found.take(0)
    assert (one.gain, one.feature, one.split_bin, one.default_left) == (0.5, 3, 4, True)
    assert type(one.feature) is int
    assert type(one.default_left) is bool
    assert one.child_l2 == 0.25
    assert one.right is None
    assert one.out_H is None
    np.testing.assert_array_equal(one.left, [1.0, 2.0])


def test_merge_keeps_the_higher_gain_then_the_lower_feature():
    mine = SplitCandidates.none_gaining(3)
    mine.gain[:] = [1.0, 2.0, 2.0]
    mine.feature[:] = [5, 5, 5]
    other = SplitCandidates.none_gaining(3)
    other.gain[:] = [1.5, 2.0, 2.0]
    other.feature[:] = [6, 4, 6]
    other.lead[:] = [10, 20, 30]
    mine.merge(other)
    np.testing.assert_array_equal(mine.feature, [6, 4, 5])
    np.testing.assert_array_equal(mine.lead, [10, 20, 0])
    np.testing.assert_array_equal(mine.n_left(), [10, 20, 0])

"""The shared worker threads of the walks (mltrees._threads) and the walk's caches."""

import os
import threading

import numpy as np
import pytest

from mltrees import CARTClassifier
from mltrees._threads import map_blocks


def test_map_blocks_returns_results_in_item_order():
    assert map_blocks(lambda i: i * i, range(50), n_threads=3) == [i * i for i in range(50)]


def test_map_blocks_uses_no_more_threads_than_asked():
    seen, barrier_free = set(), threading.Lock()

    def record(i):
        with barrier_free:
            seen.add(threading.get_ident())
        return i

    map_blocks(record, range(200), n_threads=2)
    assert 1 <= len(seen) <= 2
    seen.clear()
    map_blocks(record, range(200), n_threads=1)
    assert seen == {threading.get_ident()}  # one thread: the caller's


def test_map_blocks_propagates_the_first_error_and_stops():
    done = []

    def fail_at_three(i):
        if i == 3:
            raise ValueError("bad block 3")
        done.append(i)
        return i

    with pytest.raises(ValueError, match="bad block 3"):
        map_blocks(fail_at_three, range(10_000), n_threads=2)
    assert len(done) < 9_999  # the rest of the items were not all walked


def test_map_blocks_nested_in_a_helper_runs_on_that_helper():
    # A helper that waited for its own pool could deadlock; it walks alone instead.
    def outer(i):
        inner = set(map_blocks(lambda _: threading.get_ident(), range(64), n_threads=2))
        return threading.get_ident(), inner

    results = []
    runner = threading.Thread(
        target=lambda: results.extend(map_blocks(outer, range(16), n_threads=2)), daemon=True
    )
    runner.start()
    runner.join(timeout=60)
    assert not runner.is_alive(), "nested map_blocks deadlocked"
    for thread, inner in results:
        if thread != runner.ident:
            assert inner == {thread}


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_map_blocks_works_in_a_forked_child():
    map_blocks(abs, range(4), n_threads=2)  # the parent has started its helpers
    pid = os.fork()
    if pid == 0:  # the child inherits the pool object, not its threads
        ok = map_blocks(abs, range(-4, 0), n_threads=2) == [4, 3, 2, 1]
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def _fitted_tree():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(3000, 4))
    y = (X[:, 0] + X[:, 1] ** 2 > 0.5).astype(int)
    return CARTClassifier(max_depth=6).fit(X, y), X


def test_apply_on_one_or_two_threads_and_any_block_count_agree():
    model, X = _fitted_tree()
    X_big = np.repeat(X, 15, axis=0)  # 45,000 rows: several blocks
    one = model.tree_.apply(X_big, n_threads=1)
    assert np.array_equal(model.tree_.apply(X_big, n_threads=2), one)
    assert np.array_equal(model.tree_.apply(X_big, n_threads=3), one)
    assert np.array_equal(model.tree_.apply(X_big[:17], n_threads=2), one[:17])


def test_walk_cache_follows_a_replaced_threshold_array():
    model, X = _fitted_tree()
    tree = model.tree_
    before = tree.apply(X)
    root = 0
    tree.threshold = tree.threshold.copy()
    tree.threshold[root] = np.inf  # every row now goes left at the root
    after = tree.apply(X)
    left = tree.first_child[root]
    assert not np.array_equal(before, after)
    assert np.array_equal(tree.apply(X[:, :], n_threads=1), after)
    reached_right = np.isin(after, _subtree(tree, left + 1))
    assert not reached_right.any()


def _subtree(tree, node):
    nodes, frontier = [], [node]
    while frontier:
        n = frontier.pop()
        nodes.append(n)
        if tree.feature[n] >= 0:
            frontier += list(range(tree.first_child[n], tree.first_child[n] + tree.n_children[n]))
    return nodes


def test_node_argmax_follows_a_replaced_value_array_and_is_not_pickled():
    import pickle

    model, X = _fitted_tree()
    predicted = model.predict(X)
    tree = model.tree_
    tree.value = tree.value[:, ::-1].copy()  # swap the two classes' fractions
    assert np.array_equal(
        model.predict(X), model.classes_[1 - np.searchsorted(model.classes_, predicted)]
    )
    restored = pickle.loads(pickle.dumps(tree))
    assert "_argmax_cache" not in restored.__dict__
    assert "_walk_cache" not in restored.__dict__
    assert np.array_equal(restored.apply(X), tree.apply(X))

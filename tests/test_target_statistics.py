"""Target statistics (chapter 15) against brute-force loops and the paper's claims.

The references below are written as plain Python loops over rows, directly
from the definitions in Prokhorenkova et al. (2018), section 3.
"""

import itertools
import math

import numpy as np
import pytest

from mltrees import (
    greedy_target_statistic,
    holdout_target_statistic,
    leave_one_out_target_statistic,
    ordered_boosting,
    ordered_statistic_mean_gap,
    ordered_target_statistic,
    stump_boosting_shift,
    target_statistic_table,
)

# ---------------------------------------------------------------- brute force


def brute_greedy(c, y, p, a, use=None):
    use = np.ones(len(c), bool) if use is None else use
    out = []
    for i in range(len(c)):
        s = sum(y[j] for j in range(len(c)) if use[j] and c[j] == c[i])
        k = sum(1 for j in range(len(c)) if use[j] and c[j] == c[i])
        out.append((s + a * p) / (k + a))
    return np.array(out)


def brute_loo(c, y, p, a):
    out = []
    for i in range(len(c)):
        others = [j for j in range(len(c)) if j != i and c[j] == c[i]]
        out.append((sum(y[j] for j in others) + a * p) / (len(others) + a))
    return np.array(out)


def brute_ordered(c, y, p, a, order):
    position = {row: k for k, row in enumerate(order)}
    out = []
    for i in range(len(c)):
        before = [j for j in range(len(c)) if position[j] < position[i] and c[j] == c[i]]
        out.append((sum(y[j] for j in before) + a * p) / (len(before) + a))
    return np.array(out)


def _mixed_objects(codes):
    out = np.empty(len(codes), dtype=object)
    out[:] = [("t", int(v)) if v % 2 else int(v) for v in codes]
    return out


CATEGORY_KINDS = {
    "int": lambda codes: codes * 7 - 3,
    "str": lambda codes: np.array([f"c{v}" for v in codes]),
    "object": _mixed_objects,
}


@pytest.fixture(params=sorted(CATEGORY_KINDS))
def small_data(request):
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 5, size=23)
    cats = CATEGORY_KINDS[request.param](codes)
    y = rng.normal(size=23)
    return cats, y


@pytest.mark.parametrize("a", [0.5, 1.0, 3.0])
def test_greedy_loo_holdout_equal_brute_force(small_data, a):
    c, y = small_data
    p = 0.3
    np.testing.assert_allclose(
        greedy_target_statistic(c, y, prior=p, prior_weight=a), brute_greedy(c, y, p, a)
    )
    np.testing.assert_allclose(
        leave_one_out_target_statistic(c, y, prior=p, prior_weight=a), brute_loo(c, y, p, a)
    )
    holdout = np.random.default_rng(1).random(len(c)) < 0.4
    np.testing.assert_allclose(
        holdout_target_statistic(c, y, holdout, prior=p, prior_weight=a),
        brute_greedy(c, y, p, a, use=~holdout),
    )


@pytest.mark.parametrize("a", [0.0, 1.0, 2.5])
def test_ordered_equals_brute_force(small_data, a):
    c, y = small_data
    p = -0.2
    n = len(c)
    np.testing.assert_allclose(
        ordered_target_statistic(c, y, prior=p, prior_weight=a),
        brute_ordered(c, y, p, a, np.arange(n)) if a > 0 else _with_prior_for_empty(c, y, p),
    )
    order = np.random.default_rng(4).permutation(n)
    expected = brute_ordered(c, y, p, a, order) if a > 0 else None
    got = ordered_target_statistic(c, y, prior=p, prior_weight=a, order=order)
    if expected is not None:
        np.testing.assert_allclose(got, expected)
    else:  # a = 0: the plain mean of earlier rows, the prior for a first row
        pos = np.empty(n, int)
        pos[order] = np.arange(n)
        for i in range(n):
            before = [y[j] for j in range(n) if pos[j] < pos[i] and c[j] == c[i]]
            assert got[i] == pytest.approx(np.mean(before) if before else p)


def _with_prior_for_empty(c, y, p):
    out = []
    for i in range(len(c)):
        before = [y[j] for j in range(i) if c[j] == c[i]]
        out.append(np.mean(before) if before else p)
    return np.array(out)


def test_catboost_borders_formula_by_hand():
    # (count of class among earlier rows of the category + prior) / (count + 1)
    c = np.array(["a", "b", "a", "a", "b", "a"])
    y = np.array([1, 0, 0, 1, 1, 1])
    got = ordered_target_statistic(c, y, prior=0.5)
    expected = [0.5 / 1, 0.5 / 1, (1 + 0.5) / 2, (1 + 0.5) / 3, (0 + 0.5) / 2, (2 + 0.5) / 4]
    np.testing.assert_allclose(got, expected)


def test_table_applies_training_sums_and_prior_for_unseen():
    c = np.array(["x", "y", "x", "z", "x"])
    y = np.array([1.0, 0.0, 0.0, 1.0, 1.0])
    table = target_statistic_table(c, y, prior=0.25, prior_weight=2.0)
    got = table.transform(["z", "x", "never", "y"])
    expected = [(1 + 0.5) / 3, (2 + 0.5) / 5, 0.25, (0 + 0.5) / 3]
    np.testing.assert_allclose(got, expected)
    # on the training rows the table is the greedy statistic
    np.testing.assert_allclose(
        table.transform(c), greedy_target_statistic(c, y, prior=0.25, prior_weight=2.0)
    )


# ------------------------------------------------------------------ the leaks


def test_greedy_leak_on_an_id_like_column():
    # Paper, section 3.2: a category unique to every row. The greedy statistic
    # with a = 1 is (y_i + p) / 2: one threshold separates the training
    # classes perfectly, while every test row gets the prior.
    rng = np.random.default_rng(0)
    n = 200
    ids = np.arange(n)
    y = rng.integers(0, 2, size=n)  # independent of the id: nothing to learn
    p = float(y.mean())
    ts = greedy_target_statistic(ids, y, prior=p)
    np.testing.assert_allclose(ts, (y + p) / 2)
    assert ((ts > p / 2 + 0.25) == (y == 1)).all()
    test_ts = target_statistic_table(ids, y, prior=p).transform(np.arange(n, 2 * n))
    assert np.all(test_ts == p)


def test_leave_one_out_leak_on_a_constant_column():
    # Paper, section 3.2: a single category. LOO gives (S - y_i + a p)/(n - 1 + a),
    # so rows with y = 1 get a strictly smaller value than rows with y = 0.
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, size=101)
    ts = leave_one_out_target_statistic(np.zeros(101, int), y, prior=0.5)
    s = y.sum()
    threshold = (s - 0.5 + 0.5) / (100 + 1)
    assert ((ts < threshold) == (y == 1)).all()


def _replicated(n_rep, n, n_cat, rng):
    """n_rep independent data sets flattened into one call (categories offset per copy)."""
    probs = np.linspace(0.2, 0.8, n_cat)
    codes = rng.integers(0, n_cat, size=(n_rep, n))
    y = (rng.random((n_rep, n)) < probs[codes]).astype(float)
    cats = (codes + n_cat * np.arange(n_rep)[:, None]).ravel()
    return cats, y.ravel(), codes.ravel()


def test_p1_ordered_statistic_is_independent_of_own_target_by_simulation():
    # P1: the distribution of x_i given y_i must not depend on y_i, as for a
    # test row. Measured as the difference of the statistic's mean between
    # y = 1 and y = 0 rows of the same category over 4000 simulated data
    # sets; the greedy statistic, which contains y_i, fails it.
    rng = np.random.default_rng(7)
    cats, y, codes = _replicated(4000, 30, 3, rng)
    order = np.concatenate([rng.permutation(30) + 30 * r for r in range(4000)])
    ordered = ordered_target_statistic(cats, y, prior=0.5, order=order)
    greedy = greedy_target_statistic(cats, y, prior=0.5)
    for ts, independent in ((ordered, True), (greedy, False)):
        for c in range(3):
            in_c = codes == c
            t1, t0 = ts[in_c & (y == 1)], ts[in_c & (y == 0)]
            diff = t1.mean() - t0.mean()
            se = math.sqrt(t1.var() / t1.size + t0.var() / t0.size)
            if independent:
                assert abs(diff) < 4 * se, (c, diff, se)
            else:
                assert diff > 10 * se, (c, diff, se)


def test_p1_and_p2_from_the_exact_dependence_on_each_target():
    # The statistic is affine in the targets; its coefficient matrix
    # D[i, j] = d x_i / d y_j shows which targets enter which row.
    rng = np.random.default_rng(2)
    n = 15
    c = rng.integers(0, 3, size=n)
    order = rng.permutation(n)
    base = ordered_target_statistic(c, np.zeros(n), prior=0.0, order=order)
    D = np.column_stack(
        [ordered_target_statistic(c, np.eye(n)[j], prior=0.0, order=order) - base for j in range(n)]
    )
    pos = np.empty(n, int)
    pos[order] = np.arange(n)
    expected = np.zeros((n, n))
    for i in range(n):
        before = [j for j in range(n) if c[j] == c[i] and pos[j] < pos[i]]
        for j in before:
            expected[i, j] = 1 / (len(before) + 1)
    np.testing.assert_allclose(D, expected, atol=1e-15)
    assert np.all(np.diag(D) == 0)  # P1: no row uses its own target
    # P2: every target is used by some training statistic, except the last
    # row of each category, whose target is used by the test-time table.
    last = {int(cat): max((pos[j], j) for j in range(n) if c[j] == cat)[1] for cat in set(c)}
    for j in range(n):
        assert (D[:, j] > 0).any() == (j not in last.values())


# ------------------------------------------------------ the conditional-mean gap


def test_mean_gap_against_exact_binomial_sums_and_simulation():
    q, n, p, mu, a = 0.1, 60, 0.5, 0.8, 1.0
    k = np.array([1, 10, 30, 60])
    got = ordered_statistic_mean_gap(k, n, q, prior=p, target_mean=mu, prior_weight=a)

    def e_inv(m):
        return sum(math.comb(m, j) * q**j * (1 - q) ** (m - j) / (j + a) for j in range(m + 1))

    expected = [a * (p - mu) * (e_inv(kk - 1) - e_inv(n)) for kk in k]
    np.testing.assert_allclose(got, expected, rtol=1e-10)
    # a = 1 closed form: E[1/(1+B)] = (1 - (1-q)^(m+1)) / ((m+1) q)
    closed = (p - mu) * ((1 - (1 - q) ** k) / (k * q) - (1 - (1 - q) ** (n + 1)) / ((n + 1) * q))
    np.testing.assert_allclose(got, closed, rtol=1e-10)
    # simulation: the training row at position k versus a test row
    rng = np.random.default_rng(5)
    reps = 200_000
    m = rng.binomial(k[1] - 1, q, size=reps)
    ones_m = rng.binomial(m, mu)
    big_n = rng.binomial(n, q, size=reps)
    ones_n = rng.binomial(big_n, mu)
    train = (ones_m + a * p) / (m + a)
    test = (ones_n + a * p) / (big_n + a)
    se = math.sqrt((train.var() + test.var()) / reps)
    assert abs((train.mean() - test.mean()) - got[1]) < 4 * se


def test_mean_gap_for_another_prior_weight():
    q, n, p, mu, a = 0.2, 40, 0.1, 0.6, 2.5
    k = np.array([1, 5, 40])
    got = ordered_statistic_mean_gap(k, n, q, prior=p, target_mean=mu, prior_weight=a)

    def e_inv(m):
        return sum(math.comb(m, j) * q**j * (1 - q) ** (m - j) / (j + a) for j in range(m + 1))

    expected = [a * (p - mu) * (e_inv(kk - 1) - e_inv(n)) for kk in k]
    np.testing.assert_allclose(got, expected, rtol=1e-10)


# ----------------------------------------------------------- Theorem 1 (shift)


def _two_stumps_expectation(n, c1, c2, same):
    """E F_2(x) by enumerating all 4^n data sets (and 4^n more if independent)."""
    combos = np.array(list(itertools.product([0, 1], [0, 1])))
    idx = np.array(list(itertools.product(range(4), repeat=n)))
    x1, x2 = combos[idx, 0], combos[idx, 1]
    y = c1 * x1 + c2 * x2

    def stump(feature, r):
        values = np.zeros((feature.shape[0], 2))
        for v in (0, 1):
            m = feature == v
            cnt = m.sum(1)
            values[:, v] = np.where(cnt > 0, (r * m).sum(1) / np.maximum(cnt, 1), 0.0)
        return values

    h1 = stump(x1, y)
    if same:
        r = y - h1[np.arange(len(y))[:, None], x1]
        h2 = stump(x2, r)
        return {(a, b): (h1[:, a] + h2[:, b]).mean() for a in (0, 1) for b in (0, 1)}
    # independent second sample: average over pairs (D1, D2), i.e. over all
    # h1 tables for each D2 (h2 is linear in h1's leaf values)
    h1_mean = h1.mean(0)
    r = y - h1_mean[x1]
    h2 = stump(x2, r)
    return {(a, b): h1_mean[a] + h2[:, b].mean() for a in (0, 1) for b in (0, 1)}


@pytest.mark.parametrize("n", [5, 7])
def test_theorem1_by_exact_enumeration(n):
    c1, c2 = 1.0, 2.0
    same = _two_stumps_expectation(n, c1, c2, same=True)
    indep = _two_stumps_expectation(n, c1, c2, same=False)
    for (a, b), value in same.items():
        f_star = c1 * a + c2 * b
        shift = float(stump_boosting_shift(n, c2, b))
        assert shift == pytest.approx(-c2 * (b - 0.5) / (n - 1))
        # up to the O(2^-n) terms of data sets with an empty leaf
        assert abs(value - f_star - shift) < 3 * abs(c2) * 2.0**-n
        assert abs(indep[(a, b)] - f_star) < 3 * abs(c2) * 2.0**-n
        assert abs(shift) > 3 * abs(c2) * 2.0**-n  # the shift itself is larger


# ------------------------------------------------------------ ordered boosting


def brute_ordered_boosting(leaves, y, lr, lam, order):
    """Algorithm 1 of the paper with n explicit supporting models."""
    n = len(y)
    pos = np.empty(n, int)
    pos[order] = np.arange(n)
    # M[k][i]: prediction for row i of the model trained on the first k rows
    M = np.zeros((n + 1, n))
    for leaf in leaves:
        r = np.array([y[i] - M[pos[i], i] for i in range(n)])
        new = M.copy()
        for k in range(n + 1):
            for i in range(n):
                members = [j for j in range(n) if pos[j] < k and leaf[j] == leaf[i]]
                new[k, i] += lr * sum(r[j] for j in members) / (len(members) + lam)
        M = new
    return np.array([M[pos[i], i] for i in range(n)]), M[n]


@pytest.mark.parametrize("lam", [0.5, 3.0])
def test_ordered_boosting_equals_explicit_supporting_models(lam):
    rng = np.random.default_rng(11)
    n = 12
    leaves = rng.integers(0, 3, size=(3, n))
    y = rng.normal(size=n)
    order = rng.permutation(n)
    result = ordered_boosting(leaves, y, learning_rate=0.7, l2_leaf_reg=lam, order=order)
    train, final = brute_ordered_boosting(leaves, y, 0.7, lam, order)
    np.testing.assert_allclose(result.train_prediction, train, atol=1e-12)
    np.testing.assert_allclose(result.predict(leaves), final, atol=1e-12)


def test_plain_boosting_with_given_trees_by_hand():
    # two rounds, learning rate 1, lambda 0: round 1 fits leaf means of y,
    # round 2 leaf means of the residuals on the second partition
    y = np.array([1.0, 3.0, 2.0, 6.0])
    leaves = np.array([[0, 0, 1, 1], [0, 1, 0, 1]])
    result = ordered_boosting(leaves, y, boosting_type="Plain")
    f1 = np.array([2.0, 2.0, 4.0, 4.0])
    r = y - f1  # [-1, 1, -2, 2]
    f2 = f1 + np.array([-1.5, 1.5, -1.5, 1.5])
    assert r.tolist() == [-1.0, 1.0, -2.0, 2.0]
    np.testing.assert_allclose(result.train_prediction, f2)
    np.testing.assert_allclose(result.predict(leaves), f2)


# ----------------------------------------------------------------- bad input


def test_bad_input_errors():
    y = np.array([1.0, 0.0, 1.0])
    with pytest.raises(ValueError, match="categories holds 1 missing"):
        ordered_target_statistic(np.array([1.0, np.nan, 2.0]), y, prior=0.5)
    with pytest.raises(ValueError, match="categories holds 1 missing"):
        greedy_target_statistic(np.array(["a", None, "b"], dtype=object), y, prior=0.5)
    with pytest.raises(ValueError, match="same length"):
        leave_one_out_target_statistic(["a", "b"], y, prior=0.5)
    with pytest.raises(ValueError, match="1-D"):
        greedy_target_statistic(np.zeros((3, 1)), y, prior=0.5)
    with pytest.raises(TypeError, match="target must hold real numbers"):
        greedy_target_statistic(["a", "b", "c"], ["x", "y", "z"], prior=0.5)
    with pytest.raises(ValueError, match="target contains NaN"):
        greedy_target_statistic(["a", "b", "c"], [1.0, np.nan, 0.0], prior=0.5)
    with pytest.raises(ValueError, match="permutation"):
        ordered_target_statistic(["a", "b", "c"], y, prior=0.5, order=[0, 0, 1])
    with pytest.raises(TypeError, match="holdout must be a boolean mask"):
        holdout_target_statistic(["a", "b", "c"], y, [0, 1, 2], prior=0.5)
    with pytest.raises(ValueError, match="prior_weight"):
        greedy_target_statistic(["a", "b", "c"], y, prior=0.5, prior_weight=-1)
    with pytest.raises(TypeError, match="prior must be"):
        greedy_target_statistic(["a", "b", "c"], y, prior=None)
    table = target_statistic_table(["a", "b", "c"], y, prior=0.5)
    with pytest.raises(ValueError, match="categories holds 1 missing"):
        table.transform(["a", float("nan")])

"""Sampling of bagging and forests (chapter 9): bootstrap counts and per-member seeds.

Each member's sample and feature draws come from its own
:class:`numpy.random.SeedSequence`, spawned from ``random_state``, so a
fitted ensemble depends neither on ``n_jobs`` nor, with an int
``random_state``, on whether it was grown in one fit or by warm starts.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["bootstrap_counts", "draw_counts", "member_counts"]


def bootstrap_counts(rng: np.random.Generator, n_samples: int, n_draws: int) -> np.ndarray:
    """How many times each of ``n_samples`` rows is drawn in ``n_draws`` draws with replacement.

    Implements the bootstrap sample of :eq:`eq-bootstrap-out-of-bag` (chapter 9):
    each draw picks a row uniformly; the counts are the row's weight in the
    member's fit, and rows with count 0 are its out-of-bag rows.
    """
    return np.bincount(rng.integers(0, n_samples, n_draws), minlength=n_samples)


def draw_counts(
    rng: np.random.Generator, n_samples: int, n_draws: int, *, bootstrap: bool, probabilities=None
) -> np.ndarray:
    """Per-row counts of one member's sample.

    A bootstrap (:func:`bootstrap_counts`), a subsample without replacement
    (``bootstrap=False``), or, given ``probabilities``, a bootstrap that draws
    rows in proportion to them (members that cannot weight rows).
    """
    if probabilities is not None:
        drawn = rng.choice(n_samples, n_draws, replace=True, p=probabilities)
        return np.bincount(drawn, minlength=n_samples)
    if bootstrap:
        return bootstrap_counts(rng, n_samples, n_draws)
    counts = np.zeros(n_samples, dtype=np.intp)
    counts[rng.choice(n_samples, n_draws, replace=False)] = 1
    return counts


def member_counts(seed, n_samples: int, n_draws: int, *, bootstrap: bool, probabilities=None):
    """How often the member of ``seed`` drew each row: the first draw of its generator.

    Recomputing the counts from the seed is what lets a fitted ensemble keep
    no per-member index arrays (out-of-bag rows, ``estimators_samples_``).
    """
    return draw_counts(
        np.random.default_rng(seed),
        n_samples,
        n_draws,
        bootstrap=bootstrap,
        probabilities=probabilities,
    )


def _seed_sequence(random_state) -> np.random.SeedSequence:
    """One root SeedSequence from any scikit-learn style ``random_state``."""
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, numbers.Integral) and not isinstance(random_state, bool):
        if random_state < 0:
            raise ValueError(f"random_state must be >= 0, got {random_state!r}")
        return np.random.SeedSequence(int(random_state))
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(int(random_state.randint(np.iinfo(np.int32).max)))
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(int(random_state.integers(np.iinfo(np.int64).max)))
    raise ValueError(
        f"random_state must be None, an int, a numpy RandomState or Generator, got {random_state!r}"
    )


def _member_seeds(random_state, start: int, stop: int) -> list[np.random.SeedSequence]:
    """Seeds of members ``start .. stop - 1``: the children of one root, by index.

    ``SeedSequence.spawn`` numbers its children ``0, 1, ...``; building child
    ``i`` directly gives the same seed without spawning the ones before it,
    so members added by a warm start get the seeds a single fit of all the
    members would have given them (for an int ``random_state``).
    """
    root = _seed_sequence(random_state)
    return [
        np.random.SeedSequence(
            root.entropy, spawn_key=(*root.spawn_key, i), pool_size=root.pool_size
        )
        for i in range(start, stop)
    ]


def _as_case_weights(weights: np.ndarray) -> np.ndarray:
    """Sample weights rescaled to average 1 over the rows of positive weight.

    Members read the product of these and the bootstrap counts: a member
    that reads weights as case counts (C4.5's ``min_cases`` and pessimistic
    pruning, J48) then sees a bootstrap sample as that many cases, and a
    constant factor in ``sample_weight`` changes only the rounding of the
    result (nothing for a power of two). Equal weights stay exactly 1.
    """
    positive = weights > 0
    if not positive.any():  # fit reports it
        return weights
    first = weights[np.argmax(positive)]
    if (weights[positive] == first).all():  # exactly 1, not 1 up to a rounding error
        return positive.astype(np.float64)
    return weights * (np.count_nonzero(positive) / weights.sum())

"""scikit-learn's random feature order: the tie detector of the tests against it.

scikit-learn visits the features of a node in a random order and keeps the
first of several equally good splits, so where splits tie its tree depends on
``random_state`` (../shared/notes/reference-libraries.md measured it); mltrees
breaks ties by the lowest feature index. A comparison with scikit-learn is
meaningful where its result does not change across the seeds ``SEEDS``, or
where one of those seeds grows mltrees' tree. ``test_tree_vs_sklearn.py`` and
the differential tests (``differential/test_sklearn.py``) share this module.
"""

from __future__ import annotations

import numpy as np

SEEDS = range(8)


def fitted_for_seeds(make, X, y, sample_weight=None) -> list:
    """``make(seed)`` fitted on ``(X, y)`` for every seed of ``SEEDS``."""
    return [make(seed).fit(X, y, sample_weight=sample_weight) for seed in SEEDS]


def seed_invariant(make, X_train, y_train, X_test):
    """scikit-learn's test predictions if they are the same for every seed, else None."""
    predictions = [model.predict(X_test) for model in fitted_for_seeds(make, X_train, y_train)]
    if all(np.array_equal(predictions[0], p) for p in predictions[1:]):
        return predictions[0]
    return None

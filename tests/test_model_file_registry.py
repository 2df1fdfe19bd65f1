"""The model-file registry: a user's own estimator joins it without displacing mltrees' classes."""

from __future__ import annotations

from _fresh_interpreter import run_in_fresh_interpreter


def test_register_estimator_before_the_first_save_keeps_the_built_in_models():
    """The documented ``register_estimator`` called first: built-in models still save and load."""
    out = run_in_fresh_interpreter(
        """
        import numpy as np
        from sklearn.base import BaseEstimator

        from mltrees import CARTClassifier, XGBoostRegressor
        from mltrees.io import from_json, register_estimator, to_json


        class MyModel(BaseEstimator):
            def __init__(self, depth=2):
                self.depth = depth

            def fit(self, X, y):
                self.mean_ = float(np.mean(y))
                return self


        register_estimator(MyModel)  # before anything was saved or loaded
        rng = np.random.default_rng(0)
        X = rng.normal(size=(60, 3))
        y = (X[:, 0] > 0).astype(int)
        tree = CARTClassifier(max_depth=3).fit(X, y)
        again = from_json(to_json(tree))
        assert np.array_equal(again.predict_proba(X), tree.predict_proba(X))
        boosted = XGBoostRegressor(n_estimators=3).fit(X, X[:, 1])
        assert np.array_equal(from_json(to_json(boosted)).predict(X), boosted.predict(X))
        mine = from_json(to_json(MyModel(depth=3).fit(X, y)))
        assert type(mine) is MyModel and mine.depth == 3 and mine.mean_ == float(np.mean(y))
        print("ok")
        """
    )
    assert out.strip() == "ok"

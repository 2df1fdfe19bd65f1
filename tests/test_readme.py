"""The README's usage example must run, and its commented results must hold."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
CLUSTER_ADDRESS = "tcp://scheduler-host:8786"


def _python_blocks() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)


def test_readme_example_runs_and_matches_its_comments(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the example saves a model file in the working directory
    blocks = _python_blocks()
    assert blocks, "README.md has no python example"
    namespace: dict = {}
    for block in blocks:
        if CLUSTER_ADDRESS in block:
            continue  # test_readme_cluster_example_runs
        exec(compile(block, "README.md", "exec"), namespace)
    mltrees = namespace["mltrees"]
    # The numbers the README quotes in its comments (Quinlan's weather table).
    assert round(mltrees.entropy([9, 5]), 3) == 0.940
    assert round(mltrees.mutual_information([[2, 3], [4, 0], [3, 2]]), 3) == 0.247
    assert namespace["p"].shape == (100_000, 4)
    assert np.isinf(mltrees.kl_divergence([0.5, 0.5], [1.0, 0.0]))
    # LightGBM: SHAP values add up to the raw score; the loaded model predicts the same.
    gbm, explained, X = namespace["gbm"], namespace["explained"], namespace["X"]
    raw = gbm.predict(X[:100], raw_score=True)
    assert np.allclose(explained.values.sum(axis=1) + explained.expected_value, raw)
    assert np.array_equal(namespace["same"].predict_proba(X), gbm.predict_proba(X))
    # Oblivious boosting: one value per original column, the text column included.
    cb, cb_explained, table = namespace["cb"], namespace["cb_explained"], namespace["table"]
    assert cb_explained.values.shape == (50, table.shape[1])
    assert np.allclose(
        cb_explained.values.sum(axis=1) + cb_explained.expected_value,
        cb.decision_function(table[:50]),
    )


def test_readme_names_the_commands_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "make book" in readme
    assert "make test" in readme
    assert "make test" in ci


def test_readme_cluster_example_runs(tmp_path, monkeypatch):
    """The existing-cluster example, against a local scheduler and a Parquet data set it reads."""
    pytest.importorskip("distributed")
    pytest.importorskip("pyarrow")
    import pandas as pd
    from distributed import LocalCluster

    monkeypatch.chdir(tmp_path)
    (block,) = [b for b in _python_blocks() if CLUSTER_ADDRESS in b]
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(rng.normal(size=(600, 3)), columns=["a", "b", "c"])
    frame["label"] = (frame["a"] + frame["b"] > 0).astype(int)
    (tmp_path / "data" / "train").mkdir(parents=True)
    for i in range(3):  # three files: three partitions
        frame[i * 200 : (i + 1) * 200].to_parquet(tmp_path / "data" / "train" / f"part{i}.parquet")
    from mltrees.io import save_model

    with LocalCluster(n_workers=2, processes=False, dashboard_address=":0") as cluster:
        namespace: dict = {"save_model": save_model}
        exec(
            compile(block.replace(CLUSTER_ADDRESS, cluster.scheduler_address), "README.md", "exec"),
            namespace,
        )
        namespace["client"].close()
    from mltrees import XGBoostClassifier
    from mltrees.io import load_model

    loaded = load_model(tmp_path / "model.json")
    assert type(loaded) is XGBoostClassifier
    X = frame.drop(columns="label")
    assert np.array_equal(loaded.predict(X), namespace["model"].predict(X))
    assert loaded.score(X, frame["label"]) > 0.9

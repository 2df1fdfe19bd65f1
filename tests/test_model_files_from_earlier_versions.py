"""Model files written by an earlier mltrees still load and predict to the bit (chapter 18).

``tests/data/model_files_0.2.0/`` holds files written by mltrees 0.2.0 (the
``main`` branch before the estimators took over their model-file hooks),
with the predictions that version made, as float hex strings. Loading them
with this version must give the same numbers: a refactoring of the format's
registry or of an estimator's state fails here.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from mltrees.io import load_model

FILES = Path(__file__).parent / "data" / "model_files_0.2.0"
EXPECTED = json.loads((FILES / "expected.json").read_text())
X = np.array([[np.nan if v is None else v for v in row] for row in EXPECTED["X"]])


@pytest.mark.parametrize("name", sorted(EXPECTED["predictions"]))
def test_a_file_of_mltrees_0_2_0_loads_and_predicts_the_same(name):
    model = load_model(FILES / f"{name}.json")
    ours = model.predict_proba(X)[:, 1] if hasattr(model, "predict_proba") else model.predict(X)
    theirs = np.array([float.fromhex(v) for v in EXPECTED["predictions"][name]])
    assert np.array_equal(ours, theirs)

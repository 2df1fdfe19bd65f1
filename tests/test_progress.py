"""``verbose`` progress of every ensemble: silent by default, stdout lines, a notebook bar."""

from __future__ import annotations

import sys
import types
from typing import ClassVar

import numpy as np
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression, Ridge

import mltrees
from mltrees import _progress
from mltrees._progress import Progress
from mltrees.ensemble._common import watch_round
from mltrees.ensemble.logitboost import LogitBoostClassifier

X, y_class = make_classification(n_samples=120, n_features=5, random_state=0)
y_real = X[:, 0] + 0.5 * X[:, 1]


def _stump(kind):
    if kind == "c":
        return mltrees.CARTClassifier(max_depth=1)
    return mltrees.CARTRegressor(max_depth=1)


# (estimator factory, target kind, number of steps announced)
ENSEMBLES = {
    "BaggingClassifier": (lambda v: mltrees.BaggingClassifier(n_estimators=3, verbose=v), "c"),
    "BaggingRegressor": (lambda v: mltrees.BaggingRegressor(n_estimators=3, verbose=v), "r"),
    "RandomForestClassifier": (
        lambda v: mltrees.RandomForestClassifier(n_estimators=3, max_depth=2, verbose=v),
        "c",
    ),
    "RandomForestRegressor": (
        lambda v: mltrees.RandomForestRegressor(n_estimators=3, max_depth=2, verbose=v),
        "r",
    ),
    "AdaBoostClassifier": (lambda v: mltrees.AdaBoostClassifier(n_estimators=3, verbose=v), "c"),
    "LogitBoostClassifier": (
        lambda v: LogitBoostClassifier(n_estimators=3, verbose=v),
        "c",
    ),
    "GradientBoostingClassifier": (
        lambda v: mltrees.GradientBoostingClassifier(n_estimators=3, max_depth=1, verbose=v),
        "c",
    ),
    "GradientBoostingRegressor": (
        lambda v: mltrees.GradientBoostingRegressor(n_estimators=3, max_depth=1, verbose=v),
        "r",
    ),
    "StackingClassifier": (
        lambda v: mltrees.StackingClassifier(
            [("a", _stump("c")), ("b", LogisticRegression())], cv=2, verbose=v
        ),
        "c",
    ),
    "StackingRegressor": (
        lambda v: mltrees.StackingRegressor([("a", _stump("r")), ("b", Ridge())], cv=2, verbose=v),
        "r",
    ),
    "BlendingClassifier": (
        lambda v: mltrees.BlendingClassifier([("a", _stump("c"))], verbose=v, random_state=0),
        "c",
    ),
    "BlendingRegressor": (
        lambda v: mltrees.BlendingRegressor([("a", _stump("r"))], verbose=v, random_state=0),
        "r",
    ),
    "XGBoostClassifier": (
        lambda v: mltrees.XGBoostClassifier(n_estimators=3, max_depth=2, verbose=v),
        "c",
    ),
    "XGBoostRegressor": (
        lambda v: mltrees.XGBoostRegressor(n_estimators=3, max_depth=2, verbose=v),
        "r",
    ),
    "LightGBMClassifier": (
        lambda v: mltrees.LightGBMClassifier(n_estimators=3, num_leaves=4, verbose=v),
        "c",
    ),
    "LightGBMRegressor": (
        lambda v: mltrees.LightGBMRegressor(n_estimators=3, num_leaves=4, verbose=v),
        "r",
    ),
    "ObliviousBoostingClassifier": (
        lambda v: mltrees.ObliviousBoostingClassifier(n_estimators=3, depth=2, verbose=v),
        "c",
    ),
    "ObliviousBoostingRegressor": (
        lambda v: mltrees.ObliviousBoostingRegressor(n_estimators=3, depth=2, verbose=v),
        "r",
    ),
}
STEPS = {"StackingClassifier": 3, "StackingRegressor": 3}  # members, then the final fit
STEPS |= {"BlendingClassifier": 2, "BlendingRegressor": 2}


@pytest.mark.parametrize("name", sorted(ENSEMBLES))
def test_every_ensemble_is_silent_by_default_and_reports_on_stdout(name, capsys):
    make, kind = ENSEMBLES[name]
    y = y_class if kind == "c" else y_real
    make(0).fit(X, y)
    assert capsys.readouterr() == ("", "")
    make(1).fit(X, y)
    captured = capsys.readouterr()
    assert captured.err == ""
    lines = captured.out.splitlines()
    # one line per step at verbose=1 (bagging: every tenth of 3 members is every member)
    assert len(lines) == STEPS.get(name, 3)
    assert all(line.startswith(f"[{name}]") and line.endswith(" s") for line in lines)
    if name not in STEPS:
        assert [line.split()[2] for line in lines] == ["1/3", "2/3", "3/3"]


@pytest.mark.parametrize("name", sorted(ENSEMBLES))
@pytest.mark.parametrize("bad", [-1, 1.5, True, "2"])
def test_bad_verbose_is_rejected_by_name(name, bad):
    make, kind = ENSEMBLES[name]
    with pytest.raises(ValueError, match="verbose must be an int >= 0"):
        make(bad).fit(X, y_class if kind == "c" else y_real)


class _FakeBar:
    """Records what tqdm.notebook's bar is told (the widget cannot be drawn under pytest)."""

    made: ClassVar[list[_FakeBar]] = []

    def __init__(self, total, desc, leave):
        self.total, self.desc, self.n, self.postfix, self.closed = total, desc, 0, [], False
        _FakeBar.made.append(self)

    def update(self, n):
        self.n += n

    def set_postfix_str(self, text, refresh):
        self.postfix.append(text)

    def close(self):
        self.closed = True


@pytest.fixture
def notebook(monkeypatch):
    """A Jupyter kernel where tqdm.notebook and ipywidgets import (as fakes)."""
    monkeypatch.setattr(_progress, "in_notebook", lambda: True)
    fake = types.ModuleType("tqdm.notebook")
    fake.tqdm = _FakeBar
    monkeypatch.setitem(sys.modules, "tqdm.notebook", fake)
    monkeypatch.setitem(sys.modules, "ipywidgets", types.ModuleType("ipywidgets"))
    _FakeBar.made.clear()
    return _FakeBar.made


def test_a_notebook_gets_a_bar_and_no_text(notebook, capsys):
    mltrees.AdaBoostClassifier(n_estimators=5, verbose=2).fit(X, y_class)
    assert capsys.readouterr() == ("", "")
    (bar,) = notebook
    assert (bar.total, bar.desc, bar.n, bar.closed) == (5, "AdaBoostClassifier", 5, True)
    # the reports of rounds 2, 4 and 5 (the last) are shown beside the bar
    assert len(bar.postfix) == 3
    assert all("weighted error" in p for p in bar.postfix)


def test_a_forest_built_on_threads_fills_its_bar(notebook, capsys):
    mltrees.RandomForestClassifier(n_estimators=8, max_depth=2, n_jobs=2, verbose=2).fit(X, y_class)
    assert capsys.readouterr() == ("", "")
    (bar,) = notebook
    assert (bar.total, bar.n, bar.closed) == (8, 8, True)


def test_a_notebook_without_ipywidgets_gets_lines_on_stdout(notebook, monkeypatch, capsys):
    # tqdm.auto would fall back to a text bar on stderr there, which nbval compares
    monkeypatch.setitem(sys.modules, "ipywidgets", None)
    mltrees.AdaBoostClassifier(n_estimators=2, verbose=1).fit(X, y_class)
    captured = capsys.readouterr()
    assert notebook == []
    assert captured.err == ""
    assert len(captured.out.splitlines()) == 2


def test_no_bar_when_silent(notebook):
    mltrees.AdaBoostClassifier(n_estimators=2).fit(X, y_class)
    assert notebook == []


def test_pytest_is_not_a_notebook():
    assert not _progress.in_notebook()


def test_progress_reports_every_period_and_the_last_step(capsys):
    progress = Progress(3, 7, "Loop", unit="round")
    due = []
    for i in range(7):
        due.append(progress.due())
        progress.step(f"step {i + 1}")
    assert due == [False, False, True, False, False, True, True]
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[:5] for line in lines] == [
        ["[Loop]", "round", f"{k}/7", "step", str(k)] for k in (3, 6, 7)
    ]


def test_watch_round_still_takes_an_int_period(capsys):
    history, state = [[0.5], [0.4]], [np.inf, -1]
    stop = watch_round(1, history, state, verbose=2, patience=None, start=0.0, prefix="eval")
    captured = capsys.readouterr()
    assert not stop
    assert captured.err == ""
    assert captured.out.startswith("[2] eval0: 0.5  eval1: 0.4")
    assert state == [0.4, 1]

"""The old paths of the modules that moved into mltrees/hist's per-library folders."""

import importlib
import pickle
import sys
from pathlib import Path

import pytest

import mltrees.hist
from mltrees.hist._moved import MOVED


def test_every_old_path_has_a_module_and_the_new_one_exists():
    hist = Path(mltrees.hist.__file__).parent
    for old, new in MOVED.items():
        assert (hist / f"{old}.py").read_text().count(f'"mltrees.hist.{new}"') == 1
        assert (hist / (new.replace(".", "/") + ".py")).exists()


@pytest.mark.parametrize("old", sorted(MOVED))
def test_old_path_warns_and_is_the_new_module(old, monkeypatch):
    monkeypatch.delitem(sys.modules, f"mltrees.hist.{old}", raising=False)
    new = importlib.import_module(f"mltrees.hist.{MOVED[old]}")
    with pytest.warns(DeprecationWarning, match=f"mltrees.hist.{old} moved to mltrees.hist"):
        moved = importlib.import_module(f"mltrees.hist.{old}")
    assert moved is new


def test_package_imports_none_of_the_old_paths():
    """The package itself uses the new paths: the old ones are for users' code only."""
    import subprocess

    code = (
        "import sys, warnings\n"
        "warnings.simplefilter('error', DeprecationWarning)\n"
        "import mltrees.ensemble, mltrees.hist, mltrees.io, mltrees.inspection\n"
        "from mltrees.ensemble import XGBoostClassifier, LightGBMClassifier\n"
        "from mltrees.ensemble import ObliviousBoostingClassifier\n"
        "import mltrees.io._builtin as b; b.register_builtin()\n"
        f"old = {sorted(MOVED)!r}\n"
        "print([m for m in old if 'mltrees.hist.' + m in sys.modules])\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_pickle_written_with_an_old_path_loads(monkeypatch):
    """A pickle naming a class by its old module path loads as the class of the new one."""
    from mltrees.hist.catboost.oblivious import ObliviousTree

    payload = pickle.dumps(ObliviousTree, protocol=0).replace(  # text opcodes: no lengths
        b"mltrees.hist.catboost.oblivious", b"mltrees.hist.oblivious"
    )
    assert b"mltrees.hist.oblivious" in payload
    monkeypatch.delitem(sys.modules, "mltrees.hist.oblivious", raising=False)
    with pytest.warns(DeprecationWarning, match="mltrees.hist.oblivious moved"):
        loaded = pickle.loads(payload)
    assert loaded is ObliviousTree

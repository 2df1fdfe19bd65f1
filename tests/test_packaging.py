"""What users install: the extras, the optional imports, the package data, the chapters' needs.

* ``pip install path/to/clone`` gives a package that fits, predicts and saves
  without matplotlib or dask; drawing and ``mltrees.dask`` then raise an
  ImportError naming the extra and a command that works for a clone.
* The ``book`` extra installs everything the chapters import, and a chapter
  reads nothing outside the installed packages (a notebook downloaded from the
  website runs anywhere).
* Every file of package data is shipped, and ``.gitignore`` covers what an
  in-tree build writes.
"""

from __future__ import annotations

import ast
import fnmatch
import importlib.metadata
import re
import subprocess
import sys
import textwrap
import tomllib
from pathlib import Path

import jupytext
import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from mltrees._optional import EXTRAS

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
CHAPTERS = sorted(ROOT.glob("book/part*/*.md"))


def _extra(name: str) -> list[Requirement]:
    return [Requirement(line) for line in PYPROJECT["project"]["optional-dependencies"][name]]


def test_optional_imports_name_the_extras_of_pyproject():
    for extra, requirements in EXTRAS.items():
        assert _extra(extra) == [Requirement(r) for r in requirements]
    base = {canonicalize_name(Requirement(r).name) for r in PYPROJECT["project"]["dependencies"]}
    assert not base & {"matplotlib", "dask", "distributed"}


def test_python_versions_declared_are_those_tested():
    """requires-python, the classifiers and the versions CI runs the tests on agree."""
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert PYPROJECT["tool"]["ruff"]["target-version"] == "py311"
    declared = {
        c.rsplit(" ", 1)[1]
        for c in PYPROJECT["project"]["classifiers"]
        if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c)
    }
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    others = re.search(r"^PYTHON_VERSIONS \?= (.+)$", makefile, re.M)[1].split()
    main = re.search(r"^PYTHON \?= .*command -v python(3\.\d+)", makefile, re.M)[1]
    assert declared == {main, *others} == {"3.11", "3.12", "3.13"}
    assert "make test-pythons" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")


# Run in a fresh interpreter in which importing the named top-level modules fails,
# as on a machine where they are not installed.
BLOCKER = """
import sys
BLOCKED = {blocked!r}

class Blocker:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
        return None

sys.meta_path.insert(0, Blocker())
"""


def _run_without(blocked: set[str], body: str, tmp_path: Path) -> subprocess.CompletedProcess:
    script = BLOCKER.format(blocked=sorted(blocked)) + textwrap.dedent(body)
    return subprocess.run(
        [sys.executable, "-c", script],
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "MPLBACKEND": "Agg"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_models_work_without_matplotlib_and_plots_say_what_to_install(tmp_path):
    body = """
    import importlib, pkgutil
    import numpy as np
    import mltrees
    from mltrees import CARTClassifier, GradientBoostingClassifier, load_model, save_model
    from mltrees import plot_tree
    from mltrees.inspection import plot_importance

    for info in pkgutil.walk_packages(mltrees.__path__, "mltrees."):
        if not info.name.startswith("mltrees.dask"):
            importlib.import_module(info.name)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    for model in (CARTClassifier(max_depth=3), GradientBoostingClassifier(n_estimators=5)):
        model.fit(X, y)
        save_model(model, "model.json")
        assert (load_model("model.json").predict(X) == model.predict(X)).all()
    tree = CARTClassifier(max_depth=2).fit(X, y)
    for draw in (lambda: plot_tree(tree),
                 lambda: plot_importance([0.5, 0.3, 0.2], feature_names=["a", "b", "c"])):
        try:
            draw()
        except ImportError as error:
            print("ImportError:", error)
        else:
            raise SystemExit("drew without matplotlib?")
    assert "matplotlib" not in __import__("sys").modules
    """
    run = _run_without({"matplotlib"}, body, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    messages = [line for line in run.stdout.splitlines() if line.startswith("ImportError:")]
    assert len(messages) == 2, run.stdout
    for message in messages:
        assert "matplotlib" in message
        assert 'pip install "path/to/mltrees[plot]"' in message
        assert 'pip install "matplotlib>=3.8"' in message
    assert "plot_tree" in messages[0]
    assert "plot_importance" in messages[1]


def test_dask_module_says_how_to_install_the_extra(tmp_path):
    body = """
    try:
        import mltrees.dask
    except ImportError as error:
        print("ImportError:", error)
    """
    run = _run_without({"dask", "distributed"}, body, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "mltrees.dask needs dask" in run.stdout
    assert 'pip install "path/to/mltrees[dask]"' in run.stdout
    assert "pip install mltrees[dask]" not in run.stdout  # mltrees is not on PyPI


def test_onnx_export_says_how_to_install_the_extra(tmp_path):
    body = """
    import numpy as np
    from mltrees import CARTClassifier
    from mltrees.io import to_onnx
    X = np.random.default_rng(0).normal(size=(50, 2))
    model = CARTClassifier(max_depth=2).fit(X, X[:, 0] > 0)
    try:
        to_onnx(model, "model.onnx")
    except ImportError as error:
        print("ImportError:", error)
    """
    run = _run_without({"onnx", "onnxruntime"}, body, tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "to_onnx needs onnx" in run.stdout
    assert 'pip install "path/to/mltrees[onnx]"' in run.stdout


def test_readme_install_commands_work_from_a_clone():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    # `pip install mltrees[...]` would look for mltrees on PyPI, where it is not
    assert not re.search(r"pip install mltrees\b", readme)
    assert 'pip install "path/to/this/repository[dask]"' in readme
    assert 'pip install "path/to/this/repository[plot]"' in readme
    assert 'pip install "path/to/this/repository[onnx]"' in readme
    for source in (ROOT / "mltrees").rglob("*.py"):
        assert not re.search(r"pip install mltrees\b", source.read_text(encoding="utf-8")), source


# ---------------------------------------------------------------------------
# The chapters' needs
# ---------------------------------------------------------------------------


def _code_cells(chapter: Path) -> list[str]:
    notebook = jupytext.read(chapter)
    return [cell.source for cell in notebook.cells if cell.cell_type == "code"]


def _imported_top_level(source: str) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _installed_closure(requirements: list[Requirement]) -> set[str]:
    """Distributions that installing ``requirements`` brings, read from installed metadata."""
    seen: set[tuple[str, frozenset]] = set()
    found: set[str] = set()
    todo = [(r, frozenset()) for r in requirements]
    while todo:
        requirement, parent_extras = todo.pop()
        if requirement.marker is not None and not any(
            requirement.marker.evaluate({"extra": extra}) for extra in parent_extras or {""}
        ):
            continue
        name = canonicalize_name(requirement.name)
        key = (name, frozenset(requirement.extras))
        if key in seen:
            continue
        seen.add(key)
        found.add(name)
        if name == "mltrees":  # a self-reference: the project's own table
            base = PYPROJECT["project"]["dependencies"]
            todo += [(Requirement(r), frozenset()) for r in base]
            for extra in requirement.extras:
                todo += [(r, frozenset()) for r in _extra(extra)]
            continue
        try:
            requires = importlib.metadata.requires(requirement.name) or []
        except importlib.metadata.PackageNotFoundError:
            continue
        todo += [(Requirement(r), frozenset(requirement.extras)) for r in requires]
    return found


def test_book_extra_installs_what_the_chapters_import():
    provided = _installed_closure([Requirement("mltrees[book]")])
    distributions = importlib.metadata.packages_distributions()
    missing = {}
    for chapter in CHAPTERS:
        for module in set().union(*map(_imported_top_level, _code_cells(chapter))):
            if module in sys.stdlib_module_names or module == "mltrees":
                continue
            names = {canonicalize_name(d) for d in distributions.get(module, [module])}
            if not names & provided:
                missing.setdefault(module, []).append(chapter.stem)
    assert not missing, f"imported by chapters, not installed by mltrees[book]: {missing}"
    # and the reference libraries are those the chapters' stored outputs were made with
    test_pins = {canonicalize_name(r.name): r.specifier for r in _extra("book")}
    for name in ("xgboost-cpu", "lightgbm", "catboost", "shap", "river", "scikit-learn"):
        assert name in test_pins, name
        installed = importlib.metadata.version(name)
        assert test_pins[name].contains(installed), (name, installed, test_pins[name])


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda path: path.stem)
def test_chapter_reads_nothing_outside_the_installed_packages(chapter):
    """A notebook downloaded from the website has no repository around it."""
    for source in _code_cells(chapter):
        assert "../" not in source, source[:300]
        assert "benchmarks/" not in source, source[:300]


# ---------------------------------------------------------------------------
# What an install ships and writes
# ---------------------------------------------------------------------------


def test_every_data_file_of_the_package_is_shipped():
    package_data = PYPROJECT["tool"]["setuptools"]["package-data"]
    unshipped = []
    for path in sorted((ROOT / "mltrees").rglob("*")):
        if path.is_dir() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
            continue
        relative = path.relative_to(ROOT).as_posix()
        shipped = False
        for package, patterns in package_data.items():
            folder = package.replace(".", "/") + "/"
            if relative.startswith(folder):
                inner = relative.removeprefix(folder)
                shipped |= any(fnmatch.fnmatch(inner, pattern) for pattern in patterns)
        if not shipped:
            unshipped.append(relative)
    assert not unshipped, f"package files missing from [tool.setuptools.package-data]: {unshipped}"
    assert (ROOT / "mltrees/datasets/benchmark_results/family.json").is_file()


def test_gitignore_covers_what_an_install_from_the_clone_writes():
    written = ["build/lib/mltrees/__init__.py", "mltrees.egg-info/PKG-INFO", "dist/x.whl"]
    if not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    run = subprocess.run(
        ["git", "check-ignore", "--no-index", *written], cwd=ROOT, capture_output=True, text=True
    )
    assert run.stdout.split() == written

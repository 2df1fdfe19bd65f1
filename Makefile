# Two commands set everything up on a fresh machine (Python 3.11 + package registries):
#   make book   build the website into _build/html
#   make test   run every test: ruff, unit and property tests, strict nbval, website check
# Both create .venv on first use. `make notebooks` re-executes the chapters after editing them.

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: book test notebooks lint clean difftest difftest-latest fuzz reader lab test-pythons

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $(STAMP)

book: $(STAMP)
	rm -rf _build/html _build/.doctrees
	$(BIN)/jupyter-book build . --all --warningiserror --keep-going

# System packages the tests use, installed only if missing: Debian's Chromium for
# the website test, Graphviz to render to_dot's output, Weka for C4.5 vs J48, R's
# rpart for CART's surrogate splits (r-cran-rpart pulls a minimal R, ~10 packages).
SYSTEM_TOOLS := /usr/bin/chromium /usr/bin/dot /usr/share/java/weka.jar \
	/usr/lib/R/library/rpart/DESCRIPTION

$(SYSTEM_TOOLS) &:
	if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	$$SUDO apt-get update -q && \
	DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends \
		chromium graphviz weka r-cran-rpart

test: book $(SYSTEM_TOOLS)
	$(BIN)/ruff check .
# Without MPLBACKEND the notebook kernels draw inline (ipykernel's default); an
# exported MPLBACKEND=Agg would leave the figure cells without their outputs.
# One worker per core; --dist loadfile keeps a notebook's cells (and a test
# file's module fixtures) on one worker, in order.
	env -u MPLBACKEND $(BIN)/python -m pytest tests book mltrees --doctest-modules \
		--nbval --nbval-current-env --nbval-sanitize-with tests/nbval_sanitize.cfg \
		-n auto --dist loadfile

# The long profile of the differential tests against XGBoost, LightGBM, CatBoost,
# scikit-learn, shap and river (thousands of examples per test; MLTREES_DIFFTEST_EXAMPLES
# sets how many). The quick profile of the same tests runs inside `make test`.
difftest: $(STAMP)
	MLTREES_DIFFTEST=long $(BIN)/python -m pytest tests/differential -n auto -q

# What changes with the newest releases of the reference libraries: the differential
# tests (quick profile) in a throwaway venv that has them, mltrees taken from this
# checkout. Differences are reported (the summary lists each changed example, -rf the
# failing tests); the target never fails and leaves nothing behind.
LATEST_VENV := .difftest-latest
REFERENCES := xgboost-cpu lightgbm catboost scikit-learn shap river onnx onnxruntime
difftest-latest:
	rm -rf $(LATEST_VENV)
	$(PYTHON) -m venv $(LATEST_VENV)
	$(LATEST_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(LATEST_VENV)/bin/python -m pip install --quiet numpy pandas scipy matplotlib \
		pytest pytest-xdist hypothesis $(REFERENCES)
	$(LATEST_VENV)/bin/python -m pip list 2>/dev/null | grep -i -E "^($(subst $() ,|,$(REFERENCES))) "
	-env PYTHONPATH=$(CURDIR) MLTREES_DIFFTEST_LATEST=1 $(LATEST_VENV)/bin/python -m pytest \
		tests/differential -q -n auto -p no:randomly -p no:cacheprovider -rf
	rm -rf $(LATEST_VENV)

# The long profile of the fuzzing of model files and importers: every systematic
# edit of every field and many random ones, each in a worker process with a memory
# and a time cap; prints the count of every outcome. The quick profile of the same
# tests runs inside `make test`.
fuzz: $(STAMP)
	MLTREES_FUZZ=long $(BIN)/python -m pytest tests/fuzzing -q -s -p no:randomly

notebooks: $(STAMP)
	$(BIN)/python book/_tools/build_notebooks.py

# The chapters in JupyterLab. `make reader` writes reader notebooks to _build/reader:
# executed copies of the chapters with listings, equation numbers, cross-chapter
# references and citations resolved (book/_tools/reader_notebooks.py). `make lab` opens
# JupyterLab on the repository at the introduction's reader copy; a double-click on a
# chapter's .md opens it as a notebook (jupytext's viewer: book/_tools/jupyterlab).
reader: $(STAMP)
	$(BIN)/python book/_tools/reader_notebooks.py --out _build/reader

lab: reader
	$(BIN)/jupyter lab --ServerApp.root_dir="$(CURDIR)" \
		--LabApp.app_settings_dir="$(CURDIR)/book/_tools/jupyterlab" \
		--LabApp.default_url=/lab/tree/_build/reader/book/intro.ipynb \
		$$(test "$$(id -u)" = 0 && echo --allow-root)

# The package's own tests (not the book) on the other supported CPython versions, found
# on PATH or in pyenv: each in its venv _build/venv-X.Y, mltrees installed from the clone
# as users install it, the tests in PYTHON_VERSION_TESTS: every estimator's fit, predict,
# save and load, and scikit-learn's estimator checks. `.ci/run` runs it after `make test`.
PYTHON_VERSIONS ?= 3.12 3.13
PYTHON_VERSION_TESTS := tests/test_every_estimator.py tests/test_model_files.py \
	$(wildcard tests/test_*estimator_checks.py) tests/test_incremental_trees.py \
	tests/test_oblique_trees.py tests/test_stacking.py

test-pythons:
	set -e; for version in $(PYTHON_VERSIONS); do \
		python=; for candidate in $$(command -v python$$version) \
				$$(ls -d $${PYENV_ROOT:-$$HOME/.pyenv}/versions/$$version.*/bin/python$$version 2>/dev/null | sort -rV); do \
			if $$candidate -c "" 2>/dev/null; then python=$$candidate; break; fi; \
		done; \
		test -n "$$python" || { echo "CPython $$version not found on PATH or in pyenv"; exit 1; }; \
		venv=_build/venv-$$version; \
		test -x $$venv/bin/python || $$python -m venv $$venv; \
		$$venv/bin/python -m pip install --quiet --upgrade pip; \
		$$venv/bin/python -m pip install --quiet ".[test-package]"; \
		echo "== $$($$venv/bin/python --version): $(words $(PYTHON_VERSION_TESTS)) test files"; \
		$$venv/bin/pytest -p no:cacheprovider -n auto -q $(PYTHON_VERSION_TESTS); \
	done

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check mltrees tests

clean:
	rm -rf _build .pytest_cache .hypothesis

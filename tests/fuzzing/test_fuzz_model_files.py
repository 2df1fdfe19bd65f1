"""Damaged and hostile files through the loader and importers: refused, or a model that predicts.

One test per reader. The quick profile (``make test``) runs a fixed sample of
every mutation family; ``make fuzz`` (``MLTREES_FUZZ=long``) runs every
systematic edit and many random ones, and prints the counts. See
:mod:`fuzzing` for the profiles and :mod:`fuzzing.harness` for the caps.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from fuzzing import mutations, sources
from fuzzing.harness import Summary, run_cases

LONG = os.environ.get("MLTREES_FUZZ", "quick") == "long"
SEED = int(os.environ.get("MLTREES_FUZZ_SEED", "0"))
# Cases per source: (sweep edits, random edits, text damages). The quick
# profile takes evenly spaced sweep edits; the long one takes them all.
PER_SOURCE = (None, 150, 60) if LONG else (12, 8, 5)


def _spread(items, count):
    """``count`` evenly spaced items (all of them when count is None)."""
    if count is None or len(items) <= count:
        return items
    picks = np.linspace(0, len(items) - 1, count).round().astype(int)
    return [items[i] for i in picks]


def _cases(source, rng):
    n_sweep, n_random, n_text = PER_SOURCE
    if source.kind == "lightgbm":
        swept = _spread(list(mutations.lightgbm_sweep(source.payload)), n_sweep)
        random = mutations.lightgbm_random(source.payload, rng, n_random)
        size = mutations.lightgbm_size_attacks(source.payload)
    else:
        document = json.loads(source.payload)
        edits = _spread(mutations.sweep_edits(document), n_sweep)
        swept = list(mutations.apply_sweep(document, edits))
        random = mutations.random_edits(document, rng, n_random)
        size = {
            "mltrees": mutations.mltrees_size_attacks,
            "xgboost": mutations.xgboost_size_attacks,
            "catboost": mutations.catboost_size_attacks,
        }[source.kind](document)
    out = swept + list(random)
    out += list(mutations.text_damage(source.payload, rng, n_text))
    for family, description, payload in size:
        if LONG or len(payload) < 1_000_000:  # the quick profile keeps to small files
            out.append((family, description, payload))
    return [(source.name, *case) for case in out]


def _available(kind) -> bool:
    if kind == "mltrees":
        return True
    try:
        __import__(kind)
    except ImportError:
        return False
    return True


@pytest.fixture(scope="module")
def summaries():
    """Every reader's cases, run in one capped worker: {kind: Summary}."""
    kinds = [kind for kind in ("mltrees", "xgboost", "lightgbm", "catboost") if _available(kind)]
    built = sources.all_sources(kinds)
    rng = np.random.default_rng(SEED)
    cases = [case for source in built for case in _cases(source, rng)]
    summary = run_cases(built, cases)
    out = {}
    for kind in kinds:
        part = Summary([r for r in summary.results if r.source.startswith(f"{kind}:")])
        print(f"\n[{kind}] {part.report()}")
        out[kind] = part
    return out


def _check(summaries, kind):
    if kind not in summaries:
        pytest.skip(f"{kind} is not installed")
    summary = summaries[kind]
    report = summary.report()
    assert not summary.failures, report
    # The damage reaches the checks: many cases are refused, and some still load.
    assert sum(r.outcome == "refused" for r in summary.results) > len(summary.results) // 4, report
    assert any(r.outcome in ("same", "different") for r in summary.results), report


def test_loader_fuzz(summaries):
    _check(summaries, "mltrees")


def test_xgboost_importer_fuzz(summaries):
    _check(summaries, "xgboost")


def test_lightgbm_importer_fuzz(summaries):
    _check(summaries, "lightgbm")


def test_catboost_importer_fuzz(summaries):
    _check(summaries, "catboost")

"""Counting what a differential test saw, for the report printed after the run.

A hypothesis test calls :meth:`Tally.count` once per example with the
outcome: ``"equal"``, or the name of a documented exception that the test
detected by itself (an exact tie broken differently, say). The counts are
kept on the pytest item (``user_properties``), so they reach the report
also from ``pytest-xdist`` workers; ``conftest.pytest_terminal_summary``
prints them. A test thereby shows how often each exception occurred, and
an exception that becomes common is seen.

The scikit-learn, shap and river modules run their comparisons in check
functions that the regression tests call too; they log each example with
:func:`record` (``"equal"``, an exception's name, or ``"failed"`` with the
example's recipe) to a file per process, and :func:`summary` counts the log.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path

PROPERTY = "difftest"


class Tally:
    """Outcome counts of one test, mirrored into the pytest item's properties."""

    def __init__(self, request):
        self.counts = Counter()
        self._properties = request.node.user_properties

    def count(self, outcome: str) -> None:
        self.counts[outcome] += 1
        self._properties[:] = [
            (name, value) for name, value in self._properties if name != PROPERTY
        ] + [(PROPERTY, dict(self.counts))]


REPORT_DIR = Path(
    os.environ.get(
        "MLTREES_DIFFTEST_REPORT_DIR",
        Path(__file__).resolve().parents[2] / ".pytest_cache" / "difftest",
    )
)


def record(test: str, outcome: str, detail: str = "") -> None:
    """Append one example's outcome (``equal``, an exception's name, ``changed: ...``)."""
    REPORT_DIR.mkdir(parents=True, exist_ok=True)
    line = json.dumps({"test": test, "outcome": outcome, "detail": detail[:2000]})
    with open(REPORT_DIR / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as out:
        out.write(line + "\n")


def clear() -> None:
    """Forget the outcomes of an earlier session."""
    if REPORT_DIR.is_dir():
        for path in REPORT_DIR.glob("*.jsonl"):
            path.unlink()


def summary() -> list[str]:
    """One line per test: examples run and outcomes; then every changed example's detail."""
    counts: dict[str, Counter] = defaultdict(Counter)
    changed: list[str] = []
    for path in sorted(REPORT_DIR.glob("*.jsonl")) if REPORT_DIR.is_dir() else []:
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            counts[entry["test"]][entry["outcome"]] += 1
            if entry["outcome"].startswith("changed"):
                changed.append(f"{entry['test']}: {entry['outcome']} {entry['detail']}")
    lines = []
    for test in sorted(counts):
        total = sum(counts[test].values())
        parts = ", ".join(f"{name} {n}" for name, n in counts[test].most_common())
        lines.append(f"{test}: {total} examples ({parts})")
    return lines + changed

"""What the differential tests saw, for the report printed after the run.

Two ways of counting, one per style of test:

* :class:`Tally` (LightGBM, CatBoost, scikit-learn modules): a hypothesis
  test calls :meth:`Tally.count` once per example with the outcome
  (``"equal"``, or the name of a documented exception the test detected by
  itself). The counts are kept on the pytest item (``user_properties``), so
  they reach the report also from ``pytest-xdist`` workers.
* :func:`record` (XGBoost module): one line per example appended to a file
  of the process (``REPORT_DIR``), with ``"equal"``, an exception's name or,
  under ``make difftest-latest``, ``"changed: ..."`` for a difference it
  reports instead of failing; the counts survive an interrupted run.

``conftest.pytest_terminal_summary`` prints both, so that the long profile's
size and exception counts can be quoted, and an exception that becomes
common is seen.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from pathlib import Path

REPORT_DIR = Path(
    os.environ.get(
        "MLTREES_DIFFTEST_REPORT_DIR",
        Path(__file__).resolve().parents[2] / ".pytest_cache" / "difftest",
    )
)

#: Set by ``make difftest-latest``: differences are recorded as "changed", not failed.
LATEST = os.environ.get("MLTREES_DIFFTEST_LATEST", "") not in ("", "0")


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

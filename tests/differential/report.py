"""The outcome of every differential example, printed at the end of the session.

A differential test calls :func:`record` once per example with what the
comparison found: ``"equal"``, the name of a documented exception it detected
by itself (for example an exact tie between two candidate splits), or, under
``make difftest-latest``, ``"changed: ..."`` for a difference it reports
instead of failing. ``conftest.py`` prints :func:`summary` at the end of the
session, so that the long profile's size and exception counts can be quoted.
Each process (pytest-xdist worker) appends to its own file.
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

"""Profiles of the differential test suite (one module per reference library).

The suite compares mltrees with a reference library on tables and parameters
drawn together by ``hypothesis``. Two profiles:

* ``quick`` (the default, inside ``make test``): derandomised, so every run
  draws the same examples; a small number of examples per test and no deadline.
* ``long`` (``make difftest``, i.e. ``MLTREES_DIFFTEST=long``): random
  examples, many of them; a failure prints the seed (``--hypothesis-seed``)
  and the shrunk example, which then becomes a plain regression test.

``MLTREES_DIFFTEST_EXAMPLES`` overrides the number of examples per test of
either profile. A test module applies the active profile with
``@settings(parent=settings.get_profile(PROFILE))`` (loading it globally would
change every other hypothesis test of the package).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

_SLOW_DATA = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much]

settings.register_profile(
    "difftest-quick",
    derandomize=True,
    deadline=None,
    max_examples=int(os.environ.get("MLTREES_DIFFTEST_EXAMPLES", 25)),
    suppress_health_check=_SLOW_DATA,
    print_blob=True,
)
settings.register_profile(
    "difftest-long",
    derandomize=False,
    deadline=None,
    max_examples=int(os.environ.get("MLTREES_DIFFTEST_EXAMPLES", 2000)),
    suppress_health_check=_SLOW_DATA,
    print_blob=True,
)

PROFILE = (
    "difftest-long" if os.environ.get("MLTREES_DIFFTEST", "quick") == "long" else "difftest-quick"
)


def pytest_configure(config):
    """A new session starts a new file report (the controller only, under pytest-xdist).

    ``pytest_configure`` is a historic hook: it also runs for this conftest
    when it is loaded late, as in ``pytest tests``.
    """
    if not hasattr(config, "workerinput"):
        from .report import clear

        clear()


def pytest_terminal_summary(terminalreporter):
    """Print each differential test's outcome counts (both ways of ``report.py``)."""
    from .report import PROPERTY, summary

    lines = []
    for status in ("passed", "failed"):
        for report in terminalreporter.stats.get(status, []):
            if getattr(report, "when", None) != "call":
                continue
            for name, counts in report.user_properties:
                if name == PROPERTY:
                    total = sum(counts.values())
                    shown = ", ".join(f"{k}: {v}" for k, v in sorted(counts.items()))
                    lines.append(f"{report.nodeid}: {total} examples ({shown})")
    lines += summary()
    if lines:
        terminalreporter.write_sep("-", "differential tests: examples and documented exceptions")
        for line in lines:
            terminalreporter.write_line(line)

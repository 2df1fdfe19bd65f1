"""Counting what a differential test saw, for the report printed after the run.

A hypothesis test calls :meth:`Tally.count` once per example with the
outcome: ``"equal"``, or the name of a documented exception that the test
detected by itself (an exact tie broken differently, say). The counts are
kept on the pytest item (``user_properties``), so they reach the report
also from ``pytest-xdist`` workers; ``conftest.pytest_terminal_summary``
prints them. A test thereby shows how often each exception occurred, and
an exception that becomes common is seen.
"""

from __future__ import annotations

from collections import Counter

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

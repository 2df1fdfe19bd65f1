"""What the benchmark children (``python -c CHILD`` of the 1M-row scripts) share.

:func:`_harness.run_child` puts this folder on the child's path. Standard
library and numpy only, which every child imports anyway, so that importing
this module changes neither the memory nor the modules a child measures.
"""

from __future__ import annotations

import gc
import time

import numpy as np

SPLIT = ("X_train", "y_train", "X_test", "y_test")


def load_split(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``X_train, y_train, X_test, y_test`` from a file of :func:`_harness.save_classification`."""
    data = np.load(path)
    return tuple(data[k] for k in SPLIT)


def status_kb(key: str) -> int:
    """A field of ``/proc/self/status`` in kB: ``VmRSS`` now, ``VmHWM`` the peak since a reset."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(key + ":"):
                return int(line.split()[1])
    raise KeyError(key)


def reset_peak() -> int:
    """Collect garbage, reset the peak (``VmHWM``) to ``VmRSS``; return ``VmRSS`` in kB.

    The peak a fit adds is then ``status_kb("VmHWM")`` minus this value.
    """
    gc.collect()
    with open("/proc/self/clear_refs", "w") as handle:
        handle.write("5")
    return status_kb("VmRSS")


def fastest_call(function, calls: int = 5) -> tuple[float, object]:
    """The fastest of ``calls`` calls of ``function()`` in seconds, and the last call's result.

    Prediction takes milliseconds at these sizes, so one call would measure
    the machine's noise as much as the model.
    """
    times = []
    for _ in range(calls):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result

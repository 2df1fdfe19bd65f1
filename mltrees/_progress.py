"""Progress output of long fits: the ``verbose`` parameter of every ensemble.

One implementation for bagging, forests, AdaBoost, LogitBoost, gradient
boosting, stacking, XGBoost, LightGBM and oblivious boosting, so that they all
behave alike:

* ``verbose=0`` (the default): silent.
* In a Jupyter kernel where ``tqdm`` and ``ipywidgets`` can be imported: a
  progress bar (``tqdm.notebook``, a widget), with the latest report shown
  next to it.
* Everywhere else: one plain line per report on **stdout**, e.g.
  ``[AdaBoostClassifier] round 20/50  weighted error 0.31  0.4 s``.

Nothing goes to stderr: a notebook shows stderr as a warning, and nbval
compares it. The text fallback of ``tqdm.auto`` writes to stderr, which is why
the bar is used only where the widget can be drawn.
"""

from __future__ import annotations

import sys
import threading
import time

from mltrees._validation import check_int

__all__ = ["Progress", "check_verbose", "in_notebook"]


def check_verbose(verbose) -> int:
    """``verbose`` as an int >= 0, or a ValueError naming it."""
    check_int(verbose, "verbose", low=0)
    return int(verbose)


def in_notebook() -> bool:
    """True inside a Jupyter kernel (not a terminal IPython, not plain Python)."""
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
    except AttributeError:
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def _notebook_bar(total: int, name: str):
    """A ``tqdm.notebook`` bar, or None when tqdm or ipywidgets is missing."""
    try:
        import ipywidgets  # noqa: F401  (tqdm.notebook needs it to draw the widget)
        from tqdm.notebook import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=name, leave=True)


class Progress:
    """Reports of a loop of ``total`` steps (rounds, members, fold fits).

    Parameters
    ----------
    verbose : int
        0: silent. Otherwise a line is printed every ``every`` steps and at
        the last one.
    total : int
        Number of steps announced.
    name : str
        Shown in brackets at the start of each line (the estimator's class).
    unit : str or None, default "round"
        Printed before ``done/total``; None prints the message alone.
    every : int, optional
        Report period in steps; defaults to ``verbose``.
    bar : bool, default True
        Use a notebook progress bar where one is available.
    """

    def __init__(self, verbose, total, name, *, unit="round", every=None, bar=True):
        self.verbose = check_verbose(verbose)
        self.total, self.name, self.unit = int(total), name, unit
        self.every = max(1, int(every if every is not None else self.verbose or 1))
        self.done = 0
        self.start = time.perf_counter()
        self._lock = threading.Lock()
        self._bar = None
        if self.verbose and bar and in_notebook():
            self._bar = _notebook_bar(self.total, name)

    def __bool__(self) -> bool:
        return bool(self.verbose)

    def due(self) -> bool:
        """Whether the step about to finish will be reported."""
        if not self.verbose:
            return False
        step = self.done + 1
        return step % self.every == 0 or step == self.total

    def step(self, message: str = "", n: int = 1) -> None:
        """Count ``n`` finished steps; report ``message`` if one of them is due.

        A message that costs a pass over the data (a training loss) is
        computed by the caller only when :meth:`due` says so.
        """
        if not self.verbose:
            return
        with self._lock:
            reported = any(
                (self.done + i) % self.every == 0 or self.done + i == self.total
                for i in range(1, n + 1)
            )
            self.done += n
            if not reported:
                if self._bar is not None:
                    self._bar.update(n)
                return
            if self._bar is not None:
                self._bar.update(n)
                if message:
                    self._bar.set_postfix_str(message, refresh=True)
                return
            self.write(message, count=True)

    def write(self, message: str, count: bool = False) -> None:
        """Print one report line (stdout), or show it beside the bar."""
        if not self.verbose:
            return
        if self._bar is not None:
            self._bar.set_postfix_str(message, refresh=True)
            return
        head = f"[{self.name}]"
        if count and self.unit:
            head += f" {self.unit} {self.done}/{self.total}"
        parts = [head, message] if message else [head]
        parts.append(f"{time.perf_counter() - self.start:.1f} s")
        print("  ".join(parts), file=sys.stdout, flush=True)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

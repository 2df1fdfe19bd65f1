"""The boosting loop of the second-order learners (chapters 13-15 and 20).

XGBoost, LightGBM, oblivious boosting (CatBoost's algorithm) and the Dask
trainer run the same rounds: the gradients and hessians at the current
predictions, a sample of rows and one of columns, the round's trees grown
and added to the training predictions, the evaluation sets' metrics, then
progress and early stopping. :class:`BoostingLoop` is that loop, written
once; a library configures it by overriding its hooks, where the libraries
really differ:

* :meth:`BoostingLoop.statistics`: the gradients in the library's arithmetic
  (XGBoost's float32, LightGBM's float32 labels) and the row sample drawn
  before the columns (XGBoost's ``subsample``, LightGBM's bagging);
* :meth:`BoostingLoop.grow_stage`: the round's trees from a grower (see the
  grower contract in :mod:`mltrees.hist`) and the training predictions they
  update (XGBoost's margins are float32 and grow by float32 additions, as its
  prediction cache; LightGBM's scores are float64); samples drawn after the
  columns (GOSS) belong here too;
* :meth:`BoostingLoop.stop_after`: a library's own end of training
  (LightGBM stops when no leaf can be split).

The columns of a tree (``colsample_bytree``) are drawn by
:func:`draw_columns`, the evaluation sets are kept by :class:`EvalSets`, and
:func:`watch_round` reports progress and decides early stopping, for every
library alike.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from mltrees._progress import Progress

__all__ = [
    "Boosted",
    "BoostingLoop",
    "EvalSets",
    "draw_columns",
    "watch_round",
]


def watch_round(m, history, state, *, verbose, patience, start, prefix) -> bool:
    """Progress report and early stopping after round ``m`` of a boosting loop.

    ``history`` holds one list of metric values per evaluation set (lower is
    better); the last set is watched. ``state`` is ``[best_score,
    best_round]``, updated in place. ``verbose`` is a
    :class:`mltrees._progress.Progress` (which reports every ``verbose``
    rounds: a line on stdout or a notebook bar) or an int, the report period
    of a plain line on stdout. Returns True when the watched metric has not
    improved for ``patience`` rounds (None: never).
    """
    if isinstance(verbose, Progress):
        if verbose.due():
            verbose.step("  ".join(f"{prefix}{i}: {h[-1]:.6g}" for i, h in enumerate(history)))
        else:
            verbose.step()
    elif verbose and (m + 1) % verbose == 0:
        shown = "  ".join(f"{prefix}{i}: {h[-1]:.6g}" for i, h in enumerate(history))
        print(f"[{m + 1}] {shown}  {time.perf_counter() - start:.1f} s", file=sys.stdout)
    if not history:
        return False
    current = history[-1][-1]
    if current < state[0]:
        state[0], state[1] = current, m
        return False
    return patience is not None and m - state[1] >= patience


def draw_columns(
    rng: np.random.Generator, n_features: int, share: float, rounding: Callable = round
) -> np.ndarray | None:
    """The sorted columns one tree may split on, or None for all (``colsample_bytree``).

    ``max(1, rounding(share * n_features))`` columns drawn without
    replacement. The count is each library's: XGBoost rounds to the nearest
    (``round``), LightGBM adds 0.5 and truncates (``int(x + 0.5)``); they
    differ only at exact halves.
    """
    if share >= 1.0:
        return None
    k = max(1, rounding(share * n_features))
    return np.sort(rng.choice(n_features, size=k, replace=False))


class EvalSets:
    """The evaluation sets of a boosting loop and their predictions so far.

    Parameters
    ----------
    sets : list of (X, y, sample_weight, start)
        Each set's rows, targets, weights (as the metric takes them) and
        start predictions of shape ``(n_rows, n_outputs)``, updated in place
        (float64, as ``predict`` sums them).
    metric : callable
        ``metric(y, predictions, sample_weight) -> float``, lower is better.
    """

    def __init__(self, sets, metric):
        self.sets = list(sets)
        self.metric = metric

    def __len__(self) -> int:
        return len(self.sets)

    def scores(self, stage) -> list[float]:
        """Add the round's trees (a list of GrownTree, one per output); each set's metric."""
        out = []
        for E, ey, ew, em in self.sets:
            for k, grown in enumerate(stage):
                em[:, k] += grown.tree.value[grown.tree.apply(E), 0]
            out.append(self.metric(ey, em, ew))
        return out


@dataclass
class Boosted:
    """What a boosting loop returns.

    Attributes
    ----------
    trees : list of list
        Per round, the trees of its outputs (``GrownTree.tree``).
    gains : list of list
        Per round, the split gains of those trees (``GrownTree.gain``).
    history : list of list of float
        Per reported metric (one per evaluation set), its value after every round.
    best_round : int
        The round of the best value of the watched (last) metric.
    """

    trees: list = field(default_factory=list)
    gains: list = field(default_factory=list)
    history: list = field(default_factory=list)
    best_round: int = 0


class BoostingLoop:
    """Rounds of Newton boosting, the same for every library; hooks say where they differ.

    Parameters
    ----------
    grower
        A grower of :mod:`mltrees.hist` (closed when the loop ends, even on error).
    rng : numpy.random.Generator
        The model's draws, in the order the library makes them.
    n_features : int
    column_share : float
        ``colsample_bytree``: the share of columns each round's trees may use.
    rounding : callable
        The library's count of drawn columns (:func:`draw_columns`).
    evals : EvalSets, optional
    """

    def __init__(
        self,
        grower,
        *,
        rng: np.random.Generator,
        n_features: int,
        column_share: float = 1.0,
        rounding: Callable = round,
        evals: EvalSets | None = None,
    ):
        self.grower = grower
        self.rng = rng
        self.n_features = n_features
        self.column_share = column_share
        self.rounding = rounding
        self.evals = EvalSets([], None) if evals is None else evals

    # ----------------------------------------------------------------- hooks
    def statistics(self, m: int):
        """The gradients and hessians of round ``m`` at the current predictions.

        And the row sample drawn before the columns. Returns what
        :meth:`grow_stage` takes.
        """
        raise NotImplementedError

    def grow_stage(self, m: int, statistics, features) -> list | None:
        """Grow round ``m``'s trees (a list of GrownTree, one per output).

        Adds them to the training predictions. Returns None to end training
        before this round (its trees are not kept).
        """
        raise NotImplementedError

    def stop_after(self, stage) -> bool:
        """Whether training ends after this round, whose trees are kept."""
        return False

    def round_scores(self, stage) -> list[float]:
        """The metrics reported after a round: the evaluation sets' by default."""
        return self.evals.scores(stage)

    # ------------------------------------------------------------------ loop
    def run(self, n_rounds: int, *, verbose, patience, name: str, prefix: str) -> Boosted:
        """Boost for up to ``n_rounds`` rounds; early stopping with ``patience`` (None: off).

        ``verbose`` is the progress period (0: silent), ``name`` the model's
        name in progress lines, ``prefix`` the metrics' (``eval`` for
        XGBoost, ``valid_`` for LightGBM).
        """
        out = Boosted(history=[[] for _ in range(len(self.evals))])
        watched = [np.inf, 0]  # best score and round on the last metric
        start = time.perf_counter()
        progress = Progress(verbose, n_rounds, name)
        try:
            for m in range(n_rounds):
                statistics = self.statistics(m)
                features = draw_columns(self.rng, self.n_features, self.column_share, self.rounding)
                stage = self.grow_stage(m, statistics, features)
                if stage is None:
                    break
                out.trees.append([grown.tree for grown in stage])
                out.gains.append([grown.gain for grown in stage])
                scores = self.round_scores(stage)
                if len(out.history) < len(scores):
                    # Metrics computed only while progress is shown (oblivious
                    # boosting's training loss) start their lists on first report.
                    out.history += [[] for _ in range(len(scores) - len(out.history))]
                for h, score in zip(out.history, scores, strict=True):
                    h.append(score)
                stop = watch_round(
                    m,
                    out.history,
                    watched,
                    verbose=progress,
                    patience=patience,
                    start=start,
                    prefix=prefix,
                )
                if stop or self.stop_after(stage):
                    break
        finally:
            progress.close()
            self.grower.close()
        out.best_round = watched[1]
        return out

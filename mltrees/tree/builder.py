"""The contract between a tree estimator and the ensembles that grow many of its trees.

Bagging, random forests, AdaBoost and gradient boosting (chapters 9-12) bin
the data once and then grow hundreds of trees of one configured estimator
(a ``CARTClassifier``, a ``C45Classifier``, ...). :class:`TreeBuilder` is all
they use of it:

* what it needs: :meth:`~TreeBuilder.bin` the features once,
  :meth:`~TreeBuilder.targets` or :meth:`~TreeBuilder.class_statistics`
  for the rows' statistics;
* what it does: :meth:`~TreeBuilder.grow` a tree on binned rows and
  :meth:`~TreeBuilder.prune` it as the estimator's own ``fit`` would;
* what comes back: :meth:`~TreeBuilder.fitted`, an estimator holding the
  tree, usable on its own (``predict``, ``export_text``, ...).

So an ensemble never reads the estimator's private members, and a new
learner plugs in by providing this class's methods (the second-order
histogram learner of chapter 13 has its own, smaller contract:
:mod:`mltrees.hist.grower`).
"""

from __future__ import annotations

import copy

import numpy as np
from sklearn.base import clone

from mltrees.tree._data import TrainingData, prepare_training_data
from mltrees.tree._split import ClassificationStatistics
from mltrees.tree._tree import Tree
from mltrees.tree.classes import _BaseTree, _resolve_max_features

__all__ = ["TreeBuilder"]


class TreeBuilder:
    """Grow the trees of one configured tree estimator, for an ensemble.

    Parameters
    ----------
    estimator : an mltrees tree estimator (unfitted)
        Its parameters are checked once, here.

    Examples
    --------
    >>> import numpy as np
    >>> from mltrees import CARTClassifier
    >>> from mltrees.tree import TreeBuilder
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array([0, 0, 1, 1])
    >>> builder = TreeBuilder(CARTClassifier(max_depth=1))
    >>> codes, specs = builder.bin(X)
    >>> stats = builder.class_statistics(y, np.ones(4), n_classes=2)
    >>> tree = builder.grow(codes, specs, stats, total_weight=4.0, rng=np.random.default_rng(0))
    >>> member = builder.fitted(tree, specs, {"classes_": np.array([0, 1]), "n_classes_": 2})
    >>> member.predict(np.array([[0.5], [2.5]])).tolist()
    [0, 1]
    """

    def __init__(self, estimator):
        if not self.accepts(estimator):
            raise TypeError(
                f"TreeBuilder needs an mltrees tree estimator, got {type(estimator).__name__}"
            )
        estimator._validate_params()
        if estimator._missing == "surrogate":
            # Ensembles walk all members at once on one routing table per node;
            # surrogate splits would need every member's surrogate lists too.
            raise ValueError(
                "missing must be one of 'error', 'c45', 'default_direction' for a tree "
                "inside an ensemble, got 'surrogate': ensembles do not follow surrogate splits"
            )
        self.estimator = estimator

    @staticmethod
    def accepts(estimator) -> bool:
        """Whether ``estimator`` is an mltrees tree that a builder can grow."""
        return isinstance(estimator, _BaseTree)

    # What the estimator is ------------------------------------------------

    @property
    def missing(self) -> str:
        """Its missing-value method: ``"error"``, ``"c45"`` or ``"default_direction"``.

        (``"surrogate"`` is refused when the builder is made.)
        """
        return self.estimator._missing

    @property
    def missing_fix(self) -> str:
        """What an error message that refuses NaN tells the user to pass instead."""
        return self.estimator._missing_fix()

    @property
    def splits_numbers(self) -> bool:
        """Whether it splits numeric features (ID3 splits categories only)."""
        return self.estimator._numeric_features

    @property
    def prunes_after_growth(self) -> bool:
        """Whether its ``fit`` prunes the grown tree (C4.5's pessimistic pruning)."""
        return self.estimator._prunes_grown_tree

    @staticmethod
    def features_per_node(max_features, n_features: int) -> int | None:
        """How many features a node draws for ``max_features`` (None: all), checked."""
        return _resolve_max_features(max_features, n_features)

    # What it needs --------------------------------------------------------

    def bin(self, X):
        """Bin the features once for every tree: ``(codes, specs)``."""
        return self.estimator._bin(X)

    def training_data(self, X, y, weights, *, classifier: bool) -> TrainingData:
        """Targets checked, zero-weight rows dropped, features binned: the trees' fit pipeline."""

        def prepare_target(y, weights):
            return self.targets(y, weights, classifier=classifier)

        return prepare_training_data(
            X,
            y,
            weights,
            prepare_target,
            self.bin,
            who=type(self.estimator).__name__,
            splits_numbers=self.splits_numbers,
            advice="; mark them with categorical_features= or choose a base estimator "
            "that splits numbers",
        )

    def targets(self, y, weights, *, classifier: bool):
        """Checked targets: ``(weights, fitted attributes, statistics maker)``.

        The statistics maker takes a boolean mask of the rows to keep and
        returns the statistics :meth:`grow` reads.
        """
        if classifier:
            return self.estimator._prepare_classes(y, weights)
        return self.estimator._prepare_targets(y, weights)

    def class_statistics(self, y_codes, weights, n_classes: int) -> ClassificationStatistics:
        """Class-count statistics of rows with class codes ``y_codes`` and ``weights``."""
        return ClassificationStatistics(
            np.asarray(y_codes),
            np.asarray(weights, dtype=np.float64),
            int(n_classes),
            self.estimator._engine_criterion,
        )

    # What it does ----------------------------------------------------------

    def grow(self, codes, specs, statistics, total_weight: float, rng, leaf_of_row=None) -> Tree:
        """Grow one tree on binned rows, with the estimator's parameters.

        One thread per tree: ensembles grow their trees in parallel.
        ``leaf_of_row`` (CART only): filled with every row's leaf where the
        growth knows it, else left as it was (see ``grow_tree``).
        """
        extra = {} if leaf_of_row is None else {"leaf_of_row": leaf_of_row}
        return self.estimator._grow(
            codes, specs, statistics, float(total_weight), rng, n_threads=1, **extra
        )

    @property
    def grows_together(self) -> bool:
        """Whether ``grow_together`` grows the trees ``grow`` would, one by one."""
        return not self.prunes_after_growth and self.estimator._grows_together()

    def grow_together(self, codes, specs, statistics, root_of_row, rngs) -> list[Tree]:
        """Grow one tree per group of rows, all at once (``root_of_row``: each row's tree)."""
        return self.estimator._grow_together(codes, specs, statistics, root_of_row, rngs)

    def prune(self, tree: Tree, X, specs, statistics) -> Tree:
        """Prune a grown tree as the estimator's ``fit`` would (unchanged if it does not)."""
        if not self.prunes_after_growth:
            return tree
        return self.estimator._prune_grown(tree, X, specs, statistics)

    # What comes back -------------------------------------------------------

    def fitted(self, tree: Tree, specs, attributes: dict, *, split_codes=None, fast=False):
        """A fitted estimator holding ``tree``.

        ``attributes`` are the fitted attributes (``classes_``,
        ``n_outputs_``, ...). ``split_codes``: the tree's codes against the
        bin edges, kept for the ensemble's walk (:func:`split_codes`).
        ``fast``: a shallow copy instead of ``clone`` (which inspects the
        signature; AdaBoost builds one member per round).
        """
        member = copy.copy(self.estimator) if fast else clone(self.estimator)
        for name, value in attributes.items():
            setattr(member, name, value)
        member.tree_ = tree
        member._specs = specs
        member._split_codes = split_codes
        return member

    @staticmethod
    def specs(member):
        """The feature specs (bins) a member built by :meth:`fitted` reads its data with."""
        return getattr(member, "_specs", None)

    @staticmethod
    def split_codes(member):
        """The split codes stored by :meth:`fitted` (None if there are none)."""
        return getattr(member, "_split_codes", None)

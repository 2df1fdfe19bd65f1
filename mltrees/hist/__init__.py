"""The second-order histogram learners of chapters 13-15.

The histogram engine and the grower contract
============================================

This package grows the trees of XGBoost (chapter 13), LightGBM (chapter 14)
and CatBoost (chapter 15) from the rows' gradients ``g`` and hessians
``h``. The three libraries differ in how they bin values, score and break
ties, and the package reproduces each bit for bit; so every library's
*rules* live in modules of their own, and the *mechanisms* the growers share
are written once.

**Shared mechanisms** (one copy each):

* value → bin code: :func:`mltrees._search.count_below`, at the package's
  root so that the single-tree engine (:mod:`mltrees.tree`) uses it too;
* histograms: :mod:`~mltrees.hist.histogram`: ``(Σg, Σh)`` per (node,
  feature, bin) for a level of nodes (:func:`~mltrees.hist.histogram.build_histograms`)
  or one leaf (:func:`~mltrees.hist.histogram.leaf_histogram`), each bin
  summed in row order as ``np.bincount`` sums, and the subtraction trick
  (:func:`~mltrees.hist.histogram.children_histograms`: build the smaller
  child, the other is the parent minus it), used by the depth-wise and
  leaf-wise growers;
* the growers' lifecycle: :class:`~mltrees.hist.grower.GrowerBase` (their
  threads, ``close()``, timings) and the ``Tree`` of a grown tree
  (:func:`~mltrees.hist.grower.binary_tree`);
* the best split of every node: :class:`~mltrees.hist.candidates.SplitCandidates`,
  the one record the depth-wise, leaf-wise and exact split searches return
  (XGBoost's ``SplitEntry``, LightGBM's ``SplitInfo``);
* the boosting loop: :class:`~mltrees.hist.boosting.BoostingLoop` (the
  rounds, the per-tree column draw :func:`~mltrees.hist.boosting.draw_columns`,
  evaluation sets, progress and early stopping), which XGBoost, LightGBM,
  oblivious boosting and the Dask trainer configure through hooks where they
  differ: their gradients and row samples, how a round's trees update the
  training predictions (float32 margins for XGBoost, float64 scores for
  LightGBM, margins on the workers for Dask), LightGBM's own end of training;
* worker processes: :mod:`~mltrees.hist.processes` (forked only from a
  process without other threads, see its notes on fork safety);
* private APIs of other packages behind self-checks: :mod:`mltrees._compat`
  (SciPy's sparse kernel that :func:`~mltrees.hist.histogram.leaf_histogram`
  uses, checked at import for its signature and summation order).

The binned data (:mod:`~mltrees.hist.binning`: XGBoost's cuts, ``x < cut``
in float32) and the depth-wise grower (:mod:`~mltrees.hist.grower`) stay at
the top: XGBoost, gradient boosting's histogram mode and the Dask trainer
all use them.

**Library rules**, one folder per library (:mod:`mltrees.hist.xgboost`,
:mod:`mltrees.hist.lightgbm`, :mod:`mltrees.hist.catboost`), by chapter:

* XGBoost (chapter 13): :mod:`~mltrees.hist.xgboost.quantile_summary` and
  :mod:`~mltrees.hist.xgboost.cuts` (the weighted quantile sketch, and
  XGBoost's own), :mod:`~mltrees.hist.xgboost.splitting` (the regularised
  objective, leaf weights, gains, the best split of every node; also
  scikit-learn's variance rule for gradient boosting's histogram mode),
  and the exact greedy method, which needs no histograms:
  :mod:`~mltrees.hist.xgboost.exact` (the grower), :mod:`~mltrees.hist.xgboost.exact_columns`
  (sorted columns, regrouped level by level), :mod:`~mltrees.hist.xgboost.exact_scan`
  (the scan of every cut, in XGBoost's float32), :mod:`~mltrees.hist.xgboost.exact_workers`
  (the worker processes' loop and typed messages);
* LightGBM (chapter 14): :mod:`~mltrees.hist.lightgbm.binning` (bounds, ``x
  <= bound`` in float64, zero in a bin of its own),
  :mod:`~mltrees.hist.lightgbm.splitting` (its split scan and leaf output),
  :mod:`~mltrees.hist.lightgbm.leafwise` (the leaf-wise policy),
  :mod:`~mltrees.hist.lightgbm.rows` (one partition's rows for the Dask learner),
  :mod:`~mltrees.hist.lightgbm.categorical`, :mod:`~mltrees.hist.lightgbm.bundling` (EFB) and
  :mod:`~mltrees.hist.lightgbm.goss`;
* CatBoost (chapter 15): :mod:`~mltrees.hist.catboost.borders` (borders,
  ``x > border`` in float32), :mod:`~mltrees.hist.catboost.ctr` (statistics
  of categorical features), :mod:`~mltrees.hist.catboost.oblivious` (oblivious
  trees, L2 and Cosine scores, ordered boosting's scores, the oblivious
  policy), :mod:`~mltrees.hist.catboost.leaves` (the leaves' Newton and
  gradient steps, rounded as CatBoost's) and :mod:`~mltrees.hist.catboost.rows`
  (one partition's rows for the Dask learner).

**The grower contract.** A boosting loop drives a grower through:

* ``grow(g, h, features=None, ...) -> GrownTree``: one tree from every
  row's ``g`` and ``h`` (``features``: the tree's sampled columns), returned
  as a :class:`~mltrees.hist.grower.GrownTree`: the flat
  :class:`~mltrees.tree._tree.Tree` with leaves holding ``learning_rate *
  w*``, the leaf of every training row (``leaf_of_row``, so the loop updates
  its predictions with one gather), the cut of each split, the gains and
  the unscaled weights;
* ``close()``: stop the grower's threads or worker processes.

Four policies honour it: :class:`~mltrees.hist.grower.DepthwiseGrower`
(``grow(g, h, features, count)``; ``count`` the row counts of gradient
boosting's variance rule), :class:`~mltrees.hist.xgboost.exact.ExactGrower`
(``grow(g, h, features)``), :class:`~mltrees.hist.lightgbm.leafwise.LeafwiseGrower`
(``grow(g, h, features, rows)``; ``rows`` the sampled rows, GOSS or
bagging; ``grow_many(jobs)`` grows the trees of a multiclass round in
lock-step, one split scan per step for every class, each tree the one
``grow`` would give) and :class:`~mltrees.hist.catboost.oblivious.ObliviousGrower`
(``grow(S, curvature, features, scoring)``: CatBoost's ``S = w (y - F)``
and the leaf step's curvature; ``scoring`` the entries' ``S`` of ordered
boosting), whose :class:`~mltrees.hist.catboost.oblivious.GrownObliviousTree` holds
an :class:`~mltrees.hist.catboost.oblivious.ObliviousTree`, the leaf index of every
row and one gain per level. The depth-wise, leaf-wise and oblivious growers
also grow on a row store (``grow_rows``): its rows may live on other
machines, which is how :mod:`mltrees.dask` trains (one partition's answers:
:class:`~mltrees.hist.grower.NodeRows`,
:class:`~mltrees.hist.lightgbm.rows.LeafwiseRows`,
:class:`~mltrees.hist.catboost.rows.ObliviousRows`); the depth-wise one drives its split rule
(:class:`~mltrees.hist.xgboost.splitting.SplitParams` for XGBoost,
:class:`~mltrees.hist.xgboost.splitting.VarianceRule` for gradient boosting's CART
trees) through the rule's ``needs_squares``, ``node_weights``, ``choose``
and ``impurity``, without asking for its type.

A boosting loop (:class:`~mltrees.hist.boosting.BoostingLoop`) drives any of
them the same way: per round it asks its library's hooks for the
statistics, draws the tree's columns, has the hook grow the round's trees
and update the training predictions, then scores the evaluation sets and
decides early stopping. Gradient boosting's histogram mode
(:mod:`mltrees.ensemble.gradient_boosting`) keeps the loop of chapter 12,
which it shares with its exact mode, whose trees come from the tree engine.
"""

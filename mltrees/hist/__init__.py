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
* worker processes: :mod:`~mltrees.hist.processes` (forked only from a
  process without other threads, see its notes on fork safety);
* private APIs of other packages behind self-checks: :mod:`mltrees._compat`
  (SciPy's sparse kernel that :func:`~mltrees.hist.histogram.leaf_histogram`
  uses, checked at import for its signature and summation order).

**Library rules**, by chapter:

* XGBoost (chapter 13): :mod:`~mltrees.hist.binning` (cuts, ``x < cut`` in
  float32), :mod:`~mltrees.hist.sketch` and :mod:`~mltrees.hist.xgboost_sketch`
  (the weighted quantile sketch, and XGBoost's own), :mod:`~mltrees.hist.splitting`
  (the regularised objective, leaf weights, gains, the best split of every
  node; also scikit-learn's variance rule for gradient boosting's histogram
  mode), :mod:`~mltrees.hist.grower` (the depth-wise policy on histograms)
  and the exact greedy method, which needs no histograms:
  :mod:`~mltrees.hist.exact` (the grower), :mod:`~mltrees.hist.exact_columns`
  (sorted columns, regrouped level by level), :mod:`~mltrees.hist.exact_scan`
  (the scan of every cut, in XGBoost's float32), :mod:`~mltrees.hist.exact_workers`
  (the worker processes' loop and typed messages);
* LightGBM (chapter 14): :mod:`~mltrees.hist.lightgbm_binning` (bounds, ``x
  <= bound`` in float64, zero in a bin of its own),
  :mod:`~mltrees.hist.leafwise_splitting` (its split scan and leaf output),
  :mod:`~mltrees.hist.leafwise` (the leaf-wise policy),
  :mod:`~mltrees.hist.categorical`, :mod:`~mltrees.hist.bundling` (EFB) and
  :mod:`~mltrees.hist.goss`;
* CatBoost (chapter 15): :mod:`~mltrees.hist.oblivious_binning` (borders,
  ``x > border`` in float32), :mod:`~mltrees.hist.oblivious_ctr` (statistics
  of categorical features) and :mod:`~mltrees.hist.oblivious` (oblivious
  trees, L2 and Cosine scores, ordered boosting's scores).

**The grower contract.** A boosting loop drives a grower through:

* ``grow(g, h, features=None, ...) -> GrownTree``: one tree from every
  row's ``g`` and ``h`` (``features``: the tree's sampled columns), returned
  as a :class:`~mltrees.hist.grower.GrownTree`: the flat
  :class:`~mltrees.tree._tree.Tree` with leaves holding ``learning_rate *
  w*``, the leaf of every training row (``leaf_of_row``, so the loop updates
  its predictions with one gather), the cut of each split, the gains and
  the unscaled weights;
* ``close()``: stop the grower's threads or worker processes.

Three policies honour it: :class:`~mltrees.hist.grower.DepthwiseGrower`
(``grow(g, h, features, count)``; ``count`` the row counts of gradient
boosting's variance rule), :class:`~mltrees.hist.exact.ExactGrower`
(``grow(g, h, features)``) and
:class:`~mltrees.hist.leafwise.LeafwiseGrower` (``grow(g, h, features,
rows)``; ``rows`` the sampled rows, GOSS or bagging). The depth-wise grower
also grows on a row store (``grow_rows``): its rows may live on other
machines, which is how :mod:`mltrees.dask` trains; it drives its split rule
(:class:`~mltrees.hist.splitting.SplitParams` for XGBoost,
:class:`~mltrees.hist.splitting.VarianceRule` for gradient boosting's CART
trees) through the rule's ``needs_squares``, ``node_weights``, ``choose``
and ``impurity``, without asking for its type. The oblivious policy does not
honour it yet: :func:`~mltrees.hist.oblivious.grow_oblivious` returns the
levels' splits, and CatBoost's estimator computes the leaves and their
values itself. The boosting loops are still one per library
(:mod:`mltrees.ensemble.xgboost`, :mod:`mltrees.ensemble.lightgbm`,
:mod:`mltrees.ensemble.catboost`, :mod:`mltrees.dask.xgboost`), each with
its own column sampling and early stopping.
"""

"""LightGBM's rules (chapter 14).

* :mod:`~mltrees.hist.lightgbm.binning`: its bins, bounds between distinct
  values with zero in a bin of its own;
* :mod:`~mltrees.hist.lightgbm.splitting`: its split scan (reverse and
  forward, estimated counts, the implicit most frequent bin);
* :mod:`~mltrees.hist.lightgbm.leafwise`: the leaf-wise (best-first) policy;
* :mod:`~mltrees.hist.lightgbm.bundling`: exclusive feature bundling (EFB);
* :mod:`~mltrees.hist.lightgbm.categorical`: bins of categories and
  many-vs-many splits;
* :mod:`~mltrees.hist.lightgbm.goss`: gradient-based one-side sampling;
* :mod:`~mltrees.hist.lightgbm.rows`: one partition's rows, for growing on a
  Dask cluster (:mod:`mltrees.dask`).

The mechanisms these rules plug into (histograms and the subtraction trick,
split candidates, the boosting loop) are shared by every library and live
one level up, in :mod:`mltrees.hist`.
"""

"""CatBoost's rules (chapter 15).

* :mod:`~mltrees.hist.catboost.borders`: the borders of float features
  (``x > border`` in float32);
* :mod:`~mltrees.hist.catboost.ctr`: the statistics of categorical features;
* :mod:`~mltrees.hist.catboost.oblivious`: oblivious (symmetric) trees, their
  L2 and Cosine scores, ordered boosting's scores and the oblivious policy;
* :mod:`~mltrees.hist.catboost.leaves`: the leaves' Newton and gradient
  steps, rounded as CatBoost's;
* :mod:`~mltrees.hist.catboost.rows`: one partition's rows, for growing on a
  Dask cluster (:mod:`mltrees.dask`).

The mechanisms these rules plug into (the boosting loop, the grower
contract) are shared by every library and live one level up, in
:mod:`mltrees.hist`.
"""

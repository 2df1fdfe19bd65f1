"""XGBoost's rules (chapter 13).

* :mod:`~mltrees.hist.xgboost.splitting`: the regularised objective of a
  tree, its leaf weights and split gains (:eq:`eq-xgb-leaf-weight`,
  :eq:`eq-xgb-gain`), and the best split of every node from histograms;
  also :class:`~mltrees.hist.xgboost.splitting.VarianceRule`, the CART rule
  with which gradient boosting's histogram mode drives the same grower;
* :mod:`~mltrees.hist.xgboost.cuts`: the cut points of ``hist`` and
  ``approx``, XGBoost's CPU quantile sketch rule for rule;
* :mod:`~mltrees.hist.xgboost.quantile_summary`: the paper's weighted
  quantile summary, merged across the workers of a cluster;
* exact greedy (Algorithm 1 of Chen & Guestrin, 2016):
  :mod:`~mltrees.hist.xgboost.exact` (the grower),
  :mod:`~mltrees.hist.xgboost.exact_columns` (sorted columns),
  :mod:`~mltrees.hist.xgboost.exact_scan` (the scan of a feature's cuts) and
  :mod:`~mltrees.hist.xgboost.exact_workers` (its worker processes).

The mechanisms these rules plug into (histograms, the depth-wise grower,
split candidates, the boosting loop) are shared by every library and live
one level up, in :mod:`mltrees.hist`.
"""

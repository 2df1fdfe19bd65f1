"""Ensembles of trees: bagging and random forests (part III), boosting (part IV).

Every ensemble grows its trees with the single-tree engine of ``mltrees.tree``
and bins the data once for all of them.
"""

__all__: list[str] = []

"""The second-order histogram learner shared by chapters 13-15.

One module per stage, in the order a tree is built:

* :mod:`~mltrees.hist.binning`: cut points and bin codes;
* :mod:`~mltrees.hist.sketch`: the weighted quantile sketch (mergeable summaries);
* :mod:`~mltrees.hist.histogram`: (Σg, Σh) per (node, feature, bin), and the subtraction trick;
* :mod:`~mltrees.hist.splitting`: the regularised objective, leaf weights and split gains;
* :mod:`~mltrees.hist.grower`: growth policies returning a tree and the leaf of every row;
* :mod:`~mltrees.hist.goss`: gradient-based one-side sampling of the rows (chapter 14);
* :mod:`~mltrees.hist.bundling`: exclusive feature bundling of sparse features (chapter 14).
"""

"""Fuzzing of the model-file loader and of the XGBoost, LightGBM and CatBoost importers.

Every case is a damaged or hostile file, read in a worker process that has a
memory and a time cap (:mod:`fuzzing.harness`). A case passes when the reader
either refuses the file with :class:`mltrees.io.ModelFormatError`, or returns a
model that predicts: finite outputs, probabilities that are probabilities,
labels among its classes. Any other exception, a crash, or a case over its
memory or time cap fails the test.

Two profiles, chosen by ``MLTREES_FUZZ``:

* ``quick`` (default, inside ``make test``): a fixed, deterministic sample of
  every mutation family, well under a minute on two cores;
* ``long`` (``make fuzz``): every systematic edit and many more random ones;
  it prints the counts of every outcome.

``MLTREES_FUZZ_SEED`` changes the random edits of either profile.
"""

"""Model files without pickle, and models imported from XGBoost and LightGBM (chapter 18).

* :func:`to_json`, :func:`from_json`, :func:`save_model`, :func:`load_model`:
  every fitted mltrees estimator as a documented JSON file
  (:mod:`mltrees.io.format`); loading executes nothing from the file and
  rejects malformed or hostile files with :class:`ModelFormatError`.
* :func:`import_xgboost`, :func:`import_lightgbm`, :func:`import_catboost`:
  another library's trees as mltrees :class:`~mltrees.tree._tree.Tree` arrays
  (:class:`ImportedTreeModel`).
* :func:`register_estimator`: how a new estimator joins the format.
"""

from mltrees.io.catboost_json import catboost_threshold, import_catboost
from mltrees.io.format import FORMAT_VERSION, ModelFormatError, validate_tree
from mltrees.io.importers import (
    ImportedTreeModel,
    import_lightgbm,
    import_xgboost,
    xgboost_threshold,
)
from mltrees.io.serialize import (
    from_json,
    load_model,
    register_estimator,
    register_object,
    save_model,
    to_json,
)

__all__ = [
    "FORMAT_VERSION",
    "ImportedTreeModel",
    "ModelFormatError",
    "catboost_threshold",
    "from_json",
    "import_catboost",
    "import_lightgbm",
    "import_xgboost",
    "load_model",
    "register_estimator",
    "register_object",
    "save_model",
    "to_json",
    "validate_tree",
    "xgboost_threshold",
]

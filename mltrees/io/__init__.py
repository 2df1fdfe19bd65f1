"""Model files without pickle, XGBoost/LightGBM/CatBoost models imported, ONNX export (chapter 18).

* :func:`to_json`, :func:`from_json`, :func:`save_model`, :func:`load_model`:
  every fitted mltrees estimator as a documented JSON file
  (:mod:`mltrees.io.format`); loading executes nothing from the file and
  rejects malformed or hostile files with :class:`ModelFormatError`.
* :func:`import_xgboost`, :func:`import_lightgbm`, :func:`import_catboost`:
  another library's trees as mltrees :class:`~mltrees.tree.Tree` arrays
  (:class:`ImportedTreeModel`).
* :func:`to_onnx`, :func:`onnx_input`: a fitted tree model as an ONNX graph
  (``TreeEnsemble``, ai.onnx.ml opset 5) for onnxruntime and other runtimes;
  needs the ``onnx`` extra.
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
from mltrees.io.onnx_export import OnnxExportError, onnx_input, to_onnx
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
    "OnnxExportError",
    "catboost_threshold",
    "from_json",
    "import_catboost",
    "import_lightgbm",
    "import_xgboost",
    "load_model",
    "onnx_input",
    "register_estimator",
    "register_object",
    "save_model",
    "to_json",
    "to_onnx",
    "validate_tree",
    "xgboost_threshold",
]

# help() shows plain text; the website's Sphinx hook turns it back into links.
from mltrees._docstrings import plain_docstrings as _plain_docstrings

_plain_docstrings()

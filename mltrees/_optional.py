"""Optional dependencies: imported only by the features that need them.

Fitting, predicting, explaining and saving models need numpy, pandas,
scikit-learn and scipy only. Drawing needs matplotlib (the ``plot`` extra),
training on a cluster dask (the ``dask`` extra) and ONNX export onnx (the
``onnx`` extra), as with scikit-learn, XGBoost and LightGBM, whose plots also
import matplotlib on first use. A
missing one raises an ImportError that names the feature, the extra and the
command that installs it; mltrees is installed from a clone, so the extra is
spelled with the path of the clone.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["EXTRAS", "import_optional"]

#: The optional extras of ``pyproject.toml``: name -> what ``pip`` installs for it.
EXTRAS = {
    "plot": ("matplotlib>=3.8",),
    "dask": ("dask[distributed,dataframe]>=2024.1",),
    "onnx": ("onnx>=1.16", "onnxruntime>=1.23"),
}


def import_optional(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import ``module``, or explain how to install the extra that provides it.

    Parameters
    ----------
    module : str
        Dotted module name, e.g. ``"matplotlib.pyplot"``.
    extra : {"plot", "dask", "onnx"}
        The extra of mltrees that installs it.
    feature : str
        What needs it, for the message (``"plot_tree"``).

    Raises
    ------
    ImportError
        When the module cannot be imported, naming the feature, the extra and
        the two commands that install it.
    """
    try:
        return importlib.import_module(module)
    except ImportError as error:
        requirements = " ".join(f'"{requirement}"' for requirement in EXTRAS[extra])
        raise ImportError(
            f"{feature} needs {module.split('.')[0]}, which is not installed. Install it with "
            f"`pip install {requirements}`, or install mltrees with its {extra!r} extra "
            f'from your clone: `pip install "path/to/mltrees[{extra}]"` '
            f'(`pip install -e ".[{extra}]"` from the clone itself).'
        ) from error

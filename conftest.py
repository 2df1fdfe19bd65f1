"""Collection at the repository root: the deprecated module aliases are not collected.

The old paths of the modules that moved into mltrees/hist's per-library
folders (``mltrees/hist/_moved.py``) replace themselves with the new modules
when imported, so ``--doctest-modules``, which imports each file under its
own path, would find another module's file ("import file mismatch"). The new
modules are collected as usual.
"""

from mltrees.hist._moved import MOVED

collect_ignore = [f"mltrees/hist/{old}.py" for old in MOVED]

"""Run a snippet in a new Python process: a test of what a fresh ``import mltrees`` does.

Import cost, the model-file registry before its first use and lazy attributes
all depend on what the process has already imported, which a pytest process
has done long before; ``test_package_structure.py`` and
``test_model_file_registry.py`` share this runner.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap


def run_in_fresh_interpreter(code: str) -> str:
    """Run ``code`` (dedented) with ``python -c``; assert it succeeds and return its stdout."""
    result = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout

"""What the four estimator-check files share: the declared input deviations,
the name of a (wrapped) check, and the runner that reports a declared failure
in one line."""

from __future__ import annotations

from unittest import SkipTest

# Deliberate deviations of every mltrees estimator: it gives a clear error or a
# correct model, just not in the exact form the check asserts.
INPUT_BY_DESIGN = {
    "check_complex_data": (
        "complex X raises TypeError('X holds complex numbers; real numbers or categories "
        "expected'), a type error by the project's rules; the check accepts only ValueError"
    ),
    "check_dtype_object": (
        "an object array of numbers is read as numbers (the package's column rule), but a "
        "column with a dict cell is categorical and refused with mltrees' own TypeError "
        "wording (unhashable category), not the 'argument must be a string or a number' "
        "the check expects"
    ),
}


def check_name(check) -> str:
    """The function behind a check (unwrapping decorators and functools.partial)."""
    while True:
        if hasattr(check, "__wrapped__"):
            check = check.__wrapped__
        elif hasattr(check, "func"):
            check = check.func
        else:
            return check.__name__


def run_check(estimator, check, expected: dict[str, str]) -> None:
    """Run one check; a declared failure is re-raised as a one-line AssertionError.

    pytest would otherwise re-parse sklearn's 5000-line estimator_checks.py for
    every frame of every expected failure (~15 s per file).
    """
    name = check_name(check)
    if name not in expected:
        check(estimator)
        return
    try:
        check(estimator)
    except SkipTest:
        raise
    except Exception as exc:
        raise AssertionError(f"{name}: {type(exc).__name__}: {exc}") from None

"""Published worked examples that more than one test checks.

Each value is copied from the publication it names, never from mltrees.
"""

from __future__ import annotations

# Zhou (2016), section 4.4.2, on watermelon 2.0alpha (missing values):
# Gain(D, a) = rho * Gain(D~, a), rounded to three decimals.
ZHOU_GAINS = {
    "色泽": 0.252,
    "根蒂": 0.171,
    "敲声": 0.145,
    "纹理": 0.424,
    "脐部": 0.289,
    "触感": 0.006,
}

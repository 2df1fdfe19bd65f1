"""The website's CJK font subset (book/_static/fonts): complete for the sources, licensed.

The website test checks, page by page in Chromium, that the characters are drawn by
this font; here, without a build, that it holds every CJK character the sources use,
that the stylesheet declares it for the ranges the subset script cuts, and that its
license travels with it.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "book" / "_tools"))

import subset_cjk_font  # noqa: E402

ttLib = pytest.importorskip("fontTools.ttLib")


@pytest.mark.parametrize("face", sorted(subset_cjk_font.OUTPUT))
def test_subset_holds_every_cjk_character_of_the_sources(face):
    font = ttLib.TTFont(subset_cjk_font.FONTS / subset_cjk_font.OUTPUT[face])
    covered = set(map(chr, font.getBestCmap()))
    used = subset_cjk_font.book_characters()
    assert "术" in used  # the sidebar's 术语表
    assert len(used) > 100
    missing = used - covered
    assert not missing, f"run book/_tools/subset_cjk_font.py: {''.join(sorted(missing))}"
    assert font["name"].getDebugName(1) == "Noto Sans CJK SC"
    assert font.flavor == "woff"
    weight = font["OS/2"].usWeightClass
    assert weight == (700 if face == "bold" else 400)


def test_stylesheet_declares_both_faces_for_the_cjk_ranges():
    css = (ROOT / "book" / "_static" / "custom.css").read_text(encoding="utf-8")
    faces = re.findall(r"@font-face \{(.*?)\}", css, flags=re.S)
    assert len(faces) == 2
    for face, weight in zip(faces, ("400", "700"), strict=True):
        assert f"unicode-range: {subset_cjk_font.unicode_range()};" in face
        assert f"font-weight: {weight};" in face
    assert '"Noto Sans SC book subset", var(--pst-font-family-base-system)' in css


def test_license_and_attribution_ship_with_the_font():
    folder = subset_cjk_font.FONTS
    license_text = (folder / "OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in license_text
    assert "Adobe" in license_text
    readme = (folder / "README.md").read_text(encoding="utf-8")
    assert "Noto Sans CJK SC" in readme
    assert "fonts-noto-cjk" in readme

"""Subset Noto Sans CJK SC to the Chinese characters the book uses, for the website.

    python book/_tools/subset_cjk_font.py [--regular PATH.ttc] [--bold PATH.ttc]

The book writes its terms in English and 中文 (the glossary, the sidebar's
"术语表", tables of chapter 1). A reader without a CJK font would see empty
boxes, so the website serves its own font: Noto Sans CJK SC (SIL Open Font
License 1.1), cut down to the characters that occur in the book's sources,
regular and bold, as WOFF files in ``book/_static/fonts`` (about 1 % of
the full font). ``book/_static/custom.css`` declares them for the CJK
ranges only, so Latin text keeps the theme's fonts.

The fonts come from Debian's ``fonts-noto-cjk`` package (``apt-get install
fonts-noto-cjk``, or ``apt-get download`` and ``dpkg-deb -x``). Run this
script again when a chapter gains a character: the tests compare the font's
characters with those of the sources and of the built site.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FONTS = ROOT / "book" / "_static" / "fonts"
DEBIAN_FONTS = Path("/usr/share/fonts/opentype/noto")
FACES = {"regular": "NotoSansCJK-Regular.ttc", "bold": "NotoSansCJK-Bold.ttc"}
FACE_NAME = "Noto Sans CJK SC"
OUTPUT = {"regular": "noto-sans-sc-book-subset.woff", "bold": "noto-sans-sc-book-subset-bold.woff"}

# The Unicode blocks the font is declared for (CSS unicode-range) and subset to.
CJK_RANGES = (
    (0x2E80, 0x2FDF),  # CJK radicals
    (0x3000, 0x303F),  # CJK symbols and punctuation: 、。《》「」
    (0x3400, 0x4DBF),  # CJK unified ideographs, extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0xFF00, 0xFFEF),  # half- and full-width forms: ，：（）
)
CJK = re.compile("[" + "".join(f"\\U{low:08x}-\\U{high:08x}" for low, high in CJK_RANGES) + "]")
SOURCES = ("book/**/*.md", "book/**/*.ipynb", "book/**/*.bib", "mltrees/**/*.py", "*.yml")


def book_characters(root: Path = ROOT) -> set[str]:
    """Every CJK character of the website's sources (chapters, pages, docstrings, toc)."""
    found: set[str] = set()
    for pattern in SOURCES:
        for path in root.glob(pattern):
            if "_build" not in path.parts and ".ipynb_checkpoints" not in path.parts:
                found |= set(CJK.findall(path.read_text(encoding="utf-8")))
    return found


def unicode_range() -> str:
    """The CSS ``unicode-range`` of :data:`CJK_RANGES`."""
    return ", ".join(f"U+{low:04X}-{high:04X}" for low, high in CJK_RANGES)


def subset(collection: Path, characters: set[str], target: Path) -> None:
    from fontTools import subset as fontsubset
    from fontTools.ttLib import TTCollection

    fonts = TTCollection(str(collection)).fonts
    font = next((f for f in fonts if f["name"].getDebugName(1) == FACE_NAME), None)
    if font is None:
        raise SystemExit(f"{collection} has no {FACE_NAME!r} face")
    options = fontsubset.Options()
    options.flavor = "woff"  # zlib: no brotli needed to write or to read it
    options.layout_features = ["*"]
    options.name_IDs = ["*"]  # keep the copyright and license records
    options.notdef_outline = True
    subsetter = fontsubset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in characters])
    subsetter.subset(font)
    target.parent.mkdir(parents=True, exist_ok=True)
    fontsubset.save_font(font, str(target), options)


def main(argv: list[str] | None = None) -> int:
    """Write the subsets."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for face, name in FACES.items():
        parser.add_argument(f"--{face}", type=Path, default=DEBIAN_FONTS / name)
    args = parser.parse_args(argv)
    characters = book_characters()
    for face in FACES:
        source = getattr(args, face)
        if not source.exists():
            print(f"{source} not found: apt-get install fonts-noto-cjk", file=sys.stderr)
            return 1
        target = FONTS / OUTPUT[face]
        subset(source, characters, target)
        size = target.stat().st_size
        print(f"{target.relative_to(ROOT)}: {len(characters)} characters, {size:,} bytes")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

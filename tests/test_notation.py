"""The book keeps one notation: the table of its introduction.

``book/intro.md`` holds the notation table (section "Notation"): one row per
symbol, the symbol in the first column. A chapter that keeps a source's own
letter for something else says so at its start, in an admonition titled
"This chapter writes", whose bullet points each begin with the symbol.

This checker reads the table and the boxes and flags the collisions that can
be found mechanically: the indicator written in any form but the table's, the
learning rate written with the other letter, a depth, a number of leaves or a
number of ensemble members written with a letter that the table gives to
something else, and the other reuses that the notation issue listed (``h`` for
a learner, ``I`` for an impurity, ``lambda`` for a rate, ``s^2`` for a
variance, ``T`` for a count, ``K`` for folds or blocks, ``d`` for a threshold,
``W`` for workers). It is not a proof that the notation is consistent; it
keeps the known kinds of regression out. A mapping sentence ("Breiman et al.
write ...") may name another book's letter and is not checked.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BOOK = ROOT / "book"
INTRO = BOOK / "intro.md"
CHAPTERS = sorted(BOOK.glob("part*/*.md"))
PAGES = [*CHAPTERS, BOOK / "glossary.md", INTRO]

CODE_CELL = re.compile(r"^```\{code-cell\}.*?^```[ \t]*$", re.S | re.M)
DISPLAY = re.compile(r"\$\$(.+?)\$\$", re.S)
INLINE = re.compile(r"(?<![\\$])\$([^$\n]+?)(?<!\\)\$")
MATH_DIRECTIVE = re.compile(r"^```\{math\}.*?^```[ \t]*$", re.S | re.M)
STRING_LABEL = re.compile(r"r?[\"']([^\"'\n]*\$[^\"'\n]*\$[^\"'\n]*)[\"']")
BOX = re.compile(r"^```\{admonition\} This chapter writes[^\n]*\n(.*?)^```", re.S | re.M)
MAPPING = re.compile(r"\bwrites?\b|\bwrote\b|\bwritten\b|\bsays\b")


# --------------------------------------------------------------- the table
def notation_table() -> dict[str, str]:
    """Symbol (LaTeX, as written in the symbol column) -> meaning, from intro.md."""
    text = INTRO.read_text(encoding="utf-8")
    start = text.index("## Notation")
    end = text.find("\n## ", start + 1)
    section = text[start : end if end > 0 else len(text)]
    rows: dict[str, str] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 2 or not line.startswith("|") or cells[0] in ("symbol", "---"):
            continue
        assert cells[0] not in rows, f"symbol {cells[0]} has two rows in the notation table"
        rows[cells[0]] = cells[1]
    return rows


def table_symbol(meaning_start: str) -> str:
    """The first symbol of the row whose meaning starts with ``meaning_start``."""
    for symbol, meaning in notation_table().items():
        if meaning.lower().startswith(meaning_start.lower()):
            return INLINE.findall(symbol)[0].strip()
    raise AssertionError(f"the notation table has no row for {meaning_start!r}")


# ------------------------------------------------------------- the chapters
def math_spans(path: Path) -> list[tuple[int, str, str]]:
    """(line, math text, whole source line) of every formula a reader sees.

    Formulas are the inline and display math of the Markdown, and the
    ``$...$`` of string literals in code cells (axis labels, legends).
    """
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    spans: list[tuple[int, str, str]] = []

    def add(source: str, offset: int, math: str) -> None:
        number = source.count("\n", 0, offset) + 1  # every blanking keeps the lines
        spans.append((number, math, lines[number - 1]))

    def blank(match: re.Match) -> str:
        return "\n" * match.group(0).count("\n")

    for cell in CODE_CELL.finditer(text):
        for label in STRING_LABEL.finditer(cell.group(0)):
            for math in INLINE.finditer(label.group(1)):
                add(text, cell.start() + label.start(), math.group(1))
    prose = CODE_CELL.sub(blank, text)
    for block in MATH_DIRECTIVE.finditer(prose):
        add(prose, block.start(), block.group(0))
    prose = MATH_DIRECTIVE.sub(blank, prose)
    for block in DISPLAY.finditer(prose):
        add(prose, block.start(), block.group(1))
    prose = DISPLAY.sub(blank, prose)
    for math in INLINE.finditer(prose):
        add(prose, math.start(), math.group(1))
    return spans


def prose_lines(path: Path) -> list[tuple[int, str]]:
    """(line, text) of the Markdown outside code cells."""
    text = path.read_text(encoding="utf-8")
    prose = CODE_CELL.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return list(enumerate(prose.splitlines(), start=1))


def box_symbols(path: Path) -> set[str]:
    """The symbols a chapter's "This chapter writes" box declares."""
    declared: set[str] = set()
    for box in BOX.finditer(path.read_text(encoding="utf-8")):
        for item in re.findall(r"^- (.*)$", box.group(1), re.M):
            first = INLINE.search(item)
            if first:
                declared.add(first.group(1).strip())
    return declared


# ---------------------------------------------------------------- the rules
def _indicator_rules(indicator: str) -> list[tuple[str, re.Pattern, str]]:
    assert indicator == r"\mathbb{I}(\cdot)", "the checker knows the table's indicator form"
    forms = {
        "blackboard one": re.compile(r"\\mathbb\s*\{?\s*1"),
        "bold one with a bracket": re.compile(r"\\mathbf\s*\{?\s*1\s*\}?\s*(\[|\\big|\()"),
        "Unicode indicator": re.compile("[\U0001d7d9\U0001d540]"),
        "Kronecker delta": re.compile(r"\\delta_\{?[a-z]{2}\}?"),
        "Iverson bracket": re.compile(
            r"(?<![\w\\}\)\]])\[[^\[\]]*?(=|\\le\b|\\ge\b|\\ne\b|\\neq\b|\\in\b|"
            r"\\notin\b|\\subseteq\b|(?<![\\-])<|(?<![\\-])>)[^\[\]]*?\]"
        ),
    }
    return [(f"indicator written as {name}", pattern, "") for name, pattern in forms.items()]


def _mutual_information_only(math: str) -> bool:
    """True when every bare ``I`` of ``math`` is a mutual information ``I(.;.)``."""
    for match in re.finditer(r"(?<![\\\w{])I(\\big|\\Big|\\bigl|\\left)?\s*[\(_]", math):
        if match.group(0).endswith("_"):
            return False
        depth, position = 1, match.end()
        while position < len(math) and depth:
            depth += {"(": 1, ")": -1}.get(math[position], 0)
            position += 1
        if ";" not in math[match.end() : position]:
            return False
    return not re.search(r"\\Delta\s*I\b", math)


def rules() -> list[tuple[str, re.Pattern | None, str]]:
    """(name, pattern over a formula, the symbol a box may declare to be exempt)."""
    learning_rate = table_symbol("the learning rate")
    other_rate = {r"\eta": r"\nu", r"\nu": r"\eta"}[learning_rate]
    return [
        *_indicator_rules(table_symbol("indicator")),
        (
            f"learning rate written {other_rate} (the table says {learning_rate})",
            re.compile(re.escape(other_rate) + r"(?![a-zA-Z])"),
            other_rate,
        ),
        (
            "h as a weak learner or tree (h_i is a second derivative)",
            re.compile(r"(?<![\\\w])h(_\{?[mt0-9]\}?|\^\{?[t0-9]\}?|\(x)"),
            "h",
        ),
        (
            "T as a count (T is a tree)",
            re.compile(
                r"\\frac\s*\{?1\}?\s*\{?T\b|\^\{?T\}?(?![\w^])|\\gamma\s*T\b"
                r"|T\s*\\to\s*\\infty|\\sum_\{\w=1\}\^\{?T\b"
            ),
            "T",
        ),
        (
            "s^2 as a variance (s is a split; the table writes sigma^2)",
            re.compile(r"(?<![\\\w{])s\^2"),
            "s",
        ),
        (
            "lambda as a rate or a function (lambda is the L2 penalty)",
            re.compile(r"(?<!_)\\lambda\s*\(|Poisson\}?\s*\(\s*\\lambda"),
            r"\lambda",
        ),
        ("phi written varphi (phi is the Shapley value)", re.compile(r"\\varphi"), r"\varphi"),
        (
            "d as a threshold or default bin (d counts features)",
            re.compile(r"(\\le|\\ge|<|>)\s*d(?![\w^])|d_f\b|(?<!\{)\(d\)"),
            "d",
        ),
        ("I as an impurity or indicator (I is mutual information)", None, "I"),
    ]


PHRASES = [
    (
        "depth written with a letter other than the table's",
        re.compile(r"\bdepth(?:-| of | at most | at least | )\$\s*(\\?[A-Za-z]+)"),
    ),
    (
        "number of leaves written with a letter other than the table's",
        re.compile(
            r"(?:with|has|have|of|and|the) \$([A-Za-z])\$ leaves\b|number of leaves \$([A-Za-z])\$"
        ),
    ),
    (
        "T as a number of members (the table writes M)",
        re.compile(r"\$(T)\$ (?:trees|members|models|predictors)\b|averag\w* \$(T)\$"),
    ),
    ("K for something other than classes", re.compile(r"\$(K)\$[- ](?:fold|blocks?|branch)")),
    ("W as a number of workers", re.compile(r"\$(W)\$ workers")),
    (
        "features counted with a letter other than d",
        re.compile(r"\$([pF])\$ (?:features|attributes)\b"),
    ),
]


def _phrase_hits(line: str, allowed: set[str]) -> list[tuple[str, str]]:
    depth, leaves = table_symbol("the depth"), table_symbol("the number of leaves")
    hits = []
    for name, pattern in PHRASES:
        for match in pattern.finditer(line):
            letter = next((g for g in match.groups() if g), "")
            if letter in allowed:
                continue
            if name.startswith("depth") and (letter == depth or letter[:1].isdigit()):
                continue
            if name.startswith("number of leaves") and letter == leaves:
                continue
            hits.append((name, match.group(0)))
    return hits


def _violations(path: Path) -> list[str]:
    allowed = box_symbols(path)
    found: list[str] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    for number, math, line in math_spans(path):
        if MAPPING.search(line) or (number > 1 and MAPPING.search(lines[number - 2])):
            continue
        for name, pattern, symbol in rules():
            if symbol and symbol in allowed:
                continue
            if pattern is None:
                if _mutual_information_only(math):
                    continue
            elif not pattern.search(math):
                continue
            if symbol == "h" and path.name.startswith("01_"):
                continue  # h(X), the differential entropy, lives in chapter 1
            found.append(f"{path.relative_to(ROOT)}:{number}: {name}: ${math.strip()[:80]}$")
    for number, line in prose_lines(path):
        if MAPPING.search(line):
            continue
        for name, text in _phrase_hits(line, allowed):
            found.append(f"{path.relative_to(ROOT)}:{number}: {name}: {text!r}")
    return found


# ------------------------------------------------------------------ tests
def test_the_table_is_machine_readable_and_names_the_checked_symbols():
    table = notation_table()
    assert len(table) >= 40
    assert table_symbol("indicator") == r"\mathbb{I}(\cdot)"
    assert table_symbol("the learning rate") == r"\eta"
    assert table_symbol("the depth") == r"\delta"
    assert table_symbol("the number of leaves") == "J"
    assert table_symbol("the number of classes") == "K"
    assert table_symbol("the number of members") == "M"
    assert table_symbol("the impurity") == r"Q(\cdot)"
    assert table_symbol("mutual information") == "I(X; Y)"


def test_every_box_declares_symbols():
    for path in CHAPTERS:
        text = path.read_text(encoding="utf-8")
        if "This chapter writes" in text:
            assert box_symbols(path), f"{path.name}: a 'This chapter writes' box lists no symbol"


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.name)
def test_no_symbol_is_used_against_the_table(path):
    violations = _violations(path)
    assert not violations, "\n".join(violations)


@pytest.mark.parametrize(
    ("snippet", "rule"),
    [
        (r"f(x) = \sum_j c_j \mathbb 1[x \in R_j]", "indicator"),
        (r"u_A(S) = \mathbf 1[A \subseteq S]", "indicator"),
        (r"\hat x_k = \sum_j [c_j = c_k] y_j", "indicator"),
        (r"p_k(\delta_{kl} - p_l)", "indicator"),
        (r"F_m = F_{m-1} + \nu f_m", "learning rate"),
        (r"\frac1T \sum_{t=1}^{T} \hat f_t", "T as a count"),
        (r"\Omega(f) = \gamma T + \frac12 \lambda \|w\|^2", "T as a count"),
        (r"\rho s^2 + (1 - \rho) s^2 / M", "s^2"),
        (r"c_i \sim \mathrm{Poisson}(\lambda)", "lambda"),
        (r"F_M(x) = \sum_m \alpha_m h_m(x)", "h as"),
        (r"V_j(d) = G_l(d)^2 / n_l(d)", "d as"),
        (r"\varphi(t) = -t \lg t", "varphi"),
    ],
)
def test_the_rules_catch_the_regressions_of_the_issue(snippet, rule):
    hits = [name for name, pattern, _ in rules() if pattern is not None and pattern.search(snippet)]
    assert any(rule in name for name in hits), (snippet, hits)


@pytest.mark.parametrize(
    ("snippet", "ok"),
    [
        (r"\Delta I(D, s) = I(D) - \dots", False),
        (r"\mathbb{I}(y_i = k)", True),
        (r"I(X; Y) = H(Y) - H(Y \mid X)", True),
        (r"I_j = \{ i : q(x_i) = j \}", False),
    ],
)
def test_the_impurity_rule(snippet, ok):
    assert _mutual_information_only(snippet) is ok


@pytest.mark.parametrize(
    ("line", "flagged"),
    [
        ("A tree of depth $d$ has at most $2^d$ leaves", True),
        ("a depth-$D$ tree has at most", True),
        ("A tree of depth $\\delta$ has", False),
        ("A regression tree with $T$ leaves is a pair", True),
        ("averaging $T$ bagged trees", True),
        ("Split the rows into $K$-fold", True),
        ("rows into partitions, one per worker, $W$ workers", True),
    ],
)
def test_the_phrases_catch_the_regressions_of_the_issue(line, flagged):
    hits = _phrase_hits(line, set())
    assert bool(hits) is flagged, (line, hits)

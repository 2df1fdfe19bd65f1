"""C45Classifier against Weka's J48, Quinlan's C4.5 release 8 in Java.

Unpruned trees first (``-U``, compared with ``C45Classifier(pruning=None,
min_cases=m)``); the pruned trees of J48's defaults (``-C 0.25 -M m``: collapse,
pessimistic pruning and subtree raising, chapter 5) are compared at the end of
this module with ``C45Classifier(min_cases=m)``.

J48 runs as ``java -cp /usr/share/java/weka.jar weka.classifiers.trees.J48 -U -M m``
(Debian package ``weka``, J48 of Weka 3.6.14) on ARFF files written from the
book's data sets, and its printed tree is compared with
``C45Classifier(min_cases=m, pruning=None)`` as a set of root-to-leaf rules
(tests, class, cases, errors).

Where the two differ on the book's data, the cause is one of these behaviours
of C4.5 release 8 that mltrees does not copy, each checked explicitly below:

1. **Thresholds.** C4.5 cuts between two neighbouring values of the node but
   then moves the threshold down to the largest value of the *whole training
   set* that is <= the midpoint (within 1e-6), so J48 prints data values
   (``humidity <= 75``) where mltrees keeps the midpoint (77.5). Both route
   the node's training cases identically.
2. **Collapse.** After growing, J48 (even with ``-U``) replaces every subtree
   whose training errors are not lower than those of a leaf at its root
   (``errors_subtree >= errors_leaf - 1e-3``) by that leaf
   (``C45PruneableClassifierTree.collapse``). mltrees keeps such subtrees
   (car evaluation and watermelon 2.0 with MINOBJS 2).
3. **MDL correction of numeric gains.** C4.5 subtracts ``log2(C) / N`` from
   the best information gain of a numeric attribute, ``C`` being the number
   of admissible thresholds and ``N`` the node's cases, before the
   above-average test and the gain ratio; attributes whose corrected gain is
   not positive are no candidates and do not enter the average. This changes
   the root of watermelon 3.0 (texture in J48, sugar in mltrees).
4. **Ties.** Below that root, texture and sugar <= 0.198 make the same
   partition with the same gain ratio; mltrees' arithmetic puts sugar one ulp
   ahead, C4.5 keeps the first attribute unless another is better by > 1e-6.

A reference implementation of C4.5 release 8's growth for complete data
(:func:`_c45_release8`, written from J48's documented rules) reproduces all
J48 trees here exactly, also on three of Weka's own numeric example data sets
(iris, diabetes, glass). Its :class:`Rules` name the remaining differences,
which only show on those larger numeric data: C4.5's minimum number of cases
on each side of a numeric cut, ``min(25, max(MINOBJS, 0.1 N / classes))``;
the 1e-3 slack of the above-average test; numeric attributes without gain
left out of the average; many-valued nominal attributes left out of it.
With mltrees' versions of all of them (:data:`MLTREES`), and collapse applied,
the reference reproduces every mltrees tree except at the exact ties.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from mltrees.datasets import load_car_evaluation, load_mushroom, load_watermelon, load_weather
from mltrees.tree import C45Classifier

WEKA_JAR = Path("/usr/share/java/weka.jar")
WEKA_EXAMPLES = Path("/usr/share/doc/weka/examples")
JAVA = shutil.which("java")

pytestmark = pytest.mark.skipif(
    JAVA is None or not WEKA_JAR.exists(),
    reason="needs Weka's J48: `apt-get install weka` (provides java and /usr/share/java/weka.jar)",
)

SMALL = 1e-6  # weka.core.Utils.SMALL, the tolerance of Utils.gr, sm, eq, grOrEq, smOrEq

BOOK_DATASETS = ["weather", "weather_numeric", "car", "mushroom", "watermelon_2", "watermelon_3"]
# Weka's own numeric examples (150 to 768 cases), where C4.5's minimum split size
# min(25, max(MINOBJS, 0.1 N / classes)) matters; used if the package ships them.
WEKA_DATASETS = [
    name for name in ["iris", "diabetes", "glass"] if (WEKA_EXAMPLES / f"{name}.arff").exists()
]
MIN_OBJS = [2, 1]
BOOK_CASES = [(name, m) for name in BOOK_DATASETS for m in MIN_OBJS]


# ---------------------------------------------------------------------------
# Data sets
# ---------------------------------------------------------------------------


def _weka_example(name: str) -> tuple[pd.DataFrame, pd.Series]:
    from scipy.io import arff

    raw, _ = arff.loadarff(WEKA_EXAMPLES / f"{name}.arff")
    frame = pd.DataFrame(raw)
    target = frame.columns[-1]
    y = frame[target].str.decode("utf-8").rename(target)
    return frame.drop(columns=target), y


def _load(name: str) -> tuple[pd.DataFrame, pd.Series]:
    if name in WEKA_DATASETS:
        return _weka_example(name)
    loaders = {
        "weather": load_weather,
        "weather_numeric": lambda: load_weather(numeric=True),
        "car": load_car_evaluation,
        "mushroom": load_mushroom,
        "watermelon_2": lambda: load_watermelon("2.0"),
        "watermelon_3": lambda: load_watermelon("3.0"),
    }
    bunch = loaders[name]()
    X, y = bunch.data, bunch.target
    if name == "mushroom":
        # stalk-root is missing for 2480 of 8124 mushrooms. C45Classifier has no
        # missing-value method, so the column is dropped (all rows are kept);
        # test_mushroom_stalk_root_is_not_used_by_j48 shows that J48 grows the
        # same tree from the full data, where it sends '?' down every branch
        # with fractional weights.
        X = X.drop(columns="stalk-root")
    return X.reset_index(drop=True), y.reset_index(drop=True)


def _is_nominal(column: pd.Series) -> bool:
    return isinstance(column.dtype, pd.CategoricalDtype)


# ---------------------------------------------------------------------------
# ARFF and J48
# ---------------------------------------------------------------------------


def _arff_quote(value) -> str:
    text = str(value)
    if text == "" or re.search(r"[\s,{}'\"%?\\]", text):
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return text


def _write_arff(path: Path, X: pd.DataFrame, y: pd.Series, relation: str) -> None:
    """Nominal columns with their category lists, numeric ones as NUMERIC, '?' for NaN.

    The class values are declared in mltrees' ``classes_`` order (sorted), so
    that both programs break ties between classes alike (the first one wins).
    """
    lines = [f"@relation {_arff_quote(relation)}", ""]
    nominal = [_is_nominal(X[column]) for column in X.columns]
    for column, is_nominal in zip(X.columns, nominal, strict=True):
        if is_nominal:
            values = ",".join(_arff_quote(v) for v in X[column].cat.categories)
            lines.append(f"@attribute {_arff_quote(column)} {{{values}}}")
        else:
            lines.append(f"@attribute {_arff_quote(column)} NUMERIC")
    classes = ",".join(_arff_quote(v) for v in np.unique(np.asarray(y)))
    lines += [f"@attribute {_arff_quote(y.name)} {{{classes}}}", "", "@data"]
    for row, label in zip(X.itertuples(index=False), np.asarray(y), strict=True):
        cells = [
            "?" if pd.isna(v) else _arff_quote(v) if is_nominal else repr(float(v))
            for v, is_nominal in zip(row, nominal, strict=True)
        ]
        lines.append(",".join([*cells, _arff_quote(label)]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _run_j48(arff: Path, min_obj: int, pruned: bool = False) -> str:
    """J48's tree block, from 'J48 (un)pruned tree' to 'Number of Leaves'.

    Pruned: J48's defaults (-C 0.25, subtree raising, collapse) with ``-M min_obj``.
    """
    command = [JAVA, "-cp", str(WEKA_JAR), "weka.classifiers.trees.J48"]
    command += [] if pruned else ["-U"]
    command += ["-M", str(min_obj), "-t", str(arff), "-T", str(arff), "-v"]
    output = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    start = output.index("J48 pruned tree" if pruned else "J48 unpruned tree")
    return output[start : output.index("Number of Leaves", start)]


_LEAF = r"(?P<label>.+) \((?P<n>[\d.]+)(?:/(?P<errors>[\d.]+))?\)"
_LINE = re.compile(rf"^(?P<attribute>\S+) (?P<op><=|>|=) (?P<value>.*?)(?:: {_LEAF})?$")
_ROOT_LEAF = re.compile(rf"^: {_LEAF}$")


@dataclass(frozen=True)
class J48Tree:
    text: str
    root: str | None  # None: the tree is a single leaf
    rules: frozenset


def _parse_j48(block: str, numeric: set[str]) -> J48Tree:
    """Root-to-leaf rules ``((attribute, op, value), ...), class, cases, errors``."""
    lines = [line for line in block.splitlines()[3:] if line.strip()]
    rules, path = set(), []
    for line in lines:
        depth = line.count("|   ")
        body = line[4 * depth :]
        leaf = _ROOT_LEAF.match(body)
        if leaf:  # the whole tree is one leaf
            rule = ((), leaf["label"], float(leaf["n"]), float(leaf["errors"] or 0))
            return J48Tree(block, None, frozenset({rule}))
        match = _LINE.match(body)
        assert match, f"cannot parse J48's line {line!r}"
        attribute, op, value = match["attribute"], match["op"], match["value"]
        path[depth:] = [(attribute, op, float(value) if attribute in numeric else value)]
        if match["label"] is not None:
            errors = float(match["errors"] or 0)
            rules.add((tuple(path), match["label"], float(match["n"]), errors))
    return J48Tree(block, _LINE.match(lines[0])["attribute"], frozenset(rules))


def _weka_round(value: float) -> float:
    """A threshold as J48 prints it: ``Utils.doubleToString(value, 6)`` rounds half up."""
    return math.copysign(math.floor(abs(value) * 1e6 + 0.5), value) / 1e6


# ---------------------------------------------------------------------------
# One tree form for all three: nodes with class counts
# ---------------------------------------------------------------------------


@dataclass
class Node:
    """A node with its class counts; ``branches`` holds (attribute, op, value, child)."""

    counts: np.ndarray
    label: str
    branches: list = field(default_factory=list)
    attribute: str | None = None

    @property
    def n(self) -> float:
        return float(self.counts.sum())

    @property
    def errors(self) -> float:
        return float(self.counts.sum() - self.counts.max()) if self.n else 0.0


def _rules(node: Node, path=()) -> frozenset:
    if not node.branches:
        return frozenset({(path, node.label, node.n, node.errors)})
    out = set()
    for attribute, op, value, child in node.branches:
        out |= _rules(child, (*path, (attribute, op, value)))
    return frozenset(out)


def _training_errors(node: Node) -> float:
    if not node.branches:
        return node.errors
    return sum(_training_errors(child) for *_, child in node.branches)


def _collapse(node: Node, classes) -> Node:
    """C4.5's collapse: a subtree that does not lower the training errors becomes a leaf."""
    if not node.branches:
        return node
    if _training_errors(node) >= node.errors - 1e-3:
        return Node(node.counts, str(classes[int(np.argmax(node.counts))]))
    branches = [(a, op, v, _collapse(child, classes)) for a, op, v, child in node.branches]
    return Node(node.counts, node.label, branches, node.attribute)


def _split_point(column: np.ndarray, threshold: float) -> float:
    """C4.5's split point: the largest value of the whole training column <= the threshold.

    "<=" is ``Utils.smOrEq``, which allows 1e-6: a data value a rounding error
    above the midpoint (0.561 for the midpoint 0.5609999999999999) is taken.
    """
    return float(column[column < threshold + SMALL].max())


def _mltrees_tree(model: C45Classifier, X: pd.DataFrame) -> Node:
    """The fitted tree as Nodes; a numeric threshold becomes C4.5's split point.

    test_thresholds_route_training_data_like_j48 checks that the split point
    routes every node's training cases as mltrees' midpoint does.
    """
    tree, classes = model.tree_, model.classes_

    def build(i: int) -> Node:
        counts = np.rint(tree.value[i] * tree.weighted_n_node_samples[i])
        label = str(classes[int(np.argmax(tree.value[i]))])  # an empty leaf: the parent's
        feature = int(tree.feature[i])
        if feature < 0:
            return Node(counts, label)
        name, first = X.columns[feature], int(tree.first_child[i])
        if _is_nominal(X[name]):
            slots = tree.route_table[tree.route_offset[i] :][: len(X[name].cat.categories)]
            branches = [
                (name, "=", str(category), build(first + int(slot)))
                for category, slot in zip(X[name].cat.categories, slots, strict=True)
            ]
        else:
            column = X[name].to_numpy(dtype=float)
            value = _weka_round(_split_point(column, tree.threshold[i]))
            branches = [(name, "<=", value, build(first)), (name, ">", value, build(first + 1))]
        return Node(counts, label, branches, name)

    return build(0)


# ---------------------------------------------------------------------------
# Reference: C4.5 release 8's growth as J48 3.6 implements it (complete data only)
# ---------------------------------------------------------------------------


def _xlog2x(values) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    return np.where(values > 0, values * np.log2(np.where(values > 0, values, 1.0)), 0.0)


def _gain(bags: np.ndarray) -> float:
    """Information gain (bits) of the split of the cases into ``bags`` (n_bags, n_classes)."""
    total = bags.sum()
    parent = _xlog2x(total) - _xlog2x(bags.sum(axis=0)).sum()
    children = (_xlog2x(bags.sum(axis=1)) - _xlog2x(bags).sum(axis=1)).sum()
    gain = (parent - children) / total
    return 0.0 if abs(gain) < SMALL else float(gain)


def _split_info(sizes: np.ndarray) -> float:
    return float((_xlog2x(sizes.sum()) - _xlog2x(sizes).sum()) / sizes.sum())


@dataclass
class _Candidate:
    attribute: int
    gain: float
    ratio: float
    threshold: float | None = None  # numeric: the data value C4.5 prints and routes by


@dataclass(frozen=True)
class Rules:
    """The rules in which C4.5 release 8 (the defaults) and C45Classifier differ.

    Both grow the same way otherwise. Thresholds are reported as C4.5's data
    values and the tree is collapsed in both cases: neither changes which
    attribute a node tests (collapse only cuts subtrees off afterwards).
    """

    mdl: bool = True  # subtract log2(#admissible thresholds) / N from a numeric gain
    cap_min_split: bool = True  # numeric: min(25, max(MINOBJS, 0.1 N / classes)) cases a side
    average_slack: float = 1e-3  # eligible when gain >= average gain - slack
    zero_gain_numeric_in_average: bool = False  # a numeric attribute with gain 0 counts
    many_values_rule: bool = True  # nominal attributes with >= 0.3 N_all values do not count


C45_RELEASE_8 = Rules()
MLTREES = Rules(
    mdl=False,
    cap_min_split=False,
    average_slack=1e-12,
    zero_gain_numeric_in_average=True,
    many_values_rule=False,
)
NO_MDL = Rules(mdl=False)


def _columns(X: pd.DataFrame) -> list:
    return [
        ("nominal", X[c].cat.codes.to_numpy(), len(X[c].cat.categories))
        if _is_nominal(X[c])
        else ("numeric", X[c].to_numpy(dtype=float), 0)
        for c in X.columns
    ]


def _numeric_candidate(j, values, x, labels, n_classes, min_obj, rules):
    """C45Split on a numeric attribute: the best cut with at least min_split cases a side."""
    order = np.argsort(x, kind="stable")
    x, labels, n = x[order], labels[order], x.size
    min_split = 0.1 * n / n_classes
    if not rules.cap_min_split or min_split < min_obj + SMALL:
        min_split = min_obj
    elif min_split > 25 + SMALL:
        min_split = 25.0
    if n < 2 * min_split - SMALL:
        return None
    cut = np.arange(1, n)  # cases [0, cut) go left
    left = np.cumsum(np.eye(n_classes)[labels], axis=0)[:-1]  # their class counts
    admissible = x[:-1] + 1e-5 < x[1:]  # values closer than 1e-5 count as equal
    admissible &= (cut >= min_split - SMALL) & (n - cut >= min_split - SMALL)
    n_thresholds = int(admissible.sum())
    if n_thresholds == 0:
        return None
    left, cut = left[admissible], cut[admissible]
    total = np.bincount(labels, minlength=n_classes)
    bags = np.stack([left, total - left], axis=1)  # (n_thresholds, 2, n_classes)
    parent = _xlog2x(n) - _xlog2x(total).sum()
    children = (_xlog2x(bags.sum(axis=2)) - _xlog2x(bags).sum(axis=2)).sum(axis=1)
    gains = (parent - children) / n
    gains[np.abs(gains) < SMALL] = 0.0
    best_gain, best_cut = 0.0, -1
    for position, gain in zip(cut.tolist(), gains.tolist(), strict=True):
        if gain > best_gain + SMALL:  # ties: the first (smallest) threshold
            best_gain, best_cut = gain, position
    gain = best_gain - (math.log2(n_thresholds) / n if rules.mdl else 0.0)
    if gain < SMALL:
        # no candidate; mltrees keeps one with gain 0, which only lowers the average
        return _Candidate(j, 0.0, 0.0) if rules.zero_gain_numeric_in_average else None
    midpoint = (x[best_cut - 1] + x[best_cut]) / 2
    if midpoint == x[best_cut]:
        midpoint = x[best_cut - 1]
    threshold = _split_point(values, midpoint)
    info = _split_info(np.array([best_cut, n - best_cut], dtype=float))
    return _Candidate(j, gain, gain / info, threshold)


def _score_attributes(columns, y, rows, n_classes, min_obj, rules):
    """C45Split for every attribute at one node: the admissible candidates."""
    candidates = []
    for j, (kind, values, n_categories) in enumerate(columns):
        x, labels = values[rows], y[rows]
        if kind == "numeric":
            candidate = _numeric_candidate(j, values, x, labels, n_classes, min_obj, rules)
            if candidate is not None:
                candidates.append(candidate)
            continue
        bags = np.zeros((n_categories, n_classes))
        np.add.at(bags, (x, labels), 1.0)
        sizes = bags.sum(axis=1)
        if (sizes >= min_obj - SMALL).sum() < 2:  # two branches with MINOBJS cases
            continue
        gain, info = _gain(bags), _split_info(sizes)
        candidates.append(_Candidate(j, gain, 0.0 if info < SMALL else gain / info))
    return candidates


def _select(candidates, columns, n_all, rules):
    """C45ModelSelection: the largest gain ratio among gains >= average - slack.

    Nominal attributes with at least 0.3 * n_all values stay out of the
    average unless every attribute is such. Ties: the first attribute.
    """
    many = all(kind == "nominal" and k >= 0.3 * n_all for kind, _, k in columns)
    counted = [
        c.gain
        for c in candidates
        if not rules.many_values_rule
        or columns[c.attribute][0] == "numeric"
        or many
        or columns[c.attribute][2] < 0.3 * n_all
    ]
    if not counted:
        return None
    average = sum(counted) / len(counted)
    best, best_ratio = None, 0.0
    for candidate in candidates:
        eligible = candidate.gain >= average - rules.average_slack
        if eligible and candidate.ratio > best_ratio + SMALL:
            best, best_ratio = candidate, candidate.ratio
    return best


def _c45_release8(
    X: pd.DataFrame, y: pd.Series, min_obj: int, rules: Rules = C45_RELEASE_8
) -> Node:
    """Grow and collapse C4.5 release 8's unpruned tree on complete data."""
    classes = np.unique(np.asarray(y))
    y_codes = np.searchsorted(classes, np.asarray(y))
    n_classes, n_all = classes.size, y_codes.size
    columns = _columns(X)

    def grow(rows: np.ndarray, parent_label: str) -> Node:
        counts = np.bincount(y_codes[rows], minlength=n_classes).astype(float)
        if rows.size == 0:  # an empty branch: the parent's class, printed (0.0)
            return Node(counts, parent_label)
        node = Node(counts, str(classes[int(np.argmax(counts))]))
        if rows.size < 2 * min_obj - SMALL or counts.max() == rows.size:
            return node
        candidates = _score_attributes(columns, y_codes, rows, n_classes, min_obj, rules)
        best = _select(candidates, columns, n_all, rules)
        if best is None:
            return node
        kind, values, _ = columns[best.attribute]
        name = node.attribute = X.columns[best.attribute]
        if kind == "nominal":
            node.branches = [
                (name, "=", str(category), grow(rows[values[rows] == code], node.label))
                for code, category in enumerate(X[name].cat.categories)
            ]
        else:
            left = values[rows] < best.threshold + SMALL
            shown = _weka_round(best.threshold)
            node.branches = [
                (name, "<=", shown, grow(rows[left], node.label)),
                (name, ">", shown, grow(rows[~left], node.label)),
            ]
        return node

    return _collapse(grow(np.arange(n_all), ""), classes)


def _root_candidates(X, y, min_obj, rules):
    """The candidates at the root (by attribute name) and the attribute chosen."""
    classes = np.unique(np.asarray(y))
    y_codes = np.searchsorted(classes, np.asarray(y))
    columns = _columns(X)
    rows = np.arange(y_codes.size)
    candidates = _score_attributes(columns, y_codes, rows, classes.size, min_obj, rules)
    chosen = _select(candidates, columns, y_codes.size, rules)
    by_name = {X.columns[c.attribute]: c for c in candidates}
    return by_name, X.columns[chosen.attribute]


# ---------------------------------------------------------------------------
# Fixtures: every J48 run once, in parallel
# ---------------------------------------------------------------------------

ALL_CASES = [(name, m) for name in BOOK_DATASETS + WEKA_DATASETS for m in MIN_OBJS]


@pytest.fixture(scope="module")
def data():
    return {name: _load(name) for name in BOOK_DATASETS + WEKA_DATASETS}


@pytest.fixture(scope="module")
def j48(data, tmp_path_factory):
    """{(data set, MINOBJS): J48Tree}; ("mushroom_full", 2) keeps stalk-root and its '?'."""
    folder = tmp_path_factory.mktemp("arff")
    jobs = {}
    for name, (X, y) in data.items():
        _write_arff(folder / f"{name}.arff", X, y, name)
        numeric = {c for c in X.columns if not _is_nominal(X[c])}
        for min_obj in MIN_OBJS:
            jobs[name, min_obj] = (folder / f"{name}.arff", numeric)
    full = load_mushroom()
    _write_arff(folder / "mushroom_full.arff", full.data, full.target, "mushroom_full")
    jobs["mushroom_full", 2] = (folder / "mushroom_full.arff", set())
    keys = list(jobs)
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        texts = pool.map(lambda key: _run_j48(jobs[key][0], key[1]), keys)
        return {key: _parse_j48(text, jobs[key][1]) for key, text in zip(keys, texts, strict=True)}


@pytest.fixture(scope="module")
def ours(data):
    """{(data set, min_samples_leaf): (fitted C45Classifier, its tree as Nodes)}."""
    out = {}
    for name, min_obj in ALL_CASES:
        X, y = data[name]
        model = C45Classifier(min_cases=min_obj, pruning=None).fit(X, y)
        out[name, min_obj] = (model, _mltrees_tree(model, X))
    return out


def _diff(mine: frozenset, theirs: frozenset) -> str:
    only_mine = "\n".join(map(str, sorted(mine - theirs, key=str)))
    only_theirs = "\n".join(map(str, sorted(theirs - mine, key=str)))
    return f"only on the left:\n{only_mine}\nonly on the right:\n{only_theirs}"


# Where C45Classifier's tree differs from J48's on the book's data, and why;
# everything else must be identical rule for rule (thresholds compared as
# C4.5's data values).
COLLAPSE = "J48 collapses subtrees that do not lower the training errors; mltrees keeps them"
MDL = "C4.5 release 8 subtracts log2(#thresholds)/N from numeric gains; mltrees does not"
KNOWN = {
    ("car", 2): COLLAPSE,
    ("watermelon_2", 2): COLLAPSE,
    ("watermelon_3", 2): MDL,
    ("watermelon_3", 1): MDL,
}


def _cases(known: dict, cases=BOOK_CASES) -> list:
    return [
        pytest.param(*case, marks=pytest.mark.xfail(strict=True, reason=known[case]))
        if case in known
        else case
        for case in cases
    ]


# ---------------------------------------------------------------------------
# mltrees against J48 on the book's data
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "min_obj"), _cases({k: MDL for k in KNOWN if KNOWN[k] == MDL}))
def test_same_root(name, min_obj, j48, ours):
    assert ours[name, min_obj][1].attribute == j48[name, min_obj].root


@pytest.mark.parametrize(("name", "min_obj"), _cases(KNOWN))
def test_same_tree(name, min_obj, j48, ours):
    """Identical rules: tests, leaf class, number of cases and of errors at every leaf."""
    mine, theirs = _rules(ours[name, min_obj][1]), j48[name, min_obj].rules
    assert mine == theirs, _diff(mine, theirs)


@pytest.mark.parametrize(("name", "min_obj"), [c for c in BOOK_CASES if KNOWN.get(c) != MDL])
def test_same_tree_after_collapse(name, min_obj, j48, ours):
    """C4.5's collapse applied to mltrees' tree gives J48's tree; it changes only the
    trees of car evaluation and watermelon 2.0 with MINOBJS 2."""
    model, tree = ours[name, min_obj]
    collapsed = _rules(_collapse(tree, model.classes_))
    assert collapsed == j48[name, min_obj].rules, _diff(collapsed, j48[name, min_obj].rules)
    assert (collapsed != _rules(tree)) == (KNOWN.get((name, min_obj)) == COLLAPSE)


def test_collapsed_subtrees_do_not_change_a_prediction(ours):
    """What collapse removes: splits whose leaves all predict their root's class."""
    for key in [k for k, why in KNOWN.items() if why == COLLAPSE]:
        model, tree = ours[key]
        collapsed = _collapse(tree, model.classes_)
        removed = _rules(tree) - _rules(collapsed)
        assert removed
        kept = {(path, label) for path, label, *_ in _rules(collapsed)}
        for path, label, *_ in removed:
            assert any(path[: len(p)] == p and label == k for p, k in kept), path


NUMERIC_CASES = [
    c for c in ALL_CASES if c[0] in ["weather_numeric", "watermelon_3", *WEKA_DATASETS]
]


@pytest.mark.parametrize(("name", "min_obj"), NUMERIC_CASES)
def test_thresholds_route_training_data_like_j48(name, min_obj, ours, data):
    """mltrees' midpoint and C4.5's split point send each node's training cases alike."""
    X, _ = data[name]
    model, _ = ours[name, min_obj]
    tree = model.tree_
    reaches = model.decision_path(X).toarray().astype(bool)
    numeric = [
        i
        for i in range(tree.node_count)
        if tree.feature[i] >= 0 and not _is_nominal(X.iloc[:, tree.feature[i]])
    ]
    assert numeric
    for i in numeric:
        column = X.iloc[:, tree.feature[i]].to_numpy(dtype=float)
        midpoint = float(tree.threshold[i])
        split_point = _split_point(column, midpoint)
        assert split_point in column  # a data value (the midpoint itself only if in the data)
        here = column[reaches[:, i]]
        np.testing.assert_array_equal(here <= midpoint, here < split_point + SMALL)


def test_weather_numeric_threshold_is_a_data_value(j48, ours):
    """The only difference on the numeric weather data: humidity <= 75 against <= 77.5."""
    model, _ = ours["weather_numeric", 2]
    thresholds = model.tree_.threshold[np.isfinite(model.tree_.threshold)]
    np.testing.assert_array_equal(thresholds, [77.5])
    assert "humidity <= 75: yes (2.0)" in j48["weather_numeric", 2].text


def test_watermelon_3_root_is_decided_by_the_mdl_correction(data, ours, j48):
    """At the root (17 cases, 14 admissible thresholds each for density and sugar),
    log2(14)/17 = 0.224 bits is subtracted from both numeric gains: sugar falls
    from 0.349 to 0.125, below the average gain 0.154, and texture wins."""
    X, y = data["watermelon_3"]
    plain, root = _root_candidates(X, y, 2, NO_MDL)
    corrected, c45_root = _root_candidates(X, y, 2, C45_RELEASE_8)
    assert root == ours["watermelon_3", 2][1].attribute == "sugar"
    assert c45_root == j48["watermelon_3", 2].root == "texture"
    for name in ["density", "sugar"]:
        assert plain[name].gain - corrected[name].gain == pytest.approx(math.log2(14) / 17)
    assert plain["sugar"].ratio > plain["texture"].ratio  # 0.400 > 0.263
    average = np.mean([c.gain for c in corrected.values()])
    assert corrected["sugar"].gain < average < corrected["texture"].gain  # 0.125 < 0.154 < 0.381


def test_watermelon_3_tie_below_the_root(data):
    """Without the MDL correction, sugar > 0.126 and density > 0.382 leave 10 cases where
    texture and sugar <= 0.198 make the same 7/3 partition: equal gain (0.446) and gain
    ratio (0.507). C4.5 keeps the first attribute, texture; so does mltrees, which
    treats scores within rounding noise as ties and takes the lowest column index
    (before that rule, sugar's ratio came out one ulp higher and sugar won)."""
    X, y = data["watermelon_3"]
    at = ((X["sugar"] > 0.126) & (X["density"] > 0.382)).to_numpy()
    Xn, yn = X[at].reset_index(drop=True), y[at].reset_index(drop=True)
    candidates, choice = _root_candidates(Xn, yn, 2, NO_MDL)
    assert choice == "texture"
    texture, sugar = candidates["texture"], candidates["sugar"]
    assert sugar.gain == pytest.approx(texture.gain, abs=1e-12)
    assert sugar.ratio == pytest.approx(texture.ratio, abs=1e-12)
    np.testing.assert_array_equal(Xn["texture"] == "clear", Xn["sugar"] > 0.198)
    model = C45Classifier(min_cases=2, max_depth=1, pruning=None).fit(Xn, yn)
    assert Xn.columns[model.tree_.feature[0]] == "texture"


def test_mushroom_stalk_root_is_not_used_by_j48(j48):
    """J48 grows the same tree with stalk-root (and its '?') as without the column."""
    assert j48["mushroom_full", 2].rules == j48["mushroom", 2].rules


def test_empty_branches_take_the_parents_class(j48, ours):
    """Both label a branch without training cases with the parent's majority; J48 prints (0.0)."""
    theirs = {rule for rule in j48["mushroom", 2].rules if rule[2] == 0}
    mine = {rule for rule in _rules(ours["mushroom", 2][1]) if rule[2] == 0}
    assert len(theirs) == 6
    assert mine == theirs


# ---------------------------------------------------------------------------
# The reference: the list of differences is complete
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "min_obj"), ALL_CASES)
def test_reference_c45_release8_reproduces_j48(name, min_obj, j48, data):
    """C4.5 release 8's rules as stated in this module give J48's trees exactly."""
    X, y = data[name]
    mine, theirs = _rules(_c45_release8(X, y, min_obj)), j48[name, min_obj].rules
    assert mine == theirs, _diff(mine, theirs)


@pytest.mark.parametrize(
    ("name", "min_obj"),
    _cases({}, ALL_CASES),
)
def test_reference_with_mltrees_rules_reproduces_mltrees(name, min_obj, ours, data):
    """With mltrees' rules (MLTREES) the reference grows mltrees' trees, once collapsed.

    watermelon 3.0 is the exception (both MINOBJS): the exact tie below the
    root between texture and sugar <= 0.198, which mltrees' rounding breaks
    the other way (test_watermelon_3_tie_below_the_root).
    """
    X, y = data[name]
    model, tree = ours[name, min_obj]
    reference = _rules(_c45_release8(X, y, min_obj, MLTREES))
    collapsed = _rules(_collapse(tree, model.classes_))
    assert reference == collapsed, _diff(reference, collapsed)


# Switching one rule of C4.5 release 8 to mltrees' version changes J48's tree on
# exactly these (data set, MINOBJS) pairs; "weka" pairs need Weka's examples.
EFFECTS = {
    "mdl": [
        ("watermelon_3", 2),
        ("watermelon_3", 1),
        ("iris", 2),
        ("iris", 1),
        ("diabetes", 2),
        ("diabetes", 1),
        ("glass", 2),
        ("glass", 1),
    ],
    "cap_min_split": [("iris", 1), ("diabetes", 2), ("diabetes", 1)],
    "average_slack": [],
    "zero_gain_numeric_in_average": [("glass", 1)],
    "many_values_rule": [],
}


@pytest.mark.parametrize("rule", list(EFFECTS))
def test_effect_of_each_rule(rule, j48, data):
    """Which trees each single difference between C4.5 release 8 and mltrees changes."""
    rules = dataclasses.replace(C45_RELEASE_8, **{rule: getattr(MLTREES, rule)})
    changed = [
        case
        for case in ALL_CASES
        if _rules(_c45_release8(*data[case[0]], case[1], rules)) != j48[case].rules
    ]
    assert changed == [case for case in EFFECTS[rule] if case in ALL_CASES]


@pytest.mark.skipif("iris" not in WEKA_DATASETS, reason="Weka's iris.arff is not installed")
def test_iris_root_tie_is_broken_by_the_mdl_correction(data, j48, ours):
    """On Weka's iris, petal length <= 1.9 and petal width <= 0.6 both split off the
    setosas (gain 0.918, ratio 1.0): an exact tie that mltrees breaks by column order
    (petal length). With at least 5 cases a side, petal length has 36 admissible
    thresholds and petal width 20, so C4.5's penalty is smaller for petal width."""
    X, y = data["iris"]
    plain, _ = _root_candidates(X, y, 2, NO_MDL)
    corrected, root = _root_candidates(X, y, 2, C45_RELEASE_8)
    assert plain["petallength"].ratio == pytest.approx(plain["petalwidth"].ratio) == 1.0
    for name, n_thresholds in [("petallength", 36), ("petalwidth", 20)]:
        penalty = plain[name].gain - corrected[name].gain
        assert penalty == pytest.approx(math.log2(n_thresholds) / 150)
    assert root == j48["iris", 2].root == "petalwidth"
    assert ours["iris", 2][1].attribute == "petallength"


# ---------------------------------------------------------------------------
# Pruned trees: J48's defaults against C45Classifier's defaults (chapter 5)
# ---------------------------------------------------------------------------

PRUNED_KNOWN = {
    # The grown trees already differ at the root (MDL correction, see above);
    # pruning cannot reconcile different tests.
    ("watermelon_3", 2): MDL,
    ("watermelon_3", 1): MDL,
}


@pytest.fixture(scope="module")
def j48_pruned(data, tmp_path_factory):
    """{(data set, MINOBJS): J48Tree} of J48 with default pruning; plus ("mushroom_full", 2)."""
    folder = tmp_path_factory.mktemp("arff_pruned")
    jobs = {}
    for name in BOOK_DATASETS:
        X, y = data[name]
        _write_arff(folder / f"{name}.arff", X, y, name)
        numeric = {c for c in X.columns if not _is_nominal(X[c])}
        for min_obj in MIN_OBJS:
            jobs[name, min_obj] = (folder / f"{name}.arff", numeric)
    full = load_mushroom()
    _write_arff(folder / "mushroom_full.arff", full.data, full.target, "mushroom_full")
    jobs["mushroom_full", 2] = (folder / "mushroom_full.arff", set())
    keys = list(jobs)
    with ThreadPoolExecutor(max_workers=min(4, os.cpu_count() or 1)) as pool:
        texts = pool.map(lambda key: _run_j48(jobs[key][0], key[1], pruned=True), keys)
        return {key: _parse_j48(text, jobs[key][1]) for key, text in zip(keys, texts, strict=True)}


@pytest.mark.parametrize(("name", "min_obj"), _cases(PRUNED_KNOWN))
def test_same_pruned_tree_as_j48(name, min_obj, j48_pruned, data):
    """C45Classifier's defaults give J48's pruned tree rule for rule: the same tests,
    and at every leaf the same class, cases and training errors -- also where
    subtree raising re-routed cases (the counts are those of the raised tree)."""
    X, y = data[name]
    model = C45Classifier(min_cases=min_obj).fit(X, y)
    mine, theirs = _rules(_mltrees_tree(model, X)), j48_pruned[name, min_obj].rules
    assert mine == theirs, _diff(mine, theirs)


@pytest.mark.parametrize(("name", "min_obj"), [("car", 2), ("car", 1), ("watermelon_2", 1)])
def test_pruning_changes_these_trees(name, min_obj, j48, j48_pruned):
    """The pruned comparison is not the unpruned one again: J48 prunes these trees."""
    assert j48_pruned[name, min_obj].rules != j48[name, min_obj].rules


def _raising_data():
    """400 cases, five 3-valued attributes, a noisy class driven by a0, a1 and a2
    (seed 3): the smallest such table found where J48's subtree raising changes
    the pruned tree (none of the book's data sets shows it)."""
    rng = np.random.default_rng(3)
    n, p = 400, 5
    codes = rng.integers(0, 3, size=(n, p)).astype(str)
    X = pd.DataFrame(codes, columns=[f"a{i}" for i in range(p)]).astype("category")
    logit = (X.a0 == "0") * 1.5 + (X.a1 == "1") * 1.0 - (X.a2 == "2") * 1.0 + rng.normal(0, 1, n)
    return X, pd.Series(np.where(logit > 0.5, "p", "n"), name="class")


def test_subtree_raising_reproduces_j48(tmp_path):
    """J48 raises the a1 subtrees over a2 here; C45Classifier with subtree raising
    gives J48's tree, counts included, and without raising a larger tree."""
    X, y = _raising_data()
    _write_arff(tmp_path / "raising.arff", X, y, "raising")
    theirs = _parse_j48(_run_j48(tmp_path / "raising.arff", 2, pruned=True), set()).rules
    raised = C45Classifier().fit(X, y)
    plain = C45Classifier(subtree_raising=False).fit(X, y)
    assert _rules(_mltrees_tree(raised, X)) == theirs
    assert raised.get_n_leaves() == len(theirs) == 7
    assert plain.get_n_leaves() == 13


def test_mushroom_pruned_with_stalk_root(j48_pruned, data):
    """J48's pruned tree with stalk-root and its 2480 '?' equals the one without the
    column. C45Classifier grows from the full data only with a missing-value method
    (chapter 6's ``missing="c45"``); it is compared when that parameter exists."""
    assert j48_pruned["mushroom_full", 2].rules == j48_pruned["mushroom", 2].rules
    if "missing" not in C45Classifier().get_params():
        pytest.skip("C45Classifier has no missing= parameter yet (chapter 6)")
    full = load_mushroom()
    model = C45Classifier(missing="c45").fit(full.data, full.target)
    mine = _rules(_mltrees_tree(model, full.data))
    assert mine == j48_pruned["mushroom_full", 2].rules, _diff(
        mine, j48_pruned["mushroom_full", 2].rules
    )

"""C45Classifier against Weka's J48, Quinlan's C4.5 release 8 in Java.

``C45Classifier()`` implements C4.5 release 8 (``release="8"``, the default):
the MDL correction of numeric gains, the minimum split size on each side of a
numeric cut, the average gain over the useful attributes only, J48's
tolerances, C4.5's split points as thresholds, and the collapse of subtrees
that do not lower the training errors, also without pruning. Its trees are
compared with J48's as sets of root-to-leaf rules (tests, class, and the cases
and errors at every leaf as J48 prints them, to two decimals):

* unpruned: ``J48 -U -M m`` against ``C45Classifier(min_cases=m, pruning=None)``;
* pruned: J48's defaults ``-C 0.25 -M m`` (collapse, pessimistic pruning,
  subtree raising) against ``C45Classifier(min_cases=m)``;

on the book's data sets (complete or with missing values, which both send
down every branch with fractional weights), on scikit-learn's iris, wine and
breast cancer, and on Weka's own examples when the Debian package ships them.
Trained on two thirds of each larger data set, both are also scored on the
other third.

J48 runs as ``java -cp /usr/share/java/weka.jar weka.classifiers.trees.J48``
(Debian package ``weka``, J48 of Weka 3.6.14) on ARFF files written from the
same tables.

The two can still differ where J48 compares numbers with its tolerance
``SMALL = 1e-6`` and mltrees cannot follow it without J48's order of the cases
(none of these occurs on the data here):

1. **Printed split point.** Among training values within 1e-6 of each other
   below the midpoint, J48 keeps the first one in data order, mltrees the
   largest; thresholds are therefore compared to within 1.5e-6.
2. **Routing of new cases.** J48 sends a value up to 1e-6 above the split
   point left, mltrees right.
3. **Near-ties between cuts.** J48 takes a later cut of a numeric attribute
   only if its gain beats every earlier one by more than 1e-6; mltrees takes
   the first cut within 1e-6 of the best. They differ only when a chain of
   gains rises by less than 1e-6 at each step.

A reference implementation of C4.5 release 8's growth for complete data
(:func:`_c45_release8`, written from J48's documented rules, independent of
mltrees' engine) reproduces J48's trees on the book's complete data and on
three of Weka's numeric examples. Its :class:`Rules` name what the 1993 book
(``C45Classifier(release="1993")``) does differently; with the book's version
of every rule (:data:`BOOK_1993`) and collapse applied, the reference grows
the trees of ``release="1993"``.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import re
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from sklearn.model_selection import train_test_split

from mltrees.datasets import (
    load_adult,
    load_car_evaluation,
    load_heart_disease,
    load_lenses,
    load_mushroom,
    load_penguins,
    load_titanic,
    load_watermelon,
    load_weather,
)
from mltrees.tree import C45Classifier
from mltrees.tree.pruning import prune_collapse

WEKA_JAR = Path("/usr/share/java/weka.jar")
WEKA_EXAMPLES = Path("/usr/share/doc/weka/examples")
JAVA = shutil.which("java")

pytestmark = pytest.mark.skipif(
    JAVA is None or not WEKA_JAR.exists(),
    reason="needs Weka's J48: `apt-get install weka` (provides java and /usr/share/java/weka.jar)",
)

SMALL = 1e-6  # weka.core.Utils.SMALL, the tolerance of Utils.gr, sm, eq, grOrEq, smOrEq
THRESHOLD_TOLERANCE = 1.5e-6  # J48 prints 6 decimals of the first value within SMALL

# The book's tables (mltrees.datasets); "mushroom" keeps stalk-root and its 2480 '?',
# "mushroom_complete" drops that column (the reference handles complete data only).
BOOK_DATASETS = [
    "weather",
    "weather_numeric",
    "watermelon_2",
    "watermelon_3",
    "lenses",
    "car",
    "mushroom",
    "heart_disease",
    "penguins",
    "titanic",
    "adult",
]
SKLEARN_DATASETS = ["sklearn_iris", "sklearn_wine", "sklearn_breast_cancer"]
# Weka's own examples, if the package ships them: numeric (iris, diabetes, glass,
# ionosphere, segment, unbalanced), mixed (credit-g, labor), nominal (vote, soybean,
# breast-cancer); labor, vote, soybean and breast-cancer have missing values.
WEKA_DATASETS = [
    f"weka_{name}"
    for name in [
        "iris",
        "diabetes",
        "glass",
        "ionosphere",
        "segment-challenge",
        "unbalanced",
        "credit-g",
        "labor",
        "vote",
        "soybean",
        "breast-cancer",
    ]
    if (WEKA_EXAMPLES / f"{name}.arff").exists()
]
J48_DATASETS = BOOK_DATASETS + SKLEARN_DATASETS + WEKA_DATASETS
# MINOBJS 1 as well on the data sets of the reference, where it changes the trees most.
REFERENCE_DATASETS = [
    "weather",
    "weather_numeric",
    "car",
    "mushroom_complete",
    "watermelon_2",
    "watermelon_3",
    *[name for name in ["weka_iris", "weka_diabetes", "weka_glass"] if name in WEKA_DATASETS],
]
J48_CASES = [(name, 2) for name in J48_DATASETS] + [
    (name, 1)
    for name in J48_DATASETS
    if name.replace("mushroom", "mushroom_complete") in REFERENCE_DATASETS
]
REFERENCE_CASES = [(name, m) for name in REFERENCE_DATASETS for m in (2, 1)]
# Held out: a third of every data set with at least 100 cases.
HELD_OUT_DATASETS = [
    name
    for name in J48_DATASETS
    if name not in {"weather", "weather_numeric", "watermelon_2", "watermelon_3", "lenses"}
    and name != "weka_labor"
]


# ---------------------------------------------------------------------------
# Data sets
# ---------------------------------------------------------------------------


def _read_arff(path: Path) -> tuple[pd.DataFrame, pd.Series]:
    """A dense ARFF file (Weka's examples) as a DataFrame: nominal attributes become
    categoricals with the declared values in their declared order, '?' is missing."""
    names, nominal, rows = [], [], []
    in_data = False
    for line in path.read_text(encoding="utf-8").splitlines():
        text = line.strip()
        if not text or text.startswith("%"):
            continue
        if in_data:
            rows.append([cell.strip() for cell in _arff_cells(text)])
            continue
        keyword = text.split(maxsplit=1)[0].lower()
        if keyword == "@attribute":
            rest = text.split(maxsplit=1)[1].strip()
            if rest.startswith("'"):  # a quoted name (Weka's examples escape no quotes)
                end = rest.index("'", 1)
                name, declared = rest[1:end], rest[end + 1 :].strip()
            else:
                name, declared = rest.split(maxsplit=1)
            names.append(name)
            if declared.startswith("{"):
                values = _arff_cells(declared[1 : declared.rindex("}")])
                nominal.append([value.strip() for value in values])
            else:
                nominal.append(None)
        elif keyword == "@data":
            in_data = True
    frame = pd.DataFrame(rows, columns=names).replace("?", np.nan)
    for name, values in zip(names, nominal, strict=True):
        if values is None:
            frame[name] = frame[name].astype(float)
        else:
            frame[name] = pd.Categorical(frame[name], categories=values)
    return frame.iloc[:, :-1], frame.iloc[:, -1]


def _arff_cells(text: str, delimiter: str = ",") -> list[str]:
    return next(csv.reader([text], delimiter=delimiter, quotechar="'", skipinitialspace=True))


def _sklearn(name: str) -> tuple[pd.DataFrame, pd.Series]:
    import sklearn.datasets

    bunch = getattr(sklearn.datasets, f"load_{name}")(as_frame=True)
    names = np.asarray(bunch.target_names)
    return bunch.data, pd.Series(names[bunch.target], name="class")


def _adult_sample() -> tuple[pd.DataFrame, pd.Series]:
    """3000 people drawn without replacement from Adult's training file."""
    X, y = load_adult("train", return_X_y=True)
    rows = np.sort(np.random.default_rng(0).choice(len(y), 3000, replace=False))
    return X.iloc[rows], y.iloc[rows]


LOADERS = {
    "weather": lambda: load_weather(return_X_y=True),
    "weather_numeric": lambda: load_weather(numeric=True, return_X_y=True),
    "watermelon_2": lambda: load_watermelon("2.0", return_X_y=True),
    "watermelon_3": lambda: load_watermelon("3.0", return_X_y=True),
    "lenses": lambda: load_lenses(return_X_y=True),
    "car": lambda: load_car_evaluation(return_X_y=True),
    "mushroom": lambda: load_mushroom(return_X_y=True),
    "heart_disease": lambda: load_heart_disease(return_X_y=True),
    "penguins": lambda: load_penguins(return_X_y=True),
    "titanic": lambda: load_titanic(return_X_y=True),
    "adult": _adult_sample,
}


def _load(name: str) -> tuple[pd.DataFrame, pd.Series]:
    """The table with names J48 prints unambiguously, nominal values and classes as text.

    Column names lose spaces and other characters J48's printout would not
    delimit; numeric columns are floats, the others categoricals.
    """
    if name == "mushroom_complete":
        X, y = _load("mushroom")
        return X.drop(columns="stalk-root"), y
    if name.startswith("weka_"):
        X, y = _read_arff(WEKA_EXAMPLES / f"{name.removeprefix('weka_')}.arff")
    elif name.startswith("sklearn_"):
        X, y = _sklearn(name.removeprefix("sklearn_"))
    else:
        X, y = LOADERS[name]()
    X = X.copy()
    for column in X.columns:
        if not _is_nominal(X[column]) and X[column].dtype.kind in "OUSb":
            X[column] = X[column].astype("category")
        if _is_nominal(X[column]):
            categories = [str(value) for value in X[column].cat.categories]
            X[column] = X[column].cat.rename_categories(categories)
        else:
            X[column] = X[column].astype(float)
    X.columns = [_safe_name(column) for column in X.columns]
    y = pd.Series(np.asarray(y).astype(str), name=_safe_name(y.name or "class"))
    return X.reset_index(drop=True), y


def _safe_name(name) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", str(name))


def _is_nominal(column: pd.Series) -> bool:
    return isinstance(column.dtype, pd.CategoricalDtype)


def _held_out(X: pd.DataFrame, y: pd.Series):
    """Two thirds to train, one third to test (stratified, seed 0)."""
    train, test = train_test_split(np.arange(len(y)), test_size=1 / 3, random_state=0, stratify=y)
    return (
        X.iloc[train].reset_index(drop=True),
        y.iloc[train].reset_index(drop=True),
        X.iloc[test].reset_index(drop=True),
        y.iloc[test].reset_index(drop=True),
    )


# ---------------------------------------------------------------------------
# ARFF and J48
# ---------------------------------------------------------------------------


def _arff_quote(value) -> str:
    text = str(value)
    if text == "" or re.search(r"[\s,{}'\"%?\\]", text):
        return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"
    return text


def _write_arff(path: Path, X: pd.DataFrame, y: pd.Series, relation: str, classes=None) -> None:
    """Nominal columns with their category lists, numeric ones as NUMERIC, '?' for NaN.

    The class values are declared in mltrees' ``classes_`` order (sorted), so
    that both programs break ties between classes alike (the first one wins);
    ``classes`` declares them all when ``y`` is a part of the data.
    """
    lines = [f"@relation {_arff_quote(relation)}", ""]
    nominal = [_is_nominal(X[column]) for column in X.columns]
    for column, is_nominal in zip(X.columns, nominal, strict=True):
        if is_nominal:
            values = ",".join(_arff_quote(v) for v in X[column].cat.categories)
            lines.append(f"@attribute {_arff_quote(column)} {{{values}}}")
        else:
            lines.append(f"@attribute {_arff_quote(column)} NUMERIC")
    classes = np.unique(np.asarray(y)) if classes is None else classes
    declared = ",".join(_arff_quote(v) for v in classes)
    lines += [f"@attribute {_arff_quote(y.name)} {{{declared}}}", "", "@data"]
    for row, label in zip(X.itertuples(index=False), np.asarray(y), strict=True):
        cells = [
            "?" if pd.isna(v) else _arff_quote(v) if is_nominal else repr(float(v))
            for v, is_nominal in zip(row, nominal, strict=True)
        ]
        lines.append(",".join([*cells, _arff_quote(label)]))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _j48_arguments(train: Path, min_obj: int, pruned: bool, test=None, options=()) -> list:
    """J48's options: trained on ``train``, evaluated on ``test`` (default: ``train``).

    Pruned: J48's defaults (-C 0.25, subtree raising, collapse) with ``-M min_obj``.
    """
    arguments = [*options, *([] if pruned else ["-U"]), "-M", str(min_obj)]
    return [*arguments, "-t", str(train), "-T", str(test or train)]


def _run_j48(train: Path, min_obj: int, pruned: bool = False, test=None, options=()) -> str:
    """J48's printed output for one run (one JVM)."""
    command = [JAVA, "-cp", str(WEKA_JAR), "weka.classifiers.trees.J48"]
    command += _j48_arguments(train, min_obj, pruned, test, options)
    return subprocess.run(command, capture_output=True, text=True, check=True).stdout


# Many J48 runs in one JVM: starting Java and loading Weka costs more than most runs.
_BATCH_SOURCE = """
import weka.classifiers.Evaluation;
import weka.classifiers.trees.J48;

public class J48Batch {
    public static void main(String[] args) throws Exception {
        java.util.List<String> run = new java.util.ArrayList<>();
        for (String arg : args) {
            if (!arg.equals("--")) { run.add(arg); continue; }
            System.out.println(Evaluation.evaluateModel(new J48(), run.toArray(new String[0])));
            System.out.println("%s");
            run.clear();
        }
    }
}
"""
_END_OF_RUN = "=== end of this J48 run ==="


def _run_j48_batch(runs: list, folder: Path) -> list:
    """J48's output for every argument list in ``runs``, in two JVMs side by side.

    The driver is compiled by ``java`` itself (source-file mode, JDK 11+); without a
    compiler every run gets its own JVM.
    """
    source = folder / "J48Batch.java"
    source.write_text(_BATCH_SOURCE % _END_OF_RUN, encoding="utf-8")

    def batch(part):
        command = [JAVA, "-cp", str(WEKA_JAR), str(source)]
        command += [argument for run in part for argument in [*run, "--"]]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0 and "J48Batch" in result.stderr + result.stdout:
            return None
        result.check_returncode()
        return result.stdout.split(_END_OF_RUN)[: len(part)]

    halves = [runs[0::2], runs[1::2]]
    with ThreadPoolExecutor(max_workers=2) as pool:
        outputs = list(pool.map(batch, halves))
    if any(output is None for output in outputs):  # no compiler: one JVM per run
        with ThreadPoolExecutor(max_workers=2) as pool:
            single = [
                [JAVA, "-cp", str(WEKA_JAR), "weka.classifiers.trees.J48", *run] for run in runs
            ]
            return list(
                pool.map(
                    lambda c: subprocess.run(c, capture_output=True, text=True, check=True).stdout,
                    single,
                )
            )
    merged = [None] * len(runs)
    merged[0::2], merged[1::2] = outputs
    return merged


def _tree_block(output: str, pruned: bool) -> str:
    """The tree, from 'J48 (un)pruned tree' to 'Number of Leaves'."""
    start = output.index("J48 pruned tree" if pruned else "J48 unpruned tree")
    return output[start : output.index("Number of Leaves", start)]


def _test_accuracy(output: str) -> tuple[float, float]:
    """Correctly classified test cases and their percentage, as J48 reports them."""
    section = output[output.index("=== Error on test data ===") :]
    found = re.search(r"Correctly Classified Instances\s+([\d.]+)\s+([\d.]+)\s*%", section)
    return float(found[1]), float(found[2])


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
    lines = block.splitlines()
    dashes = next(i for i, line in enumerate(lines) if line.startswith("---"))
    lines = [line for line in lines[dashes + 1 :] if line.strip()]
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


def _weka_round(value: float, decimals: int = 6) -> float:
    """A number as J48 prints it: ``Utils.doubleToString`` and ``roundDouble`` round half up."""
    scale = 10.0**decimals
    return math.copysign(math.floor(abs(value) * scale + 0.5), value) / scale


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
    """Root-to-leaf rules; cases and errors to two decimals, as J48 prints them."""
    if not node.branches:
        return frozenset({(path, node.label, _weka_round(node.n, 2), _weka_round(node.errors, 2))})
    out = set()
    for attribute, op, value, child in node.branches:
        out |= _rules(child, (*path, (attribute, op, value)))
    return frozenset(out)


def _by_structure(rules: frozenset) -> dict:
    """Rules grouped by everything but their numeric thresholds, which are listed."""
    groups = {}
    for path, label, n, errors in rules:
        shape = tuple((a, op, v if isinstance(v, str) else None) for a, op, v in path)
        numbers = tuple(v for _, _, v in path if not isinstance(v, str))
        groups.setdefault((shape, label, n, errors), []).append(numbers)
    return {key: sorted(values) for key, values in groups.items()}


def _same_rules(mine: frozenset, theirs: frozenset) -> bool:
    """The same rules, numeric thresholds equal to within THRESHOLD_TOLERANCE."""
    left, right = _by_structure(mine), _by_structure(theirs)
    if left.keys() != right.keys():
        return False
    return all(
        len(left[key]) == len(right[key])
        and np.allclose(left[key], right[key], rtol=0, atol=THRESHOLD_TOLERANCE)
        for key in left
    )


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
    """The fitted tree as Nodes, numeric thresholds as C4.5's split points.

    Release 8's thresholds are split points already; a midpoint of
    ``release="1993"`` becomes the split point, which routes every node's
    training cases alike (test_release_1993_midpoints_route_like_split_points).
    """
    tree, classes = model.tree_, model.classes_

    def build(i: int) -> Node:
        counts = tree.value[i] * tree.weighted_n_node_samples[i]
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


def _diff(mine: frozenset, theirs: frozenset) -> str:
    only_mine = "\n".join(map(str, sorted(mine - theirs, key=str)))
    only_theirs = "\n".join(map(str, sorted(theirs - mine, key=str)))
    return f"only on the left:\n{only_mine}\nonly on the right:\n{only_theirs}"


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
    """The rules in which C4.5 release 8 and the 1993 book (``release="1993"``) differ.

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
BOOK_1993 = Rules(
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
# Fixtures: every J48 run once, two at a time
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def data():
    names = set(J48_DATASETS) | set(REFERENCE_DATASETS)
    return {name: _load(name) for name in names}


def _numeric(X: pd.DataFrame) -> set:
    return {c for c in X.columns if not _is_nominal(X[c])}


@pytest.fixture(scope="module")
def j48_outputs(data, tmp_path_factory):
    """J48's printed output of every run the tests compare with, all in one go.

    ``(data set, MINOBJS, pruned)``: trained and evaluated on the whole data set;
    ``("held out", data set, pruned)``: trained on two thirds, tested on the rest.
    """
    folder = tmp_path_factory.mktemp("arff")
    runs = {}
    for name in {name for name, _ in J48_CASES + REFERENCE_CASES}:
        _write_arff(folder / f"{name}.arff", *data[name], name)
    for name, m in J48_CASES:
        for pruned in (False, True):
            runs[name, m, pruned] = _j48_arguments(folder / f"{name}.arff", m, pruned)
    for name, m in REFERENCE_CASES:
        runs.setdefault((name, m, False), _j48_arguments(folder / f"{name}.arff", m, False))
    for name in HELD_OUT_DATASETS:
        X, y = data[name]
        X_train, y_train, X_test, y_test = _held_out(X, y)
        classes = np.unique(np.asarray(y))
        train, test = folder / f"{name}_train.arff", folder / f"{name}_test.arff"
        _write_arff(train, X_train, y_train, name, classes)
        _write_arff(test, X_test, y_test, name, classes)
        for pruned in (False, True):
            runs["held out", name, pruned] = _j48_arguments(train, 2, pruned, test)
    outputs = _run_j48_batch(list(runs.values()), folder)
    return dict(zip(runs, outputs, strict=True))


@pytest.fixture(scope="module")
def j48(data, j48_outputs):
    """{(data set, MINOBJS, pruned): J48Tree} on the whole data set."""
    return {
        key: _parse_j48(_tree_block(output, key[2]), _numeric(data[key[0]][0]))
        for key, output in j48_outputs.items()
        if key[0] != "held out"
    }


@pytest.fixture(scope="module")
def j48_held_out(data, j48_outputs):
    """{(data set, pruned): (J48Tree on the training part, correct test cases)}, MINOBJS 2."""
    return {
        (name, pruned): (
            _parse_j48(_tree_block(output, pruned), _numeric(data[name][0])),
            _test_accuracy(output)[0],
        )
        for (kind, name, pruned), output in j48_outputs.items()
        if kind == "held out"
    }


def _fit(X, y, min_obj, pruned, **params):
    pruning = "pessimistic" if pruned else None
    return C45Classifier(min_cases=min_obj, pruning=pruning, **params).fit(X, y)


# ---------------------------------------------------------------------------
# Release 8 (the default) against J48
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("pruned", [False, True], ids=["unpruned", "pruned"])
@pytest.mark.parametrize(("name", "min_obj"), J48_CASES)
def test_same_tree_as_j48(name, min_obj, pruned, data, j48):
    """Identical rules: tests, leaf class, cases and training errors at every leaf
    (fractional where cases with missing values went down several branches)."""
    X, y = data[name]
    model = _fit(X, y, min_obj, pruned)
    mine, theirs = _rules(_mltrees_tree(model, X)), j48[name, min_obj, pruned].rules
    assert _same_rules(mine, theirs), _diff(mine, theirs)
    assert model.get_n_leaves() == len(theirs)


@pytest.mark.parametrize("pruned", [False, True], ids=["unpruned", "pruned"])
@pytest.mark.parametrize("name", HELD_OUT_DATASETS)
def test_held_out_accuracy_equals_j48(name, pruned, data, j48_held_out):
    """Trained on two thirds: the same tree as J48, and as many test cases right.

    Equal trees could still predict differently on new values within 1e-6 above
    a threshold (the docstring's item 2); none occurs here.
    """
    X, y = data[name]
    X_train, y_train, X_test, y_test = _held_out(X, y)
    model = _fit(X_train, y_train, 2, pruned)
    theirs, j48_correct = j48_held_out[name, pruned]
    mine = _rules(_mltrees_tree(model, X_train))
    assert _same_rules(mine, theirs.rules), _diff(mine, theirs.rules)
    correct = float((model.predict(X_test) == y_test.to_numpy()).sum())
    assert correct == j48_correct


def test_release_1993_differs_from_j48(data, j48):
    """The comparison has teeth: the 1993 book's rules give other trees on most of
    the data with numeric attributes, and unpruned trees without collapse."""
    differ = []
    for name, min_obj in J48_CASES:
        X, y = data[name]
        model = _fit(X, y, min_obj, False, release="1993")
        if not _same_rules(_rules(_mltrees_tree(model, X)), j48[name, min_obj, False].rules):
            differ.append((name, min_obj))
    assert {("watermelon_3", 2), ("car", 2), ("watermelon_2", 2)} <= set(differ)
    assert len(differ) > len(J48_CASES) / 2


ALL_NOMINAL = {"weather", "watermelon_2", "lenses", "car", "mushroom"}
ALL_NOMINAL |= {"weka_vote", "weka_soybean", "weka_breast-cancer"}


# With missing values, fractions of cases reach nodes that decision_path does not show.
HAS_MISSING = {"heart_disease", "penguins", "titanic", "adult", "weka_labor"}


@pytest.mark.parametrize(
    "name", [name for name in J48_DATASETS if name not in ALL_NOMINAL | HAS_MISSING]
)
def test_thresholds_are_split_points(name, data):
    """Every threshold is a training value, the largest one up to the midpoint between
    the node's neighbouring values (plus J48's SMALL)."""
    X, y = data[name]
    model = _fit(X, y, 2, False)
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
        threshold = float(tree.threshold[i])
        assert threshold in column
        here = column[reaches[:, i] & ~np.isnan(column)]
        left, right = here[here <= threshold], here[here > threshold]
        midpoint = (left.max() + right.min()) / 2
        assert threshold == column[column <= midpoint + SMALL].max()


def test_weather_numeric_threshold_is_a_data_value(data, j48):
    """Humidity is cut between 75 and 80: release 8 tests humidity <= 75, as J48
    prints it, where the 1993 rules keep the midpoint 77.5."""
    X, y = data["weather_numeric"]
    for release, expected in [("8", 75.0), ("1993", 77.5)]:
        model = _fit(X, y, 2, False, release=release)
        thresholds = model.tree_.threshold[np.isfinite(model.tree_.threshold)]
        np.testing.assert_array_equal(thresholds, [expected])
    assert "humidity <= 75: yes (2.0)" in j48["weather_numeric", 2, False].text


def test_mushroom_stalk_root_is_not_used_by_j48(j48):
    """J48 grows the same trees with stalk-root (and its '?') as without the column,
    so the reference, which needs complete data, may drop it."""
    assert j48["mushroom", 2, False].rules == j48["mushroom_complete", 2, False].rules


def test_empty_branches_take_the_parents_class(data, j48):
    """Both label a branch without training cases with the parent's majority; J48 prints (0.0)."""
    X, y = data["mushroom"]
    theirs = {rule for rule in j48["mushroom", 2, False].rules if rule[2] == 0}
    mine = {rule for rule in _rules(_mltrees_tree(_fit(X, y, 2, False), X)) if rule[2] == 0}
    assert theirs
    assert mine == theirs


# ---------------------------------------------------------------------------
# What each rule of release 8 changes
# ---------------------------------------------------------------------------


def test_watermelon_3_root_is_decided_by_the_mdl_correction(data, j48):
    """At the root (17 cases, 14 admissible thresholds each for density and sugar),
    log2(14)/17 = 0.224 bits is subtracted from both numeric gains: sugar falls
    from 0.349 to 0.125, below the average gain 0.154, and texture wins; the 1993
    rules put sugar at the root."""
    X, y = data["watermelon_3"]
    plain, root = _root_candidates(X, y, 2, NO_MDL)
    corrected, c45_root = _root_candidates(X, y, 2, C45_RELEASE_8)
    book = _fit(X, y, 2, False, release="1993")
    release8 = _fit(X, y, 2, False)
    assert root == X.columns[book.tree_.feature[0]] == "sugar"
    assert c45_root == X.columns[release8.tree_.feature[0]] == j48["watermelon_3", 2, False].root
    assert c45_root == "texture"
    for name in ["density", "sugar"]:
        assert plain[name].gain - corrected[name].gain == pytest.approx(math.log2(14) / 17)
    assert plain["sugar"].ratio > plain["texture"].ratio  # 0.400 > 0.263
    average = np.mean([c.gain for c in corrected.values()])
    assert corrected["sugar"].gain < average < corrected["texture"].gain  # 0.125 < 0.154 < 0.381


def test_watermelon_3_tie_below_the_root(data):
    """Without the MDL correction, sugar > 0.126 and density > 0.382 leave 10 cases where
    texture and sugar <= 0.198 make the same 7/3 partition: equal gain (0.446) and gain
    ratio (0.507). C4.5 keeps the first attribute, texture; so does mltrees with the
    1993 rules, which treat scores within rounding noise as ties and take the lowest
    column index."""
    X, y = data["watermelon_3"]
    at = ((X["sugar"] > 0.126) & (X["density"] > 0.382)).to_numpy()
    Xn, yn = X[at].reset_index(drop=True), y[at].reset_index(drop=True)
    candidates, choice = _root_candidates(Xn, yn, 2, NO_MDL)
    assert choice == "texture"
    texture, sugar = candidates["texture"], candidates["sugar"]
    assert sugar.gain == pytest.approx(texture.gain, abs=1e-12)
    assert sugar.ratio == pytest.approx(texture.ratio, abs=1e-12)
    np.testing.assert_array_equal(Xn["texture"] == "clear", Xn["sugar"] > 0.198)
    model = C45Classifier(min_cases=2, max_depth=1, pruning=None, release="1993").fit(Xn, yn)
    assert Xn.columns[model.tree_.feature[0]] == "texture"


@pytest.mark.skipif("weka_iris" not in WEKA_DATASETS, reason="Weka's iris.arff is not installed")
def test_iris_root_tie_is_broken_by_the_mdl_correction(data, j48):
    """On Weka's iris, petal length <= 1.9 and petal width <= 0.6 both split off the
    setosas (gain 0.918, ratio 1.0): an exact tie that the 1993 rules break by column
    order (petal length). With at least 5 cases a side, petal length has 36 admissible
    thresholds and petal width 20, so the correction is smaller for petal width."""
    X, y = data["weka_iris"]
    plain, _ = _root_candidates(X, y, 2, NO_MDL)
    corrected, root = _root_candidates(X, y, 2, C45_RELEASE_8)
    assert plain["petallength"].ratio == pytest.approx(plain["petalwidth"].ratio) == 1.0
    for name, n_thresholds in [("petallength", 36), ("petalwidth", 20)]:
        penalty = plain[name].gain - corrected[name].gain
        assert penalty == pytest.approx(math.log2(n_thresholds) / 150)
    assert root == j48["weka_iris", 2, False].root == "petalwidth"
    assert X.columns[_fit(X, y, 2, False).tree_.feature[0]] == "petalwidth"
    assert X.columns[_fit(X, y, 2, False, release="1993").tree_.feature[0]] == "petallength"


def test_many_valued_attribute_is_left_out_of_the_average(data, tmp_path):
    """A row number added to car evaluation: with MINOBJS 1 it is a candidate, and its
    gain (the whole entropy of the node) would lift the average above every honest
    attribute. Release 8 leaves nominal attributes with at least 0.3 n values out of
    the average, so safety (the largest gain ratio) stays at the root, as in J48;
    the 1993 rules take the row number."""
    X, y = data["car"]
    X = X.assign(row=pd.Categorical([f"r{i}" for i in range(len(y))]))
    _write_arff(tmp_path / "car_row.arff", X, y, "car_row")
    output = _run_j48(tmp_path / "car_row.arff", 1)
    theirs = _parse_j48(_tree_block(output, False), set())
    release8, book = _fit(X, y, 1, False), _fit(X, y, 1, False, release="1993")
    assert theirs.root == X.columns[release8.tree_.feature[0]] == "safety"
    assert _same_rules(_rules(_mltrees_tree(release8, X)), theirs.rules)
    assert X.columns[book.tree_.feature[0]] == "row"


@pytest.mark.parametrize(("name", "min_obj"), [("car", 2), ("watermelon_2", 2)])
def test_collapse_removes_subtrees_that_change_no_training_prediction(name, min_obj, data, j48):
    """Release 8 collapses the grown tree even without pruning (J48's -U): on these
    all-nominal tables collapsing the 1993 tree gives release 8's tree, which is
    J48's, and what collapse removes are splits whose leaves all predict their
    root's class."""
    X, y = data[name]
    book = _fit(X, y, min_obj, False, release="1993")
    grown = _rules(_mltrees_tree(book, X))
    book.tree_ = prune_collapse(book.tree_)
    mine = _rules(_mltrees_tree(book, X))
    assert mine == _rules(_mltrees_tree(_fit(X, y, min_obj, False), X))
    assert _same_rules(mine, j48[name, min_obj, False].rules)
    removed = grown - mine
    assert removed
    kept = {(path, label) for path, label, *_ in mine}
    for path, label, *_ in removed:
        assert any(path[: len(p)] == p and label == k for p, k in kept), path


# ---------------------------------------------------------------------------
# The reference and the 1993 rules
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "min_obj"), REFERENCE_CASES)
def test_reference_c45_release8_reproduces_j48(name, min_obj, j48, data):
    """C4.5 release 8's rules as stated in this module give J48's trees exactly."""
    X, y = data[name]
    mine, theirs = _rules(_c45_release8(X, y, min_obj)), j48[name, min_obj, False].rules
    assert _same_rules(mine, theirs), _diff(mine, theirs)


@pytest.mark.parametrize(("name", "min_obj"), REFERENCE_CASES)
def test_reference_with_1993_rules_reproduces_release_1993(name, min_obj, data):
    """With the book's rules (BOOK_1993) the reference grows release="1993"'s trees,
    once collapsed (the 1993 rules do not collapse an unpruned tree)."""
    X, y = data[name]
    model = _fit(X, y, min_obj, False, release="1993")
    reference = _rules(_c45_release8(X, y, min_obj, BOOK_1993))
    collapsed = _rules(_collapse(_mltrees_tree(model, X), model.classes_))
    assert reference == collapsed, _diff(reference, collapsed)


@pytest.mark.parametrize(("name", "min_obj"), [c for c in REFERENCE_CASES if c[1] == 2])
def test_release_1993_midpoints_route_like_split_points(name, min_obj, data):
    """The 1993 rules keep midpoints; C4.5's split point sends each node's training
    cases to the same side, so the trees can be compared as rules."""
    X, y = data[name]
    model = _fit(X, y, min_obj, False, release="1993")
    tree = model.tree_
    reaches = model.decision_path(X).toarray().astype(bool)
    for i in np.flatnonzero(np.isfinite(tree.threshold) & (tree.feature >= 0)):
        column = X.iloc[:, tree.feature[i]].to_numpy(dtype=float)
        midpoint = float(tree.threshold[i])
        split_point = _split_point(column, midpoint)
        assert split_point in column
        here = column[reaches[:, i]]
        np.testing.assert_array_equal(here <= midpoint, here < split_point + SMALL)


# Switching one rule of C4.5 release 8 to the 1993 book's version changes J48's tree
# on exactly these (data set, MINOBJS) pairs; "weka_" pairs need Weka's examples.
EFFECTS = {
    "mdl": [
        ("watermelon_3", 2),
        ("watermelon_3", 1),
        ("weka_iris", 2),
        ("weka_iris", 1),
        ("weka_diabetes", 2),
        ("weka_diabetes", 1),
        ("weka_glass", 2),
        ("weka_glass", 1),
    ],
    "cap_min_split": [("weka_iris", 1), ("weka_diabetes", 2), ("weka_diabetes", 1)],
    "average_slack": [],
    "zero_gain_numeric_in_average": [("weka_glass", 1)],
    "many_values_rule": [],
}


@pytest.mark.parametrize("rule", list(EFFECTS))
def test_effect_of_each_rule(rule, j48, data):
    """Which trees each single difference between release 8 and the 1993 book changes."""
    rules = dataclasses.replace(C45_RELEASE_8, **{rule: getattr(BOOK_1993, rule)})
    changed = [
        case
        for case in REFERENCE_CASES
        if not _same_rules(
            _rules(_c45_release8(*data[case[0]], case[1], rules)), j48[(*case, False)].rules
        )
    ]
    assert changed == [case for case in EFFECTS[rule] if case in REFERENCE_CASES]


# ---------------------------------------------------------------------------
# Pruning (chapter 5)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "min_obj"), [("car", 2), ("car", 1), ("watermelon_2", 1)])
def test_pruning_changes_these_trees(name, min_obj, j48):
    """The pruned comparison is not the unpruned one again: J48 prunes these trees."""
    assert j48[name, min_obj, True].rules != j48[name, min_obj, False].rules


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
    """J48 raises the a1 subtrees over a2 here: C45Classifier with subtree raising
    gives J48's tree, counts included, and without raising J48's tree of ``-S``."""
    X, y = _raising_data()
    _write_arff(tmp_path / "raising.arff", X, y, "raising")
    raised_j48 = _parse_j48(_tree_block(_run_j48(tmp_path / "raising.arff", 2, True), True), set())
    output = _run_j48(tmp_path / "raising.arff", 2, True, options=["-S"])
    plain_j48 = _parse_j48(_tree_block(output, True), set())
    raised = C45Classifier().fit(X, y)
    plain = C45Classifier(subtree_raising=False).fit(X, y)
    assert _rules(_mltrees_tree(raised, X)) == raised_j48.rules
    assert _rules(_mltrees_tree(plain, X)) == plain_j48.rules
    assert raised_j48.rules != plain_j48.rules

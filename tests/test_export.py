"""Tests of mltrees.tree.export: text, DOT and matplotlib renderings of fitted trees."""

import re
import shutil
import subprocess

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import NotFittedError
from sklearn.tree import DecisionTreeClassifier as SklearnTree

from mltrees.tree import C45Classifier, CARTClassifier, CARTRegressor, ID3Classifier
from mltrees.tree.export import export_text, plot_tree, to_dot

IRIS_NAMES = ["setosa", "versicolor", "virginica"]


def weather():
    """Quinlan's weather table (1986), every column categorical."""
    columns = {
        "outlook": "sunny,sunny,overcast,rain,rain,rain,overcast,sunny,sunny,rain,sunny,"
        "overcast,overcast,rain",
        "temperature": "hot,hot,hot,mild,cool,cool,cool,mild,cool,mild,mild,mild,hot,mild",
        "humidity": "high,high,high,high,normal,normal,normal,high,normal,normal,normal,high,"
        "normal,high",
        "windy": "false,true,false,false,false,true,true,false,false,false,true,true,false,true",
    }
    X = pd.DataFrame({name: values.split(",") for name, values in columns.items()})
    X = X.astype("category")
    play = "no,no,yes,yes,yes,no,yes,no,yes,yes,yes,yes,yes,no"
    y = np.array(play.split(","))
    return X, y


def with_empty_branch():
    """A table whose ID3 tree has an empty branch: a = y never occurs with b = q."""
    X = pd.DataFrame({"a": list("xxxxyyyyzz"), "b": list("ppqqrrppqq")}).astype("category")
    y = np.array([0, 0, 1, 1, 1, 1, 0, 0, 1, 0])
    return X, y


@pytest.fixture(scope="module")
def iris():
    return load_iris(return_X_y=True)


@pytest.fixture(scope="module")
def iris_frame():
    return load_iris(return_X_y=True, as_frame=True)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


# --- A reader of export_text's output, to check that it says what the tree does ---


def parse_rules(text):
    """Turn export_text output into a list of (conditions, leaf text), one per leaf."""
    rules, path = [], []
    for line in text.splitlines():
        depth = line.index("|--- ") // 4
        body = line[depth * 4 + 5 :]
        del path[depth:]
        if body.startswith(("class: ", "value: ", "weights: ", "truncated")):
            rules.append((list(path), body))
        else:
            path.append(body)
    return rules


def holds(condition, row):
    """Whether a branch condition printed by export_text holds for a row (a dict)."""
    match = re.fullmatch(r"(.+?) (<=|> |=|in) (.+)", condition)
    assert match, condition
    name, op, operand = match.groups()
    value = row[name]
    if op == "<=":
        return float(value) <= float(operand)
    if op == "> ":
        return float(value) > float(operand)
    if op == "=":
        return str(value) == operand
    assert operand.startswith("{"), operand
    assert operand.endswith("}"), operand
    return str(value) in operand[1:-1].split(", ")


def rule_predictions(text, X):
    """The leaf text each row reaches by following the printed conditions."""
    rules = parse_rules(text)
    if isinstance(X, pd.DataFrame):
        frame = X
    else:
        frame = pd.DataFrame(X, columns=[f"feature_{j}" for j in range(X.shape[1])])
    reached = []
    for row in frame.to_dict("records"):
        matching = [leaf for conditions, leaf in rules if all(holds(c, row) for c in conditions)]
        assert len(matching) == 1, (row, matching)
        reached.append(matching[0])
    return reached


# --- export_text ---


def test_iris_root_test_matches_tree(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=2).fit(X, y)
    tree = estimator.tree_
    lines = export_text(estimator).splitlines()
    j, threshold = tree.feature[0], tree.threshold[0]
    assert lines[0] == f"|--- feature_{j} <= {threshold:.3f}"
    root_branches = [line for line in lines if line.startswith("|--- ")]
    assert root_branches == [
        f"|--- feature_{j} <= {threshold:.3f}",
        f"|--- feature_{j} >  {threshold:.3f}",
    ]
    leaves = [line for line in lines if "class: " in line]
    assert len(leaves) == estimator.get_n_leaves()
    assert export_text(estimator, decimals=1).splitlines()[0] == (
        f"|--- feature_{j} <= {threshold:.1f}"
    )
    assert export_text(estimator, decimals=0).splitlines()[0] == (
        f"|--- feature_{j} <= {threshold:.0f}"
    )


def test_iris_leaf_lines_in_order(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=2).fit(X, y)
    tree = estimator.tree_

    def leaves_in_order(node):
        if tree.feature[node] < 0:
            return [node]
        first = tree.first_child[node]
        return [
            leaf
            for child in range(first, first + tree.n_children[node])
            for leaf in leaves_in_order(child)
        ]

    expected = [
        f"class: {estimator.classes_[np.argmax(tree.value[leaf])]}" for leaf in leaves_in_order(0)
    ]
    printed = [line.split("|--- ")[-1] for line in export_text(estimator).splitlines()]
    assert [line for line in printed if line.startswith("class: ")] == expected


@pytest.mark.parametrize("max_depth", [2, None])
def test_text_rules_reproduce_predictions_on_iris(iris, max_depth):
    X, y = iris
    estimator = CARTClassifier(max_depth=max_depth).fit(X, y)
    text = export_text(estimator, decimals=10)
    reached = rule_predictions(text, X)
    assert reached == [f"class: {c}" for c in estimator.predict(X)]


def test_feature_names_default_to_dataframe_columns(iris_frame):
    X, y = iris_frame
    estimator = CARTClassifier(max_depth=2).fit(X, y)
    text = export_text(estimator)
    assert text.startswith("|--- petal length (cm) <= 2.450\n")
    assert "feature_" not in text


def test_regression_prints_values(iris_frame):
    frame, _ = iris_frame
    X, target = frame.iloc[:, :3], frame.iloc[:, 3]
    estimator = CARTRegressor(max_depth=3).fit(X, target)
    tree = estimator.tree_
    text = export_text(estimator, decimals=4)
    values = [float(v) for v in re.findall(r"\|--- value: (-?\d+\.\d{4})$", text, re.M)]
    assert len(values) == estimator.get_n_leaves()
    assert sorted(values) == pytest.approx(sorted(tree.value[tree.is_leaf, 0]), abs=5e-5)
    assert "class" not in text
    reached = rule_predictions(export_text(estimator, decimals=10), X)
    predicted = [float(line.split(": ")[1]) for line in reached]
    np.testing.assert_allclose(predicted, estimator.predict(X), atol=1e-9)

    weighted = export_text(estimator, show_weights=True)
    weights = [float(w) for w in re.findall(r"\(weight: (\d+\.\d+)\)", weighted)]
    assert len(weights) == estimator.get_n_leaves()
    assert sum(weights) == pytest.approx(len(X), abs=1e-2)


@pytest.mark.parametrize("algorithm", [ID3Classifier, C45Classifier])
def test_weather_gives_the_classic_id3_tree(algorithm):
    X, y = weather()
    estimator = algorithm().fit(X, y)
    assert export_text(estimator) == (
        "|--- outlook = overcast\n"
        "|   |--- class: yes\n"
        "|--- outlook = rain\n"
        "|   |--- windy = false\n"
        "|   |   |--- class: yes\n"
        "|   |--- windy = true\n"
        "|   |   |--- class: no\n"
        "|--- outlook = sunny\n"
        "|   |--- humidity = high\n"
        "|   |   |--- class: no\n"
        "|   |--- humidity = normal\n"
        "|   |   |--- class: yes\n"
    )


def test_weather_show_weights_counts_the_samples():
    X, y = weather()
    text = export_text(ID3Classifier().fit(X, y), show_weights=True, decimals=1)
    assert "|   |--- weights: [0.0, 4.0] class: yes" in text
    weights = np.array(
        [[float(w) for w in group.split(", ")] for group in re.findall(r"weights: \[(.*?)\]", text)]
    )
    np.testing.assert_allclose(weights.sum(axis=0), [np.sum(y == "no"), np.sum(y == "yes")])


def test_cart_subset_split_on_categories():
    X, y = weather()
    estimator = CARTClassifier().fit(X, y)
    text = export_text(estimator)
    assert " in {" in text
    assert text.splitlines()[0] in {
        "|--- outlook in {rain, sunny}",
        "|--- outlook = overcast",
    }
    # Following the printed subsets reproduces every training prediction.
    assert rule_predictions(text, X) == [f"class: {c}" for c in estimator.predict(X)]


def test_categories_absent_from_a_node_are_listed_nowhere():
    X, y = weather()
    estimator = CARTClassifier().fit(X, y)
    tree = estimator.tree_
    categorical = np.flatnonzero(tree.kind == 1)
    # Some node never saw one of its feature's categories (route -1) ...
    absent = [
        i
        for i in categorical
        if (
            tree.route_table[tree.route_offset[i] : tree.route_offset[i] + tree.n_categories[i]] < 0
        ).any()
    ]
    assert absent
    text = export_text(estimator)
    lines = text.splitlines()
    for condition in [line.split("|--- ")[-1] for line in lines]:
        if " in {" in condition:
            assert condition.count("{") == 1
    # ... and the rules still cover every training row exactly once (checked in parse).
    rule_predictions(text, X)


def test_empty_branch_is_marked():
    X, y = with_empty_branch()
    estimator = ID3Classifier().fit(X, y)
    tree = estimator.tree_
    n_empty = int((tree.n_node_samples == 0).sum())
    assert n_empty == 1
    text = export_text(estimator)
    assert text.count("(empty branch)") == n_empty
    assert "|   |--- a = y\n|   |   |--- class: 1 (empty branch)\n" in text
    assert to_dot(estimator).count("(empty branch)") == n_empty


def test_max_depth_truncates(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=3).fit(X, y)
    full = export_text(estimator)
    assert "truncated" not in full
    assert export_text(estimator, max_depth=3) == full
    shallow = export_text(estimator, max_depth=0)
    assert all(line.count("|") <= 2 for line in shallow.splitlines())
    assert "|   |--- truncated branch of depth 2" in shallow
    assert "|   |--- class: 0" in shallow


def test_single_leaf_tree():
    X = np.arange(6.0).reshape(-1, 1)
    estimator = CARTClassifier().fit(X, np.ones(6))
    assert export_text(estimator) == "|--- class: 1.0\n"
    assert to_dot(estimator).count("->") == 0
    ax = plot_tree(estimator)
    assert sum(t.get_bbox_patch() is not None for t in ax.texts) == 1


def test_name_overrides_appear(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=2).fit(X, y)
    names = ["sepal L", "sepal W", "petal L", "petal W"]
    text = export_text(estimator, feature_names=names, class_names=IRIS_NAMES)
    assert text.startswith("|--- petal L <= 2.450\n")
    assert "class: setosa" in text
    assert "feature_" not in text
    assert "class: 0" not in text
    dot = to_dot(estimator, feature_names=names, class_names=IRIS_NAMES)
    assert "petal L" in dot
    assert "class = setosa" in dot
    ax = plot_tree(estimator, feature_names=names, class_names=IRIS_NAMES)
    drawn = "\n".join(t.get_text() for t in ax.texts)
    assert "petal L" in drawn
    assert "class = setosa" in drawn
    assert "feature_" not in drawn


# --- to_dot ---


QUOTED = re.compile(r'"(?:[^"\\\n]|\\.)*"')


def check_dot(dot, estimator):
    """Structural checks of DOT text that need no graphviz."""
    tree = estimator.tree_
    lines = dot.strip().splitlines()
    assert lines[0] == "digraph Tree {"
    assert lines[-1] == "}"
    bare = QUOTED.sub('""', dot)  # every quoted string is well terminated ...
    assert '"' not in bare.replace('""', "")  # ... and no stray quote is left
    assert bare.count("{") == bare.count("}") == 1
    edges = re.findall(r"^(\d+) -> (\d+) \[", dot, re.M)
    assert len(edges) == tree.node_count - 1
    children = sorted(int(child) for _, child in edges)
    assert children == list(range(1, tree.node_count))
    for parent, child in edges:
        assert tree.parent[int(child)] == int(parent)
    declared = re.findall(r"^(\d+) \[label=", dot, re.M)
    assert sorted(map(int, declared)) == list(range(tree.node_count))


@pytest.mark.parametrize("max_depth", [2, None])
def test_dot_is_valid_for_iris(iris, max_depth):
    X, y = iris
    estimator = CARTClassifier(max_depth=max_depth).fit(X, y)
    dot = to_dot(estimator)
    check_dot(dot, estimator)
    threshold = estimator.tree_.threshold[0]
    assert f'0 -> 1 [label="<= {threshold:.3f}"] ;' in dot
    assert f'0 -> 2 [label="> {threshold:.3f}"] ;' in dot
    assert "fillcolor" not in dot


def test_dot_multiway_and_subset_labels():
    X, y = weather()
    id3 = ID3Classifier().fit(X, y)
    dot = to_dot(id3)
    check_dot(dot, id3)
    assert dot.count("->") == 7
    assert '[label="= overcast"]' in dot
    assert '[label="= sunny"]' in dot
    cart = CARTClassifier().fit(X, y)
    dot = to_dot(cart)
    check_dot(dot, cart)
    assert '[label="in {' in dot


def test_dot_filled_colours_every_node(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=3).fit(X, y)
    dot = to_dot(estimator, filled=True)
    check_dot(dot, estimator)
    colours = re.findall(r'fillcolor="(#[0-9a-f]{6})"', dot)
    assert len(colours) == estimator.tree_.node_count
    leaves = np.flatnonzero(estimator.tree_.is_leaf)
    classes = np.argmax(estimator.tree_.value[leaves], axis=1)
    # pure leaves of different classes get different colours
    pure = estimator.tree_.impurity[leaves] == 0
    by_class = {c: colours[leaf] for c, leaf in zip(classes[pure], leaves[pure], strict=True)}
    assert len(set(by_class.values())) == len(by_class)
    regression = CARTRegressor(max_depth=2).fit(X[:, :3], X[:, 3])
    assert len(re.findall("fillcolor", to_dot(regression, filled=True))) == 7


def test_dot_escapes_quotes_and_backslashes(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=1).fit(X, y)
    names = ['say "hi"', "back\\slash", "two\nlines", "plain"]
    dot = to_dot(estimator, feature_names=names, class_names=['a "b"', "c", "d"])
    check_dot(dot, estimator)
    root = estimator.tree_.feature[0]
    escaped = names[root].replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    assert f'0 [label="{escaped}\\n' in dot
    assert 'class = a \\"b\\"' in dot


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz 'dot' is not installed")
def test_dot_renders_with_graphviz():
    X, y = weather()
    dot = to_dot(CARTClassifier().fit(X, y), filled=True)
    result = subprocess.run(
        ["dot", "-Tsvg"], input=dot, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stderr
    assert "<svg" in result.stdout


# --- plot_tree ---


def node_boxes(ax):
    return [t for t in ax.texts if t.get_bbox_patch() is not None]


def assert_no_overlap(ax):
    """No two texts overlap: node boxes (with their frames) and branch labels."""
    figure = ax.figure
    renderer = figure.canvas.get_renderer()
    figure.draw(renderer)
    extents = [
        t.get_bbox_patch().get_window_extent(renderer)
        if t.get_bbox_patch() is not None
        else t.get_window_extent(renderer)
        for t in ax.texts
    ]
    for i, a in enumerate(extents):
        for b in extents[i + 1 :]:
            assert not a.overlaps(b), (ax.texts[i].get_text(), a, b)


@pytest.mark.parametrize("figsize", [None, (6, 4)])
def test_plot_c45_watermelon_3_labels_do_not_overlap(figsize):
    """Regression: sibling labels of a multiway node once overlapped ("= slightly
    hollow" ran into "= flat") on the C4.5 tree of watermelon 3.0."""
    from mltrees.datasets import load_watermelon

    X, y = load_watermelon("3.0", return_X_y=True)
    estimator = C45Classifier().fit(X, y)
    ax = None if figsize is None else plt.subplots(figsize=figsize)[1]
    ax = plot_tree(estimator, decimals=4, ax=ax)
    assert len(node_boxes(ax)) == estimator.tree_.node_count
    assert_no_overlap(ax)


def test_plot_weather_multiway(tmp_path, monkeypatch):
    monkeypatch.setattr(plt, "show", lambda *a, **k: pytest.fail("plot_tree called show()"))
    X, y = weather()
    estimator = ID3Classifier().fit(X, y)
    ax = plot_tree(estimator)
    assert isinstance(ax, matplotlib.axes.Axes)
    assert not ax.axison
    boxes = node_boxes(ax)
    assert len(boxes) == estimator.tree_.node_count
    labels = [t.get_text() for t in ax.texts if t.get_bbox_patch() is None]
    assert sorted(labels) == sorted(
        ["= overcast", "= rain", "= sunny", "= false", "= true", "= high", "= normal"]
    )
    assert len(ax.lines) == estimator.tree_.node_count - 1
    assert_no_overlap(ax)
    ax.figure.savefig(tmp_path / "weather.png")
    assert (tmp_path / "weather.png").stat().st_size > 0


def test_plot_layout_centres_parents(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=3).fit(X, y)
    tree = estimator.tree_
    ax = plot_tree(estimator)
    boxes = node_boxes(ax)
    assert len(boxes) == tree.node_count
    # boxes are drawn in node order: check depth and centring from their positions
    xy = np.array([box.get_position() for box in boxes])
    np.testing.assert_array_equal(-xy[:, 1], tree.depth)
    internal = np.flatnonzero(~tree.is_leaf)
    first, last = tree.first_child[internal], tree.first_child[internal] + 1
    np.testing.assert_allclose(xy[internal, 0], (xy[first, 0] + xy[last, 0]) / 2)
    leaf_x = np.sort(xy[tree.is_leaf, 0])
    np.testing.assert_allclose(leaf_x, np.arange(tree.n_leaves))
    assert_no_overlap(ax)


def test_plot_on_existing_axes(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=2).fit(X, y)
    _, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    n_figures = len(plt.get_fignums())
    returned = plot_tree(estimator, ax=right, fontsize=7)
    assert returned is right
    assert len(plt.get_fignums()) == n_figures
    assert len(node_boxes(right)) == estimator.tree_.node_count
    assert not left.texts
    assert all(t.get_fontsize() == 7 for t in node_boxes(right))


def test_plot_max_depth_draws_placeholders(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=3).fit(X, y)
    tree = estimator.tree_
    ax = plot_tree(estimator, max_depth=1)
    hidden_internal = (~tree.is_leaf) & (tree.depth == 2)
    shown_boxes = (tree.depth <= 1) | (tree.is_leaf & (tree.depth == 2))
    assert len(node_boxes(ax)) == shown_boxes.sum()
    assert sum(t.get_text() == "(...)" for t in ax.texts) == hidden_internal.sum()


def test_plot_regression_and_empty_branch(iris):
    X, _ = iris
    regression = CARTRegressor(max_depth=2).fit(X[:, :3], X[:, 3])
    ax = plot_tree(regression, decimals=2)
    texts = [t.get_text() for t in node_boxes(ax)]
    assert len(texts) == regression.tree_.node_count
    assert all(re.search(r"value = -?\d+\.\d\d", t) for t in texts)
    X, y = with_empty_branch()
    ax = plot_tree(ID3Classifier().fit(X, y))
    assert sum("(empty branch)" in t.get_text() for t in node_boxes(ax)) == 1


# --- bad input ---

FUNCTIONS = [export_text, to_dot, plot_tree]


@pytest.mark.parametrize("function", FUNCTIONS)
def test_unfitted_estimator(function):
    with pytest.raises(NotFittedError):
        function(CARTClassifier())
    assert issubclass(NotFittedError, ValueError)


@pytest.mark.parametrize("function", FUNCTIONS)
def test_not_an_mltrees_estimator(function, iris):
    X, y = iris
    with pytest.raises(TypeError, match=r"mltrees tree estimator.*DecisionTreeClassifier"):
        function(SklearnTree(max_depth=1).fit(X, y))
    with pytest.raises(TypeError, match="mltrees tree estimator"):
        function("not a tree")


@pytest.mark.parametrize("function", FUNCTIONS)
def test_bad_names_and_decimals(function, iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=1).fit(X, y)
    with pytest.raises(ValueError, match=r"feature_names has 3 entries.*4 features"):
        function(estimator, feature_names=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"class_names has 2 entries.*3 classes"):
        function(estimator, class_names=["a", "b"])
    with pytest.raises(TypeError, match="feature_names must be a list"):
        function(estimator, feature_names="abcd")
    with pytest.raises(ValueError, match="decimals must be an int >= 0"):
        function(estimator, decimals=-1)
    with pytest.raises(ValueError, match="decimals must be an int >= 0"):
        function(estimator, decimals=1.5)
    regression = CARTRegressor(max_depth=1).fit(X[:, :3], X[:, 3])
    with pytest.raises(ValueError, match="class_names applies to classifiers only"):
        function(regression, class_names=["a"])


@pytest.mark.parametrize("function", [export_text, plot_tree])
def test_bad_max_depth(function, iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=1).fit(X, y)
    with pytest.raises(ValueError, match="max_depth must be an int >= 0 or None"):
        function(estimator, max_depth=-1)


def test_bad_fontsize(iris):
    X, y = iris
    estimator = CARTClassifier(max_depth=1).fit(X, y)
    with pytest.raises(ValueError, match="fontsize must be a positive number"):
        plot_tree(estimator, fontsize=0)

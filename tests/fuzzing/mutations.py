"""Structured damage to model files: random edits, systematic field sweeps, size attacks.

The families follow the reliability review of the format:

* ``random``: one to five edits of a parsed document (deleted keys, values of
  another type, numbers replaced by extreme ones, list entries removed,
  duplicated or swapped, dtype and class names changed, values wrapped in
  lists, child links pointed at the root, at themselves or out of range,
  feature indices out of range, thresholds as strings);
* ``sweep``: every numeric field (first and last entry of every array) set
  in turn to each extreme value of its type (NaN, +-inf, +-1e308, -1 for
  floats; -1, -3, 0, the number of features, 1e6, 2**31, 2**62 for
  integers);
* ``text``: bytes flipped, the file truncated, invalid UTF-8, nesting 100 to
  100,000 deep, non-standard ``NaN`` tokens;
* ``size``: small files that declare or reference a lot (a tree referenced
  thousands of times, a header of 1e12 entries, 1e6 classes or features,
  category codes near 2**24, bitsets of a million words).

Each generator yields ``(family, description, payload)``; the payload is the
damaged file as ``str`` (or ``bytes`` for invalid UTF-8).
"""

from __future__ import annotations

import contextlib
import copy
import json
import re

import numpy as np

FLOAT_VALUES = ("NaN", "Infinity", "-Infinity", 1e308, -1e308, -1.0, 0.0)
INT_VALUES = (-1, -3, 0, "n_features", 10**6, 2**31, 2**62, 2**70)
SWAP_VALUES = (None, "x", 1.5, {}, [], True, {"ref": 0}, {"tuple": 3}, [[[[1]]]])
STRING_VALUES = (
    "float64",
    "object",
    "<U3",
    "<U999999",
    "Tree",
    "NaN",
    "",
    "int8",
    "abc",
    "os.system",
)
NUMBER_VALUES = (-1, 0, 1, 10**9, -(10**9), 2**63, 2**70, 0.5, 1e308, -1e308)
NAN_TOKENS = ("NaN", "Infinity", "-Infinity")


# ---------------------------------------------------------------- JSON positions


def positions(value, path=(), *, long_list=8):
    """Every (path, value) of a JSON value; long lists give their first, middle and last entries."""
    yield path, value
    if isinstance(value, dict):
        for key, item in value.items():
            yield from positions(item, (*path, key), long_list=long_list)
    elif isinstance(value, list):
        n = len(value)
        picks = range(n) if n <= long_list else sorted({0, 1, n // 2, n - 1})
        for i in picks:
            yield from positions(value[i], (*path, i), long_list=long_list)


def _get(document, path):
    for key in path:
        document = document[key]
    return document


def _set(document, path, value):
    _get(document, path[:-1])[path[-1]] = value


def _is_number(value) -> bool:
    return type(value) in (int, float)


def _numeric_string(value) -> bool:
    if not isinstance(value, str) or len(value) > 40:
        return False
    try:
        float(value.strip("[]"))
    except ValueError:
        return value in NAN_TOKENS
    return True


def number_positions(document):
    """Paths of every number (and numeric string) in a document, with its type ("int"/"float")."""
    out = []
    for path, value in positions(document):
        if not path:
            continue
        if _is_number(value):
            kind = "int" if type(value) is int else "float"
            parent = _get(document, path[:-2]) if len(path) >= 2 else None
            if isinstance(parent, dict) and str(parent.get("ndarray", "")).startswith("float"):
                kind = "float"  # an mltrees float array written as integers
            out.append((path, kind))
        elif _numeric_string(value):
            out.append((path, "float"))
    return out


def _n_features(document) -> int:
    """A plausible number of features of the model (for the "n_features" sweep value)."""
    text = json.dumps(document)
    for pattern in (r'"n_features_in_": (\d+)', r'"num_feature": "(\d+)"'):
        match = re.search(pattern, text)
        if match:
            return int(match.group(1))
    return 5


def _sweep_value(value, n_features, as_string):
    if value == "n_features":
        return n_features
    if as_string and not isinstance(value, str):
        return repr(float(value)) if isinstance(value, float) else str(value)
    return value


def sweep_edits(document) -> list:
    """Every (path, value) of the sweep: each numeric position, each extreme value of its type."""
    n_features = _n_features(document)
    out = []
    for path, kind in number_positions(document):
        old = _get(document, path)
        values = FLOAT_VALUES if kind == "float" else INT_VALUES
        for value in values:
            new = _sweep_value(value, n_features, as_string=isinstance(old, str))
            if new != old:
                out.append((path, new))
    return out


def apply_sweep(document, edits):
    """The damaged files of the chosen sweep ``edits`` (one edit each)."""
    for path, new in edits:
        old = _get(document, path)
        _set(document, path, new)  # in place, then back: no copy of the document
        try:
            text = json.dumps(document)
        finally:
            _set(document, path, old)
        where = "/".join(map(str, path))[-90:]
        yield "sweep", f"{where} = {new!r}"[:160], text


# ---------------------------------------------------------------- random edits


def _tree_states(document):
    return [
        value["state"]
        for _, value in positions(document)
        if isinstance(value, dict)
        and value.get("object") in ("Tree", "ObliqueTree")
        and isinstance(value.get("state"), dict)
    ]


def edit(document, rng):
    """One random edit of a parsed document, in place; returns its description."""
    places = [p for p, _ in positions(document) if p]
    path = places[rng.integers(len(places))]
    parent = _get(document, path[:-1])
    key = path[-1]
    old = parent[key]
    where = "/".join(map(str, path))[-70:]
    choice = int(rng.integers(11))
    if choice == 0 and isinstance(parent, dict):
        del parent[key]
        return f"delete {where}"
    if choice == 1:
        parent[key] = copy.deepcopy(SWAP_VALUES[rng.integers(len(SWAP_VALUES))])
        return f"type swap {where}"
    if choice == 2 and (_is_number(old) or _numeric_string(old)):
        parent[key] = NUMBER_VALUES[rng.integers(len(NUMBER_VALUES))]
        return f"number {where} = {parent[key]!r}"
    if choice == 3 and isinstance(old, list) and old:
        old.pop(int(rng.integers(len(old))))
        return f"pop {where}"
    if choice == 4 and isinstance(old, list):
        old.append(copy.deepcopy(old[0]) if old else 0)
        return f"append {where}"
    if choice == 5 and isinstance(old, list) and len(old) > 1:
        i, j = rng.integers(len(old), size=2)
        old[i], old[j] = old[j], old[i]
        return f"swap {where}"
    if choice == 6 and isinstance(old, str):
        parent[key] = STRING_VALUES[rng.integers(len(STRING_VALUES))]
        return f"string {where} = {parent[key]!r}"
    if choice == 7:
        parent[key] = [[[[old]]]]
        return f"wrap {where}"
    trees = _tree_states(document)
    if choice in (8, 9) and trees:
        state = trees[rng.integers(len(trees))]
        field = ["first_child", "parent", "depth", "n_children"][rng.integers(4)]
        if choice == 9:
            field = ["feature", "surrogate_feature"][rng.integers(2)]
        array = state.get(field)
        data = array.get("data") if isinstance(array, dict) else None
        if isinstance(data, list) and data:
            i = int(rng.integers(len(data)))
            n = len(data)
            data[i] = int([0, i, -1, -3, n, n + 7, 10**6, 2**62][rng.integers(8)])
            return f"link {field}[{i}] = {data[i]}"
    if choice == 10 and (_is_number(old) or _numeric_string(old)):
        parent[key] = ["0.5", "abc", "nan", "Infinity", "1e999", "-0x10"][rng.integers(6)]
        return f"number as string {where} = {parent[key]!r}"
    parent[key] = NUMBER_VALUES[rng.integers(len(NUMBER_VALUES))]
    return f"number {where} = {parent[key]!r}"


def random_edits(document, rng, n_cases):
    for _ in range(n_cases):
        damaged = copy.deepcopy(document)
        steps = [edit(damaged, rng) for _ in range(int(rng.integers(1, 6)))]
        yield "random", "; ".join(steps)[:200], json.dumps(damaged)


# ---------------------------------------------------------------- text damage


def text_damage(text, rng, n_cases):
    """Bytes flipped, truncation, invalid UTF-8, NaN tokens, deep nesting."""
    data = text.encode("utf-8")
    kinds = ("flip", "truncate", "utf8", "nan-token", "nesting")
    for case in range(n_cases):
        kind = kinds[case % len(kinds)]
        if kind == "flip":
            damaged = bytearray(data)
            for i in rng.integers(len(data), size=int(rng.integers(1, 6))):
                damaged[i] ^= int(rng.integers(1, 256))
            payload = bytes(damaged)
            with contextlib.suppress(UnicodeDecodeError):
                payload = payload.decode("utf-8")
            yield "text", "bytes flipped", payload
        elif kind == "truncate":
            cut = int(rng.integers(len(text)))
            yield "text", f"truncated at {cut}", text[:cut]
        elif kind == "utf8":
            at = int(rng.integers(len(data)))
            yield "text", f"invalid UTF-8 at {at}", data[:at] + b"\xff\xfe\xc3" + data[at:]
        elif kind == "nan-token":
            numbers = [m.span() for m in re.finditer(r"(?<=[:\[,] )-?\d+\.\d+(e-?\d+)?", text)]
            if not numbers:
                numbers = [m.span() for m in re.finditer(r"(?<=[:\[,])-?\d+\.\d+", text)]
            if not numbers:
                continue
            start, stop = numbers[rng.integers(len(numbers))]
            token = NAN_TOKENS[rng.integers(3)]
            yield "text", f"{token} token", text[:start] + token + text[stop:]
        else:
            depth = int([100, 1000, 100_000][rng.integers(3)])
            colons = [m.end() for m in re.finditer(r'": ?', text)]
            if not colons:  # not JSON: a line of garbage instead
                at = int(rng.integers(len(text)))
                yield (
                    "text",
                    f"a line of {depth} brackets",
                    text[:at] + "\n" + "[" * depth + "\n" + text[at:],
                )
                continue
            at = colons[rng.integers(len(colons))]
            end = re.search(r"[,}\]]", text[at:])
            stop = at + (end.start() if end else 0)
            nested = "[" * depth + "1" + "]" * depth
            yield "text", f"nesting {depth}", text[:at] + nested + text[stop:]


# ---------------------------------------------------------------- size attacks


def mltrees_size_attacks(document):
    """Small mltrees files that declare or reference far more than they store."""
    text = json.dumps(document)
    # A tree (or member) referenced many times: copy the position of the
    # first list of trees and append references to its first entry.
    table = _reference_table(document)
    for path, value in positions(document, long_list=1):
        if not (isinstance(value, list) and value and isinstance(value[0], dict)):
            continue
        first = value[0]
        inner = first[0] if isinstance(first, list) and first else first
        if not isinstance(inner, dict) or not ({"object", "estimator"} & set(inner)):
            continue
        ref = table.get(id(inner))
        if ref is None:
            continue
        for copies in (1_000, 100_000):
            damaged = copy.deepcopy(document)
            target = _get(damaged, path)
            item = [{"ref": ref}] * len(first) if isinstance(first, list) else {"ref": ref}
            target.extend([item] * copies)
            where = "/".join(map(str, path))[-60:]
            yield "size", f"{where}: +{copies} references", json.dumps(damaged)
        break
    # Declared sizes and shapes.
    for pattern, values in (
        (r'("n_classes_": )(\d+)', (10**6, 10**7, 2**62)),
        (r'("n_features_in_": )(\d+)', (10**6, 10**9)),
        (r'("n_outputs_": )(\d+)', (10**6,)),
        (r'("n_codes": )(\d+)', (2**40,)),
        (r'("max_features_": )(\d+)', (10**9,)),
    ):
        if re.search(pattern, text):
            for value in values:
                damaged = re.sub(pattern, lambda m, v=value: f"{m.group(1)}{v}", text, count=1)
                yield "size", f"{pattern.split(':')[0][3:]} = {value}", damaged
    for shape in ([10**12], [10**6, 10**6], [2**31, 2**31, 4]):
        damaged = re.sub(
            r'"shape": \[\d+(, \d+)*\]', f'"shape": {json.dumps(shape)}', text, count=1
        )
        yield "size", f"shape {shape}", damaged
    # One tree with 10**5 extra nodes (every node array grown, same content).
    states = _tree_states(copy.deepcopy(document))
    if states:
        damaged = copy.deepcopy(document)
        state = _tree_states(damaged)[0]
        for field in state.values():
            if isinstance(field, dict) and "ndarray" in field and field["shape"]:
                rows = field["shape"][0]
                width = int(np.prod(field["shape"][1:], dtype=np.int64))
                field["data"] = field["data"] + field["data"][:width] * 100_000
                field["shape"] = [rows + 100_000, *field["shape"][1:]]
        yield "size", "a tree with 100000 extra nodes", json.dumps(damaged)


def _reference_table(document) -> dict:
    """id(JSON dict) -> the reference number the decoder gives it (decoding order)."""
    table: dict = {}
    counter = [0]

    def walk(value):
        if isinstance(value, list):
            for item in value:
                walk(item)
            return
        if not isinstance(value, dict):
            return
        if set(value) == {"ref"}:
            return
        if "ndarray" in value:
            for item in value.get("data", []):
                walk(item)
        elif "object" in value:
            for item in value.get("state", {}).values():
                walk(item)
        elif "estimator" in value:
            for item in value.get("params", {}).values():
                walk(item)
            for item in value.get("fitted", {}).values():
                walk(item)
        else:
            for item in value.values():
                walk(item)
            return
        table[id(value)] = counter[0]
        counter[0] += 1

    walk(document["model"])
    return table


def xgboost_size_attacks(document):
    """XGBoost files with huge declared sizes or category codes."""
    model = document["learner"]["gradient_booster"]["model"]
    param = document["learner"]["learner_model_param"]
    for key, values in (
        ("num_feature", ("1000000000", "1e12", "-5")),
        ("num_class", ("10000000000", "100000")),
    ):
        for value in values:
            damaged = copy.deepcopy(document)
            damaged["learner"]["learner_model_param"][key] = value
            yield "size", f"{key} = {value}", json.dumps(damaged)
    for base in ("inf", "-inf", "nan", "1e999", "[" + ",".join(["0.5"] * 100_000) + "]"):
        damaged = copy.deepcopy(document)
        damaged["learner"]["learner_model_param"]["base_score"] = base
        yield "size", f"base_score = {base[:20]}", json.dumps(damaged)
    del param
    # Category code 2**24 - 1 on every internal node of the first trees.
    for n_trees in (1, 8):
        damaged = copy.deepcopy(document)
        for tree in damaged["learner"]["gradient_booster"]["model"]["trees"][:n_trees]:
            internal = [i for i, c in enumerate(tree["left_children"]) if c >= 0]
            tree["split_type"] = [
                1 if i in internal else 0 for i in range(len(tree["left_children"]))
            ]
            tree["categories_nodes"] = internal
            tree["categories_segments"] = list(range(len(internal)))
            tree["categories_sizes"] = [1] * len(internal)
            tree["categories"] = [2**24 - 1] * len(internal)
        yield "size", f"category code 2**24-1 on {n_trees} tree(s)", json.dumps(damaged)
    # Many trees repeated (a larger file, but each tree costs what it stores).
    damaged = copy.deepcopy(document)
    trees = damaged["learner"]["gradient_booster"]["model"]["trees"]
    damaged["learner"]["gradient_booster"]["model"]["trees"] = trees * 200
    damaged["learner"]["gradient_booster"]["model"]["tree_info"] = model["tree_info"] * 200
    yield "size", "200 copies of the trees", json.dumps(damaged)


def lightgbm_size_attacks(text):
    for key, value in (
        ("max_feature_idx", "10000000000"),
        ("max_feature_idx", "1000000000000"),
        ("max_feature_idx", "-7"),
        ("num_tree_per_iteration", "100000000"),
        ("num_class", "100000000"),
        ("num_leaves", "16777216"),
        ("num_cat", "100000000"),
    ):
        damaged, count = re.subn(rf"(?m)^{key}=.*$", f"{key}={value}", text, count=1)
        if count:
            yield "size", f"{key}={value}", damaged
    for words in (10_000, 100_000, 1_000_000):
        extra = " " + " ".join(["4294967295"] * words)
        damaged, count = re.subn(
            r"(?m)^(cat_threshold=.*)$", lambda m, e=extra: m.group(1) + e, text, count=1
        )
        if count:
            damaged = _fix_boundaries(damaged, words)
            yield "size", f"cat_threshold +{words} words", damaged
    for objective in (
        "multiclassova num_class:3",
        "binary sigmoid:inf",
        "binary sigmoid:nan",
        "binary sigmoid:abc",
        "binary sigmoid:-1",
    ):
        damaged, count = re.subn(r"(?m)^objective=.*$", f"objective={objective}", text, count=1)
        if count:
            yield "size", f"objective={objective}", damaged


def _fix_boundaries(text, words):
    """Make the last cat_boundaries of the damaged tree cover the extra words."""

    def grow(match):
        values = match.group(2).split()
        values[-1] = str(int(values[-1]) + words)
        return match.group(1) + " ".join(values)

    return re.sub(r"(?m)^(cat_boundaries=)(.*)$", grow, text, count=1)


def catboost_size_attacks(document):
    trees = document.get("oblivious_trees")
    if trees:
        tree = trees[0]
        for depth in (20, 40):
            damaged = copy.deepcopy(document)
            first = damaged["oblivious_trees"][0]
            first["splits"] = (tree["splits"] * depth)[:depth]
            yield (
                "size",
                f"an oblivious tree of depth {depth}, its leaves unchanged",
                json.dumps(damaged),
            )
        damaged = copy.deepcopy(document)
        damaged["oblivious_trees"] = trees * 5000
        yield "size", "5000 copies of the trees", json.dumps(damaged)
    features = document["features_info"].get("float_features", [])
    if features:
        for key, value in (
            ("flat_feature_index", 10**9),
            ("feature_index", 2**62),
            ("flat_feature_index", -1),
        ):
            damaged = copy.deepcopy(document)
            damaged["features_info"]["float_features"][0][key] = value
            yield "size", f"float_features[0].{key} = {value}", json.dumps(damaged)
    damaged = copy.deepcopy(document)
    damaged["scale_and_bias"] = [1, [0.0] * 1_000_000]
    yield "size", "a bias of 1e6 dimensions", json.dumps(damaged)


# ---------------------------------------------------------------- LightGBM text


LGB_TOKENS = ("-1", "1e10", "nan", "inf", "-inf", "1e400", "abc", "0x10", str(2**62), "")


def lightgbm_sweep(text):
    """Each key=value of the header and of the first and last trees, edited in turn."""
    lines = text.splitlines()
    tree_starts = [i for i, line in enumerate(lines) if line.startswith("Tree=")]
    end = next((i for i, line in enumerate(lines) if line.startswith("end of trees")), len(lines))
    keep = set(range(tree_starts[0] if tree_starts else end))
    for start in tree_starts[:1] + tree_starts[-1:]:
        stop = next((t for t in tree_starts if t > start), end)
        keep |= set(range(start, stop))
    for i in sorted(keep):
        line = lines[i]
        if "=" not in line or line.startswith("Tree="):
            continue
        key, _, value = line.partition("=")
        tokens = value.split()
        for position in sorted({0, len(tokens) - 1}) if tokens else [None]:
            for token in LGB_TOKENS:
                if position is None:
                    new = token
                else:
                    new = " ".join([*tokens[:position], token, *tokens[position + 1 :]])
                damaged = [*lines[:i], f"{key}={new}", *lines[i + 1 :]]
                yield "sweep", f"line {i} {key}[{position}] = {token!r}", "\n".join(damaged) + "\n"


def lightgbm_random(text, rng, n_cases):
    lines = text.splitlines()
    for _ in range(n_cases):
        damaged = list(lines)
        steps = []
        for _ in range(int(rng.integers(1, 4))):
            i = int(rng.integers(len(damaged)))
            choice = int(rng.integers(5))
            if choice == 0:
                del damaged[i]
                steps.append(f"delete line {i}")
            elif choice == 1:
                damaged.insert(i, damaged[i])
                steps.append(f"duplicate line {i}")
            elif choice == 2:
                j = int(rng.integers(len(damaged)))
                damaged[i], damaged[j] = damaged[j], damaged[i]
                steps.append(f"swap lines {i} {j}")
            elif "=" in damaged[i]:
                key, _, value = damaged[i].partition("=")
                tokens = value.split()
                if tokens:
                    k = int(rng.integers(len(tokens)))
                    tokens[k] = (
                        LGB_TOKENS[rng.integers(len(LGB_TOKENS))]
                        if choice == 3
                        else tokens[k] + " " + tokens[k]
                    )
                damaged[i] = f"{key}={' '.join(tokens)}"
                steps.append(f"token of {key}")
        yield "random", "; ".join(steps), "\n".join(damaged) + "\n"

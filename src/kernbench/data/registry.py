"""The dataset registry: one entry per built-in dataset, and one per dataset of the config's ``catalog``.

An entry (:class:`DatasetSpec`) carries everything kernbench knows of a dataset:
its raw files (path, size, sha256 and where they come from), the paper and
task its runs serve, whether its prepared table has ``tokens``, and the
function that parses its raw files into the prepared table. A built-in corpus
is its parser and one entry of :data:`BUILTIN_DATASETS`.

Raw-file paths are relative to the data mirror (config ``data.mirror``) and to
``<results_dir>/raw``. Where the exact bytes have a public https download,
``downloads`` lists it: the file itself, or an archive and the file's path inside
it. Files without one can only come from a mirror; ``RawDataset.source`` then says
where a user obtains them. Each dataset's ``PROVENANCE.md`` in the mirror records
where its files came from and why the digests below are the right ones.

A catalog entry (:func:`catalog_dataset`) has one raw file: the user's file,
copied from where it is rather than from the mirror, with the digest the entry
gives.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import quote

from kernbench.catalog_config import CatalogEntry, from_environment


@dataclass(frozen=True)
class Download:
    """One public location of a raw file.

    Attributes
    ----------
    url : str
        Where to download from.
    member : str or None
        Path of the file inside the archive at ``url``; None when ``url`` is the file itself.
    """

    url: str
    member: str | None = None


@dataclass(frozen=True)
class RawFile:
    """One raw file as published.

    Attributes
    ----------
    path : str
        Path relative to the mirror directory.
    size : int
        Size in bytes.
    sha256 : str
        Hex digest of the exact bytes.
    downloads : tuple of Download
        Public download locations, tried in order after the mirror.
    local : str
        Absolute path of a file outside the mirror (a catalog dataset's), the only place it is copied
        from; empty for the registered files.
    """

    path: str
    size: int
    sha256: str
    downloads: tuple[Download, ...] = ()
    local: str = ""


@dataclass(frozen=True)
class RawDataset:
    """The raw files of one dataset, fetched together by one rule."""

    name: str
    source: str
    files: tuple[RawFile, ...]


#: Tasks a dataset can have, each with its protocol: single-label classification scored by accuracy;
#: per-category ranking scored by average precision; 1-5 star ordinal regression scored by MAE^M.
TASKS = ("classification", "ranking", "ordinal")


@dataclass(frozen=True)
class DatasetSpec:
    """One dataset: its raw files, the paper and task it serves, and how it is prepared.

    Attributes
    ----------
    name : str
        Name used in config, file names and tables.
    paper : str
        Paper (and MLflow experiment) its runs are filed under.
    task : {"classification", "ranking", "ordinal"}
        One of :data:`TASKS`.
    parse : str
        ``"module:function"`` turning the raw files into the prepared table:
        ``function(paths, *, dev_fraction, seed) -> pandas.DataFrame``, ``paths`` the fetched
        files in the order of ``raw.files``; ``dev_fraction`` and ``seed`` set the dev hold-out of a
        dataset without dev rows.
    raw : RawDataset
        Its raw files.
    tokenised : bool
        Whether the prepared table has ``tokens`` (the any-gram kernels and LSTMs need them).
    aspect_terms : bool
        Whether it has aspect terms and a dev split held out by seed (the SemEval sets: NGTK and
        the dev-split sensitivity rows need them).
    categories : tuple of str
        For a ranking dataset, the categories ranked (one binary problem each).
    builtin : bool
        False for a dataset of the config's ``catalog``.
    """

    name: str
    paper: str
    task: str
    parse: str
    raw: RawDataset
    tokenised: bool = False
    aspect_terms: bool = False
    categories: tuple[str, ...] = ()
    builtin: bool = True

    def cell(self, category: str) -> str:
        """The ``dataset`` of a table row for one category of this ranking dataset.

        A built-in dataset's category is the row's name (the paper's table cells); a catalog
        dataset's is qualified by the dataset, ``<name>/<category>``, so that two corpora with a
        category of the same name stay apart.
        """
        return category if self.builtin else f"{self.name}/{category}"


def _github_raw(repo: str, commit: str, path: str) -> str:
    """Download URL of ``path`` in a public GitHub repository, pinned to ``commit`` so the bytes cannot change."""
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{quote(path)}"


_SEMEVAL_SOURCE = (
    "SemEval-2014 Task 4 (Pontiki et al., 2014). The organisers distribute it through META-SHARE after "
    "registration (http://alt.qcri.org/semeval2014/task4/); the download is a third-party copy with the "
    "registered bytes. Otherwise place the training v2 and gold test XML files in <mirror>/semeval14/."
)
_SEMEVAL_COPY = ("shenwzh3/RGAT-ABSA", "26b9b869e02347c15c4ef96fdf4584034a163c8b", "data/semeval14")
_SST_SOURCE = "Stanford Sentiment Treebank (Socher et al., 2013), trainDevTestTrees_PTB.zip."
_SST_ZIP = "https://nlp.stanford.edu/sentiment/trainDevTestTrees_PTB.zip"
_SST_COPY = ("munikarmanish/RNTN", "12bb731ba9fbdcdf2368b8515a241773f2b97547", "trees")
_REUTERS_SOURCE = "Reuters-21578, Distribution 1.0 (D. D. Lewis), UCI KDD archive."
_REUTERS_TAR = "https://kdd.ics.uci.edu/databases/reuters21578/reuters21578.tar.gz"
_REUTERS_COPY = ("colibri17/TextCategorization", "b6c2ca3d46a2540843400890792e5165448b4516", "reuters21578")
_CLOTHING_SOURCE = (
    "Women's E-Commerce Clothing Reviews (Kaggle, nicapotato, CC0); split_suggested.tsv is kernbench's "
    "seeded split of it and has no download: place both in "
    "<mirror>/reviews/womens-clothing-ecommerce-reviews/ (see that folder's PROVENANCE.md)."
)
_CLOTHING_ZIP = _github_raw(
    "irmakozveren01/Womens-clothing-text-analysis",
    "18e084eca89ca3f0fe66ee29933876c2e8b909af",
    "Womens Clothing E-Commerce Reviews.csv.zip",
)
_HOTEL_SOURCE = (
    "The TripAdvisor sample of Wang, Lu & Zhai (2011) as shipped in the R package sentimentr "
    "(hotel_reviews), converted to JSON lines, with kernbench's seeded split; neither file has a download. "
    "Place reviews.jsonl and split_suggested.tsv in <mirror>/reviews/tripadvisor-wang2011-sample5000/ "
    "(see that folder's PROVENANCE.md)."
)


def _copy(repo_commit_folder: tuple[str, str, str], name: str) -> Download:
    repo, commit, folder = repo_commit_folder
    return Download(_github_raw(repo, commit, f"{folder}/{name}"))



_REUTERS_FILES = (
    ("reut2-000.sgm", 1324350, "0ec53cda8f6d605a3ba710df14be7f00fc02f0c222a14748101df22326afe0f6"),
    ("reut2-001.sgm", 1254440, "1528e7e82d110d88d0234eb9619eadb7f9fd805711971df05975b92277dfdf4d"),
    ("reut2-002.sgm", 1217495, "99f18068d0518952987dedd78c622e5c2a584e357d264d3754696c815f3e6628"),
    ("reut2-003.sgm", 1298721, "78a3a8d7e04bc9d42c4614d5d5c60a4293dbe3f708df6fb5a71d9ef31f4b3fa3"),
    ("reut2-004.sgm", 1321623, "726342c19a65873330b412378cd6a3f0d512035f5223146ddd60930c62eb6ff0"),
    ("reut2-005.sgm", 1388644, "d09de619b6dd2d047d5124681f6df90550abaf592020d1c1ce338ae9b91522e7"),
    ("reut2-006.sgm", 1254765, "b5535c0d66b01f4976f84621a4a795afbc00d2c4bd0a1b7ae426df6630fb361d"),
    ("reut2-007.sgm", 1256772, "aa706007ec84a03537a3921ca976d60e11b3f99e4b9e9b2d5c81dd384d2c2062"),
    ("reut2-008.sgm", 1410117, "a3994583694a00b7c744097c1d7eabfcf90f2e6650cc21663e46828035a336cb"),
    ("reut2-009.sgm", 1338903, "29995f606dd1a9bdf907eacc9d879846c716860d9d9141676979474aaea39c7d"),
    ("reut2-010.sgm", 1371071, "996df6008089bd09fa5b28a4d2eb0ee5f7b9d4601cde566fed3926ac82960fa3"),
    ("reut2-011.sgm", 1304117, "d3a2782015247d9c2bffb8926267827fdd449c70d619435ef01a25a1c56a53ca"),
    ("reut2-012.sgm", 1323584, "da31035d483851f2aebce5b66d779e5e2c0ac9dcfe098596c6d544e81c5604ab"),
    ("reut2-013.sgm", 1129687, "8f7700bc0455fac3fcc12377ced4807b7df8aba1f21ecad059b9cc2b1cf0b8be"),
    ("reut2-014.sgm", 1128671, "ef936bd3e0f36cf722afa9a6957563549775af32e9e28b4f539c8737ceda83ab"),
    ("reut2-015.sgm", 1258665, "6d3bcec73eff871b8a5403588af814c4e50a0de6bc25707480522ab836f74026"),
    ("reut2-016.sgm", 1316417, "be2f03a185fff70131f3b4fdbd6229b7ee2be077eba9691eaa597c8cfbda8812"),
    ("reut2-017.sgm", 1546911, "f370e610b4b1342e41a98e0c426a08541044bd1d7e539674f32372a6060b73b5"),
    ("reut2-018.sgm", 1258819, "a5f971bf25448e915781962309e669359a35fbcaf3017a806eca0590897f209a"),
    ("reut2-019.sgm", 1261780, "d3b07097fba2633d130b4914aceba671645985248943ce9e39c289315339dffb"),
    ("reut2-020.sgm", 1049566, "f6ad1b724125c202566c63b35ea0b5ee23881f8b7ed47a32829d5af05d8e860d"),
    ("reut2-021.sgm", 621648, "3f5196d32869723c9042aa5756805b4e90360f1f45ea17f4594fa0e2b3630b18"),
)

#: The ten most frequent Reuters-21578 categories (ModApte), the rows of the Fisher paper's Table 1.
REUTERS_CATEGORIES = ("earn", "acq", "money-fx", "grain", "crude", "trade", "interest", "ship", "wheat", "corn")


def _semeval(name: str, files) -> DatasetSpec:
    """A SemEval-2014 domain: its training and gold test files, ``(file, size, sha256)`` each."""
    return DatasetSpec(
        name=name,
        paper="anygram",
        task="classification",
        parse="kernbench.data.semeval14:parse",
        raw=RawDataset(
            name,
            _SEMEVAL_SOURCE,
            tuple(
                RawFile(f"semeval14/{file}", size, sha256, (_copy(_SEMEVAL_COPY, file),))
                for file, size, sha256 in files
            ),
        ),
        tokenised=True,
        aspect_terms=True,
    )


#: The datasets kernbench ships with, by name.
BUILTIN_DATASETS: dict[str, DatasetSpec] = {
    spec.name: spec
    for spec in (
        _semeval(
            "semeval14_laptop",
            (
                ("Laptop_Train_v2.xml", 687312, "efec2ed73b4efb83b47c697114d800149c558118884afa80362a6e975ba7248c"),
                ("Laptops_Test_Gold.xml", 178754, "aa3a30c9dd7e0eacf9b69e898eb4118a36c1b4f391a30a08dfc41a38d8b8745b"),
            ),
        ),
        _semeval(
            "semeval14_restaurant",
            (
                (
                    "Restaurants_Train_v2.xml",
                    1235614,
                    "223601da1bded6caa4ef9cf91a7007578141ca6d8ed50d5a5c217565f89d2fc5",
                ),
                (
                    "Restaurants_Test_Gold.xml",
                    359021,
                    "f21509cfa37e16534cd5b2da043be487355b64ef48fe8d6aaacaeca6b49cc0fb",
                ),
            ),
        ),
        DatasetSpec(
            name="sst",
            paper="anygram",
            task="classification",
            parse="kernbench.data.sst:parse",
            tokenised=True,
            raw=RawDataset(
                name="sst",
                source=_SST_SOURCE,
                files=(
                    # The copy's train.txt has dev.txt appended; only the Stanford zip holds train.txt itself.
                    RawFile(
                        "sst/train.txt",
                        2160058,
                        "e2f3f41b0b1e6d4dddc0effe3bfc2d27ed8928079aa9a03d652311614fc5feb7",
                        (Download(_SST_ZIP, "trees/train.txt"),),
                    ),
                    RawFile(
                        "sst/dev.txt",
                        280825,
                        "0e9336aed6e4730e19f58d00a77b3f0297efdb755f7b5e598c98a05e3f97ea40",
                        (_copy(_SST_COPY, "dev.txt"), Download(_SST_ZIP, "trees/dev.txt")),
                    ),
                    RawFile(
                        "sst/test.txt",
                        559614,
                        "6e54806dee95cf80cd918e7dfb3f6770f6df24bf826f289a4d1f709e1c8f6761",
                        (_copy(_SST_COPY, "test.txt"), Download(_SST_ZIP, "trees/test.txt")),
                    ),
                ),
            ),
        ),
        DatasetSpec(
            name="reuters",
            paper="fisher",
            task="ranking",
            parse="kernbench.data.reuters:parse",
            categories=REUTERS_CATEGORIES,
            raw=RawDataset(
                name="reuters",
                source=_REUTERS_SOURCE,
                files=tuple(
                    RawFile(
                        f"reuters21578/{file}", size, sha256, (_copy(_REUTERS_COPY, file), Download(_REUTERS_TAR, file))
                    )
                    for file, size, sha256 in _REUTERS_FILES
                ),
            ),
        ),
        DatasetSpec(
            name="reviews_clothing",
            paper="ordinal",
            task="ordinal",
            parse="kernbench.data.reviews:parse_clothing",
            raw=RawDataset(
                name="reviews_clothing",
                source=_CLOTHING_SOURCE,
                files=(
                    RawFile(
                        "reviews/womens-clothing-ecommerce-reviews/womens_clothing_ecommerce_reviews.csv",
                        8483448,
                        "bd93cc515747ad1f87b8bc863c9e40da758509e6db6506a96d06976e61e36ee0",
                        (Download(_CLOTHING_ZIP, "Womens Clothing E-Commerce Reviews.csv"),),
                    ),
                    RawFile(
                        "reviews/womens-clothing-ecommerce-reviews/split_suggested.tsv",
                        327038,
                        "d172dbf651d4415d862d926304f5e64ad94446574a55a113994a75b4dee7a259",
                    ),
                ),
            ),
        ),
        DatasetSpec(
            name="reviews_hotel",
            paper="ordinal",
            task="ordinal",
            parse="kernbench.data.reviews:parse_hotel",
            raw=RawDataset(
                name="reviews_hotel",
                source=_HOTEL_SOURCE,
                files=(
                    RawFile(
                        "reviews/tripadvisor-wang2011-sample5000/reviews.jsonl",
                        5177284,
                        "186d13c4c0d6c9b975c4d1b8887280a72b9da7a28c7789b3ca21488673e402be",
                    ),
                    RawFile(
                        "reviews/tripadvisor-wang2011-sample5000/split_suggested.tsv",
                        123026,
                        "c5680d3e3768ce67dfe3a5b883422bd7e79f8232a4e9e07bc161484922ec9764",
                    ),
                ),
            ),
        ),
    )
}


def catalog_dataset(entry: CatalogEntry) -> DatasetSpec:
    """The registry entry of one dataset of the config's ``catalog``.

    Its one raw file is the user's file (``entry.path``, copied to ``catalog/<name>.<suffix>``
    and checked against ``entry.sha256``; its size is not checked), parsed by
    :mod:`kernbench.data.user_table` for its task.
    """
    return DatasetSpec(
        name=entry.name,
        paper=entry.paper,
        task=entry.task,
        parse=f"kernbench.data.user_table:parse_{entry.task}",
        raw=RawDataset(
            name=entry.name,
            source=(
                f"Dataset {entry.name!r} of the config's catalog: catalog.{entry.name}.path names the file, "
                f"catalog.{entry.name}.sha256 the digest it must have."
            ),
            files=(RawFile(entry.raw_path, 0, entry.sha256, local=entry.path),),
        ),
        tokenised=entry.task == "classification",
        categories=tuple(entry.categories),
        builtin=False,
    )


def raw_dataset(name: str, environ=None) -> RawDataset:
    """The raw files of dataset ``name``: a built-in one, or a catalog entry the workflow handed to this job.

    Parameters
    ----------
    name : str
        A dataset name.
    environ : mapping, optional
        Where the catalog entries are read, when called (:func:`kernbench.catalog_config.from_environment`).

    Raises
    ------
    KeyError
        With the list of known names, if ``name`` is neither.
    """
    if name in BUILTIN_DATASETS:
        return BUILTIN_DATASETS[name].raw
    entries = from_environment(environ)
    if name in entries:
        return catalog_dataset(entries[name]).raw
    raise KeyError(f"unknown dataset {name!r}; known: {', '.join([*BUILTIN_DATASETS, *entries])}")

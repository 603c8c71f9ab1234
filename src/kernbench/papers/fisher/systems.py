"""The systems of Saunders, Shawe-Taylor & Vinokourov's Table 1, without the libraries that compute them."""

#: Systems of Table 1: feature family and weighting.
SYSTEMS = {
    "BoW-TFIDF": ("bow", None),
    "ngram-uniform": ("ngram", "uniform"),
    "ngram-nonuniform": ("ngram", "nonuniform"),
    "ngram-ln": ("ngram", "ln"),
    "FSA-uniform": ("fsa", "uniform"),
    "FSA-ln": ("fsa", "ln"),
}

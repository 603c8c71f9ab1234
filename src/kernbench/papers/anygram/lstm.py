"""Uni- and bidirectional LSTM sentence classifiers (Kaljahi & Foster, Section 5.2, Table 4).

Input is a sequence of token ids into the pre-trained embedding matrix the
any-gram kernels use (trained with the network by default, as a Keras
``Embedding`` layer is; ``lstm.trainable_embeddings: false`` freezes it), plus, on SemEval, the aspect-term indicator as
one extra input dimension (1 on aspect tokens, 0 elsewhere), the same
convention as the kernels. Then ``layers`` stacked LSTMs of ``hidden_size``
units with tanh activation (wrapped in ``Bidirectional`` for BiLSTM, so each
direction has ``hidden_size`` units), a dropout layer and a softmax output.
Adam on sparse categorical cross-entropy; training stops early on dev
accuracy and keeps the best-dev weights. Training computes each LSTM layer with
TensorFlow's fused ``BlockLSTM`` kernel (:mod:`kernbench.papers.anygram.block_lstm`, the same
equations and initial weights as ``keras.layers.LSTM``); the trained weights are then evaluated and
saved in ``keras.layers.LSTM`` layers, so a saved model needs Keras alone.

Batches are padded to their own longest sentence with id 0, and every LSTM
layer is given the mask of the non-zero ids, so padding never reaches the
LSTM state. Training batches come from length-sorted pools of a seeded shuffle
(:func:`epoch_batches`), and evaluation runs over the sentences sorted by
length, so little time goes into padded steps.
"""

from __future__ import annotations

import logging
import time
import weakref
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from kernbench.data import SPLITS
from kernbench.data.embeddings import lookup_key
from kernbench.errors import KernbenchError

log = logging.getLogger(__name__)

#: System name in tables -> whether its LSTM layers are bidirectional.
SYSTEMS = {"UniLSTM": False, "BiLSTM": True}

#: Keys of one Table 4 entry.
HYPERPARAMETERS = ("batch_size", "layers", "hidden_size", "learning_rate", "dropout")

#: Training settings besides Table 4 that every run needs (from the ``lstm`` config block).
TRAINING_SETTINGS = ("max_epochs", "patience", "trainable_embeddings", "bucket_batches")

#: Table 4 entry of the LSTMs for a catalog dataset whose entry gives none (or not for every system).
DEFAULT_LSTM_DATASET = "sst"

PREDICT_BATCH = 256


@dataclass
class LstmResult:
    """Outcome of one LSTM training run.

    Attributes
    ----------
    model : keras.Model
        The model with its best-dev weights.
    rows : list of dict
        ``{"dataset", "split", "metric", "value"}`` for accuracy and macro-F1 on dev and test.
    predictions : pandas.DataFrame
        ``id, split, y_true, y_pred`` on dev and test.
    curves : dict
        Per-epoch ``loss``, ``accuracy`` (train), ``val_loss`` and ``val_accuracy`` (dev).
    timings : dict
        Seconds spent in ``train`` (fit, including the per-epoch dev evaluation), ``train_per_epoch``
        (``train`` over the epochs run) and ``evaluate``.
    best_epoch : int
        1-based epoch whose weights were kept.
    classes : list
        Label of each output unit.
    """

    model: object
    rows: list[dict]
    predictions: pd.DataFrame
    curves: dict = field(default_factory=dict)
    timings: dict = field(default_factory=dict)
    best_epoch: int = 0
    classes: list = field(default_factory=list)


def lstm_hyperparameters(config: dict) -> dict:
    """``lstm.hyperparameters`` with an entry for every catalog dataset.

    A catalog entry's ``lstm`` gives its Table 4 entry per system; a system it
    leaves out takes that of :data:`DEFAULT_LSTM_DATASET`.

    Parameters
    ----------
    config : dict
        The workflow config.

    Returns
    -------
    dict
        ``{dataset: {system: {batch_size, layers, hidden_size, learning_rate, dropout}}}``.
    """
    table = dict(config["lstm"]["hyperparameters"])
    default = table.get(DEFAULT_LSTM_DATASET, {})
    for name, entry in (config.get("catalog") or {}).items():
        table[name] = {**default, **(entry.get("lstm") or {})}
    return table


def resolve_settings(lstm_config: dict, dataset: str, system: str) -> dict:
    """Settings of one (dataset, system) run from the ``lstm`` config block.

    Parameters
    ----------
    lstm_config : dict
        The ``lstm`` section of the workflow config: ``hyperparameters``
        (Table 4, ``{dataset: {system: {batch_size, layers, hidden_size,
        learning_rate, dropout}}}``), ``max_epochs``, ``patience`` and
        ``max_hidden_size`` (0 for no cap; the smoke profile uses it to train tiny models),
        ``trainable_embeddings`` (whether the embedding layer is updated in training) and
        ``bucket_batches`` (batches per length-sorted pool, see :func:`epoch_batches`).
    dataset, system : str
        Which Table 4 entry.

    Returns
    -------
    dict
        The Table 4 entry (``hidden_size`` capped) with the :data:`TRAINING_SETTINGS`.

    Raises
    ------
    KernbenchError
        If the system is unknown or the entry is missing or incomplete, naming the config key.
    """
    if system not in SYSTEMS:
        raise KernbenchError(f"lstm: unknown system {system!r} (expected one of {', '.join(SYSTEMS)})")
    key = f"lstm.hyperparameters.{dataset}.{system}"
    entry = lstm_config.get("hyperparameters", {}).get(dataset, {}).get(system)
    if entry is None:
        raise KernbenchError(f"config: {key} is missing")
    missing = [k for k in HYPERPARAMETERS if k not in entry]
    if missing:
        raise KernbenchError(f"config: {key} lacks {', '.join(missing)}")
    settings = {k: entry[k] for k in HYPERPARAMETERS}
    cap = lstm_config.get("max_hidden_size", 0)
    if cap:
        settings["hidden_size"] = min(settings["hidden_size"], cap)
    for key in TRAINING_SETTINGS:
        settings[key] = lstm_config[key]
    settings["trainable_embeddings"] = bool(settings["trainable_embeddings"])
    return settings


def planned_runs(config: dict) -> list[tuple[str, str, int]]:
    """(dataset, system, seed) of every LSTM run a workflow config asks for.

    A dataset runs when it is listed both under ``lstm.datasets`` and ``datasets``.
    """
    lstm = config["lstm"]
    return [
        (dataset, system, seed)
        for dataset in lstm["datasets"]
        if dataset in config["datasets"]
        for system in lstm["systems"]
        for seed in lstm["seeds"]
    ]


def configure_tensorflow(threads: int, *, deterministic: bool = True) -> None:
    """Make TensorFlow deterministic, bound its thread pools to ``threads`` and keep its freed memory.

    Call before TensorFlow runs its first op; later calls that ask for other
    thread counts are ignored with a warning (TensorFlow fixes them at start-up).
    ``deterministic=False`` leaves op determinism off, for timing XLA, which Keras
    does not compile under it (``benchmarks/lstm_batches.py --jit-compile``).
    The C allocator keeps the memory of each step's tensors for the next
    (:func:`kernbench.allocator.pad_heaps`).
    """
    import tensorflow as tf

    from kernbench.allocator import LSTM_TOP_PAD, pad_heaps

    pad_heaps(LSTM_TOP_PAD)

    if deterministic:
        tf.config.experimental.enable_op_determinism()
    threading = tf.config.threading
    if (threading.get_intra_op_parallelism_threads(), threading.get_inter_op_parallelism_threads()) == (threads, threads):
        return
    try:
        threading.set_intra_op_parallelism_threads(threads)
        threading.set_inter_op_parallelism_threads(threads)
    except RuntimeError as exc:
        log.warning("TensorFlow already started; thread counts stay as they are (%s)", exc)


def embedding_matrix(vectors: np.ndarray) -> np.ndarray:
    """Rows of the embedding layer: 0 is padding, ``1..V`` the vocabulary, ``V+1`` unknown tokens (zero)."""
    vectors = np.asarray(vectors, dtype=np.float32)
    zero = np.zeros((1, vectors.shape[1]), dtype=np.float32)
    return np.vstack([zero, vectors, zero])


def encode_tokens(token_lists, words: np.ndarray, *, cased: bool) -> list[np.ndarray]:
    """Map each sentence's tokens to rows of :func:`embedding_matrix`.

    Parameters
    ----------
    token_lists : iterable of sequence of str
        Tokens of each sentence.
    words : numpy.ndarray of str
        Sorted lookup keys of the embeddings file (``words`` of the npz).
    cased : bool
        Whether ``words`` keep case (the embeddings file's ``cased``); else tokens are looked up lower-cased.

    Returns
    -------
    list of numpy.ndarray of int32
        Ids ``1 + position in words``; ``len(words) + 1`` for a key the file lacks.
    """
    words = np.asarray(words, dtype=str)
    unknown = len(words) + 1
    encoded = []
    for tokens in token_lists:
        keys = np.array([lookup_key(t, cased=cased) for t in tokens], dtype=str)
        if len(keys) == 0:
            encoded.append(np.zeros(0, dtype=np.int32))
            continue
        pos = np.searchsorted(words, keys)
        pos_clipped = np.minimum(pos, len(words) - 1)
        hit = (pos < len(words)) & (words[pos_clipped] == keys)
        encoded.append(np.where(hit, pos + 1, unknown).astype(np.int32))
    return encoded


def pad_batch(ids: list[np.ndarray], aspect: list[np.ndarray] | None):
    """Right-pad a batch to its longest sentence (id 0, aspect 0); at least one step."""
    length = max(1, max(len(s) for s in ids))
    tokens = np.zeros((len(ids), length), dtype=np.int32)
    for i, s in enumerate(ids):
        tokens[i, : len(s)] = s
    if aspect is None:
        return tokens
    marks = np.zeros((len(ids), length, 1), dtype=np.float32)
    for i, m in enumerate(aspect):
        marks[i, : len(m), 0] = m
    return {"tokens": tokens, "aspect": marks}


def build_model(
    embeddings: np.ndarray,
    *,
    n_classes: int,
    bidirectional: bool,
    layers: int,
    hidden_size: int,
    dropout: float,
    learning_rate: float,
    aspect: bool,
    trainable_embeddings: bool = True,
    jit_compile: bool | str = "auto",
    block_lstm: bool = False,
    steps_per_execution: int = 1,
):
    """Build and compile the LSTM classifier.

    Parameters
    ----------
    embeddings : numpy.ndarray
        Initial embedding matrix from :func:`embedding_matrix` (row 0 is padding).
    n_classes : int
        Output units.
    bidirectional : bool
        Wrap every LSTM layer in ``Bidirectional`` (concatenated directions).
    layers, hidden_size : int
        Stacked LSTM layers and units per layer (per direction).
    dropout : float
        Rate of the dropout layer before the output.
    learning_rate : float
        Adam's learning rate.
    aspect : bool
        Add the aspect-term indicator input, concatenated to each word vector.
    trainable_embeddings : bool
        Update the embedding layer in training (Keras' default) or keep the pre-trained vectors.
    jit_compile : bool or "auto"
        Compile the training and prediction steps with XLA. Keras leaves XLA off, even when asked for
        True (with a warning), while TensorFlow's op determinism is on, as :func:`configure_tensorflow`
        sets it; ``benchmarks/lstm_batches.py --jit-compile`` times True with determinism off.
    block_lstm : bool
        Compute each LSTM layer with TensorFlow's ``BlockLSTM`` kernel
        (:class:`kernbench.papers.anygram.block_lstm.BlockLSTM`, for training) instead of
        ``keras.layers.LSTM`` (for evaluating and saving: a model that Keras alone loads). Both have the
        same weights, in the same order, with the same initial values.
    steps_per_execution : int
        Batches that Keras runs in one call into TensorFlow (a TensorFlow loop over them). The steps, their
        order and their values are those of one call per batch; only the per-call overhead changes
        (``benchmarks/lstm_batches.py --steps-per-execution`` times it).

    Returns
    -------
    keras.Model
        Inputs ``tokens`` (int ids) and, with ``aspect``, ``aspect`` (batch, time, 1).
    """
    import keras

    if block_lstm:
        from kernbench.papers.anygram.block_lstm import BlockLSTM as LSTM
    else:
        LSTM = keras.layers.LSTM
    tokens = keras.Input(shape=(None,), dtype="int32", name="tokens")
    inputs = [tokens]
    # The padding mask is given to every LSTM explicitly: Concatenate would turn the embedding's
    # mask into "any feature unmasked", which the aspect input makes true on padding too.
    mask = keras.ops.not_equal(tokens, 0)
    x = keras.layers.Embedding(
        embeddings.shape[0], embeddings.shape[1], weights=[embeddings], trainable=trainable_embeddings, name="embedding"
    )(tokens)
    if aspect:
        marks = keras.Input(shape=(None, 1), dtype="float32", name="aspect")
        inputs.append(marks)
        x = keras.layers.Concatenate(name="word_and_aspect")([x, marks])
    for i in range(layers):
        lstm = LSTM(hidden_size, activation="tanh", return_sequences=i < layers - 1, name=f"lstm_{i + 1}")
        x = keras.layers.Bidirectional(lstm, name=f"bilstm_{i + 1}")(x, mask=mask) if bidirectional else lstm(x, mask=mask)
    x = keras.layers.Dropout(dropout, name="dropout")(x)
    outputs = keras.layers.Dense(n_classes, activation="softmax", name="output")(x)
    model = keras.Model(inputs if aspect else tokens, outputs, name="BiLSTM" if bidirectional else "UniLSTM")
    model.compile(
        optimizer=keras.optimizers.Adam(learning_rate=learning_rate),
        loss="sparse_categorical_crossentropy",
        metrics=["accuracy"],
        jit_compile=jit_compile,
        steps_per_execution=steps_per_execution,
    )
    return model


def epoch_batches(lengths: np.ndarray, batch_size: int, *, bucket_batches: int, rng) -> list[np.ndarray]:
    """Sentence indices of each training batch of one epoch, in the order they are fed.

    The sentences are shuffled with ``rng``, the shuffled order is cut into pools of
    ``bucket_batches * batch_size`` sentences, each pool is sorted by length (stable)
    and cut into batches, and the batches are shuffled again. A batch then holds
    sentences of similar length, so it is padded less, while every epoch still sees
    a new seeded order and new batch compositions. ``bucket_batches=1`` is the plain
    seeded shuffle.

    Parameters
    ----------
    lengths : numpy.ndarray of int
        Token count of each sentence.
    batch_size : int
        Sentences per batch (the last batch may be smaller).
    bucket_batches : int
        Batches per length-sorted pool (>= 1).
    rng : numpy.random.Generator
        Source of both shuffles.

    Returns
    -------
    list of numpy.ndarray of int
        Every index ``0 .. len(lengths) - 1`` exactly once over all batches.
    """
    lengths = np.asarray(lengths)
    order = rng.permutation(len(lengths))
    if bucket_batches <= 1:
        return _in_batches(order, batch_size)
    pools = _in_batches(order, bucket_batches * batch_size)
    batches = _in_batches(np.concatenate([p[np.argsort(lengths[p], kind="stable")] for p in pools]), batch_size)
    return [batches[i] for i in rng.permutation(len(batches))]


def _in_batches(order: np.ndarray, size: int) -> list[np.ndarray]:
    """``order`` cut into consecutive slices of ``size`` (the last may be shorter)."""
    return [order[start : start + size] for start in range(0, len(order), size)]


def _dataset(ids, aspect, labels, batch_size: int, *, shuffle_seed: int | None, bucket_batches: int = 1):
    """A ``tf.data`` pipeline of padded batches.

    With ``shuffle_seed``, every epoch has a fresh seeded order from :func:`epoch_batches`;
    without, the sentences come sorted by length (stable), which :func:`predict_proba` undoes.
    """
    import tensorflow as tf

    n = len(ids)
    lengths = np.array([len(s) for s in ids], dtype=np.int64)
    epochs = iter(range(1 << 30))

    def batches():
        if shuffle_seed is None:
            plan = _in_batches(by_length(lengths), batch_size)
        else:
            rng = np.random.default_rng([shuffle_seed, next(epochs)])
            plan = epoch_batches(lengths, batch_size, bucket_batches=bucket_batches, rng=rng)
        for idx in plan:
            x = pad_batch([ids[i] for i in idx], None if aspect is None else [aspect[i] for i in idx])
            yield x, labels[idx]

    x_spec = _input_spec(aspect=aspect is not None)
    dataset = tf.data.Dataset.from_generator(batches, output_signature=(x_spec, tf.TensorSpec((None,), tf.int32)))
    # A known length lets Keras count steps from the first epoch on.
    dataset = dataset.apply(tf.data.experimental.assert_cardinality(-(-n // batch_size)))
    # No autotuning: its background thread competes with the training steps for the cores, and two LSTM
    # jobs side by side then spend about a third of their time off the CPU (docs/anygram.md). The batches
    # and their order are the same either way.
    options = tf.data.Options()
    options.autotune.enabled = False
    return dataset.with_options(options)


def by_length(lengths: np.ndarray) -> np.ndarray:
    """Indices that sort sentences by length (stable), the evaluation order."""
    return np.argsort(np.asarray(lengths), kind="stable")


def _input_spec(*, aspect: bool):
    """The ``tf.TensorSpec`` of a padded batch's model input (:func:`pad_batch`), any batch size and length."""
    import tensorflow as tf

    tokens = tf.TensorSpec((None, None), tf.int32)
    return {"tokens": tokens, "aspect": tf.TensorSpec((None, None, 1), tf.float32)} if aspect else tokens


#: ``{model: forward function}`` of :func:`_forward`, dropped with the model.
_FORWARD = weakref.WeakKeyDictionary()


def _forward(model, *, aspect: bool):
    """``model(x, training=False)`` as one TensorFlow graph for every batch shape.

    It computes what ``model.predict`` computes for a batch. ``predict`` traces its step twice, for the
    first batch's shape and then for any shape, and each trace is then optimised on its first call; on a
    small run that is a large part of a job. The input signature here leaves the batch size and the length
    open, so the graph is traced once per model.
    """
    forward = _FORWARD.get(model)
    if forward is None:
        import tensorflow as tf

        forward = tf.function(
            lambda x: model(x, training=False), input_signature=[_input_spec(aspect=aspect)],
            jit_compile=bool(model.jit_compile),
        )  # fmt: skip
        _FORWARD[model] = forward
    return forward


def predict_proba(model, ids, aspect, batch_size: int = PREDICT_BATCH) -> np.ndarray:
    """Class probabilities for encoded sentences, in input order (computed in length order)."""
    if not ids:
        return np.zeros((0, model.output_shape[-1]), np.float32)
    forward = _forward(model, aspect=aspect is not None)
    proba = np.empty((len(ids), model.output_shape[-1]), np.float32)
    for idx in _in_batches(by_length([len(s) for s in ids]), batch_size):
        x = pad_batch([ids[i] for i in idx], None if aspect is None else [aspect[i] for i in idx])
        proba[idx] = forward(x).numpy()
    return proba


def _build_training_state(model, dev) -> None:
    """Create the optimizer's and the compiled metrics' variables before ``fit``.

    Without a distribution strategy, Keras creates them while TensorFlow traces the first training step,
    and TensorFlow then traces that step a second time (about 2 s of CPU per job). Building the optimizer
    and evaluating two dev sentences creates them first. Neither changes a weight or draws a random number,
    so training is the same: the losses and predictions are identical.
    """
    model.optimizer.build(model.trainable_variables)
    ids, aspect, labels = dev
    model.evaluate(_dataset(ids[:2], None if aspect is None else aspect[:2], labels[:2], 2, shuffle_seed=None), verbose=0)


def epoch_callback(on_epoch):
    """A Keras callback that calls ``on_epoch(epoch, logs)`` at the end of each epoch (1-based, a copy of the logs).

    It reads the logs only: the weights, the batches and the random state stay as they are.
    """
    import keras

    class EpochCallback(keras.callbacks.Callback):
        def on_epoch_end(self, epoch, logs=None):
            on_epoch(epoch + 1, dict(logs or {}))

    return EpochCallback()


def train_lstm(
    frame: pd.DataFrame,
    words: np.ndarray,
    vectors: np.ndarray,
    *,
    cased: bool,
    system: str,
    settings: dict,
    seed: int,
    dataset: str,
    jit_compile: bool | str = "auto",
    on_epoch=None,
    block_lstm: bool = True,
    steps_per_execution: int = 1,
) -> LstmResult:
    """Train one LSTM on the train split, stop early on dev accuracy, evaluate dev and test.

    Parameters
    ----------
    frame : pandas.DataFrame
        A prepared tokenised dataset (``split``, ``label``, ``tokens``; ``aspect_mask`` on SemEval).
    words, vectors : numpy.ndarray
        The embeddings file's lookup keys and vectors.
    cased : bool
        Whether ``words`` keep case (see :func:`kernbench.data.embeddings.load_embeddings`).
    system : {"UniLSTM", "BiLSTM"}
    settings : dict
        From :func:`resolve_settings`.
    seed : int
        Seeds weight initialisation, dropout and the batch order.
    dataset : str
        Name written in the result rows.
    jit_compile : bool or "auto"
        XLA-compiled steps (see :func:`build_model`).
    on_epoch : callable, optional
        Called as ``on_epoch(epoch, logs)`` after each epoch (1-based; ``logs`` as Keras' history records
        them), for example to log it while the model trains (:func:`epoch_callback`).
    block_lstm : bool
        Train with TensorFlow's fused ``BlockLSTM`` kernel (see :func:`build_model`); False trains with
        ``keras.layers.LSTM``, for timing the two (``benchmarks/lstm_batches.py --keras-lstm``). Either way
        the trained weights are evaluated and returned in ``keras.layers.LSTM`` layers.
    steps_per_execution : int
        Training and dev batches per call into TensorFlow (see :func:`build_model`); the same results at any
        value (``benchmarks/lstm_batches.py --steps-per-execution`` times them).

    Returns
    -------
    LstmResult
    """
    import keras

    from tqdm.keras import TqdmCallback

    from kernbench.metrics import classification_scores
    from kernbench.progress import bar_options
    from kernbench.runs import evaluate_splits

    if system not in SYSTEMS:
        raise KernbenchError(f"lstm: unknown system {system!r} (expected one of {', '.join(SYSTEMS)})")
    splits = {s: frame[frame["split"] == s] for s in SPLITS}
    for name in ("train", "dev"):
        if splits[name].empty:
            raise KernbenchError(f"{dataset}: the LSTM needs a non-empty {name} split")
    classes = sorted(frame["label"].unique().tolist())
    index = {c: i for i, c in enumerate(classes)}
    has_aspect = "aspect_mask" in frame.columns

    def encoded(part):
        ids = encode_tokens(part["tokens"], words, cased=cased)
        aspect = [np.asarray(m, dtype=np.float32) for m in part["aspect_mask"]] if has_aspect else None
        y = np.array([index[c] for c in part["label"]], dtype=np.int32)
        return ids, aspect, y

    data = {name: encoded(part) for name, part in splits.items()}

    keras.utils.set_random_seed(seed)
    architecture = dict(
        n_classes=len(classes),
        bidirectional=SYSTEMS[system],
        layers=settings["layers"],
        hidden_size=settings["hidden_size"],
        dropout=settings["dropout"],
        learning_rate=settings["learning_rate"],
        aspect=has_aspect,
        trainable_embeddings=settings["trainable_embeddings"],
        jit_compile=jit_compile,
    )
    matrix = embedding_matrix(vectors)
    model = build_model(matrix, **architecture, block_lstm=block_lstm, steps_per_execution=steps_per_execution)
    stopper = keras.callbacks.EarlyStopping(
        monitor="val_accuracy", mode="max", patience=settings["patience"], restore_best_weights=True
    )
    train_ids, train_aspect, train_y = data["train"]
    # Early stopping ends the bar short of max_epochs: its ETA is the longest the training can take.
    epochs = TqdmCallback(settings["max_epochs"], desc=f"{dataset} {system} seed {seed}", verbose=0,
                          **bar_options(settings["max_epochs"]))  # fmt: skip
    started = time.perf_counter()
    _build_training_state(model, data["dev"])
    train_batches = _dataset(
        train_ids, train_aspect, train_y, settings["batch_size"], shuffle_seed=seed,
        bucket_batches=settings["bucket_batches"],
    )  # fmt: skip
    history = model.fit(
        train_batches,
        validation_data=_dataset(*data["dev"], PREDICT_BATCH, shuffle_seed=None),
        epochs=settings["max_epochs"],
        callbacks=[stopper, epochs] if on_epoch is None else [stopper, epochs, epoch_callback(on_epoch)],
        shuffle=False,  # the pipeline shuffles, seeded per epoch
        verbose=0,  # the epochs bar reports instead, with its ETA
    )
    trained = time.perf_counter() - started
    curves = {k: [float(v) for v in values] for k, values in sorted(history.history.items())}
    # The best-dev weights in Keras' own LSTM layers: the model evaluated and saved needs Keras alone.
    # The optimizer's state (of the last epoch) goes with them, as Keras saves it.
    trained_model, model = model, build_model(matrix, **architecture)
    model.set_weights(trained_model.get_weights())
    model.optimizer.build(model.trainable_variables)
    for target, source in zip(model.optimizer.variables, trained_model.optimizer.variables, strict=True):
        target.assign(source)

    def predict(split, part):
        ids, aspect, _ = data[split]
        return [classes[i] for i in predict_proba(model, ids, aspect).argmax(axis=1)]

    started = time.perf_counter()
    rows, predictions = evaluate_splits(splits, predict, dataset=dataset, score=classification_scores)
    evaluated = time.perf_counter() - started
    best_epoch = int(np.argmax(curves["val_accuracy"])) + 1
    return LstmResult(
        model=model,
        rows=rows,
        predictions=predictions,
        curves=curves,
        # the cost per epoch, for comparing backends or settings across runs stopped at different epochs
        timings={"train": trained, "train_per_epoch": trained / len(curves["loss"]), "evaluate": evaluated},
        best_epoch=best_epoch,
        classes=classes,
    )

"""The fused BlockLSTM layer against Keras' own LSTM: same initial weights, outputs and gradients."""

from __future__ import annotations

import numpy as np
import pytest

from kernbench.papers.anygram import lstm


@pytest.fixture(scope="module", autouse=True)
def tensorflow_setup():
    lstm.configure_tensorflow(1)


#: Lengths of a right-padded batch: full, short, one step and empty.
LENGTHS = np.array([7, 3, 1, 5, 0, 2])


def _batch(features: int = 4):
    rng = np.random.default_rng(3)
    x = rng.normal(size=(len(LENGTHS), LENGTHS.max(), features)).astype(np.float32)
    mask = np.arange(LENGTHS.max())[None, :] < LENGTHS[:, None]
    return x, mask


def _pair(*, bidirectional: bool, return_sequences: bool, go_backwards: bool = False, units: int = 3):
    """A Keras LSTM and a BlockLSTM with one set of random weights (the bias too, not only the forget gate's)."""
    import keras

    from kernbench.papers.anygram.block_lstm import BlockLSTM

    layers = []
    for cls in (keras.layers.LSTM, BlockLSTM):
        layer = cls(units, return_sequences=return_sequences, go_backwards=go_backwards)
        layers.append(keras.layers.Bidirectional(layer) if bidirectional else layer)
    x, mask = _batch()
    for layer in layers:
        layer.build(x.shape)
    rng = np.random.default_rng(7)
    weights = [rng.normal(scale=0.5, size=w.shape).astype(np.float32) for w in layers[0].get_weights()]
    for layer in layers:
        layer.set_weights(weights)
    return layers


def _valid(outputs, mask, *, reversed_time: bool):
    """The outputs at the unpadded steps (Keras' go_backwards returns them in reversed time order)."""
    outputs = np.asarray(outputs)
    if reversed_time:
        outputs = outputs[:, ::-1]
        mask = mask[:, ::-1]
    return outputs[mask]


@pytest.mark.parametrize("return_sequences", [False, True])
@pytest.mark.parametrize(("bidirectional", "go_backwards"), [(False, False), (False, True), (True, False)])
def test_block_lstm_gives_keras_outputs_and_gradients(bidirectional, go_backwards, return_sequences):
    import tensorflow as tf

    reference, block = _pair(bidirectional=bidirectional, return_sequences=return_sequences, go_backwards=go_backwards)
    x, mask = _batch()
    inputs = tf.constant(x)
    # A loss that weighs every output unit and step differently, over the unpadded steps only.
    steps = tf.constant(mask, tf.float32)[..., None] if return_sequences else 1.0
    results = []
    for layer in (reference, block):
        with tf.GradientTape() as tape:
            tape.watch(inputs)
            out = layer(inputs, mask=tf.constant(mask))
            weights = tf.reshape(tf.range(1, out.shape[-1] + 1, dtype=tf.float32), [1] * (out.ndim - 1) + [-1])
            loss = tf.reduce_sum(tf.sin(out * weights) * steps)
        results.append((out.numpy(), tape.gradient(loss, [inputs, *layer.trainable_weights])))
    (out_ref, grads_ref), (out_block, grads_block) = results
    if return_sequences:
        reversed_time = go_backwards and not bidirectional
        np.testing.assert_allclose(_valid(out_block, mask, reversed_time=reversed_time),
                                   _valid(out_ref, mask, reversed_time=reversed_time), rtol=1e-5, atol=1e-6)
    else:
        np.testing.assert_allclose(out_block, out_ref, rtol=1e-5, atol=1e-6)
        np.testing.assert_array_equal(out_block[LENGTHS == 0], 0.0)  # an empty sentence keeps the zero state
    assert len(grads_block) == len(grads_ref) == 1 + (6 if bidirectional else 3)
    for g_block, g_ref in zip(grads_block, grads_ref):
        assert np.abs(g_ref.numpy()).max() > 1e-3  # every weight matters to the loss
        np.testing.assert_allclose(g_block.numpy(), g_ref.numpy(), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("bidirectional", [False, True])
def test_block_model_has_the_keras_models_initial_weights_and_outputs(bidirectional):
    import keras

    matrix = lstm.embedding_matrix(np.random.default_rng(1).normal(size=(20, 6)).astype(np.float32))
    models = []
    for block in (False, True):
        keras.utils.set_random_seed(5)
        models.append(lstm.build_model(matrix, n_classes=3, bidirectional=bidirectional, layers=2, hidden_size=4,
                                       dropout=0.3, learning_rate=0.01, aspect=True, block_lstm=block))  # fmt: skip
    reference, block = models
    assert [type(layer).__name__ for layer in block.layers if "lstm" in layer.name] == (
        ["Bidirectional"] * 2 if bidirectional else ["BlockLSTM"] * 2
    )
    for w_ref, w_block in zip(reference.get_weights(), block.get_weights(), strict=True):
        np.testing.assert_array_equal(w_block, w_ref)
    batch = lstm.pad_batch([np.array([4, 7, 2]), np.arange(1, 12), np.array([9])],
                           [np.array([0, 1, 0]), np.zeros(11), np.array([1])])  # fmt: skip
    np.testing.assert_allclose(block(batch).numpy(), reference(batch).numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize(("options", "named"), [
    ({"dropout": 0.2}, "dropout"), ({"activation": "relu"}, "activation"),
    ({"recurrent_activation": "hard_sigmoid"}, "recurrent_activation"), ({"use_bias": False}, "use_bias"),
    ({"return_state": True}, "return_state"),
])  # fmt: skip
def test_block_lstm_refuses_what_the_kernel_does_not_compute(options, named):
    import keras

    from kernbench.papers.anygram.block_lstm import BlockLSTM

    x, mask = _batch()
    with pytest.raises(ValueError, match=named):
        BlockLSTM(3, **options)(keras.ops.convert_to_tensor(x), mask=keras.ops.convert_to_tensor(mask))

"""Keras' LSTM layer with its time loop in one TensorFlow kernel (``BlockLSTM``) on the CPU.

On the CPU, Keras runs an LSTM as a TensorFlow while-loop of a dozen small ops per time step, forward and
backward; for the any-gram paper's models (20 to 40 sentences per batch, 50 to 150 units) the cost of
dispatching those ops outweighs their arithmetic. TensorFlow's ``BlockLSTM`` kernel computes the whole
sequence in one op and its gradient in another (``BlockLSTMGrad``), with the same equations: sigmoid gates,
tanh cell, no peepholes, no clipping.

:class:`BlockLSTM` is ``keras.layers.LSTM`` with that kernel as its inner loop. The weights, their
initialisers and their random draws are Keras' own, so a model has the same initial weights as with
``keras.layers.LSTM``; only the order of floating-point sums differs (the input and recurrent products are
one product of the concatenated ``[x, h]``), which changes values in the last bits; over many training steps
a run can then end elsewhere, as with another seed. Padding follows the
mask as Keras' cuDNN path does: a right-padded sequence is read up to its length (reversed within its
length for ``go_backwards``), and the steps after it give zeros.
"""

from __future__ import annotations

import keras


def _icfo(gates):
    """Keras' gate order (input, forget, cell, output) to ``BlockLSTM``'s (input, cell, forget, output)."""
    import tensorflow as tf

    i, f, c, o = tf.split(gates, 4, axis=-1)
    return tf.concat([i, c, f, o], axis=-1)


def block_lstm_sequence(inputs, mask, kernel, recurrent_kernel, bias, *, go_backwards: bool):
    """Run an LSTM over right-padded sequences from zero states with ``BlockLSTM``.

    Parameters
    ----------
    inputs : tf.Tensor
        ``(batch, time, features)``.
    mask : tf.Tensor or None
        ``(batch, time)`` booleans, true on each sequence's first ``length`` steps; None: no padding.
    kernel, recurrent_kernel, bias : tf.Tensor
        Keras' LSTM weights, ``(features, 4 units)``, ``(units, 4 units)`` and ``(4 units,)``, gates in
        Keras' order.
    go_backwards : bool
        Read each sequence from its last step to its first, as Keras' ``go_backwards``.

    Returns
    -------
    last : tf.Tensor
        ``(batch, units)``: the output after each sequence's last step (zeros for an empty sequence).
    outputs : tf.Tensor
        ``(batch, time, units)``: the output at every step, zeros on padding; for ``go_backwards`` in the
        order Keras gives it, the time axis reversed.
    """
    import tensorflow as tf

    batch, steps = tf.shape(inputs)[0], tf.shape(inputs)[1]
    if mask is None:
        lengths = tf.fill([batch], steps)
    else:
        lengths = tf.reduce_sum(tf.cast(mask, tf.int32), axis=1)
    x = tf.transpose(inputs, [1, 0, 2])  # time-major
    if go_backwards:
        x = tf.reverse_sequence(x, lengths, seq_axis=0, batch_axis=1)
    units = tf.shape(recurrent_kernel)[0]
    zeros = tf.zeros(tf.stack([batch, units]), dtype=x.dtype)
    no_peephole = tf.zeros(tf.reshape(units, [1]), dtype=x.dtype)
    # BlockLSTM, not BlockLSTMV2 (which has Keras' gate order): TensorFlow registers V1's gradient for V2,
    # and that gradient reads V2's gates in V1's order.
    *_, h = tf.raw_ops.BlockLSTM(
        seq_len_max=tf.cast(steps, tf.int64), x=x, cs_prev=zeros, h_prev=zeros,
        w=_icfo(tf.concat([kernel, recurrent_kernel], axis=0)), wci=no_peephole, wcf=no_peephole, wco=no_peephole,
        b=_icfo(bias), forget_bias=0.0, cell_clip=-1.0, use_peephole=False,
    )  # fmt: skip
    valid = tf.sequence_mask(lengths, steps, dtype=h.dtype)  # (batch, time)
    h = h * tf.transpose(valid)[:, :, None]
    last = tf.gather(tf.transpose(h, [1, 0, 2]), tf.maximum(lengths - 1, 0), batch_dims=1)
    last = last * tf.cast(lengths > 0, h.dtype)[:, None]
    if go_backwards:
        h = tf.reverse(tf.reverse_sequence(h, lengths, seq_axis=0, batch_axis=1), axis=[0])
    return last, tf.transpose(h, [1, 0, 2])


# Registered: Bidirectional builds its two layers from the wrapped layer's config.
@keras.saving.register_keras_serializable(package="kernbench")
class BlockLSTM(keras.layers.LSTM):
    """``keras.layers.LSTM`` computed by TensorFlow's ``BlockLSTM`` kernel (see the module docstring).

    It takes the arguments of ``keras.layers.LSTM`` with the activations and bias of ``BlockLSTM`` (tanh,
    sigmoid gates, a bias) and without dropout inside the layer, statefulness or returned state: what the
    any-gram paper's models use. It runs from zero states.
    """

    def inner_loop(self, sequences, initial_state, mask, training=False):
        """The layer's time loop as one ``BlockLSTM`` op: ``(last output, outputs, [h, c])`` as Keras' own."""
        cell = self.cell
        if self.dropout or self.recurrent_dropout or self.stateful or self.return_state:
            raise ValueError("BlockLSTM: dropout, recurrent_dropout, stateful and return_state are not supported")
        if (cell.activation, cell.recurrent_activation, cell.use_bias) != (
            keras.activations.tanh, keras.activations.sigmoid, True,
        ):  # fmt: skip
            raise ValueError("BlockLSTM: only activation='tanh', recurrent_activation='sigmoid' and use_bias=True")
        if isinstance(mask, (list, tuple)):
            mask = mask[0]
        last, outputs = block_lstm_sequence(
            sequences, mask, cell.kernel, cell.recurrent_kernel, cell.bias,
            go_backwards=self.go_backwards,
        )  # fmt: skip
        # The states are not read: the layer refuses return_state.
        return last, outputs, [last, keras.ops.zeros_like(last)]

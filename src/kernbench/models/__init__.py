"""Learners shared by the experiments: SVMs on precomputed kernels and Keras LSTMs."""

"""The dense Gram matrix of sparse rows: scipy's sparse product, bit for bit."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

from kernbench.kernels.sparse_linear import sparse_linear_gram


def _rows(rng, n, d, *, order):
    """Sparse rows storing their columns ascending, descending (as the Fisher features) or shuffled."""
    matrix = sp.random(n, d, density=0.05, format="csr", random_state=rng, data_rvs=rng.standard_normal)
    matrix.sort_indices()
    if order == "ascending":
        return matrix
    indices, data = matrix.indices.copy(), matrix.data.copy()
    for i in range(n):
        span = slice(matrix.indptr[i], matrix.indptr[i + 1])
        step = rng.permutation(span.stop - span.start) if order == "shuffled" else slice(None, None, -1)
        indices[span], data[span] = indices[span][step], data[span][step]
    return sp.csr_matrix((data, indices, matrix.indptr), shape=matrix.shape)


@pytest.mark.parametrize("order", ["ascending", "descending", "shuffled"])
def test_cross_gram_is_the_sparse_product_bit_for_bit(order):
    rng = np.random.default_rng(0)
    x, y = _rows(rng, 60, 400, order=order), _rows(rng, 45, 400, order=order)
    assert np.array_equal(sparse_linear_gram(x, y), (x @ y.T).toarray())


@pytest.mark.parametrize("order", ["ascending", "descending"])
def test_gram_of_rows_in_one_order_is_the_sparse_product_bit_for_bit(order):
    rng = np.random.default_rng(1)
    x = _rows(rng, 80, 500, order=order)
    gram = sparse_linear_gram(x)
    assert np.array_equal(gram, (x @ x.T).toarray())
    assert np.array_equal(gram, gram.T)


def test_gram_of_shuffled_rows_is_symmetric_and_equals_the_product_to_rounding():
    rng = np.random.default_rng(2)
    x = _rows(rng, 80, 500, order="shuffled")
    gram, product = sparse_linear_gram(x), (x @ x.T).toarray()
    assert np.array_equal(gram, gram.T)
    assert np.array_equal(np.triu(gram), np.triu(product))  # on and above the diagonal: row i's order
    np.testing.assert_allclose(gram, product, rtol=1e-13, atol=1e-13)


def test_a_column_stored_twice_in_a_row_counts_twice():
    # Row 0 stores column 0 twice (1 + 2); scipy's product adds both.
    x = sp.csr_matrix((np.array([1.0, 2.0, 3.0, 4.0]), np.array([0, 0, 1, 0]), np.array([0, 3, 4])), shape=(2, 2))
    expected = np.array([[9.0 + 9.0, 12.0], [12.0, 16.0]])
    assert np.array_equal(sparse_linear_gram(x), expected)
    assert np.array_equal(sparse_linear_gram(x), (x @ x.T).toarray())


def test_integer_rows_and_a_column_mismatch():
    x = sp.csr_matrix(np.array([[1, 0, 2], [0, 3, 0]]))
    assert np.array_equal(sparse_linear_gram(x), np.array([[5.0, 0.0], [0.0, 9.0]]))
    with pytest.raises(ValueError, match="x has 3 columns and y 2"):
        sparse_linear_gram(x, sp.csr_matrix(np.eye(2)))

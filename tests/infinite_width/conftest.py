import pytest

from rnnbook.infinite_width.regression import gaussian_regression


@pytest.fixture(scope="module")
def data():
    """A small under-determined regression (d = 4, n = 3), inputs of standard deviation 1/2."""
    return gaussian_regression(d=4, n=3, seed=3, x_std=0.5)

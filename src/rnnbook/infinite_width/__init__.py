"""Chizat, Colombo, Fernandez-Real & Figalli, *Infinite-width limit of deep linear neural networks*.

Sec. 2: the finite-width three-layer linear network in muP (Secs. 2.1-2.2) in
:mod:`~rnnbook.infinite_width.deep_linear`, its muP bookkeeping checked with sympy in
:mod:`~rnnbook.infinite_width.mup_symbolic`, the square-loss regression data of Sec. 2.5 in
:mod:`~rnnbook.infinite_width.regression`; the exactly simulated infinite-width limit (Eqs. 2.6-2.15,
5.1), its gradient flow and the min-norm implicit bias (Theorem 2.3) in
:mod:`~rnnbook.infinite_width.limit`. The convergence rate in the width (Eq. 2.16) is fitted with
:func:`rnnbook.stats.power_law_fit`.
"""

from . import deep_linear, limit, mup_symbolic, regression
from .regression import Regression, gaussian_regression

__all__ = [
    "deep_linear",
    "limit",
    "mup_symbolic",
    "regression",
    "Regression",
    "gaussian_regression",
]

"""Chizat, Colombo, Fernandez-Real & Figalli, *Infinite-width limit of deep linear neural networks*.

Sec. 2: the finite-width three-layer linear network in muP (Secs. 2.1-2.2) in
:mod:`~rnnbook.infinite_width.deep_linear`, its muP bookkeeping checked with sympy in
:mod:`~rnnbook.infinite_width.mup_symbolic`, the square-loss regression data of Sec. 2.5 in
:mod:`~rnnbook.infinite_width.regression`; the exactly simulated infinite-width limit (Eqs. 2.6-2.15)
in :mod:`~rnnbook.infinite_width.limit`, its gradient flow (5.1) in :mod:`~.flow` and the min-norm
implicit bias (Theorem 2.3) in :mod:`~.min_norm`. Sec. 6 (more middle layers, L = 2): the finite-width
network in :mod:`~.multilayer`, its limit on the path bases in :mod:`~.multilayer_limit`. The convergence rate in the width (Eq. 2.16) is
fitted with :func:`rnnbook.stats.power_law_fit`.

The size of an exact truncation of the limit (Sec. 2.5, footnote 5) is in :mod:`~.truncation`;
finite widths against the limit (Eq. 2.16, Figs. 2.1 and 2.3B) in :mod:`~.convergence`, the law of
the weights (Theorem 2.2, Remark (v), Fig. 2.3A) in :mod:`~.weight_law`; the stability of the
printed step of Fig. 2.1 in :mod:`~.step_size`, the predictor scale of Fig. 2.2 in
:mod:`~.predictor_scale`, and the chapters' figures in :mod:`~.figures`.
"""

import importlib

# Submodules and names load on first use (PEP 562): importing one module of this room
# does not import the others, so a chapter depends only on what it uses.
_SUBMODULES = (
    "convergence",
    "deep_linear",
    "figures",
    "flow",
    "limit",
    "min_norm",
    "multilayer",
    "multilayer_limit",
    "mup_symbolic",
    "predictor_scale",
    "regression",
    "step_size",
    "truncation",
    "weight_law",
)
_EXPORTS = {
    "Regression": "regression",
    "gaussian_regression": "regression",
}
__all__ = [*_SUBMODULES, *_EXPORTS]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _EXPORTS:
        module = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
        return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)

"""Synthesis: one timescale and two implicit-bias mechanisms across the four papers of the book.

On the linear RNN h_t = W h_{t-1}/sqrt(n) + F x_t of Emami et al. (*Implicit Bias of Linear RNNs*), a
special case of the models of the three RNN papers, the squared spectral radius of the transition
derivative of Herranz-Celotti & Rouat (*Stabilizing RNN Gradients through Pre-training*, the LSC), the
slope chi_1 of Chen, Pennington & Schoenholz (*Dynamical Isometry and a Mean Field Theory of RNNs*), the
ratio rho_{j+1}/rho_j of Emami et al.'s scale factors and the per-step decay of the squared gradient
norm all tend to nu_W (:mod:`~rnnbook.synthesis.timescale`, with the exact finite-n moments of
:mod:`~rnnbook.synthesis.frobenius_moments`); they are measured on finite networks in
:mod:`~rnnbook.synthesis.linear_diagnostics` and, where they part, on a tanh RNN and a minimalRNN in
:mod:`~rnnbook.synthesis.nonlinear_diagnostics`. :mod:`~rnnbook.synthesis.two_biases` puts the kernel-regime
bias of the linear RNN (the rho-weighted minimum-norm interpolant around the initial impulse response) next
to the minimum-l2-norm limit of the deep linear network of Chizat, Colombo, Fernandez-Real & Figalli
(*Infinite-width limit of deep linear neural networks*, Theorem 2.3). This is the one room that imports the
four paper rooms, and it reuses their functions (rho_j, chi_1, the cells, the limit flow).
"""

import importlib

# Submodules and names load on first use (PEP 562).
_SUBMODULES = (
    "figures",
    "frobenius_moments",
    "linear_diagnostics",
    "nonlinear_diagnostics",
    "summaries",
    "timescale",
    "two_biases",
)
_EXPORTS = {
    "derive_timescale": ("timescale", "derive"),
    "wick_polynomial": ("frobenius_moments", "wick_polynomial"),
    "derive_weighted_min_norm": ("two_biases", "derive_weighted_min_norm"),
    "weighted_min_norm": ("two_biases", "weighted_min_norm"),
}
__all__ = [*_SUBMODULES, *_EXPORTS]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    if name in _EXPORTS:
        module, attr = _EXPORTS[name]
        return getattr(importlib.import_module(f"{__name__}.{module}"), attr)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)

"""Chen, Pennington & Schoenholz, *Dynamical Isometry and a Mean Field Theory of RNNs* (ICML 2018).

Sec. 3: the covariance maps, fixed points, chi and the timescale tau of the vanilla RNN (Eqs. 1-4) and
the minimalRNN (Eqs. 5-9), and the critical initialization of Algorithm 1, in
:mod:`~rnnbook.mean_field.theory`; their linearisations derived with sympy in
:mod:`~rnnbook.mean_field.derivations`; the batched networks in :mod:`~rnnbook.mean_field.vanilla_rnn`
and :mod:`~rnnbook.mean_field.minimal_rnn`; the spectrum of J J^T (Sec. 3.2.2, Eqs. 10-13) in
:mod:`~rnnbook.mean_field.jacobian_spectrum`. Secs. 4-5: the trainability grid and the speed test of
Figs. 2-3 (:mod:`~rnnbook.mean_field.trainability`) and the language models of Table 1
(:mod:`~rnnbook.mean_field.language_model`).

The checks of the chapters: theory against Monte Carlo (:mod:`~rnnbook.mean_field.monte_carlo`),
chi against the slope of the maps (:mod:`~rnnbook.mean_field.linearisation`), tau fitted to
trajectories (:mod:`~rnnbook.mean_field.timescale_fit`), the critical point of Fig. 1e
(:mod:`~rnnbook.mean_field.critical_point`), Algorithm 1 across (q*, mu_b)
(:mod:`~rnnbook.mean_field.critical_init`), the experiments of Figs. 2 and 3
(:mod:`~rnnbook.mean_field.trainable_depth`, :mod:`~rnnbook.mean_field.training_speed`) and the
figures (:mod:`~rnnbook.mean_field.figures`, imported on its own: it loads matplotlib.pyplot).
"""

import importlib

# Submodules and names load on first use (PEP 562): importing one module of this room
# does not import the others, so a chapter depends only on what it uses.
_SUBMODULES = (
    "critical_init",
    "critical_point",
    "derivations",
    "figures",
    "jacobian_spectrum",
    "language_model",
    "linearisation",
    "minimal_rnn",
    "monte_carlo",
    "theory",
    "timescale_fit",
    "trainability",
    "trainable_depth",
    "training_speed",
    "vanilla_rnn",
)
_EXPORTS = {
    "HP": "theory",
    "algorithm1": "theory",
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

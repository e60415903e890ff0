"""Emami, Sahraee-Ardakan, Pandit, Rangan & Fletcher, *Implicit Bias of Linear RNNs* (ICML 2021).

The linear RNN (Eq. 1) with its initialization (Eq. 4) in :mod:`~rnnbook.implicit_bias.linear_rnn`
and its stability (Sec. 2) in :mod:`~rnnbook.implicit_bias.stability`; the scale factors rho_j derived
from the variance recursions of App. B.3 (Theorem 3.3(b), Eq. 21) in
:mod:`~rnnbook.implicit_bias.scale_factors`; the impulse response at initialization (Theorem 3.3(a))
in :mod:`~rnnbook.implicit_bias.init_statistics`; the NTK of the wide RNN and of the scaled 1D
convolution (Eqs. 18-20) in :mod:`~rnnbook.implicit_bias.ntk` and the convolutional models and
Proposition 2.1 in :mod:`~rnnbook.implicit_bias.conv_models`. Sec. 5: the teacher tasks, gradient
descent of the three models, the kernel-regime comparison (Theorem 4.1), the delay sweep (Fig. 3) and
the real-data decoding of Table 1 (:mod:`~rnnbook.implicit_bias.decoding`, with the book's fMRI
stand-in and the loader of the original macaque S1 recording).
"""

import importlib

# Submodules and names load on first use (PEP 562): importing one module of this room
# does not import the others, so a chapter depends only on what it uses.
_SUBMODULES = (
    "conv_models",
    "decoding",
    "delay_sweep",
    "ensembles",
    "figures",
    "fmri_standin",
    "gd_training",
    "init_statistics",
    "kernel_regime",
    "linear_rnn",
    "ntk",
    "rates",
    "s1_macaque",
    "scale_factors",
    "stability",
    "teacher_tasks",
)
_EXPORTS = {
    "empirical_ntk": "ntk",
    "limit_kernel": "ntk",
    "derive_rho": "scale_factors",
    "rho": "scale_factors",
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

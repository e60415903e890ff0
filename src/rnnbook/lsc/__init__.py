"""Herranz-Celotti & Rouat, *Stabilizing RNN Gradients through Pre-training* (arXiv 2308.12075).

Entry point: :func:`rnnbook.lsc.lsc_pretrain_` pre-trains a torch recurrent network in place towards the
Local Stability Condition (Sec. II-D), in the style of ``torch.nn.init``: ``nn.RNN``, ``nn.GRU``,
``nn.LSTM``, their cells, stacks of them (:mod:`~rnnbook.lsc.adapters`), a cell of one's own through a
small protocol, or any :class:`~rnnbook.lsc.pretrain.StackedRNN`; data as a tensor, an iterable or a
``DataLoader``::

    import torch
    from rnnbook.lsc import lsc_pretrain_

    gru = torch.nn.GRU(3, 32, num_layers=2, batch_first=True)
    report = lsc_pretrain_(gru, torch.randn(64, 50, 3), target=1.0, max_steps=100)
    print(report)

The spectral radius and its exact rank-one gradient are in :mod:`~rnnbook.lsc.spectral`; many networks
of one shape are pre-trained together by :mod:`~rnnbook.lsc.pretrain_ensemble`.

The Local Stability Condition (Sec. II): Lemma 2's gradient paths on the time-depth grid and their
growth (App. C, Fig. 1b, Theorem 4) in :mod:`~rnnbook.lsc.gradient_paths` and
:mod:`~rnnbook.lsc.path_growth`; the PascalRNN and the bounds of Theorems 1-3 (App. A) in
:mod:`~rnnbook.lsc.bounds`; Lemma 1's eigenvalue moduli (App. B) in :mod:`~rnnbook.lsc.random_matrix`;
Corollary 1's classical initializations in :mod:`~rnnbook.lsc.initializations`; the anti-norms of
App. D in :mod:`~rnnbook.lsc.antinorms`, the lower LSC of Theorem 5 in :mod:`~rnnbook.lsc.lower_bound`
and the decaying covariance of App. I in :mod:`~rnnbook.lsc.decaying_covariance` (after pre-training
with the induced 2-norm, Fig. S3: :mod:`~rnnbook.lsc.induced_norm`). Sec. II-D-H: the networks (:mod:`~rnnbook.lsc.models`),
pre-training to a target radius (:mod:`~rnnbook.lsc.pretrain`), the tasks (:mod:`~rnnbook.lsc.tasks`)
and the training loop and run cache of Figs. 1c-4 and Table I (:mod:`~rnnbook.lsc.experiments`), with
the batched ensemble trainer of Figs. 3-4 (:mod:`~rnnbook.lsc.ensemble`).

The experiments of the chapters: the update bounds measured on networks
(:mod:`~rnnbook.lsc.bounds_experiment`), pre-training the six RNNs to the LSC
(:mod:`~rnnbook.lsc.convergence`), the GRU gradient of Fig. 1c bottom
(:mod:`~rnnbook.lsc.gru_gradient`), the FFN grid of Fig. 2 (:mod:`~rnnbook.lsc.ffn_mnist`), the deep
RNNs of Fig. 3 (:mod:`~rnnbook.lsc.deep_rnns`) and the LRU of Table I and Fig. 4
(:mod:`~rnnbook.lsc.lru_ptb`); their figures are in :mod:`~rnnbook.lsc.theory_figures` and
:mod:`~rnnbook.lsc.training_figures`.
"""

import importlib

# Submodules and names load on first use (PEP 562): importing one module of this room
# does not import the others, so a chapter depends only on what it uses.
_SUBMODULES = (
    "adapters",
    "antinorms",
    "bounds",
    "bounds_experiment",
    "convergence",
    "decaying_covariance",
    "deep_rnns",
    "ensemble",
    "experiments",
    "ffn_mnist",
    "gradient_paths",
    "gru_gradient",
    "induced_norm",
    "initializations",
    "lower_bound",
    "lru_ptb",
    "models",
    "path_growth",
    "pretrain",
    "pretrain_ensemble",
    "random_matrix",
    "spectral",
    "stack",
    "tasks",
    "theory_figures",
    "training_figures",
)
_EXPORTS = {
    "FFN": "models",
    "make_lru": "models",
    "make_rnn": "models",
    "Cell": "stack",
    "LSCConfig": "pretrain",
    "LSCReport": "pretrain",
    "StackedRNN": "stack",
    "Transition": "stack",
    "as_lsc_model": "adapters",
    "batched_jacobian": "stack",
    "lsc_pretrain_": "pretrain",
    "measure": "pretrain",
    "spectral_radius": "spectral",
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

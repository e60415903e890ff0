"""Herranz-Celotti & Rouat, *Stabilizing RNN Gradients through Pre-training* (arXiv 2308.12075).

Entry point: :func:`rnnbook.lsc.pretrain.pretrain` pre-trains any network whose transition derivatives
it can measure to a target radius.

The Local Stability Condition (Sec. II): Lemma 2's gradient paths on the time-depth grid and their
growth (App. C, Fig. 1b, Theorem 4) in :mod:`~rnnbook.lsc.gradient_paths` and
:mod:`~rnnbook.lsc.path_growth`; the PascalRNN and the bounds of Theorems 1-3 (App. A) in
:mod:`~rnnbook.lsc.bounds`; Lemma 1's eigenvalue moduli (App. B) in :mod:`~rnnbook.lsc.random_matrix`;
Corollary 1's classical initializations in :mod:`~rnnbook.lsc.initializations`; the anti-norms of
App. D in :mod:`~rnnbook.lsc.antinorms` and the decaying covariance of App. I in
:mod:`~rnnbook.lsc.decaying_covariance`. Sec. II-D-H: the networks (:mod:`~rnnbook.lsc.models`),
pre-training to a target radius (:mod:`~rnnbook.lsc.pretrain`), the tasks (:mod:`~rnnbook.lsc.tasks`)
and the training runs of Figs. 1c-4 and Table I (:mod:`~rnnbook.lsc.experiments`).
"""

from . import (
    antinorms,
    bounds,
    decaying_covariance,
    experiments,
    gradient_paths,
    initializations,
    models,
    path_growth,
    pretrain,
    random_matrix,
    tasks,
)
from .models import FFN, make_lru, make_rnn
from .pretrain import (
    LSCConfig,
    LSCReport,
    StackedRNN,
    Transition,
    batched_jacobian,
    measure,
)

__all__ = [
    "antinorms",
    "bounds",
    "decaying_covariance",
    "experiments",
    "gradient_paths",
    "initializations",
    "models",
    "path_growth",
    "pretrain",
    "random_matrix",
    "tasks",
    "FFN",
    "make_lru",
    "make_rnn",
    "LSCConfig",
    "LSCReport",
    "StackedRNN",
    "Transition",
    "batched_jacobian",
    "measure",
]

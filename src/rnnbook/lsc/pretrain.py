"""Pre-training to the Local Stability Condition (Herranz-Celotti & Rouat, Sec. II-D, Eq. 2).

The LSC asks that the spectral radius rho(M_k) of every transition derivative

    M_k in { dh_{t,l} / dh_{t-1,l}  (time),   dh_{t,l} / dh_{t,l-1}  (depth) }

be on average rho_t (1, or 1/2 for deep RNNs). This module computes the transition derivatives of a stacked
network batched with ``torch.func`` (``vmap`` of ``jacrev``/``jacfwd``), their radii (with the exact rank-one
gradient of :mod:`rnnbook.lsc.spectral`), and pre-trains a network towards the condition the way Sec. II-D
describes, in one call, :func:`lsc_pretrain_` (on ``nn.RNN``/``nn.GRU``/``nn.LSTM``, their cells, stacks and a
user's cell through the adapters of :mod:`rnnbook.lsc.adapters`):

* gradient descent on ``L = sum_k (rho(M_k) - rho_t)^2`` (Eq. 2; here the mean over the sampled M_k, which only
  rescales the learning rate) on task inputs;
* after each step, the weight multiplier ``kappa = clip(rho_t / rho, 0.85, 1.15)``: the input matrices of layer l
  are multiplied by the kappa of its depth transition, the recurrent matrices by the kappa of its time transition;
* then the entries of tensors are shuffled (a random permutation of each tensor's entries, within gate blocks):
  the paper shuffles every learnable tensor (``shuffle="all"``, what the book's chapters run); by default only
  the recurrent layers' matrices (``"weights"``: the readout and the biases are left in place);
* stop when (i) ``|mean_k rho(M_k) - rho_t| <= 0.02``, (ii) the standard deviation across k is below 0.2 and
  (iii) the 10-step exponential moving average of that standard deviation is below 0.2, or when the step budget
  runs out (then :class:`LSCReport` says so and why; its labels carry the thresholds of the configuration).

The radius of a non-square M (the first layer reads the data, whose width differs) is by default the radius of
M padded with zeros to a square matrix, which equals the radius of its leading square block; ``nonsquare="norm"``
uses the spectral norm instead. The paper does not say which it used.

A model takes part by offering two methods (see :class:`StackedRNN`, which provides them for any stack of
:class:`Cell` s, the adapters of :mod:`rnnbook.lsc.adapters` for torch's modules, and
:class:`rnnbook.lsc.models.FFN` for a feed-forward net):

* ``lsc_jacobians(x, n_times, generator) -> list[Transition]``: the batched M_k at sampled points of a batch;
* ``lsc_scale(layer, kind, kappa)``: multiply the matrices that the multiplier of (layer, kind) acts on.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Iterator, Sequence

import numpy as np
import torch
from torch import Tensor, nn

from .spectral import spectral_radius  # noqa: F401 - re-exported
from .stack import (  # noqa: F401 - the network of Eq. (1), re-exported
    KINDS,
    Cell,
    Kind,
    StackedRNN,
    Trace,
    Transition,
    _learnable,
    batched_jacobian,
)

# --------------------------------------------------------------------------------------------------------------
# Radii, targets, the pre-training loop
# --------------------------------------------------------------------------------------------------------------


def radii_by_group(
    transitions: Iterable[Transition], nonsquare: str = "pad"
) -> dict[tuple[int, str], Tensor]:
    """{(layer, kind): radii (S,)} for a list of transitions."""
    return {(tr.layer, tr.kind): tr.radii(nonsquare) for tr in transitions}


def targets_for(
    target: float, unbalanced: bool = False, T: int | None = None, L: int | None = None
) -> dict[str, float]:
    """The target radius per kind. Balanced: rho_t for both. Unbalanced (Sec. III-D, rho-bar_t): the time
    component gets 2 rho_t T/(T+L) and the depth component 2 rho_t L/(T+L), so their mean is still rho_t
    (for rho-bar_t = 0.5: T/(T+L) and L/(T+L), as in the paper)."""
    if target <= 0:
        raise ValueError(f"target = {target!r}: must be > 0")
    if not unbalanced:
        return {"time": float(target), "depth": float(target)}
    if not T or not L or T < 1 or L < 1:
        raise ValueError(
            "unbalanced targets need the sequence length T >= 1 and the depth L >= 1"
        )
    return {"time": 2 * target * T / (T + L), "depth": 2 * target * L / (T + L)}


def _perm(flat: Tensor, generator: torch.Generator) -> Tensor:
    """A random permutation of ``flat``'s entries, drawn on the CPU ``generator``."""
    idx = torch.randperm(flat.numel(), generator=generator, device="cpu")
    return idx.to(flat.device)


SHUFFLE = ("weights", "all", "none")


def shuffled_tensors(
    model: nn.Module, which: str
) -> list[tuple[str, nn.Parameter, int]]:
    """The tensors of ``model`` that the shuffle of Sec. II-D permutes, as (name, parameter,
    row-blocks): ``"all"`` every learnable tensor (the paper's method), ``"weights"`` the matrices
    of the recurrent layers (readout, encoder and biases left out), ``"none"`` nothing. A model
    may decide with a method ``lsc_shuffled(which)`` (:class:`StackedRNN` has one); otherwise
    ``"weights"`` means the tensors of two or more dimensions outside ``readout``, ``encoder``
    and ``decoder``."""
    if which not in SHUFFLE:
        raise ValueError(f"shuffle = {which!r}: must be one of {SHUFFLE}")
    if hasattr(model, "lsc_shuffled"):
        return model.lsc_shuffled(which)
    outside = ("readout.", "encoder.", "decoder.")
    return [
        (n, p, int(getattr(p, "lsc_chunks", 1)))
        for n, p in _learnable(model)
        if which == "all"
        or (which == "weights" and p.ndim >= 2 and not n.startswith(outside))
    ]


@torch.no_grad()
def shuffle_(
    tensors: Sequence[tuple[str, Tensor, int]], generator: torch.Generator
) -> None:
    """Randomly permute the entries of each tensor (within its row-blocks), in place."""
    for _, p, chunks in tensors:
        if chunks > 1 and p.shape[0] % chunks == 0:
            for block in p.data.chunk(chunks, 0):
                flat = block.reshape(-1)
                block.copy_(flat[_perm(flat, generator)].reshape(block.shape))
        else:
            flat = p.data.reshape(-1)
            p.data.copy_(flat[_perm(flat, generator)].reshape(p.shape))


def ema(values: Sequence[float], span: int = 10) -> float:
    """Exponential moving average with ``alpha = 2/(span+1)``, started at the first value."""
    alpha, m = 2.0 / (span + 1), None
    for v in values:
        m = v if m is None else alpha * v + (1 - alpha) * m
    return float("nan") if m is None else float(m)


@dataclass
class LSCConfig:
    """The settings of the pre-training (defaults: the paper's, Sec. II-D and II-G, but for
    ``shuffle``: the paper permutes every learnable tensor, ``shuffle="all"``; the default
    ``"weights"`` leaves the readout and the biases in place)."""

    target: float = 0.5
    unbalanced: bool = False
    T: int | None = None  # sequence length, for unbalanced targets
    lr: float = 3.14e-3  # AdaBelief, as the paper
    weight_decay: float = 1e-4
    clip: tuple[float, float] = (0.85, 1.15)
    multiplier: bool = True
    shuffle: str = "weights"  # "weights", "all" (the paper's) or "none"
    eps: float = 0.02
    std_max: float = 0.2
    ema_span: int = 10
    max_steps: int = 200
    min_steps: int = 1
    n_times: int | None = 4
    nonsquare: str = "pad"
    include_input: bool = True


def criteria(
    cfg: LSCConfig, mean_dev: float, std: float, std_ema: float
) -> dict[str, bool]:
    """The three stopping criteria of Sec. II-D with their thresholds in their labels."""
    return {
        f"(i) |mean - target| <= {cfg.eps:g}": abs(mean_dev) <= cfg.eps,
        f"(ii) std < {cfg.std_max:g}": std < cfg.std_max,
        f"(iii) EMA{cfg.ema_span}(std) < {cfg.std_max:g}": std_ema < cfg.std_max,
    }


@dataclass
class LSCReport:
    """What the pre-training did: whether the three criteria were met, after how many steps, the
    mean radius of each group of transitions ("l1/time", ...) before the first step and after the
    last, and the history."""

    converged: bool
    steps: int
    target: dict[str, float]
    criteria: dict[str, bool]
    mean_dev: float  # mean_k (rho_k - target_k)
    std: float  # std_k (rho_k - target_k)
    std_ema: float
    group_means: dict[str, float]  # "l1/time" -> mean radius, at the last check
    history: dict[str, list] = field(default_factory=dict)
    seconds: float = 0.0
    radii_before: dict[str, float] = field(default_factory=dict)
    radii_after: dict[str, float] | None = None  # of the network as returned

    @property
    def mean_radius(self) -> float:
        return float(np.mean(list(self.group_means.values())))

    def __str__(self) -> str:
        state = "converged" if self.converged else "did NOT converge"
        lines = [
            f"LSC pre-training {state} after {self.steps} steps ({self.seconds:.1f} s); "
            f"targets {self.target}",
            "  mean radius      before -> after",
        ]
        after = self.radii_after or {}
        for g, b in self.radii_before.items():
            a = f"{after[g]:.3f}" if g in after else "?"
            lines.append(f"  {g:<14} {b:8.3f} -> {a}")
        lines.append(
            f"  at the last check: mean deviation {self.mean_dev:+.3f}, std {self.std:.3f}, "
            f"EMA of std {self.std_ema:.3f}"
        )
        lines += [f"  {k}: {'yes' if v else 'NO'}" for k, v in self.criteria.items()]
        if not self.converged:
            lines.append(
                "  The step budget ran out before all three criteria held; the network is "
                "left as it is."
            )
        return "\n".join(lines)


def _lsc_model(module, batch_first: bool | None = None):
    from .adapters import as_lsc_model

    return as_lsc_model(module, batch_first)


def _placement(model: nn.Module) -> tuple[torch.device | None, torch.dtype | None]:
    p = next(iter(model.parameters()), None)
    return (None, None) if p is None else (p.device, p.dtype)


def measure(
    model,
    x: Tensor,
    cfg: LSCConfig | None = None,
    generator: torch.Generator | None = None,
    n_times: int | None = None,
    seed: int = 0,
) -> dict[tuple[int, str], np.ndarray]:
    """Radii of all transition derivatives of ``model`` (anything :func:`lsc_pretrain_` reads) on
    the batch ``x`` (no gradient): {(l, kind): array}. The sampled time steps are drawn from
    ``generator``, or from a CPU generator seeded with ``seed``."""
    cfg = cfg or LSCConfig()
    model = _lsc_model(model)
    gen = generator or torch.Generator(device="cpu").manual_seed(seed)
    device, _ = _placement(model)
    was_training = model.training
    model.eval()
    with torch.no_grad():
        trs = model.lsc_jacobians(
            x if device is None else x.to(device),
            n_times=n_times if n_times is not None else cfg.n_times,
            generator=gen,
            include_input=cfg.include_input,
        )
        out = {
            k: v.detach().cpu().numpy()
            for k, v in radii_by_group(trs, cfg.nonsquare).items()
        }
    model.train(was_training)
    return out


def make_optimizer(
    params, lr: float, weight_decay: float = 0.0, lookahead: bool = True
):
    """AdaBelief (default hyper-parameters) inside Lookahead (sync period 6, slow step 0.5), as Sec. II-G.

    Uses the maintained implementations of the ``pytorch-optimizer`` package."""
    from pytorch_optimizer.optimizer.adabelief import AdaBelief
    from pytorch_optimizer.optimizer.lookahead import Lookahead

    opt = AdaBelief(params, lr=lr, weight_decay=weight_decay)
    return Lookahead(opt, k=6, alpha=0.5) if lookahead else opt


# --------------------------------------------------------------------------------------------------------------
# Data
# --------------------------------------------------------------------------------------------------------------


def _inputs(item, n: int) -> Tensor:
    if isinstance(item, Tensor):
        return item
    if isinstance(item, (tuple, list)) and item and isinstance(item[0], Tensor):
        return item[0]  # (x, y): the Eq. (2) loss does not see the labels
    raise TypeError(
        f"data: batch {n} is a {type(item).__name__}; each batch must be a tensor of "
        "inputs or an (inputs, labels) pair, as a DataLoader gives"
    )


def batches_of(
    data, device: torch.device | None = None, dtype: torch.dtype | None = None
) -> Iterator[Tensor]:
    """An endless stream of input batches from ``data``: a tensor (the same batch at every step),
    or an iterable of tensors or of ``(x, y)`` pairs (a list, a ``DataLoader``: re-iterated when
    it ends). A one-shot iterator (a generator) that runs out raises a ``ValueError`` saying so.
    Each batch is moved to ``device`` and, if it holds floats, to ``dtype``."""

    def prep(x: Tensor) -> Tensor:
        if dtype is not None and x.is_floating_point():
            x = x.to(dtype)
        return x if device is None else x.to(device)

    if isinstance(data, Tensor):
        x = prep(data)
        while True:
            yield x
    try:
        it = iter(data)
    except TypeError:
        raise TypeError(
            f"data: a {type(data).__name__}; pass a tensor of inputs, an iterable of "
            "batches or a DataLoader of (x, y) pairs"
        ) from None
    one_shot, n, in_pass = it is data, 0, 0
    while True:
        try:
            item = next(it)
        except StopIteration:
            if one_shot or in_pass == 0:
                what = "was empty" if n == 0 else f"ran out after {n} batches"
                raise ValueError(
                    f"data {what}: pass more batches, an endless iterator, a list or a "
                    "DataLoader (re-iterated when it ends), or a smaller max_steps"
                ) from None
            it, in_pass = iter(data), 0
            continue
        n, in_pass = n + 1, in_pass + 1
        yield prep(_inputs(item, n))


# --------------------------------------------------------------------------------------------------------------
# The entry point
# --------------------------------------------------------------------------------------------------------------


def _settings(config: LSCConfig | None, overrides: dict) -> LSCConfig:
    if config is not None and not isinstance(config, LSCConfig):
        raise TypeError(f"config: a {type(config).__name__}, not an LSCConfig")
    names = set(LSCConfig.__dataclass_fields__)
    unknown = sorted(set(overrides) - names)
    if unknown:
        raise TypeError(
            f"lsc_pretrain_: unknown setting {unknown[0]!r}; the settings are "
            f"{', '.join(sorted(names))}"
        )
    cfg = replace(config or LSCConfig(), **overrides)
    if cfg.shuffle not in SHUFFLE:
        raise ValueError(f"shuffle = {cfg.shuffle!r}: must be one of {SHUFFLE}")
    if cfg.max_steps < 1:
        raise ValueError(f"max_steps = {cfg.max_steps!r}: must be >= 1")
    if not cfg.target > 0:
        raise ValueError(f"target = {cfg.target!r}: must be > 0")
    return cfg


def _progress(step: int, info: dict, cfg: LSCConfig) -> None:
    end = "\n" if info["done"] else ""
    print(
        f"\rLSC pre-training: step {step}/{cfg.max_steps}, mean radius "
        f"{info['mean_radius']:.3f}, deviation {info['mean_dev']:+.3f}, std {info['std']:.3f}",
        end=end,
        file=sys.stderr,
        flush=True,
    )


def lsc_pretrain_(
    module,
    data,
    *,
    target: float | None = None,
    max_steps: int | None = None,
    shuffle: str | None = None,
    config: LSCConfig | None = None,
    seed: int = 0,
    batch_first: bool | None = None,
    callback: Callable[[int, dict], None] | None = None,
    progress: bool = False,
    **settings,
) -> LSCReport:
    """Pre-train ``module`` in place towards the Local Stability Condition (Sec. II-D, Eq. 2), in
    the style of ``torch.nn.init``: the module keeps its class and parameters, only their values
    change.

    ``module``: an ``nn.RNN``, ``nn.GRU`` or ``nn.LSTM`` (any depth; not bidirectional, no
    ``proj_size``), an ``nn.RNNCell``, ``nn.GRUCell`` or ``nn.LSTMCell``, a list or
    ``nn.Sequential`` of them (layer l reads layer l-1), a cell of one's own that keeps the small
    protocol of :mod:`rnnbook.lsc.adapters`, or any model with ``lsc_jacobians`` and
    ``lsc_scale`` (:class:`StackedRNN`). ``data``: a tensor of inputs, an iterable of input
    batches or of ``(x, y)`` pairs, or a ``DataLoader`` (see :func:`batches_of`); laid out as the
    module reads them (``batch_first``, default the module's own; cells read (B, T, n_in)).
    Batches are moved to the module's device and floating dtype.

    ``target`` (rho_t), ``max_steps`` and ``shuffle`` (``"weights"`` by default: the recurrent
    layers' matrices; ``"all"``: every learnable tensor, the paper's; ``"none"``), and any other
    field of :class:`LSCConfig` given as a keyword, override ``config``. Every draw (the sampled
    time steps, the permutations) comes from a CPU generator seeded with ``seed``; the global
    random state is not touched. ``callback(step, info)`` is called at every step with the loss,
    the deviation, the spreads, the group radii and the criteria; ``progress=True`` prints one
    line per step on stderr.

    Returns an :class:`LSCReport` (``print`` it): the radii before and after, the steps, and
    which criteria held; ``report.converged`` is False when ``max_steps`` ran out first."""
    overrides = dict(settings)
    for name, value in (
        ("target", target),
        ("max_steps", max_steps),
        ("shuffle", shuffle),
    ):
        if value is not None:
            overrides[name] = value
    cfg = _settings(config, overrides)
    model = _lsc_model(module, batch_first)
    device, dtype = _placement(model)
    batches = batches_of(data, device, dtype)
    gen = torch.Generator(device="cpu").manual_seed(int(seed))
    was_training = model.training
    model.eval()  # no dropout while measuring the transition derivatives
    L = getattr(model, "depth", None)
    targets = targets_for(cfg.target, cfg.unbalanced, cfg.T, L)
    params = [p for p in model.parameters() if p.requires_grad]
    shuffled = shuffled_tensors(model, cfg.shuffle)
    opt = make_optimizer(params, cfg.lr, cfg.weight_decay, lookahead=False)
    hist: dict[str, list] = {
        k: [] for k in ("loss", "mean_dev", "std", "std_ema", "mean_radius", "groups")
    }
    t0 = time.perf_counter()
    converged, step = False, 0
    crit = criteria(cfg, math.inf, math.inf, math.inf)
    try:
        for step in range(1, cfg.max_steps + 1):
            x = next(batches)
            trs = model.lsc_jacobians(
                x, n_times=cfg.n_times, generator=gen, include_input=cfg.include_input
            )
            groups = radii_by_group(trs, cfg.nonsquare)
            devs = torch.cat([r - targets[kind] for (l, kind), r in groups.items()])
            loss = (devs**2).mean()  # Eq. (2), averaged
            d = devs.detach()
            mean_dev, std = float(d.mean()), float(d.std()) if d.numel() > 1 else 0.0
            hist["loss"].append(float(loss.detach()))
            hist["mean_dev"].append(mean_dev)
            hist["std"].append(std)
            hist["std_ema"].append(ema(hist["std"], cfg.ema_span))
            gm = {
                f"l{l}/{kind}": float(r.detach().mean())
                for (l, kind), r in groups.items()
            }
            hist["groups"].append(gm)
            hist["mean_radius"].append(float(np.mean(list(gm.values()))))
            crit = criteria(cfg, mean_dev, std, hist["std_ema"][-1])
            converged = all(crit.values()) and step >= cfg.min_steps
            info = {
                "loss": hist["loss"][-1],
                "mean_dev": mean_dev,
                "std": std,
                "std_ema": hist["std_ema"][-1],
                "mean_radius": hist["mean_radius"][-1],
                "radii": gm,
                "criteria": crit,
                "done": converged or step == cfg.max_steps,
            }
            if callback is not None:
                callback(step, info)
            if progress:
                _progress(step, info, cfg)
            if converged:
                break  # the radii just measured are those of the network as it is returned
            opt.zero_grad(set_to_none=True)
            if loss.requires_grad:
                loss.backward()
                for (
                    p
                ) in params:  # an eigenvalue degeneracy can give a non-finite gradient
                    if p.grad is not None:
                        torch.nan_to_num_(p.grad, nan=0.0, posinf=0.0, neginf=0.0)
                opt.step()
            with torch.no_grad():
                if cfg.multiplier:
                    for (l, kind), r in groups.items():
                        rho = float(r.detach().mean())
                        kappa = (
                            cfg.clip[1]
                            if rho <= 0 or not math.isfinite(rho)
                            else targets[kind] / rho
                        )
                        model.lsc_scale(
                            l, kind, float(min(max(kappa, cfg.clip[0]), cfg.clip[1]))
                        )
                if shuffled:
                    shuffle_(shuffled, gen)
        seconds = time.perf_counter() - t0
        after = hist["groups"][-1]
        if not converged:  # the last update came after the last check: measure again
            with torch.no_grad():
                trs = model.lsc_jacobians(
                    x,
                    n_times=cfg.n_times,
                    generator=gen,
                    include_input=cfg.include_input,
                )
                after = {
                    f"l{l}/{kind}": float(r.mean())
                    for (l, kind), r in radii_by_group(trs, cfg.nonsquare).items()
                }
    finally:
        model.train(was_training)
    return LSCReport(
        converged,
        step,
        targets,
        crit,
        hist["mean_dev"][-1],
        hist["std"][-1],
        hist["std_ema"][-1],
        hist["groups"][-1],
        hist,
        seconds,
        radii_before=hist["groups"][0],
        radii_after=after,
    )

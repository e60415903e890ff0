"""LSC pre-training of many networks of one shape at once (Herranz-Celotti & Rouat, Sec. II-D, Eq. 2).

:func:`pretrain_ensemble` does for a list of networks what :func:`rnnbook.lsc.pretrain.lsc_pretrain_` does
for one, in one batched pass per step: the parameters of the members are stacked (a leading
dimension E) and the states and transition derivatives of all members are computed together, with
``vmap`` over the members of ``functional_call`` (the forward pass, then ``vmap(jacrev)`` of each
cell's step, as :meth:`rnnbook.lsc.pretrain.StackedRNN.lsc_jacobians`), and their radii with one
batched eigenvalue call per (layer, kind). The rest is per member, as in ``lsc_pretrain_``:

* the loss of Eq. (2) (the mean of ``(rho(M_k) - rho_t)^2`` over the member's own M_k); the sum of
  the members' losses is differentiated once, which gives each member the gradient of its own loss;
* one AdaBelief (``make_optimizer(..., lookahead=False)``) over the stacked tensors: it acts entry
  by entry (its step count is shared, and every active member has made the same number of steps),
  so stacking does not couple the members;
* the multiplier ``kappa = clip(rho_t / rho, 0.85, 1.15)`` of each (layer, kind) and the shuffle of
  the tensors its ``shuffle`` setting names, applied to the member's slice;
* its own generator, seeded with its seed as ``lsc_pretrain_`` seeds it, drawn in the same order (the
  sampled time steps, then the shuffle), so each member sees the draws its single run would;
* its own stopping: a member that meets the three criteria (or runs out of its ``max_steps``) is
  frozen: its parameters, history and generator no longer change while the others go on. The
  loop ends when all have stopped.

What is identical to ``lsc_pretrain_`` run on each network alone with the same seed and batches: every
random draw (time steps, permutations), the order of the operations, the stopping rule and the
report's fields (but ``radii_after``, which a member that ran out of steps leaves
unmeasured: None). What is equal only up to float rounding: the states, Jacobians and radii, since
the batched kernels (``bmm`` instead of ``mm``, the Jacobian of the sum over the rows instead of a
``vmap`` over them) round differently. In float64 the parameters and radii agree to ~1e-13. In
float32 the radii agree to ~1e-6, the parameters only to ~1e-4 of their scale after a few steps:
AdaBelief divides each gradient entry by its own running deviation, so an entry whose gradient is
tiny moves by about lr whatever its size, and a relative rounding error of that gradient becomes
an error of lr times it in the parameter. A criterion that sits on its threshold within that
rounding, or an ALIF membrane exactly at its threshold, could decide differently
(``tests/lsc/test_pretrain_ensemble.py`` checks the sigma-RNN, ReLU-RNN, GRU, LSTM, ALIF+ and the
LRU). ``LSCReport.seconds`` is the wall time of the whole ensemble until the member stopped.

The eigenvalues (LAPACK, one matrix at a time) and their backward are most of a step and cost the
same batched or not, so the gain is the rest (``benchmarks/lsc_pretrain_ensemble.py``: 1.03x to
1.17x for 8 networks of the pre-training chapter's book sizes, one thread).

``batches`` is one iterator (each step's batch is shared by all members, as if each had its own
copy of the stream) or one iterator per member; an iterator given to several members is drawn
once per step and its batch shared by them. The settings that shape the batched computation
(``lr``, ``weight_decay``, ``n_times``, ``nonsquare``, ``include_input``) must be the same for all
members; the target, the criteria and the step budget may differ.
"""

from __future__ import annotations

import copy
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator, Sequence

import numpy as np
import torch
from torch import Tensor, nn
from torch.func import functional_call, jacrev, vmap

from .pretrain import (
    SHUFFLE,
    Cell,
    LSCConfig,
    LSCReport,
    StackedRNN,
    _perm,
    batches_of,
    criteria,
    ema,
    make_optimizer,
    shuffled_tensors,
    spectral_radius,
    targets_for,
)

#: the settings of :class:`~rnnbook.lsc.pretrain.LSCConfig` that all members must share (they shape the batched step)
SHARED = ("lr", "weight_decay", "n_times", "nonsquare", "include_input")


# --------------------------------------------------------------------------------------------------------------
# Arguments
# --------------------------------------------------------------------------------------------------------------


def architecture(model: nn.Module) -> tuple:
    """What must agree for two networks to be stacked: the classes and plain attributes of all
    submodules (activation, ALIF threshold form, widths), and the names, shapes, dtypes and
    devices of the parameters (with their ``lsc_chunks``) and buffers."""
    mods = tuple(
        (
            name,
            type(m).__name__,
            tuple(
                sorted(
                    (k, v)
                    for k, v in vars(m).items()
                    if k != "training" and isinstance(v, (bool, int, float, str))
                )
            ),
        )
        for name, m in model.named_modules()
    )
    params = tuple(
        (
            n,
            tuple(p.shape),
            p.dtype,
            str(p.device),
            p.requires_grad,
            getattr(p, "lsc_chunks", 1),
        )
        for n, p in model.named_parameters()
    )
    bufs = tuple(
        (n, tuple(b.shape), b.dtype, str(b.device)) for n, b in model.named_buffers()
    )
    return mods, params, bufs


def _check_models(models: Sequence[nn.Module]) -> None:
    if len(models) == 0:
        raise ValueError("models: the list is empty")
    if len({id(m) for m in models}) < len(models):
        raise ValueError("models: a network appears more than once")
    for e, m in enumerate(models):
        if not isinstance(m, StackedRNN):
            raise ValueError(
                f"models[{e}]: a {type(m).__name__}, not a StackedRNN of cells"
            )
        if m.decoder is not None:
            raise ValueError(f"models[{e}]: a custom decoder cannot be stacked")
        owners: dict[int, set] = {}
        for mod in m.modules():
            for p in mod.parameters(recurse=False):
                owners.setdefault(id(p), set()).add(id(mod))
        if any(len(o) > 1 for o in owners.values()):
            raise ValueError(
                f"models[{e}]: a parameter shared by two modules cannot be stacked"
            )
    ref = architecture(models[0])
    for e, m in enumerate(models[1:], 1):
        if type(m) is not type(models[0]) or architecture(m) != ref:
            raise ValueError(
                f"models[{e}]: not the architecture of models[0] (class, cells, "
                "widths, depth, attributes, parameter shapes and device must agree)"
            )


def _configs(cfgs: LSCConfig | Sequence[LSCConfig], n: int) -> list[LSCConfig]:
    cfgs = [cfgs] * n if isinstance(cfgs, LSCConfig) else list(cfgs)
    if len(cfgs) != n:
        raise ValueError(f"cfgs: {len(cfgs)} configurations for {n} models")
    for e, c in enumerate(cfgs):
        if not isinstance(c, LSCConfig):
            raise ValueError(f"cfgs[{e}]: a {type(c).__name__}, not an LSCConfig")
        if c.max_steps < 1:
            raise ValueError(f"cfgs[{e}]: max_steps = {c.max_steps}, must be >= 1")
        if c.shuffle not in SHUFFLE:
            raise ValueError(
                f"cfgs[{e}].shuffle = {c.shuffle!r}: must be one of {SHUFFLE}"
            )
        for k in SHARED:
            if getattr(c, k) != getattr(cfgs[0], k):
                raise ValueError(
                    f"cfgs[{e}].{k} = {getattr(c, k)!r} differs from cfgs[0].{k} = "
                    f"{getattr(cfgs[0], k)!r}: {SHARED} must be the same for all members"
                )
    return cfgs


def _seeds(seeds: int | Sequence[int], n: int) -> list[int]:
    seeds = [seeds] * n if isinstance(seeds, (int, np.integer)) else list(seeds)
    if len(seeds) != n:
        raise ValueError(f"seeds: {len(seeds)} seeds for {n} models")
    return [int(s) for s in seeds]


def _streams(batches, n: int) -> list[Iterator[Tensor]]:
    """One stream per member (:func:`~rnnbook.lsc.pretrain.batches_of` of each iterator; an
    iterator given to several members is one stream, drawn once per step)."""
    if isinstance(batches, (list, tuple)):
        if len(batches) != n:
            raise ValueError(f"batches: {len(batches)} iterators for {n} models")
        its = list(batches)
    elif not hasattr(batches, "__next__"):
        raise ValueError("batches: an iterator of inputs, or a list of them per model")
    else:
        its = [batches] * n
    wrapped: dict[int, Iterator[Tensor]] = {}
    return [wrapped.setdefault(id(it), batches_of(it)) for it in its]


# --------------------------------------------------------------------------------------------------------------
# The batched transition derivatives
# --------------------------------------------------------------------------------------------------------------


class _Call(nn.Module):
    """``fn(model, *args)`` as a forward, so that ``functional_call`` can run any method of
    ``model`` with one member's parameters."""

    def __init__(self, model: nn.Module) -> None:
        super().__init__()
        self.model = model

    def forward(self, fn, *args):
        return fn(self.model, *args)


def per_member(model: nn.Module, fn, state: dict, *args, in_dims: tuple):
    """``fn(model, *args)`` for every member: ``vmap`` over the stacked ``state`` (parameters and
    buffers, leading dimension E) of ``functional_call``; ``in_dims`` for ``args``."""
    call = _Call(model)
    state = {"model." + k: v for k, v in state.items()}

    def one(s, *a):
        return functional_call(call, s, (fn, *a), tie_weights=False)

    return vmap(one, in_dims=(0, *in_dims))(state, *args)


def _states(model: StackedRNN, x: Tensor):
    _, tr = model(x, trace=True)
    return tr.H, tr.U, tr.H0


def sample_times(
    B: int, T: int, n_times: int | None, generator: torch.Generator, device
) -> tuple[Tensor, Tensor]:
    """The sampled points (b, t) of a batch, drawn as :meth:`~rnnbook.lsc.pretrain.StackedRNN.lsc_jacobians` draws them
    (``n_times`` steps per sequence on the CPU ``generator``; all of them, and no draw, if None)."""
    if n_times is None or n_times >= T:
        bi, ti = torch.meshgrid(
            torch.arange(B, device=device),
            torch.arange(T, device=device),
            indexing="ij",
        )
        return bi.reshape(-1), ti.reshape(-1)
    ti = torch.stack(
        [
            torch.randperm(T, generator=generator, device="cpu")[:n_times]
            for _ in range(B)
        ]
    ).reshape(-1)
    bi = torch.arange(B, device=device).repeat_interleave(n_times)
    return bi, ti.to(device)


def rowwise_jacobian(
    f: Callable[..., Tensor], *args: Tensor, argnum: int = 0
) -> Tensor:
    """d f / d args[argnum] at every row of a batch, (S, n_out, n_in), for an ``f`` that maps
    each row of its (S, .) inputs to the same row of its (S, n_out) output: ``jacrev`` of the
    sum over the rows. The same numbers as ``vmap(jacrev(f))`` on the rows (up to rounding);
    under ``vmap`` over members its products stay matrix products of all the rows (a per-row
    ``jacrev`` would expand every weight matrix to each row)."""
    J = jacrev(lambda *a: f(*a).sum(0), argnums=argnum)(*args)  # (n_out, S, n_in)
    return J.movedim(1, 0)


def _jacobians(model: StackedRNN, hp, u, hb, ub, include_input: bool):
    """One member's transition derivatives at its gathered points (as ``_lsc_jacobians``)."""
    out = []
    for l, cell in enumerate(model.cells):
        out.append(rowwise_jacobian(cell.step, hp[l], u[l], argnum=0))
        if l == 0:
            if include_input:
                out.append(rowwise_jacobian(cell.step, hp[0], u[0], argnum=1))
            continue

        def f_depth(g, h, v, cell=cell, below=model.cells[l - 1]):
            return cell.step(h, below.out(g, v))

        out.append(rowwise_jacobian(f_depth, hb[l - 1], hp[l], ub[l - 1]))
    return out


def transition_keys(depth: int, include_input: bool = True) -> list[tuple[int, str]]:
    """The (layer, kind) of the transitions, in the order of ``lsc_jacobians``."""
    keys = []
    for l in range(1, depth + 1):
        keys.append((l, "time"))
        if l > 1 or include_input:
            keys.append((l, "depth"))
    return keys


def stacked_transitions(
    model: StackedRNN,
    state: dict,
    x: Tensor,
    times: Sequence[Tensor],
    bi: Tensor | None = None,
    shared_x: bool = False,
    include_input: bool = True,
) -> dict[tuple[int, str], Tensor]:
    """{(layer, kind): M (E, S, n, m)}: the transition derivatives of every member of the stacked
    ``state`` at its own sampled times ``times[e]`` (S,) of the sequences ``bi`` (S,) of its batch
    ``x[e]`` (or of the one batch ``x`` with ``shared_x``). The states are computed without
    gradient; the M keep their dependence on ``state``, as ``lsc_jacobians``."""
    E = len(times)
    with torch.no_grad():
        H, U, H0 = per_member(
            model, _states, state, x, in_dims=(None if shared_x else 0,)
        )
    ti = torch.stack(list(times))  # (E, S)
    bi = ti.new_zeros(ti.shape[1]) if bi is None else bi
    e = torch.arange(E, device=ti.device)[:, None]

    def at(Z: Tensor) -> Tensor:
        return Z.detach()[e, bi[None], ti]

    prev = [at(torch.cat([h0[:, :, None], h[:, :, :-1]], 2)) for h, h0 in zip(H, H0)]
    u = [at(z) for z in U]
    hb, ub = [at(h) for h in H[:-1]], u[:-1]

    def jac(m, hp, uu, hbb, ubb):
        return _jacobians(m, hp, uu, hbb, ubb, include_input)

    Ms = per_member(model, jac, state, prev, u, hb, ub, in_dims=(0, 0, 0, 0))
    return dict(zip(transition_keys(model.depth, include_input), Ms))


# --------------------------------------------------------------------------------------------------------------
# Per-member multiplier and shuffle on the stacked tensors
# --------------------------------------------------------------------------------------------------------------


@torch.no_grad()
def scale_member(
    model: StackedRNN, params: dict, e: int, layer: int, kind: str, kappa: float
) -> None:
    """``model.lsc_scale(layer, kind, kappa)`` applied to member ``e`` of the stacked ``params``."""
    cell = model.cells[layer - 1]
    prefix = f"cells.{layer - 1}."
    if type(cell).lsc_scale is Cell.lsc_scale:
        for name in cell.input_params if kind == "depth" else cell.recurrent_params:
            params[prefix + name][e].mul_(kappa)
        return
    scratch = copy.deepcopy(
        cell
    )  # a cell with its own rule (e.g. the LRU): run it on a copy
    for name, p in scratch.named_parameters():
        p.copy_(params[prefix + name][e])
    scratch.lsc_scale(kind, kappa)
    for name, p in scratch.named_parameters():
        params[prefix + name][e].copy_(p)


@torch.no_grad()
def shuffle_member(
    model: nn.Module, params: dict, e: int, generator: torch.Generator, which: str
) -> None:
    """:func:`rnnbook.lsc.pretrain.shuffle_` of the tensors ``which`` names
    (:func:`~rnnbook.lsc.pretrain.shuffled_tensors`) applied to member ``e`` (same draws)."""
    for name, _, chunks in shuffled_tensors(model, which):
        q = params[name][e]
        if chunks > 1 and q.shape[0] % chunks == 0:
            for block in q.chunk(chunks, 0):
                flat = block.reshape(-1)
                block.copy_(flat[_perm(flat, generator)].reshape(block.shape))
        else:
            flat = q.reshape(-1)
            q.copy_(flat[_perm(flat, generator)].reshape(q.shape))


def _kappa(rho: float, target: float, clip: tuple[float, float]) -> float:
    kappa = clip[1] if rho <= 0 or not math.isfinite(rho) else target / rho
    return float(min(max(kappa, clip[0]), clip[1]))


# --------------------------------------------------------------------------------------------------------------
# The loop
# --------------------------------------------------------------------------------------------------------------


@dataclass
class _Run:
    """One member's bookkeeping, as the local variables of ``lsc_pretrain_``."""

    cfg: LSCConfig
    targets: dict[str, float]
    gen: torch.Generator
    stream: Iterator[Tensor]
    hist: dict[str, list] = field(
        default_factory=lambda: {
            k: []
            for k in ("loss", "mean_dev", "std", "std_ema", "mean_radius", "groups")
        }
    )
    crit: dict[str, bool] = field(default_factory=dict)
    step: int = 0
    done: bool = False
    converged: bool = False
    seconds: float = 0.0

    def record(self, groups: dict[tuple[int, str], Tensor]) -> Tensor:
        """The member's Eq. (2) loss on its radii ``groups``; updates its history and criteria."""
        cfg, hist = self.cfg, self.hist
        devs = torch.cat([r - self.targets[kind] for (l, kind), r in groups.items()])
        loss = (devs**2).mean()
        d = devs.detach()
        mean_dev, std = float(d.mean()), float(d.std()) if d.numel() > 1 else 0.0
        hist["loss"].append(float(loss.detach()))
        hist["mean_dev"].append(mean_dev)
        hist["std"].append(std)
        hist["std_ema"].append(ema(hist["std"], cfg.ema_span))
        gm = {f"l{l}/{k}": float(r.detach().mean()) for (l, k), r in groups.items()}
        hist["groups"].append(gm)
        hist["mean_radius"].append(float(np.mean(list(gm.values()))))
        self.crit = criteria(cfg, mean_dev, std, hist["std_ema"][-1])
        return loss

    def report(self) -> LSCReport:
        h = self.hist
        last = h["groups"][-1] if h["groups"] else {}
        return LSCReport(
            self.converged,
            self.step,
            self.targets,
            self.crit,
            h["mean_dev"][-1],
            h["std"][-1],
            h["std_ema"][-1],
            last,
            h,
            self.seconds,
            radii_before=h["groups"][0],
            radii_after=last if self.converged else None,
        )


def _draw(runs: list[_Run], active: list[int]) -> tuple[Tensor, bool]:
    """This step's inputs of the active members, (A, B, ...), and whether they are one batch."""
    drawn: dict[int, Tensor] = {}
    xs = []
    for e in active:
        s = runs[e].stream
        if id(s) not in drawn:
            drawn[id(s)] = next(s)
        xs.append(drawn[id(s)])
    if len(drawn) == 1:
        return xs[0], True
    return torch.stack(xs), False


def pretrain_ensemble(
    models: Sequence[nn.Module],
    batches: Iterator[Tensor] | Sequence[Iterator[Tensor]],
    cfgs_or_cfg: LSCConfig | Sequence[LSCConfig],
    seeds: int | Sequence[int],
    callback: Callable[[int, int, dict], None] | None = None,
) -> list[LSCReport]:
    """Pre-train ``models`` (one architecture) towards the LSC together, each as
    :func:`rnnbook.lsc.pretrain.lsc_pretrain_` would with its config and seed (see the module's
    docstring). ``callback(member, step, info)`` is called for every active member at every
    step. The networks are updated in place; returns one :class:`~rnnbook.lsc.pretrain.LSCReport` per member."""
    models = list(models)
    _check_models(models)
    n = len(models)
    cfgs = _configs(cfgs_or_cfg, n)
    seeds = _seeds(seeds, n)
    streams = _streams(batches, n)
    model, c0 = models[0], cfgs[0]
    runs = [
        _Run(
            cfg,
            targets_for(cfg.target, cfg.unbalanced, cfg.T, model.depth),
            torch.Generator(device="cpu").manual_seed(s),
            stream,
        )
        for cfg, s, stream in zip(cfgs, seeds, streams)
    ]
    was_training = [m.training for m in models]
    for m in models:
        m.eval()  # no dropout while measuring the transition derivatives
    named = dict(model.named_parameters())
    params = {
        k: torch.stack(
            [dict(m.named_parameters())[k].detach() for m in models]
        ).requires_grad_(p.requires_grad)
        for k, p in named.items()
    }
    buffers = {
        k: torch.stack([dict(m.named_buffers())[k] for m in models])
        for k, _ in model.named_buffers()
    }
    trainable = [params[k] for k, p in named.items() if p.requires_grad]
    opt = make_optimizer(trainable, c0.lr, c0.weight_decay, lookahead=False)
    t0, step = time.perf_counter(), 0
    try:
        while True:
            active = [e for e in range(n) if not runs[e].done]
            if not active:
                break
            step += 1
            x, shared = _draw(runs, active)
            idx = torch.tensor(active, device=trainable[0].device)
            sub = len(active) < n
            state = {k: v[idx] if sub else v for k, v in {**params, **buffers}.items()}
            B, T = x.shape[:2] if shared else x.shape[1:3]
            times, bi = [], None
            for e in active:
                bi, ti = sample_times(B, T, c0.n_times, runs[e].gen, x.device)
                times.append(ti)
            Ms = stacked_transitions(
                model, state, x, times, bi, shared, c0.include_input
            )
            radii = {k: spectral_radius(M, c0.nonsquare) for k, M in Ms.items()}
            losses, moving = [], []
            for a, e in enumerate(active):
                run = runs[e]
                run.step = step
                groups = {k: r[a] for k, r in radii.items()}
                loss = run.record(groups)
                if callback is not None:
                    h = run.hist
                    callback(
                        e,
                        step,
                        {
                            "loss": h["loss"][-1],
                            "mean_dev": h["mean_dev"][-1],
                            "std": h["std"][-1],
                        },
                    )
                if all(run.crit.values()) and step >= run.cfg.min_steps:
                    run.converged = run.done = True  # frozen as measured
                    run.seconds = time.perf_counter() - t0
                    continue
                losses.append(loss)
                moving.append((a, e, groups))
            _update(opt, trainable, losses, [e for _, e, _ in moving], n)
            with torch.no_grad():
                for a, e, groups in moving:
                    run = runs[e]
                    if run.cfg.multiplier:
                        for (l, kind), r in groups.items():
                            rho = float(r.detach().mean())
                            kappa = _kappa(rho, run.targets[kind], run.cfg.clip)
                            scale_member(model, params, e, l, kind, kappa)
                    if run.cfg.shuffle != "none":
                        shuffle_member(model, params, e, run.gen, run.cfg.shuffle)
                    if step >= run.cfg.max_steps:
                        run.done = True
                        run.seconds = time.perf_counter() - t0
    finally:
        with torch.no_grad():
            for e, m in enumerate(models):
                for k, p in m.named_parameters():
                    p.copy_(params[k][e])
        for m, w in zip(models, was_training):
            m.train(w)
    return [run.report() for run in runs]


def _update(opt, trainable: list, losses: list, moving: list, n: int) -> None:
    """One AdaBelief step on the members ``moving`` (the sum of their losses); the others are
    restored, so that the optimizer's decay and moments do not touch them."""
    if not losses:
        return
    total = torch.stack(losses).sum()
    if not total.requires_grad:
        return
    opt.zero_grad(set_to_none=True)
    total.backward()
    for p in trainable:  # an eigenvalue degeneracy can give a non-finite gradient
        if p.grad is not None:
            torch.nan_to_num_(p.grad, nan=0.0, posinf=0.0, neginf=0.0)
    still = [e for e in range(n) if e not in set(moving)]
    keep = None
    if still:
        i = torch.tensor(still, device=trainable[0].device)
        keep = [(p, i, p.detach()[i].clone()) for p in trainable]
    opt.step()
    if keep is not None:
        with torch.no_grad():
            for p, i, v in keep:
                p[i] = v

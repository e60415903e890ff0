"""Many networks of one shape trained as one batched model (the training of Figs. 3, 4, Table I).

The runs of a grid that share an architecture (seeds x pre-training conditions x clipping) are
stacked with ``torch.func.stack_module_state`` and run with ``vmap`` of ``functional_call``: each
time step of every cell is one batched kernel for the whole ensemble instead of one per network,
which is what costs on a CPU with small recurrent models. Each member keeps its own protocol
(Sec. II-G, as :func:`rnnbook.lsc.experiments.fit`): AdaBelief in Lookahead, which act entry by
entry, so stacking does not couple the members; its own gradient-norm clip; its own training
batches (members with the same ``data_seed`` see the same batches: a paired design); early
stopping on its own validation loss with a patience, the network kept being the best validation
checkpoint (the initial network included). At every validation the test metric of the current
networks is recorded too, so the effect can be followed along training
(``EnsembleResult.best_test_at``: the test metric had training stopped at that step).
"""

from __future__ import annotations

import copy
import hashlib
import math
from pathlib import Path
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn
from torch.func import stack_module_state

from rnnbook.device import graphs_enabled

from . import pretrain, tasks

#: above this many input numbers a split is not densified in memory, but batch by batch
DENSE_LIMIT = 50_000_000


@dataclass
class EnsembleConfig:
    lr: float
    batch: int = 32
    max_steps: int = 500
    eval_every: int = 50
    patience: int = 10
    clips: tuple = ()  # per member: a gradient-norm clip, or None
    data_seeds: tuple = ()  # per member: the seed of its training batches
    eval_batch: int = 256
    device: str = "cpu"  # where the ensemble trains (its batches are drawn on the CPU)
    graphs: bool | None = (
        None  # capture the step as a CUDA graph (None: on CUDA unless RNNBOOK_CUDA_GRAPHS=0)
    )


def lin(x: Tensor, W: Tensor, b: Tensor | None = None) -> Tensor:
    """Per member e: ``x[e] @ W[e].T + b[e]``; x (E, ..., m), W (E, n, m), b (E, n)."""
    E, m = x.shape[0], x.shape[-1]
    y = torch.bmm(x.reshape(E, -1, m), W.transpose(1, 2))
    if b is not None:
        y = y + b[:, None, :]
    return y.reshape(*x.shape[:-1], W.shape[1])


def _per(v: Tensor, x: Tensor) -> Tensor:
    """A per-member vector v (E, n) shaped to broadcast against x (E, ..., n)."""
    return v.reshape(v.shape[0], *[1] * (x.dim() - 2), v.shape[-1])


def _gru(p: dict, cell, U: Tensor) -> Tensor:
    """Eq. (48) for the whole ensemble (as :class:`rnnbook.lsc.models.GRUCell`)."""
    n, W, Um = cell.n, p["W"], p["U"]
    A = lin(U, W, p["b"])
    Uz, Ur, Uh = Um[:, :n], Um[:, n : 2 * n], Um[:, 2 * n :]
    h, hs = torch.zeros(U.shape[0], U.shape[1], n, device=U.device), []
    for t in range(U.shape[2]):
        a = A[:, :, t]
        z = torch.sigmoid(a[..., :n] + lin(h, Uz))
        r = torch.sigmoid(a[..., n : 2 * n] + lin(h, Ur))
        h = (1 - z) * h + z * torch.tanh(a[..., 2 * n :] + lin(r * h, Uh))
        hs.append(h)
    return torch.stack(hs, 2)


def _lstm(p: dict, cell, U: Tensor) -> Tensor:
    """Eq. (47) for the whole ensemble; returns the h passed up."""
    n = cell.n
    A = lin(U, p["W"], p["b"])
    c = h = torch.zeros(U.shape[0], U.shape[1], n, device=U.device)
    hs = []
    for t in range(U.shape[2]):
        a = A[:, :, t] + lin(h, p["U"])
        i, f, o = (torch.sigmoid(a[..., k * n : (k + 1) * n]) for k in range(3))
        c = f * c + i * torch.tanh(a[..., 3 * n :])
        h = o * torch.tanh(c)
        hs.append(h)
    return torch.stack(hs, 2)


def _simple(p: dict, cell, U: Tensor) -> Tensor:
    """h = a(W_rec h + W_in u + b) for the whole ensemble."""
    act = cell.ACTS[cell.act_name]
    A = lin(U, p["W_in"], p["b"])
    h, hs = torch.zeros(U.shape[0], U.shape[1], cell.state_size, device=U.device), []
    for t in range(U.shape[2]):
        h = act(lin(h, p["W_rec"]) + A[:, :, t])
        hs.append(h)
    return torch.stack(hs, 2)


def _alif(p: dict, cell, U: Tensor) -> Tensor:
    """Eq. (49) for the whole ensemble, as :class:`rnnbook.lsc.models.ALIFCell` (its
    ``threshold`` form); returns the spikes passed up."""
    from .models import spike, threshold_input

    A = lin(U, p["W_in"])
    A = A + _per(p["b_y"], A)
    E, B, n = U.shape[0], U.shape[1], cell.n
    a_y = torch.exp(-1 / p["tau_y"].clamp_min(1e-3))[:, None]
    a_th = torch.exp(-1 / p["tau_th"].clamp_min(1e-3))[:, None]
    b_th, beta = p["b_th"][:, None], p["beta"][:, None]
    y, th = (torch.zeros(E, B, n, device=U.device) for _ in range(2))
    xs = []
    for t in range(U.shape[2]):
        x = spike(y - th, cell.gamma, cell.omega)
        y, th = (
            a_y * y + lin(x, p["W_rec"]) + A[:, :, t] - th * x,
            a_th * th + threshold_input(a_th, b_th + beta * x, cell.threshold),
        )
        xs.append(spike(y - th, cell.gamma, cell.omega))
    return torch.stack(xs, 2)


def _lru(p: dict, cell, S: Tensor, training: bool) -> Tensor:
    """The LRU block (Eqs. 50-51) for the whole ensemble; returns the residual stream."""
    nh = cell.n_h
    s_in = F.dropout(S, cell.ext.p, training)
    u = F.layer_norm(s_in, (cell.n,), eps=cell.norm.eps)
    u = u * _per(p["norm.weight"], u) + _per(p["norm.bias"], u)
    r = torch.exp(-torch.exp(p["nu_log"]))
    lr, li = (r * torch.cos(p["theta"]))[:, None], (r * torch.sin(p["theta"]))[:, None]
    gam = _per(torch.exp(p["gamma_log"]), u)
    bu_r, bu_i = gam * lin(u, p["B_re"]), gam * lin(u, p["B_im"])
    xr = xi = torch.zeros(S.shape[0], S.shape[1], nh, device=S.device)
    hr, hi = [], []
    for t in range(S.shape[2]):
        xr, xi = lr * xr - li * xi + bu_r[:, :, t], li * xr + lr * xi + bu_i[:, :, t]
        hr.append(xr)
        hi.append(xi)
    Hr, Hi = torch.stack(hr, 2), torch.stack(hi, 2)
    y = lin(Hr, p["C_re"]) - lin(Hi, p["C_im"]) + _per(p["D"], u) * u
    z = F.dropout(F.gelu(y), cell.drop.p, training)
    z = F.glu(lin(z, p["glu.weight"], p["glu.bias"]), -1)
    return s_in + F.dropout(z, cell.drop.p, training)


class Ensemble:
    """``models`` (one architecture: a :class:`rnnbook.lsc.pretrain.StackedRNN` of the cells of
    :mod:`rnnbook.lsc.models`) as stacked parameters (leading dimension E, one per member).
    ``forward(x)`` maps (E, B, ...) inputs, or (B, ...) inputs shared by all members with
    ``shared=True``, to (E, B, T, n_out) outputs, equal to each member's own forward."""

    def __init__(self, models: list[nn.Module], device: str = "cpu") -> None:
        from . import models as M

        # the members may sit on different devices (pre-trained ones on the device): all
        # are moved there first (in place, as nn.Module.to does)
        models = [m.to(device) for m in models]
        self.n, self.model = len(models), models[0]
        params, buffers = stack_module_state(models)
        self.params = {
            k: v.detach().to(device).requires_grad_(v.requires_grad)
            for k, v in params.items()
        }
        self.buffers = {k: v.to(device) for k, v in buffers.items()}
        self.training = True
        self.kinds = []
        for cell in self.model.cells:
            kind = {
                M.GRUCell: _gru,
                M.LSTMCell: _lstm,
                M.SimpleRNNCell: _simple,
                M.ALIFCell: _alif,
                M.LRUCell: _lru,
            }.get(type(cell))
            if kind is None:
                raise TypeError(f"no stacked form for {type(cell).__name__}")
            self.kinds.append(kind)

    def subset(self, idx: np.ndarray) -> "Ensemble":
        """The members ``idx`` as an ensemble of their own (copies of their parameters)."""
        sub = copy.copy(self)
        sub.n = len(idx)
        i = torch.as_tensor(idx, device=next(iter(self.params.values())).device)
        sub.params = {k: v.detach()[i] for k, v in self.params.items()}
        sub.buffers = {k: v[i] for k, v in self.buffers.items()}
        return sub

    def twins(self) -> np.ndarray:
        """For each member, the first member whose parameters and buffers are equal to its own
        (itself when there is none): e.g. a clipped and an unclipped run before training."""
        both = [v.detach() for v in (*self.params.values(), *self.buffers.values())]
        first = np.arange(self.n)
        for e in range(self.n):
            for j in range(e):
                if first[j] == j and all(torch.equal(v[e], v[j]) for v in both):
                    first[e] = j
                    break
        return first

    def _sub(self, prefix: str) -> dict:
        both = {**self.params, **self.buffers}
        return {k[len(prefix) :]: v for k, v in both.items() if k.startswith(prefix)}

    def _embedding(self) -> Tensor | None:
        emb = self.params.get("encoder.weight")  # tied: named after the readout
        return self.params.get("readout.embedding.weight", emb)

    @property
    def n_out(self) -> int:
        """The number of outputs per time step (classes, or words of a tied readout)."""
        if self.model.encoder is not None:
            return self._embedding().shape[1]
        return self.params["readout.weight"].shape[1]

    def features(self, x: Tensor, shared: bool = False) -> Tensor:
        """What the last layer passes to the readout, (E, B, T, n)."""
        if shared:
            x = x[None].expand(self.n, *x.shape)
        m = self.model
        if m.encoder is not None:  # an embedding per member
            x = self._embedding()[
                torch.arange(self.n, device=x.device).reshape(-1, 1, 1), x
            ]
        for l, (cell, f) in enumerate(zip(m.cells, self.kinds)):
            p = self._sub(f"cells.{l}.")
            x = f(p, cell, x, self.training) if f is _lru else f(p, cell, x)
        return x

    def head(self, x: Tensor) -> Tensor:
        """The readout of :meth:`features`: (E, B, T, n_out)."""
        if self.model.encoder is not None:  # tied output (App. G)
            return lin(x, self._embedding())
        return lin(x, self.params["readout.weight"], self.params.get("readout.bias"))

    def forward(self, x: Tensor, shared: bool = False) -> Tensor:
        return self.head(self.features(x, shared))

    def train(self, mode: bool = True) -> None:
        self.training = mode


def member_loss(logits: Tensor, y: Tensor, kind: str) -> Tensor:
    """Per member: the cross-entropy at every time step (the label of the sequence, or the next
    word), as :func:`rnnbook.lsc.experiments.seq_loss`. ``logits`` (E, B, T, C), ``y`` (E, B[, T])."""
    E, B, T, C = logits.shape
    if kind == "classify":
        y = y[:, :, None].expand(-1, -1, T)
    ce = F.cross_entropy(logits.reshape(-1, C), y.reshape(-1), reduction="none")
    return ce.reshape(E, -1).mean(1)


class _Split:
    """One split of a task, densified once when small enough."""

    def __init__(self, task: tasks.SeqTask, split: str, device: str = "cpu") -> None:
        self.task, self.split, self.n = task, split, task.size(split)
        self.device = device
        x0, _ = task.batch(split, np.arange(1))
        self.dense = None
        if self.n * x0.numel() <= DENSE_LIMIT:  # moved to the device once
            self.dense = tuple(
                t.to(device) for t in task.batch(split, np.arange(self.n))
            )

    def get(self, idx: np.ndarray) -> tuple[Tensor, Tensor]:
        if self.dense is not None:
            i = torch.as_tensor(idx, device=self.device)
            return self.dense[0][i], self.dense[1][i]
        x, y = self.task.batch(self.split, idx)
        return x.to(self.device), y.to(self.device)


#: the logits of at most this many numbers are held at once in an evaluation
LOGITS_BUDGET = 4e6
#: an evaluation runs the recurrent layers on at least this many sequences at once (fewer
#: is all per-step overhead), computing their logits in pieces that fit ``LOGITS_BUDGET``
MIN_BODY = 32


def evaluate(
    ens: Ensemble, split: _Split, kind: str, batch: int = 256, members: int = 0
) -> dict:
    """Per member: mean loss and test mode accuracy (classification) or perplexity (words).

    The loss is summed over pieces of ``head`` sequences whose logits fit ``LOGITS_BUDGET``
    for ``members`` networks (default: the ensemble's); the recurrent layers run on ``step``
    sequences at once, a multiple of ``head`` (the same as ``head`` when that is at least
    ``MIN_BODY``)."""
    E, dev = ens.n, split.device
    tot, count = torch.zeros(E, dtype=torch.float64, device=dev), 0
    correct = torch.zeros(E, dtype=torch.float64, device=dev)
    ens.train(False)
    with torch.no_grad():
        per = max(1, split.get(np.arange(1))[0].shape[1] * ens.n_out)  # T x classes
        head = max(1, min(batch, int(LOGITS_BUDGET // ((members or E) * per))))
        step = head * max(1, -(-min(batch, MIN_BODY) // head))
        for i in range(0, split.n, step):
            x, y = split.get(np.arange(i, min(split.n, i + step)))
            feats = ens.features(x, shared=True)
            for j in range(0, len(y), head):
                logits = ens.head(feats[:, j : j + head])
                yj = y[j : j + head]
                yy = yj[None].expand(E, *yj.shape)
                tot += member_loss(logits, yy, kind).double() * yy[0].numel()
                count += yy[0].numel()
                if kind == "classify":
                    pred = torch.mode(logits.argmax(-1), dim=2).values  # (E, B)
                    correct += (pred == yj[None]).double().sum(1)
    loss = (tot / count).cpu().numpy()
    out = {"loss": loss}
    if kind == "classify":
        out["acc"] = (correct / split.n).cpu().numpy()
    else:
        out["ppl"] = np.exp(np.minimum(loss, 50.0))
    return out


def _clip_(grads: list[Tensor], clips: Tensor) -> None:
    """Scale each member's gradient so its norm over all parameters is at most its clip."""
    sq = sum(g.reshape(g.shape[0], -1).pow(2).sum(1) for g in grads)
    factor = (clips / (sq.sqrt() + 1e-6)).clamp(max=1.0)
    for g in grads:
        g.mul_(factor.reshape(-1, *[1] * (g.dim() - 1)))


def train(models: list[nn.Module], task: tasks.SeqTask, cfg: EnsembleConfig) -> list:
    """Train ``models`` together on ``task`` (see the module's docstring); returns one
    JSON-able dict per member, like ``rnnbook.lsc.experiments.train_seq``.

    Dropout draws from torch's global generator, which a fresh process seeds at random: it is
    seeded here from the data seeds (and restored after), so that a run is the same in every
    process and whatever ran before it. On CUDA the dropout masks come from the CUDA generator
    (seeded alike): their stream differs from the CPU's (:mod:`rnnbook.device`)."""
    seeds = cfg.data_seeds or range(len(models))
    dev = torch.device(cfg.device)
    cuda = [dev.index or 0] if dev.type == "cuda" else []
    with torch.random.fork_rng(devices=cuda):
        torch.manual_seed(sum(1009**i * (s + 1) for i, s in enumerate(seeds)) % 2**62)
        return _train(models, task, cfg)


def _loss_fn(ens: Ensemble, kind: str):
    """The training step's forward as a function of (x, y, *params): what a CUDA graph
    captures (its backward too)."""
    names = list(ens.params)

    def f(x: Tensor, y: Tensor, *ps: Tensor) -> Tensor:
        saved, ens.params = ens.params, dict(zip(names, ps))
        try:
            return member_loss(ens.forward(x), y, kind)
        finally:
            ens.params = saved

    return f


def _graphed(f, x: Tensor, y: Tensor, params: list[Tensor]):
    """``f`` captured with its backward as CUDA graphs (``torch.cuda.make_graphed_callables``):
    every call replays them on inputs of the shapes of ``x``, ``y`` and ``params``."""
    return torch.cuda.make_graphed_callables(
        f, (x, y, *params), allow_unused_input=True
    )


def _train(models: list[nn.Module], task: tasks.SeqTask, cfg: EnsembleConfig) -> list:
    E, kind, dev = len(models), task.kind, cfg.device
    ens = Ensemble(models, dev)
    params = list(ens.params.values())
    opt = pretrain.make_optimizer(params, cfg.lr)
    clips = torch.tensor(
        [math.inf if c is None else float(c) for c in (cfg.clips or [None] * E)],
        device=dev,
    )
    data_seeds = list(cfg.data_seeds or range(E))
    gens = {
        s: torch.Generator(device="cpu").manual_seed(s + 12345)
        for s in dict.fromkeys(data_seeds)
    }
    tr, va, te = (_Split(task, s, dev) for s in ("train", "val", "test"))
    step_loss, capture = _loss_fn(ens, kind), graphs_enabled(dev, cfg.graphs)
    metric = "acc" if kind == "classify" else "ppl"
    best = np.full(E, np.inf)
    bad, stopped, diverged = np.zeros(E, int), np.zeros(E, bool), np.zeros(E, bool)
    stop_step = np.zeros(E, int)
    best_val, best_test = [None] * E, [None] * E
    hist, best_at = [[] for _ in range(E)], [[] for _ in range(E)]
    last_loss = np.full(E, np.nan)

    def validate(step: int) -> None:
        # members equal to an earlier one (before training, a clipped run and its unclipped
        # twin) are evaluated once: the same numbers, in the same pieces as the whole ensemble
        first = ens.twins()
        uniq = np.unique(first)
        sub = ens if len(uniq) == E else ens.subset(uniq)
        v, t = (
            evaluate(sub, split, kind, cfg.eval_batch, members=E) for split in (va, te)
        )
        if sub is not ens:
            back = np.searchsorted(uniq, first)
            v, t = ({k: a[back] for k, a in r.items()} for r in (v, t))
        for e in np.flatnonzero(~stopped):
            hist[e].append((step, float(last_loss[e]), float(v["loss"][e])))
            if math.isfinite(v["loss"][e]) and v["loss"][e] < best[e]:
                best[e], bad[e] = v["loss"][e], 0
                best_val[e] = {k: float(x[e]) for k, x in v.items()}
                best_test[e] = {k: float(x[e]) for k, x in t.items()}
            elif step > 0:
                bad[e] += 1
                if bad[e] >= cfg.patience:
                    stopped[e], stop_step[e] = True, step
        for e in range(E):
            at = best_test[e][metric] if best_test[e] else float("nan")
            best_at[e].append((step, at))

    validate(0)
    step = 0
    for step in range(1, cfg.max_steps + 1):
        if stopped.all():
            break
        ens.train(True)
        batches = {}
        for s, g in gens.items():
            idx = torch.randint(tr.n, (cfg.batch,), generator=g, device="cpu")
            batches[s] = tr.get(idx.numpy())
        x = torch.stack([batches[s][0] for s in data_seeds])
        y = torch.stack([batches[s][1] for s in data_seeds])
        if capture:  # captured once, at the first step; replayed at every step
            step_loss, capture = _graphed(step_loss, x, y, params), False
        losses = step_loss(x, y, *params)
        finite = torch.isfinite(losses.detach())
        newly = (~finite.cpu().numpy()) & ~stopped
        diverged |= newly
        stop_step[newly], stopped[newly] = step, True
        last_loss = losses.detach().cpu().numpy().copy()
        opt.zero_grad(set_to_none=True)
        torch.where(finite, losses, torch.zeros_like(losses)).sum().backward()
        grads = [p.grad for p in params if p.grad is not None]
        for gr in grads:
            torch.nan_to_num_(gr, nan=0.0, posinf=0.0, neginf=0.0)
        if torch.isfinite(clips).any():
            _clip_(grads, clips)
        opt.step()
        if step % cfg.eval_every == 0 or step == cfg.max_steps:
            validate(step)
    stop_step[~stopped] = step
    return [
        {
            "history": hist[e],
            "best_test_at": best_at[e],
            "steps": int(stop_step[e]),
            "best_val": float(best[e]),
            "diverged": bool(diverged[e]),
            "val": best_val[e],
            "test": best_test[e],
        }
        for e in range(E)
    ]


def source_hash() -> str:
    """sha256 of this module's source: a run cache key that holds it is invalidated by any edit
    of the ensemble trainer."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]

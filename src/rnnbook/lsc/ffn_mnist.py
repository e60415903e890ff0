"""Fig. 2 of Herranz-Celotti & Rouat (Sec. II-E, III-A): deep feed-forward nets on MNIST.

30-layer FFNs of width 128, ``h_l = a(W_l h_{l-1} + b_l)`` with ReLU, sin or cos, initialized as
Glorot, as He, or as Glorot followed by LSC pre-training to rho_t = 1, trained over a grid of learning
rates and seeds with AdaBelief in Lookahead and early stopping (Sec. II-G).

The whole grid of one activation (initializations x learning rates x seeds) trains as one batched
ensemble: the E networks' weights are stacked along a leading dimension (:class:`FFNEnsemble`), one
``baddbmm`` per layer runs them all, and :class:`StackedAdaBelief` is AdaBelief inside Lookahead
applied to the stacked tensors with a learning rate per member (the same update as
:func:`rnnbook.lsc.pretrain.make_optimizer` on each network alone; the tests check it). Each member
early-stops on its own validation loss; the test accuracy of each member's best checkpoint so far is
recorded at several budgets (``checkpoints``), so the chapter can show how each effect moves with
training. :func:`run_grid` runs (or reads from the run cache) every activation; :class:`Runs` turns
the accuracies into the paper's three comparisons, each with a 95% interval over seeds.
"""

from __future__ import annotations

import copy
import math
import sys
from dataclasses import asdict, dataclass, fields
from typing import Iterator

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor

from rnnbook import datasets, plotting
from rnnbook.seeds import member_seeds
from rnnbook.stats import seed_interval

from . import experiments, pretrain
from .models import FFN
from .tasks import MnistSplits

INITS = ("glorot", "he", "glorot+lsc")
PAPER_LRS = [1e-2, 3.16e-3, 1e-3, 3.16e-4, 1e-4, 3.16e-5, 1e-5]
ACTS = ("relu", "sin", "cos")
DATASETS = {"mnist": "MNIST", "fashion-mnist": "Fashion-MNIST"}
CHANCE = 0.1  # ten balanced classes in both data sets


@dataclass(frozen=True)
class Grid:
    """The scale of the runs: the chapter's parameters of the same names (``seed``: the master
    seed every run seed, data split and batch order derives from)."""

    acts: tuple[str, ...]
    lrs: tuple[float, ...]
    seeds: int
    depth: int
    width: int
    n_train: int
    n_val: int
    n_test: int
    steps: int
    eval_every: int
    patience: int
    pre_steps: int
    pre_batch: int
    checkpoints: int = 1
    seed: int = 0
    #: further learning rates for the ReLU nets only (the He comparison needs a grid of at
    #: least ``MIN_RELU_LRS`` points around the best learning rate; sin and cos keep ``lrs``)
    relu_lrs: tuple[float, ...] = ()
    seed_start: int = 0  # the first member's index (a shard of a record)
    device: str = (
        "cpu"  # where the runs train; not in the cache key (same runs up to rounding)
    )

    @classmethod
    def of(cls, params) -> "Grid":
        """The grid from an object with these attributes (the chapter's resolved parameters)."""
        return cls(
            **{
                f.name: getattr(params, f.name)
                for f in fields(cls)
                if hasattr(params, f.name)
            }
        )

    @property
    def all_lrs(self) -> list[float]:
        """Every learning rate of the grid, largest first (``lrs`` and ``relu_lrs``)."""
        return sorted({*map(float, self.lrs), *map(float, self.relu_lrs)}, reverse=True)

    def lrs_of(self, act: str) -> list[float]:
        """The learning rates the nets of activation ``act`` train at, largest first."""
        extra = self.relu_lrs if act == "relu" else ()
        return sorted({*map(float, self.lrs), *map(float, extra)}, reverse=True)

    def run_seeds(self) -> list[int]:
        """The seed of each of the ``seeds`` runs per configuration: members ``seed_start``
        on of the master ``seed`` (:func:`rnnbook.seeds.member_seeds`)."""
        return member_seeds(self.seed, self.seed_start, self.seeds)

    def checkpoint_steps(self) -> list[int]:
        """``checkpoints`` budgets, geometrically spaced, multiples of ``eval_every``, ending at
        ``steps`` (the full budget)."""
        n = max(1, self.checkpoints)
        raw = np.geomspace(self.steps / 2 ** (n - 1), self.steps, n)
        out = {
            max(self.eval_every, int(round(r / self.eval_every)) * self.eval_every)
            for r in raw[:-1]
        }
        return sorted({min(s, self.steps) for s in out} | {self.steps})

    def key(self, dataset: str, act: str) -> dict:
        """The cache key of one activation's ensemble (its parameters)."""
        skip = {"acts", "device", "relu_lrs"}
        base = {
            f.name: getattr(self, f.name) for f in fields(self) if f.name not in skip
        }
        return dict(base, lrs=self.lrs_of(act), batch=32, dataset=dataset, act=act)


# ---- data -------------------------------------------------------------------------------------------------------


def image_splits(
    dataset: str, n_train: int, n_val: int, n_test: int, seed: int = 0
) -> MnistSplits:
    """MNIST or Fashion-MNIST, pixels scaled to [0, 1] and flattened; train/val are random subsets of
    the 60k training images, test a random subset of the 10k test images (drawn with ``seed``)."""
    if dataset not in DATASETS:
        raise ValueError(f"dataset = {dataset!r}: must be one of {tuple(DATASETS)}")
    load = datasets.mnist if dataset == "mnist" else datasets.fashion_mnist
    (xi, yi), (xt, yt) = load("train"), load("test")
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(yi))
    tr, va = perm[:n_train], perm[n_train : n_train + n_val]
    te = np.sort(rng.permutation(len(yt))[:n_test])

    def f(a):
        return torch.from_numpy(a.reshape(len(a), -1).astype(np.float32) / 255.0)

    def g(a):
        return torch.from_numpy(a.astype(np.int64))

    return MnistSplits(f(xi[tr]), g(yi[tr]), f(xi[va]), g(yi[va]), f(xt[te]), g(yt[te]))


# ---- the batched ensemble ---------------------------------------------------------------------------------------


def _t(p: Tensor) -> Tensor:
    """A weight matrix transposed (a bias vector as it is)."""
    return p.mT if p.dim() >= 2 else p


class FFNEnsemble:
    """E feed-forward nets ``h_l = a(W_l h_{l-1} + b_l)`` of one activation, weights stacked along
    dimension 0 and stored transposed, ``params = [W_1^T (E, 784, n), b_1 (E, n), ..., W_out^T
    (E, n, 10), b_out (E, 10)]``, so that their gradients come out contiguous (a strided gradient
    makes every optimizer pass several times slower)."""

    def __init__(self, params: list[Tensor], act: str) -> None:
        self.params, self.act = params, act

    @classmethod
    def stack(cls, models: list[FFN], device: str = "cpu") -> "FFNEnsemble":
        """The ensemble of ``models`` (same activation and shape), copied to ``device``."""
        acts = {m.act_name for m in models}
        if len(acts) != 1:
            raise ValueError(f"an ensemble has one activation, got {sorted(acts)}")
        per = [[_t(p.detach().to(device)) for p in m.parameters()] for m in models]
        stacked = [torch.stack(ps).clone().requires_grad_(True) for ps in zip(*per)]
        return cls(stacked, acts.pop())

    def __len__(self) -> int:
        return self.params[0].shape[0]

    def member(self, i: int, params: list[Tensor] | None = None) -> FFN:
        """Member ``i`` as a single ``FFN`` (of ``params``, default the current weights)."""
        ps = params if params is not None else self.params
        n_in, width = ps[0].shape[1], ps[0].shape[2]
        m = FFN(n_in, width, len(ps) // 2 - 1, ps[-1].shape[1], act=self.act)
        with torch.no_grad():
            for p, q in zip(m.parameters(), ps):
                p.copy_(_t(q[i]))
        return m

    def forward(self, x: Tensor, params: list[Tensor] | None = None) -> Tensor:
        """Logits (E, B, 10) of every member: ``x`` is (B, 784), shared, or (E, B, 784)."""
        ps = params if params is not None else self.params
        act = FFN.ACTS[self.act]
        h = x
        for i in range(0, len(ps) - 2, 2):
            W, b = ps[i], ps[i + 1]
            if h.dim() == 2:
                h = torch.matmul(h, W) + b[:, None]
            else:
                h = torch.baddbmm(b[:, None], h, W)
            h = act(h)
        return torch.baddbmm(ps[-1][:, None], h, ps[-2])

    @torch.no_grad()
    def evaluate(
        self, x: Tensor, y: Tensor, params: list[Tensor] | None = None, chunk=500
    ) -> tuple[Tensor, Tensor]:
        """Per member: the mean cross-entropy and the accuracy on (x, y), in chunks of images."""
        dev = self.params[0].device
        loss, correct = (torch.zeros(len(self), device=dev) for _ in range(2))
        for i in range(0, len(y), chunk):
            logits = self.forward(x[i : i + chunk], params)
            yy = y[i : i + chunk].expand(len(self), -1)
            loss += F.cross_entropy(logits.transpose(1, 2), yy, reduction="none").sum(1)
            correct += (logits.argmax(-1) == yy).float().sum(1)
        return loss / len(y), correct / len(y)


class StackedAdaBelief:
    """AdaBelief (betas 0.9, 0.999, eps 1e-16, no weight decay: the defaults of ``pytorch-optimizer``)
    inside Lookahead (sync period ``k`` = 6, slow step ``alpha`` = 0.5), on stacked tensors with one
    learning rate per member (``lr``: (E,)). Members with ``active`` False are not updated."""

    def __init__(
        self, params, lr: Tensor, betas=(0.9, 0.999), eps=1e-16, k=6, alpha=0.5
    ):
        self.params, self.lr, self.betas, self.eps = params, lr, betas, eps
        self.k, self.alpha, self.t = k, alpha, 0
        self.m = [torch.zeros_like(p) for p in params]
        self.v = [torch.zeros_like(p) for p in params]
        self.slow = [p.detach().clone() for p in params]

    @torch.no_grad()
    def step(self, grads: list[Tensor], active: Tensor) -> None:
        """One step; ``grads`` (consumed as buffers) are the members' own gradients."""
        self.t += 1
        b1, b2 = self.betas
        bc1, bc2 = 1 - b1**self.t, math.sqrt(1 - b2**self.t)
        # p -= lr/bc1 * m / (sqrt(v)/bc2 + eps) = (lr bc2/bc1) * m / (sqrt(v) + eps bc2)
        rate = self.lr * active * (bc2 / bc1)
        scales = [rate.view(-1, *[1] * (p.dim() - 1)) for p in self.params]
        g, m, v = grads, self.m, self.v
        torch._foreach_lerp_(m, g, 1 - b1)
        torch._foreach_sub_(g, m)  # g <- the residual g - m
        torch._foreach_mul_(v, b2)
        torch._foreach_addcmul_(v, g, g, value=1 - b2)
        torch._foreach_add_(v, self.eps)
        for gi, vi, mi in zip(g, v, m):  # g <- m / (sqrt(v) + eps bc2), no new buffer
            torch.sqrt(vi, out=gi).add_(self.eps * bc2)
            torch.div(mi, gi, out=gi)
        torch._foreach_mul_(g, scales)
        torch._foreach_sub_(self.params, g)
        if self.t % self.k == 0:
            torch._foreach_lerp_(self.params, self.slow, 1 - self.alpha)
            torch._foreach_copy_(self.slow, self.params)


def train_ensemble(
    ens: FFNEnsemble,
    lrs: list[float],
    streams: list[int],
    data: MnistSplits,
    steps: int,
    eval_every: int,
    patience: int,
    checkpoints: list[int],
    batch: int = 32,
) -> dict:  # on the device of ``ens``; the batches are drawn on CPU generators
    """Train every member with cross-entropy on batches of ``batch`` training images; member ``e`` has
    learning rate ``lrs[e]`` and draws its batches from the stream seeded ``streams[e]`` (members
    with one stream see the same batches). As :func:`rnnbook.lsc.experiments.fit`, per member:
    evaluate the validation loss every ``eval_every`` steps and at the last, keep the best
    checkpoint, stop after ``patience`` evaluations without progress or at a non-finite loss.

    Returns per member (lists): ``test_acc`` at each budget of ``checkpoints`` (of its best
    checkpoint so far), ``steps`` trained, ``best_val``, ``diverged``, and the validation history."""
    E, n, dev = len(ens), len(data.ytr), ens.params[0].device
    data = MnistSplits(*(getattr(data, f.name).to(dev) for f in fields(data)))
    uniq = sorted(set(streams))
    gens = {s: torch.Generator(device="cpu").manual_seed(s + 12345) for s in uniq}
    row = torch.tensor([uniq.index(s) for s in streams], device=dev)
    lr = torch.tensor(lrs, dtype=torch.float32, device=dev)
    opt = StackedAdaBelief(ens.params, lr)
    best_p = [p.detach().clone() for p in ens.params]
    best = torch.full((E,), math.inf, device=dev)
    bad = torch.zeros(E, dtype=torch.long, device=dev)
    active = torch.ones(E, dtype=torch.bool, device=dev)
    diverged = torch.zeros(E, dtype=torch.bool, device=dev)
    stopped_at = torch.full((E,), steps, device=dev)
    hist, test_acc, ckpts = [], {}, sorted(set(checkpoints))
    for step in range(1, steps + 1):
        idx = torch.stack(
            [torch.randint(n, (batch,), generator=gens[s], device="cpu") for s in uniq]
        ).to(dev)
        x, y = data.xtr[idx][row], data.ytr[idx][row]
        logits = ens.forward(x)
        losses = F.cross_entropy(logits.transpose(1, 2), y, reduction="none").mean(1)
        bad_loss = ~torch.isfinite(losses.detach()) & active
        if bad_loss.any():
            diverged |= bad_loss
            stopped_at[bad_loss] = step
            active &= ~bad_loss
        total = torch.where(active, losses, torch.zeros_like(losses)).sum()
        grads = torch.autograd.grad(total, ens.params, allow_unused=False)
        opt.step(list(grads), active.float())
        if step % eval_every == 0 or step == steps:
            val, _ = ens.evaluate(data.xva, data.yva)
            hist.append([step] + val.tolist())
            better = torch.isfinite(val) & (val < best) & active
            best = torch.where(better, val, best)
            with torch.no_grad():
                for bp, p in zip(best_p, ens.params):
                    mask = better.view(-1, *[1] * (p.dim() - 1))
                    bp.copy_(torch.where(mask, p, bp))
            bad = torch.where(better, torch.zeros_like(bad), bad + active.long())
            done = active & (bad >= patience)
            stopped_at[done] = step
            active &= ~done
        if step in ckpts:
            test_acc[step] = ens.evaluate(data.xte, data.yte, best_p)[1].tolist()
        if not active.any():
            break
    last = ens.evaluate(data.xte, data.yte, best_p)[1].tolist()
    for c in ckpts:
        test_acc.setdefault(c, last)
    return dict(
        checkpoints=ckpts,
        test_acc=[test_acc[c] for c in ckpts],
        steps=stopped_at.tolist(),
        best_val=best.tolist(),
        diverged=diverged.tolist(),
        history=hist,
        best_params=best_p,
    )


# ---- LSC pre-training and one activation's grid -----------------------------------------------------------------


def pretrain_ffn(
    model: FFN,
    data: MnistSplits,
    max_steps: int,
    batch: int,
    seed: int,
    device: str = "cpu",
) -> pretrain.LSCReport:
    """LSC pre-training of an FFN to rho_t = 1 on the training images (Sec. II-E), on
    ``device`` (the model is moved there; the batches are drawn on a CPU generator)."""
    g = torch.Generator(device="cpu").manual_seed(seed + 999)
    model.to(device)

    def batches() -> Iterator[Tensor]:
        while True:
            i = torch.randint(len(data.ytr), (batch,), generator=g, device="cpu")
            yield data.xtr[i].to(device)

    cfg = pretrain.LSCConfig(
        target=1.0, max_steps=max_steps, n_times=None, shuffle="all"
    )
    return pretrain.lsc_pretrain_(model, batches(), config=cfg, seed=seed)


def members(grid: Grid, act: str) -> list[tuple[str, float, int]]:
    """The (initialization, learning rate, seed index) of each member of an activation's ensemble."""
    lrs = grid.lrs_of(act)
    return [(i, lr, s) for i in INITS for lr in lrs for s in range(grid.seeds)]


def run_act(grid: Grid, data: MnistSplits, act: str) -> dict:
    """One activation's grid as one ensemble: per seed the Glorot net, a copy pre-trained to the
    LSC, and the He net, each at every learning rate. JSON-able; ``test_acc`` is indexed
    [checkpoint][member] in the order of :func:`members`."""
    seeds, nets, pre = grid.run_seeds(), {}, []
    for s, rs in enumerate(seeds):
        nets["glorot", s] = FFN(784, grid.width, grid.depth, act=act, seed=rs)
        nets["he", s] = FFN(784, grid.width, grid.depth, act=act, init="he", seed=rs)
        lsc = copy.deepcopy(nets["glorot", s])
        rep = pretrain_ffn(lsc, data, grid.pre_steps, grid.pre_batch, rs, grid.device)
        pre.append(experiments.report_summary(rep))
        nets["glorot+lsc", s] = lsc
    mem = members(grid, act)
    ens = FFNEnsemble.stack([nets[i, s] for i, _, s in mem], grid.device)
    res = train_ensemble(
        ens,
        [lr for _, lr, _ in mem],
        [seeds[s] for _, _, s in mem],
        data,
        grid.steps,
        grid.eval_every,
        grid.patience,
        grid.checkpoint_steps(),
    )
    res.pop("best_params")
    return dict(res, pretrain=pre)


def run_grid(grid: Grid, data: MnistSplits, dataset: str = "mnist") -> "Runs":
    """Every activation's ensemble, from the run cache where it is there (the key holds the grid,
    the data set and the source of the run modules and of this module)."""
    code = sys.modules[__name__]
    results = {}
    for act in plotting.progress(grid.acts, desc=f"Fig. 2 ({dataset})"):
        results[act] = experiments.cached(
            "ffn-ensemble",
            grid.key(dataset, act),
            lambda act=act: run_act(grid, data, act),
            code=code,
        )
    return Runs(grid, results, dataset)


# ---- the comparisons of Fig. 2 ----------------------------------------------------------------------------------


@dataclass
class Runs:
    """The raw results of the grid per activation (see :func:`run_act`) on ``dataset``."""

    grid: Grid
    results: dict
    dataset: str = "mnist"

    @property
    def steps(self) -> list[int]:
        return list(self.results[self.grid.acts[0]]["checkpoints"])

    def accuracy(self, checkpoint: int = -1) -> np.ndarray:
        """Test accuracies at one budget (index into ``steps``), shape
        (activation, initialization, learning rate, seed) over ``grid.all_lrs``: NaN where an
        activation does not train at that learning rate."""
        g, lrs = self.grid, self.grid.all_lrs
        out = np.full((len(g.acts), len(INITS), len(lrs), g.seeds), np.nan)
        for ia, a in enumerate(g.acts):
            own = g.lrs_of(a)
            shape = (len(INITS), len(own), g.seeds)
            acc = np.asarray(self.results[a]["test_acc"][checkpoint]).reshape(shape)
            out[ia][:, [lrs.index(lr) for lr in own]] = acc
        return out

    @property
    def acc(self) -> dict[tuple, np.ndarray]:
        """Final test accuracies over seeds, keyed by (activation, initialization, learning rate)."""
        A, g = self.accuracy(), self.grid
        return {
            (a, init, lr): A[ia, ii, il]
            for ia, a in enumerate(g.acts)
            for ii, init in enumerate(INITS)
            for il, lr in enumerate(g.all_lrs)
        }

    def pretrain_summary(self) -> str:
        """One line on the LSC pre-trainings."""
        out = []
        for a in self.grid.acts:
            for s, p in enumerate(self.results[a]["pretrain"]):
                conv = "converged" if p["converged"] else "NOT converged"
                out.append(
                    f"{a} seed {s}: {conv} in {p['steps']} steps, "
                    f"mean radius {p['mean_radius']:.3f}"
                )
        return "LSC pre-training of the FFNs: " + "; ".join(out)

    def table(self) -> str:
        """Mean ± sd of the final test accuracy per (activation, learning rate) and initialization."""
        acc, rows = self.acc, []
        for a in self.grid.acts:
            for lr in self.grid.lrs_of(a):
                cells = [
                    f"{acc[(a, i, lr)].mean():.3f} ± {acc[(a, i, lr)].std():.3f}"
                    for i in INITS
                ]
                rows.append(f"| {a} | {lr:g} | " + " | ".join(cells) + " |")
        head = (
            "| activation | lr | Glorot | He | Glorot + LSC |\n|---|---|---|---|---|\n"
        )
        return head + "\n".join(rows)

    def comparisons(self, checkpoint: int = -1) -> dict:
        """What the claims of Fig. 2 measure at one budget, with the grid's scale: see
        :func:`compare`."""
        g = self.grid
        scale = {
            k: v for k, v in asdict(g).items() if k not in ("seeds", "lrs", "relu_lrs")
        }  # seeds= is check's
        scale["lrs"] = list(g.lrs)
        scale["relu_lrs"] = g.lrs_of("relu")
        out = dict(
            scale,
            dataset=DATASETS[self.dataset],
            n_seeds=g.seeds,
            budget=self.steps[checkpoint],
        )
        return {
            **out,
            **compare(self.accuracy(checkpoint), g.acts, g.all_lrs, self.identical()),
        }

    def identical(self) -> np.ndarray:
        """(activation, seed): True where the LSC pre-training stopped at its first check (the
        Glorot net already met the LSC), so that Glorot+LSC is the Glorot net itself."""
        return np.array(
            [
                [
                    p["converged"] and p["steps"] <= 1
                    for p in self.results[a]["pretrain"]
                ]
                for a in self.grid.acts
            ]
        )

    def trend(self) -> dict[str, np.ndarray]:
        """Each claim's statistic with its interval at every budget: arrays over ``steps``."""
        keys = ("best", "gl", "he_diff")
        rows = [self.comparisons(k) for k in range(len(self.steps))]
        out = {"steps": np.array(self.steps)}
        for key in keys:
            for part in ("mean", "lo", "hi"):
                name = f"{key}_{part}"
                out[name] = np.array([r.get(name, np.nan) for r in rows], dtype=float)
        return out


MIN_RELU_LRS = 4  # the ReLU learning-rate grid of the He comparison: at least this many


def compare(acc: np.ndarray, acts, lrs, same=None) -> dict:
    """The three comparisons of Fig. 2 from accuracies (activation, init, lr, seed), the seeds
    paired (one seed: the same Glorot net, with and without pre-training, and the same batches).
    NaN marks a learning rate an activation does not train at (no cell).

    The paper's scenario is a cell (activation, lr), and its claims are about the cells' mean
    accuracies (its curves). A cell is a scenario where any arm trained (seed-mean test accuracy
    at least twice chance); a cell in which no arm trains at this scale is left out and counted
    (``cells_left_out``). A compared arm that did not train stays in: its low accuracy is its
    loss. ``same`` (activation, seed), True where the LSC pre-training stopped at its first
    check (the net already met the LSC), marks the runs whose Glorot+LSC net *is* the Glorot
    net: ties, which leave every comparison (counted in ``n_identical``); the cell means are
    taken over the other seeds, paired across the three arms.

    * ``best_k``/``best_n``: the cells whose mean Glorot+LSC accuracy is above both Glorot's and
      He's, of the compared cells; ``best_*`` its Wilson 95% interval;
    * ``gl_seeds``: per seed, the mean over its compared cells of (Glorot+LSC - Glorot), ``gl_*``
      its t interval; ``gl_k``/``gl_n`` the compared cells whose mean improves
      (``frac_glorot`` = gl_k / gl_n);
    * per cell that exists (``cells``, labelled "activation, lr"; ``relu_cells`` those of
      ReLU), over its seeds that are not ties: ``cell_gl``, Glorot+LSC - Glorot, and
      ``cell_best``, Glorot+LSC minus the better of Glorot and He (each seed paired), the
      per-cell statistics the claims decide on; and every seed's accuracy per arm
      (``cell_acc[cell][init]``, ``arms``), from which the claims' rules tell the cells where
      some arm trained and the gates read the best arm, on all the seeds of a record
      (per seed, so that a record's shards join);
    * ReLU vs He (:func:`relu_vs_he`);
    * ``best_acc``: the best cell mean of any arm (the gate: the set-up trains at all);
      ``cells_trained``: the share of cells where all three arms trained (shown, never a gate).
    """
    from rnnbook.stats import wilson_interval

    gl, he, lsc = (acc[:, INITS.index(i)] for i in INITS)  # (A, L, S)
    A, L, S = gl.shape
    means = acc.mean(-1)  # (A, I, L); NaN: no cell
    exists = ~np.isnan(means).any(1)  # (A, L)
    with np.errstate(invalid="ignore"):
        trains = means >= 2 * CHANCE  # (A, I, L)
    setting = exists & trains.any(1)
    all3 = exists & trains.all(1)
    same = np.zeros((A, S), bool) if same is None else np.asarray(same, bool)
    keep = np.broadcast_to(~same[:, None, :], (A, L, S))  # ties leave
    cells = setting & keep.any(-1)  # (A, L): the compared cells

    def cell_mean(x):
        with np.errstate(invalid="ignore"):
            return np.where(keep, x, 0).sum(-1) / np.maximum(keep.sum(-1), 1)

    m_gl, m_he, m_lsc = cell_mean(gl), cell_mean(he), cell_mean(lsc)
    wins = (m_lsc > m_gl) & (m_lsc > m_he) & cells
    best_n = int(cells.sum())
    best = wilson_interval(int(wins.sum()), best_n) if best_n else None
    use = cells[:, :, None] & keep  # (A, L, S)
    diff = lsc - gl
    per_seed = [diff[..., s][use[..., s]] for s in range(S)]
    gl_seeds = [float(d.mean()) for d in per_seed if d.size]
    improve = seed_interval(gl_seeds) if len(gl_seeds) else None
    better = (m_lsc > m_gl) & cells
    labels, cell_gl, cell_best, cell_acc = [], {}, {}, {}
    for a, li in zip(*np.nonzero(exists)):
        label = f"{acts[a]}, lr {float(lrs[li]):g}"
        k = keep[a, li]
        labels.append(label)
        cell_gl[label] = [float(v) for v in (lsc - gl)[a, li][k]]
        other = np.maximum(gl[a, li], he[a, li])
        cell_best[label] = [float(v) for v in (lsc[a, li] - other)[k]]
        cell_acc[label] = {
            i: [float(v) for v in acc[a, n, li]] for n, i in enumerate(INITS)
        }
    nan = float("nan")
    out = dict(
        n_cells=int(exists.sum()),
        cells_trained=float(all3.sum() / max(exists.sum(), 1)),
        cells_left_out=int((exists & ~setting).sum()),
        best_k=int(wins.sum()),
        best_n=best_n,
        best_mean=best.mean if best else nan,
        best_lo=best.lo if best else nan,
        best_hi=best.hi if best else nan,
        gl_seeds=gl_seeds,
        gl_mean=improve.mean if improve else nan,
        gl_lo=improve.lo if improve else nan,
        gl_hi=improve.hi if improve else nan,
        gl_k=int(better.sum()),
        gl_n=best_n,
        n_identical=int(same.sum()),
        frac_glorot=float(better.sum() / best_n) if best_n else nan,
        cells=labels,
        relu_cells=[c for c in labels if c.startswith("relu, ")],
        arms=list(INITS),
        cell_gl=cell_gl,
        cell_best=cell_best,
        cell_acc=cell_acc,
        best_acc=float(np.nanmax(means)),
        chance=CHANCE,
    )
    return {**out, **relu_vs_he(acc, list(acts), list(lrs))}


def relu_vs_he(acc: np.ndarray, acts: list, lrs: list) -> dict:
    """On ReLU, per seed: the best test accuracy over the learning rates of He and of Glorot+LSC,
    their difference (``he_diff_*``, LSC minus He, with its interval over seeds; ``he_diff_seeds``)
    and log10(best lr of LSC / best lr of He) (``lr_seeds``, a discrete statistic: ``lr_higher``
    the share of seeds in which it is above 0, with its exact interval). He is the reference:
    ``he_best``, its best seed-mean accuracy, is the gate. A seed whose Glorot+LSC net did not
    train at any learning rate (below twice chance) counts as a loss for LSC: its shift is set to
    minus the grid's span (not higher; ``lsc_untrained`` counts them). Needs ReLU at
    ``MIN_RELU_LRS`` learning rates or more (``attempted``; the best learning rate of a
    shorter grid sits at its edge, censored)."""
    from rnnbook.stats import sign_share, sign_ties

    if "relu" not in acts:
        return dict(attempted=False, relu="not run at this profile", he_best=0.0)
    r = acc[acts.index("relu")]  # (I, L, S)
    own = ~np.isnan(r).any((0, 2))
    if own.sum() < MIN_RELU_LRS:
        why = (
            f"ReLU at {int(own.sum())} learning rates (the claim needs {MIN_RELU_LRS})"
        )
        return dict(
            attempted=False, relu=f"not run at this profile: {why}", he_best=0.0
        )
    r = r[:, own]
    he, lsc = r[INITS.index("he")], r[INITS.index("glorot+lsc")]
    loglr = np.log10(np.asarray(lrs, dtype=float)[own])
    d = seed_interval(lsc.max(0) - he.max(0))
    shift = loglr[lsc.argmax(0)] - loglr[he.argmax(0)]
    untrained = lsc.max(0) < 2 * CHANCE
    shift = np.where(untrained, -(loglr.max() - loglr.min()), shift)
    ties = sign_ties(shift)
    if ties < len(shift):
        higher = sign_share(shift)
        share = (
            f"higher in {higher.mean:.0%} of the {higher.n} seeds that prefer a side "
            f"[exact 95% interval {higher.lo:.0%}, {higher.hi:.0%}]"
        )
    else:
        share = "higher or lower in none of the seeds"
    return dict(
        attempted=True,
        relu_best=float(r.mean(-1).max()),
        he_best=float(he.mean(-1).max()),
        relu_lrs_run=[float(v) for v in np.asarray(lrs, dtype=float)[own]],
        lsc_untrained=int(untrained.sum()),
        he_diff_seeds=[float(v) for v in lsc.max(0) - he.max(0)],
        lr_seeds=[float(v) for v in shift],
        he_diff_mean=d.mean,
        he_diff_lo=d.lo,
        he_diff_hi=d.hi,
        lr_mean=float(shift.mean()),
        relu=f"best-lr accuracy LSC - He {d.mean:+.3f} [{d.lo:+.3f}, {d.hi:+.3f}]; "
        f"log10 best-lr ratio LSC/He per seed {np.round(shift, 2).tolist()}: {share}; "
        f"{ties} seeds tie (the same best learning rate) and leave the share; "
        f"{int(untrained.sum())} seeds whose LSC net did not train count as lower",
    )

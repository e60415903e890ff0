"""Pre-training to the Local Stability Condition (Herranz-Celotti & Rouat, Sec. II-D, Eq. 2).

The LSC asks that the spectral radius rho(M_k) of every transition derivative

    M_k in { dh_{t,l} / dh_{t-1,l}  (time),   dh_{t,l} / dh_{t,l-1}  (depth) }

be on average rho_t (1, or 1/2 for deep RNNs). This module computes the transition derivatives of a stacked
network batched with ``torch.func`` (``vmap`` of ``jacrev``/``jacfwd``), their radii, and pre-trains a network
towards the condition the way Sec. II-D describes:

* gradient descent on ``L = sum_k (rho(M_k) - rho_t)^2`` (Eq. 2; here the mean over the sampled M_k, which only
  rescales the learning rate) on task inputs;
* after each step, the weight multiplier ``kappa = clip(rho_t / rho, 0.85, 1.15)``: the input matrices of layer l
  are multiplied by the kappa of its depth transition, the recurrent matrices by the kappa of its time transition;
* then every learnable tensor is shuffled (a random permutation of its entries);
* stop when (i) ``|mean_k rho(M_k) - rho_t| <= 0.02``, (ii) the standard deviation across k is below 0.2 and
  (iii) the 10-step exponential moving average of that standard deviation is below 0.2, or when the step budget
  runs out (then :class:`LSCReport` says so and why).

The radius of a non-square M (the first layer reads the data, whose width differs) is by default the radius of
M padded with zeros to a square matrix, which equals the radius of its leading square block; ``nonsquare="norm"``
uses the spectral norm instead. The paper does not say which it used.

A model takes part by offering two methods (see :class:`StackedRNN`, which provides them for any stack of
:class:`Cell` s, and :class:`rnnbook.lsc.models.FFN` for a feed-forward net):

* ``lsc_jacobians(x, n_times, generator) -> list[Transition]``: the batched M_k at sampled points of a batch;
* ``lsc_scale(layer, kind, kappa)``: multiply the matrices that the multiplier of (layer, kind) acts on.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Literal, Sequence

import numpy as np
import torch
from torch import Tensor, nn
from torch.func import jacfwd, jacrev, vmap

Kind = Literal["time", "depth"]
KINDS: tuple[str, ...] = ("time", "depth")


# --------------------------------------------------------------------------------------------------------------
# Jacobians and radii
# --------------------------------------------------------------------------------------------------------------


def batched_jacobian(
    f: Callable[..., Tensor], *args: Tensor, argnum: int = 0, mode: str = "rev"
) -> Tensor:
    """d f / d args[argnum] for each sample of a batch: ``vmap(jacrev(f))`` (or ``jacfwd``).

    ``f`` maps one sample (unbatched tensors) to a vector; every arg has a leading batch dimension. Tensors that
    ``f`` captures (the model's parameters) stay in the autograd graph, so the result can be differentiated.
    """
    if mode not in ("rev", "fwd"):
        raise ValueError(f"mode = {mode!r}: must be 'rev' or 'fwd'")
    jac = jacrev if mode == "rev" else jacfwd
    return vmap(jac(f, argnums=argnum))(*args)


def per_sample_jacobian(
    f: Callable[..., Tensor], *args: Tensor, argnum: int = 0
) -> Tensor:
    """The same Jacobians by a plain loop: for each sample, one ``autograd.grad`` call per output row.

    The reference for the tests and the baseline of ``benchmarks/lsc_radius.py``."""
    out = []
    for b in range(args[0].shape[0]):
        sample = [a[b].detach().clone() for a in args]
        sample[argnum].requires_grad_(True)
        y = f(*sample)
        rows = [
            torch.autograd.grad(y[i], sample[argnum], retain_graph=True)[0]
            for i in range(y.shape[0])
        ]
        out.append(torch.stack(rows))
    return torch.stack(out)


def spectral_radius(M: Tensor, nonsquare: str = "pad") -> Tensor:
    """rho(M) = max |eigenvalue| over the last two dimensions (differentiable).

    For a non-square M: ``"pad"`` (default) pads with zeros to a square matrix, whose eigenvalues are those of
    the leading square block plus zeros; ``"norm"`` takes the spectral norm (largest singular value)."""
    n, m = M.shape[-2:]
    if n != m:
        if nonsquare == "norm":
            return torch.linalg.matrix_norm(M, ord=2)
        if nonsquare != "pad":
            raise ValueError(f"nonsquare = {nonsquare!r}: must be 'pad' or 'norm'")
        k = min(n, m)
        M = M[..., :k, :k]
    if M.shape[-1] == 1:
        return M[..., 0, 0].abs()
    return torch.linalg.eigvals(M).abs().amax(-1)


@dataclass
class Transition:
    """A family of transition derivatives M_k of one layer and kind, at S sampled points: ``M`` is (S, n, m)."""

    layer: int  # 1-based, as the paper's l
    kind: str  # "time" or "depth"
    M: Tensor

    def radii(self, nonsquare: str = "pad") -> Tensor:
        return spectral_radius(self.M, nonsquare)


# --------------------------------------------------------------------------------------------------------------
# Stacked recurrent networks (Eq. 1) made of cells
# --------------------------------------------------------------------------------------------------------------


class Cell(nn.Module):
    """One recurrent layer: ``h_{t,l} = step(h_{t-1,l}, u_{t,l})`` with ``u_{t,l} = out_{l-1}(h_{t,l-1}, u_{t,l-1})``.

    ``h`` is the concatenation of all the layer's hidden states (LSTM: [c, h]; ALIF: [y, theta]); ``out`` is what
    the layer passes up (default: the state itself). Methods must accept unbatched (1-D) tensors, for ``vmap``.
    ``input_params`` / ``recurrent_params`` name the tensors that the depth / time multiplier kappa scales.
    A parameter may carry an int attribute ``lsc_chunks``: it is then shuffled within each of that many
    row-blocks (e.g. the four gates of an LSTM stored in one matrix).
    """

    state_size: int
    input_params: tuple[str, ...] = ()
    recurrent_params: tuple[str, ...] = ()

    def initial_state(self, batch: int, dtype=torch.float32, device=None) -> Tensor:
        return torch.zeros(batch, self.state_size, dtype=dtype, device=device)

    def step(self, h: Tensor, u: Tensor) -> Tensor:
        """One step of Eq. (1). Default: ``rec(h, inp(u))``; a cell defines either ``step`` or ``inp`` and ``rec``."""
        return self.rec(h, self.inp(u))

    def inp(self, u: Tensor) -> Tensor:
        """The part of the step that only sees the input (computed for all time steps at once in ``sequence``)."""
        return u

    def rec(self, h: Tensor, a: Tensor) -> Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def out(self, h: Tensor, u: Tensor) -> Tensor:
        return h

    def sequence(self, h0: Tensor, U: Tensor) -> tuple[Tensor, Tensor]:
        """Run the layer over a whole input sequence U (B, T, m): returns the states (B, T, n) and the outputs
        passed up (B, T, m'). Same result as stepping, with the input part batched over time."""
        if type(self).rec is Cell.rec:  # the cell defines only step()
            A, step = U, self.step
        else:
            A, step = self.inp(U), self.rec
        h, hs = h0, []
        for t in range(U.shape[1]):
            h = step(h, A[:, t])
            hs.append(h)
        H = torch.stack(hs, 1)
        return H, self.out(H, U)

    @torch.no_grad()
    def lsc_scale(self, kind: str, kappa: float) -> None:
        """Multiply the input (``kind="depth"``) or recurrent (``kind="time"``) matrices by ``kappa``."""
        for name in self.input_params if kind == "depth" else self.recurrent_params:
            getattr(self, name).mul_(kappa)


@dataclass
class Trace:
    """What a forward pass of a :class:`StackedRNN` saw: per layer, the states ``H[l]`` (B, T, n_l) and the
    inputs ``U[l]`` (B, T, m_l) it received; and the initial states ``H0[l]`` (B, n_l)."""

    H: list[Tensor]
    U: list[Tensor]
    H0: list[Tensor]


class StackedRNN(nn.Module):
    """A stack of :class:`Cell` s with an optional encoder (e.g. an embedding) and a readout.

    ``forward(x)`` maps (B, T, ...) inputs to (B, T, n_out) outputs; with ``trace=True`` it also returns the
    :class:`Trace` used to evaluate the transition derivatives. Layer l reads layer l-1 at the same time step.
    """

    def __init__(
        self,
        cells: Sequence[Cell],
        readout: nn.Module,
        encoder: nn.Module | None = None,
        decoder: Callable[[Tensor], Tensor] | None = None,
    ) -> None:
        super().__init__()
        self.cells = nn.ModuleList(cells)
        self.readout = readout
        self.encoder = encoder
        self.decoder = decoder

    @property
    def depth(self) -> int:
        return len(self.cells)

    def encode(self, x: Tensor) -> Tensor:
        return x if self.encoder is None else self.encoder(x)

    def forward(self, x: Tensor, trace: bool = False):
        """Layer by layer over the whole sequence (exact, since layer l reads layer l-1 at the same time step)."""
        u_seq = self.encode(x)
        B = u_seq.shape[0]
        Hs, Us, H0 = [], [], []
        for cell in self.cells:
            h0 = cell.initial_state(B, u_seq.dtype, u_seq.device)
            H, out = cell.sequence(h0, u_seq)
            if trace:
                Hs.append(H)
                Us.append(u_seq)
                H0.append(h0)
            u_seq = out
        y = self.decoder(u_seq) if self.decoder is not None else self.readout(u_seq)
        if not trace:
            return y
        return y, Trace(Hs, Us, H0)

    # ---- the LSC interface ------------------------------------------------------------------------------------
    def lsc_jacobians(
        self,
        x: Tensor,
        n_times: int | None = None,
        generator: torch.Generator | None = None,
        include_input: bool = True,
        mode: str = "rev",
        trace: Trace | None = None,
    ) -> list[Transition]:
        """The time and depth transition derivatives of every layer at ``n_times`` random time steps of each
        sequence of the batch (all time steps if ``None``), evaluated batched at the states of a forward pass.

        The states are taken without gradient; the M_k keep their dependence on the parameters (through the
        cell equations), which is what the Eq. (2) loss differentiates."""
        was_training = self.training
        self.eval()  # no dropout inside vmap
        try:
            return self._lsc_jacobians(
                x, n_times, generator, include_input, mode, trace
            )
        finally:
            self.train(was_training)

    def _lsc_jacobians(
        self, x, n_times, generator, include_input, mode, trace
    ) -> list[Transition]:
        if trace is None:
            with torch.no_grad():
                _, trace = self(x, trace=True)
        B, T = trace.H[0].shape[:2]
        if n_times is None or n_times >= T:
            bi, ti = torch.meshgrid(
                torch.arange(B, device=x.device),
                torch.arange(T, device=x.device),
                indexing="ij",
            )
            bi, ti = bi.reshape(-1), ti.reshape(-1)
        else:  # the time steps are drawn on the CPU generator, whatever the device
            ti = torch.stack(
                [
                    torch.randperm(T, generator=generator, device="cpu")[:n_times]
                    for _ in range(B)
                ]
            ).reshape(-1)
            ti = ti.to(x.device)
            bi = torch.arange(B, device=x.device).repeat_interleave(n_times)
        out = []
        for l, cell in enumerate(self.cells):
            H, U = trace.H[l].detach(), trace.U[l].detach()
            prev = torch.cat([trace.H0[l].detach()[:, None], H[:, :-1]], 1)  # h_{t-1,l}
            h_prev, u = prev[bi, ti], U[bi, ti]
            out.append(
                Transition(
                    l + 1,
                    "time",
                    batched_jacobian(cell.step, h_prev, u, argnum=0, mode=mode),
                )
            )
            if l == 0:
                if include_input:
                    out.append(
                        Transition(
                            1,
                            "depth",
                            batched_jacobian(cell.step, h_prev, u, argnum=1, mode=mode),
                        )
                    )
                continue
            below = self.cells[l - 1]
            h_below, u_below = (
                trace.H[l - 1].detach()[bi, ti],
                trace.U[l - 1].detach()[bi, ti],
            )

            def f_depth(g, hp, ub, cell=cell, below=below):
                return cell.step(hp, below.out(g, ub))

            out.append(
                Transition(
                    l + 1,
                    "depth",
                    batched_jacobian(
                        f_depth, h_below, h_prev, u_below, argnum=0, mode=mode
                    ),
                )
            )
        return out

    def lsc_scale(self, layer: int, kind: str, kappa: float) -> None:
        self.cells[layer - 1].lsc_scale(kind, kappa)


def compare_with_loop(
    model: StackedRNN, x: Tensor, n_times: int, seed: int = 1, repeat: int = 3
) -> dict:
    """The batched transition derivatives of ``model`` against a per-sample autograd loop at the
    same sampled points (``n_times`` < T per sequence, drawn from a generator seeded ``seed``).

    Returns the best of ``repeat`` times of the batched computation (``t_batched``, with the radii),
    the time of the loop (``t_loop``, with its radii), the largest absolute difference of the
    Jacobians (``jac_err``) and of the radii (``radius_err``), and the number of matrices (``n``).
    Runs where ``model`` and ``x`` are (the points are drawn on the CPU generator either way;
    on CUDA the times wait for the device)."""
    t_batched = math.inf
    with torch.no_grad():
        for _ in range(repeat):  # the first call also traces the vmap
            t0 = _clock(x)
            gen = torch.Generator(device="cpu").manual_seed(seed)
            trs = model.lsc_jacobians(x, n_times=n_times, generator=gen)
            rad_b = radii_by_group(trs)
            t_batched = min(t_batched, _clock(x) - t0)
        _, tr = model(x, trace=True)
    gen = torch.Generator(device="cpu").manual_seed(seed)
    B, T = tr.H[0].shape[:2]
    ti = torch.stack(
        [torch.randperm(T, generator=gen, device="cpu")[:n_times] for _ in range(B)]
    )
    ti = ti.reshape(-1).to(x.device)
    bi = torch.arange(B, device=x.device).repeat_interleave(n_times)
    t0 = _clock(x)
    ref = {}
    for l, cell in enumerate(model.cells):
        hp = torch.cat([tr.H0[l][:, None], tr.H[l][:, :-1]], 1)[bi, ti]
        u = tr.U[l][bi, ti]
        ref[(l + 1, "time")] = per_sample_jacobian(cell.step, hp, u)
        if l == 0:
            ref[(1, "depth")] = per_sample_jacobian(cell.step, hp, u, argnum=1)
            continue

        def f_depth(g, hp, ub, cell=cell, below=model.cells[l - 1]):
            return cell.step(hp, below.out(g, ub))

        below_h, below_u = tr.H[l - 1][bi, ti], tr.U[l - 1][bi, ti]
        ref[(l + 1, "depth")] = per_sample_jacobian(f_depth, below_h, hp, below_u)
    rad_s = {k: spectral_radius(v) for k, v in ref.items()}
    t_loop = _clock(x) - t0
    return dict(
        t_batched=t_batched,
        t_loop=t_loop,
        radius_err=max(float((rad_b[k] - rad_s[k]).abs().max()) for k in rad_b),
        jac_err=max(float((t.M - ref[(t.layer, t.kind)]).abs().max()) for t in trs),
        n=sum(int(v.numel()) for v in rad_b.values()),
    )


def _clock(x: Tensor) -> float:
    """``time.perf_counter()``, after the work queued on ``x``'s device is done."""
    if x.device.type == "cuda":
        torch.cuda.synchronize(x.device)
    return time.perf_counter()


def comparison_table(bench: dict[str, dict]) -> str:
    """:func:`compare_with_loop` results, one row per network (the keys name them)."""
    rows = [
        f"| {name} | {b['n']} | {b['t_batched'] * 1e3:.0f} | {b['t_loop'] * 1e3:.0f} "
        f"| {b['t_loop'] / b['t_batched']:.0f}x | {b['jac_err']:.1e} "
        f"| {b['radius_err']:.1e} |"
        for name, b in bench.items()
    ]
    return (
        "| network | matrices | batched (ms) | per-sample loop (ms) | speed-up "
        "| max abs. Jacobian difference | max abs. radius difference |\n"
        "|---|---|---|---|---|---|---|\n" + "\n".join(rows)
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


@torch.no_grad()
def shuffle_parameters(model: nn.Module, generator: torch.Generator) -> None:
    """Randomly permute the entries of each learnable tensor (within row-blocks if it has ``lsc_chunks``)."""
    for p in model.parameters():
        if not p.requires_grad or p.numel() < 2:
            continue
        chunks = int(getattr(p, "lsc_chunks", 1))
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
    """The settings of the pre-training (defaults: the paper's, Sec. II-D and II-G)."""

    target: float = 0.5
    unbalanced: bool = False
    T: int | None = None  # sequence length, for unbalanced targets
    lr: float = 3.14e-3  # AdaBelief, as the paper
    weight_decay: float = 1e-4
    clip: tuple[float, float] = (0.85, 1.15)
    multiplier: bool = True
    shuffle: bool = True
    eps: float = 0.02
    std_max: float = 0.2
    ema_span: int = 10
    max_steps: int = 200
    min_steps: int = 1
    n_times: int | None = 4
    nonsquare: str = "pad"
    include_input: bool = True


@dataclass
class LSCReport:
    """What the pre-training did: whether the three criteria were met, after how many steps, and the history."""

    converged: bool
    steps: int
    target: dict[str, float]
    criteria: dict[str, bool]
    mean_dev: float  # mean_k (rho_k - target_k)
    std: float  # std_k (rho_k - target_k)
    std_ema: float
    group_means: dict[str, float]  # "l1/time" -> mean radius
    history: dict[str, list] = field(default_factory=dict)
    seconds: float = 0.0

    @property
    def mean_radius(self) -> float:
        return float(np.mean(list(self.group_means.values())))

    def __str__(self) -> str:
        crit = ", ".join(
            f"{k}: {'yes' if v else 'NO'}" for k, v in self.criteria.items()
        )
        head = (
            f"LSC pre-training {'converged' if self.converged else 'did NOT converge'} after {self.steps} steps "
            f"({self.seconds:.1f} s); targets {self.target}; mean deviation {self.mean_dev:+.3f}, std {self.std:.3f}, "
            f"EMA of std {self.std_ema:.3f}; criteria met: {crit}"
        )
        if not self.converged:
            head += ". The step budget ran out before all three criteria held; the network is left as it is."
        return head


def _model_scale(model, layer: int, kind: str, kappa: float) -> None:
    model.lsc_scale(layer, kind, kappa)


def measure(
    model,
    x: Tensor,
    cfg: LSCConfig | None = None,
    generator: torch.Generator | None = None,
    n_times: int | None = None,
) -> dict[tuple[int, str], np.ndarray]:
    """Radii of all transition derivatives of ``model`` on the batch ``x`` (no gradient): {(l, kind): array}."""
    cfg = cfg or LSCConfig()
    was_training = model.training
    model.eval()
    with torch.no_grad():
        trs = model.lsc_jacobians(
            x,
            n_times=n_times if n_times is not None else cfg.n_times,
            generator=generator,
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


def pretrain(
    model,
    batches: Iterator[Tensor],
    cfg: LSCConfig,
    seed: int = 0,
    callback: Callable[[int, dict], None] | None = None,
) -> LSCReport:
    """Pre-train ``model`` towards the LSC (Sec. II-D). ``batches`` yields task inputs (labels are not needed:
    the Eq. (2) loss does not see them, so the paper's random labels play no role here).

    Returns an :class:`LSCReport`; ``report.converged`` is False when ``cfg.max_steps`` ran out first."""
    gen = torch.Generator(device="cpu").manual_seed(seed)
    was_training = model.training
    model.eval()  # no dropout while measuring the transition derivatives
    L = getattr(model, "depth", None)
    targets = targets_for(cfg.target, cfg.unbalanced, cfg.T, L)
    params = [p for p in model.parameters() if p.requires_grad]
    opt = make_optimizer(params, cfg.lr, cfg.weight_decay, lookahead=False)
    hist: dict[str, list] = {
        "loss": [],
        "mean_dev": [],
        "std": [],
        "std_ema": [],
        "mean_radius": [],
        "groups": [],
    }
    t0 = time.perf_counter()
    converged, step = False, 0
    crit = {
        "(i) |mean - target| <= eps": False,
        "(ii) std < 0.2": False,
        "(iii) EMA(std) < 0.2": False,
    }
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
            f"l{l}/{kind}": float(r.detach().mean()) for (l, kind), r in groups.items()
        }
        hist["groups"].append(gm)
        hist["mean_radius"].append(float(np.mean(list(gm.values()))))
        crit = {
            "(i) |mean - target| <= eps": abs(mean_dev) <= cfg.eps,
            "(ii) std < 0.2": std < cfg.std_max,
            "(iii) EMA(std) < 0.2": hist["std_ema"][-1] < cfg.std_max,
        }
        if callback is not None:
            callback(step, {"loss": hist["loss"][-1], "mean_dev": mean_dev, "std": std})
        if all(crit.values()) and step >= cfg.min_steps:
            converged = True  # the radii just measured are those of the network as it is returned
            break
        opt.zero_grad(set_to_none=True)
        if loss.requires_grad:
            loss.backward()
            for p in params:  # an eigenvalue degeneracy can give a non-finite gradient: skip that entry
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
                    _model_scale(
                        model, l, kind, float(min(max(kappa, cfg.clip[0]), cfg.clip[1]))
                    )
            if cfg.shuffle:
                shuffle_parameters(model, gen)
    model.train(was_training)
    last = hist["groups"][-1] if hist["groups"] else {}
    return LSCReport(
        converged,
        step,
        targets,
        crit,
        hist["mean_dev"][-1],
        hist["std"][-1],
        hist["std_ema"][-1],
        last,
        hist,
        time.perf_counter() - t0,
    )

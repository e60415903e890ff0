"""Training many small RNNs at once: the trainability grid (Fig. 2) and the critical-initialization speed test
(Fig. 3) of Chen, Pennington & Schoenholz (2018), Sec. 4.

:class:`GridRNN` holds K vanilla RNNs (Eq. 1) or K minimalRNNs (Eq. 5), each with its own initialization
hyperparameters, as batched tensors with a leading axis over the networks, so that one forward/backward pass
trains the whole hyperparameter grid. Networks can have *tied* weights (one W, V, b for all steps) or
*untied* weights (a separate W_t, V_t, b_t for each step t; the approximation of the mean field theory).
The minimalRNN reads its inputs through Phi(x) = tanh(W_x x) (footnote 2), shared over steps. A linear
readout of the last hidden state gives the class logits. Adam updates each entry independently, so one
optimizer over the stacked parameters is K independent trainings.

Seeds are one more axis of the ensemble: with ``groups`` (network k -> data stream g), the input may be
(steps, G, B, M) and the labels (G, B), so that the networks of each seed see their own minibatches
(:func:`replicate` repeats a list of specs once per seed). One forward/backward pass then trains
seeds x initializations x variants at once; ``benchmarks/ensemble_training.py`` measures the gain over
a loop of single networks.

Member seeds (a shard of a record, :mod:`rnnbook.seeds`): seed ``s`` of a chapter's master seed is
member ``s``, and every draw of it (its networks' weights with ``net_seeds``, its minibatches and
noise) comes from generators seeded by :func:`stream_seed` of its member seed, a stream name and
the draw's own keys. A member's draws are thus the same whether it trains alone or among others,
in whichever chunk of a grid; only the draws common to all members (the evaluation noise) come
from the master seed.

Tasks: :func:`mnist_then_noise` (Sec. 4.1: the image, then T Gaussian noise inputs) and
:func:`sequential_mnist` (Sec. 4.2: the pixels in T chunks of 784/T).
"""

from __future__ import annotations

import hashlib
import json
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import repeat

import numpy as np
import torch

from rnnbook import datasets
from rnnbook.seeds import member_seeds
from rnnbook.stats import seed_interval


# --------------------------------------------------------------------------------------------- seeds
def stream_seed(seed: int, stream: str, *keys: int | str) -> int:
    """The seed (63 bits) of the random stream ``stream`` of ``seed`` (a member seed, or a master
    seed for a draw all members share), at ``keys`` (a depth, a network's index): a hash of all
    three, so that different seeds, streams or keys share no draw."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"stream_seed: seed = {seed!r} must be an integer >= 0")
    text = json.dumps([seed, str(stream), *keys])
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "little") >> 1


def generator(seed: int, stream: str, *keys: int | str) -> torch.Generator:
    """A CPU generator seeded with :func:`stream_seed` ``(seed, stream, *keys)``."""
    return torch.Generator(device="cpu").manual_seed(stream_seed(seed, stream, *keys))


# ---------------------------------------------------------------------------------------------------- data
def mnist_arrays(
    split: str, pool: int = 1, n: int | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """MNIST images as float32 (n, 784/pool^2), pixels/255 average-pooled by ``pool`` (1, 2, 4 or 7), and labels."""
    if 28 % pool:
        raise ValueError(f"pool = {pool!r}: must divide 28")
    images, labels = datasets.mnist(split)
    if n is not None:
        images, labels = images[:n], labels[:n]
    x = images.astype(np.float32) / 255.0
    if pool > 1:
        x = x.reshape(len(x), 28 // pool, pool, 28 // pool, pool).mean((2, 4))
    return torch.from_numpy(x.reshape(len(x), -1).copy()), torch.from_numpy(
        labels.astype(np.int64)
    )


def standardise(x: torch.Tensor, mean: float, std: float) -> torch.Tensor:
    return (x - mean) / std


def mnist_then_noise(
    images: torch.Tensor, T: int, sigma_x: float, gen: torch.Generator
) -> torch.Tensor:
    """Sec. 4.1: the flattened image as the input at t = 0, then T inputs x^t ~ N(0, sigma_x^2) (fresh for
    each example): a sequence (T + 1, B, M)."""
    seq = torch.empty(T + 1, *images.shape, dtype=images.dtype, device="cpu")
    # drawn on the CPU generator, whatever the device, straight into the sequence
    torch.randn(
        T, *images.shape, generator=gen, dtype=images.dtype, device="cpu", out=seq[1:]
    )
    seq[1:].mul_(sigma_x)
    seq[0] = images
    return seq.to(images.device)


def sequential_mnist(images: torch.Tensor, T: int) -> torch.Tensor:
    """Sec. 4.2: the 784 pixels (row-major) unrolled into T inputs of 784/T pixels: (T, B, 784/T)."""
    if 784 % T:
        raise ValueError(f"T = {T!r}: must divide 784")
    return images.reshape(images.shape[0], T, 784 // T).transpose(0, 1)


# ------------------------------------------------------------------------------------------------ networks
@dataclass
class InitSpec:
    """Initialization of one network: W ~ N(0, sigma_w^2/N) (or sigma_w x orthogonal), V ~ N(0, sigma_v^2/fan_in),
    b ~ N(mu_b, sigma_b^2); ``tied`` weights or not."""

    sigma_w: float
    sigma_v: float
    mu_b: float = 0.0
    sigma_b: float = 0.0
    tied: bool = True
    orthogonal: bool = False
    h0_var: float = 0.0  # second moment of a fixed random initial state h^0 (0: h^0 = 0); not trained
    label: str = ""


def _init_matrix(
    n_out: int,
    n_in: int,
    scale: float,
    orthogonal: bool,
    gen: torch.Generator,
    out: torch.Tensor | None = None,
) -> torch.Tensor:
    """One initial matrix drawn from ``gen``; written into ``out`` (float32, n_out x n_in)
    when given, so that a grid's weights are drawn in place, without a copy (the same numbers:
    the same draws, scaled the same way)."""
    if orthogonal:
        if n_out != n_in:
            raise ValueError("orthogonal initialization needs a square matrix")
        A = torch.randn(n_out, n_in, generator=gen, dtype=torch.float64, device="cpu")
        Qm, Rm = torch.linalg.qr(A)
        Q = (Qm * torch.sign(torch.diagonal(Rm))).float() * scale
        return Q if out is None else out.copy_(Q)
    if out is None:
        return torch.randn(n_out, n_in, generator=gen, device="cpu") * (
            scale / np.sqrt(n_in)
        )
    torch.randn(n_out, n_in, generator=gen, device="cpu", out=out)
    return out.mul_(scale / np.sqrt(n_in))


@dataclass
class GridRNN:
    """K RNNs of one kind (``"vanilla"`` or ``"minimal"``) trained together; see the module docstring.

    The weights are drawn from one generator seeded ``seed`` (network after network), or, with
    ``net_seeds``, network k's from a generator of its own seeded ``net_seeds[k]``: then a
    network's weights do not depend on the others of its grid."""

    kind: str
    specs: list[InitSpec]
    N: int
    M: int
    steps: (
        int  # sequence length (number of inputs); untied networks get one cell per step
    )
    n_classes: int = 10
    seed: int = 0
    input_scale2: float = 1.0  # minimalRNN: W_x ~ N(0, input_scale2/M)
    groups: list[int] | None = (
        None  # data stream (seed) of each network; None: one stream
    )
    params: dict = field(default_factory=dict)
    net_seeds: list[int] | None = None  # each network's own generator (None: ``seed``)

    def __post_init__(self) -> None:
        if self.kind not in ("vanilla", "minimal"):
            raise ValueError(f"kind = {self.kind!r}: must be 'vanilla' or 'minimal'")
        N, M, S, K = self.N, self.M, self.steps, len(self.specs)
        n_in = M if self.kind == "vanilla" else N
        self.tied_idx = [k for k, s in enumerate(self.specs) if s.tied]
        self.untied_idx = [k for k, s in enumerate(self.specs) if not s.tied]
        # the order in which the forward pass stacks the networks -> position of network k
        order = self.tied_idx + self.untied_idx
        self.perm = torch.tensor([order.index(k) for k in range(K)], device="cpu")
        groups = self.groups if self.groups is not None else [0] * K
        if len(groups) != K:
            raise ValueError(f"groups has {len(groups)} entries for {K} networks")
        self.group = torch.tensor(groups, dtype=torch.long, device="cpu")
        if self.net_seeds is None:
            gens = [torch.Generator(device="cpu").manual_seed(int(self.seed))] * K
        elif len(self.net_seeds) != K:
            raise ValueError(f"net_seeds has {len(self.net_seeds)} for {K} networks")
        else:
            gens = [
                torch.Generator(device="cpu").manual_seed(int(s))
                for s in self.net_seeds
            ]
        lead = {"tied": (len(self.tied_idx),), "untied": (len(self.untied_idx), S)}
        for group, shape in lead.items():
            self.params[f"W_{group}"] = torch.empty(*shape, N, N, device="cpu")
            self.params[f"V_{group}"] = torch.empty(*shape, N, n_in, device="cpu")
            self.params[f"b_{group}"] = torch.empty(*shape, N, device="cpu")
        if self.kind == "minimal":
            self.params["Wx"] = torch.empty(K, N, M, device="cpu")
        self.params["C"] = torch.empty(K, N, self.n_classes, device="cpu")
        h0 = torch.empty(K, N, device="cpu")
        for k, (spec, gen) in enumerate(zip(self.specs, gens)):
            self._draw(k, spec, gen, h0)
        for group in lead:  # a grid without tied (untied) networks has none of them
            if not lead[group][0]:
                for n in "WVb":
                    del self.params[f"{n}_{group}"]
        self.h0 = h0  # (K, N)
        self.params["d"] = torch.zeros(K, 1, self.n_classes, device="cpu")
        for p in self.params.values():
            p.requires_grad_(True)

    def _draw(self, k: int, s: InitSpec, gen: torch.Generator, h0) -> None:
        """Network k's weights from ``gen``, straight into the grid's tensors, in the order
        W_1..W_S, V_1..V_S, b, W_x (minimalRNN), h^0, C."""
        group = "tied" if s.tied else "untied"
        j = (self.tied_idx if s.tied else self.untied_idx).index(k)
        W, V, b = (self.params[f"{n}_{group}"][j] for n in "WVb")
        copies = 1 if s.tied else self.steps
        W, V = (w.reshape(copies, *w.shape[-2:]) for w in (W, V))
        for c in range(copies):
            _init_matrix(self.N, self.N, s.sigma_w, s.orthogonal, gen, out=W[c])
        for c in range(copies):
            _init_matrix(self.N, V.shape[-1], s.sigma_v, False, gen, out=V[c])
        b.copy_(s.mu_b + s.sigma_b * torch.randn(*b.shape, generator=gen, device="cpu"))
        if self.kind == "minimal":
            Wx = self.params["Wx"][k]
            torch.randn(self.N, self.M, generator=gen, device="cpu", out=Wx)
            Wx.mul_(np.sqrt(self.input_scale2 / self.M))
        h0[k] = np.sqrt(s.h0_var) * torch.randn(self.N, generator=gen, device="cpu")
        C = self.params["C"][k]
        torch.randn(self.N, self.n_classes, generator=gen, device="cpu", out=C)
        C.div_(np.sqrt(self.N))

    @property
    def K(self) -> int:
        return len(self.specs)

    def to(self, device) -> "GridRNN":
        """The networks moved to ``device`` (drawn on the CPU generator: the same weights on
        every device); the forward pass moves its inputs there."""
        self.params = {
            k: v.detach().to(device).requires_grad_(True)
            for k, v in self.params.items()
        }
        self.h0, self.perm, self.group = (
            t.to(device) for t in (self.h0, self.perm, self.group)
        )
        return self

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """x: (steps, B, M) shared by all networks, or (steps, G, B, M) with one stream per group.
        Returns the logits (K, B, n_classes) of the last hidden state."""
        S, B = x.shape[0], x.shape[-2]
        x = x.to(self.h0.device)
        if S > self.steps:
            raise ValueError(f"sequence of {S} steps, networks built for {self.steps}")
        order = self.tied_idx + self.untied_idx
        h = self.h0[order].unsqueeze(1).expand(self.K, B, self.N)
        if x.dim() == 4:  # each network reads the stream of its group: (steps, K, B, M)
            x = x[:, self.group[order]]
        if self.kind == "minimal":
            # Phi(x^t) = tanh(W_x x^t) for all steps at once, split with one unbind
            eq = "skbm,knm->skbn" if x.dim() == 4 else "sbm,knm->skbn"
            # in place: the product is not kept for the backward pass (one (S, K, B, N)
            # tensor less at once: 1.6 GB for Fig. 3's evaluation at T = 784)
            xt_seq = torch.einsum(eq, x, self.params["Wx"][order]).tanh_()
            xt_all = xt_seq.unbind(0)
        else:
            xt_seq = xt_all = None
        if (
            not self.untied_idx
        ):  # tied weights: the input terms of all steps in one product
            return self._forward_tied(x, h, xt_all, xt_seq)
        # Untied weights are split with one ``unbind`` per pass (indexing them step by step
        # would cost O(steps^2) in the backward pass). The tied networks of a mixed grid run
        # the same operations beside them, on their own weights (stacking the two groups'
        # weights at every step would copy every untied weight once more per pass).
        Kt = len(self.tied_idx)
        untied = zip(*(self.params[f"{n}_untied"].unbind(1) for n in "WVb"))
        h_u = self._recurrence(x, h[Kt:], xt_all, untied, slice(Kt, self.K), S)
        if Kt:
            tied = repeat(tuple(self.params[f"{n}_tied"] for n in "WVb"))
            h_t = self._recurrence(x, h[:Kt], xt_all, tied, slice(0, Kt), S)
            h_u = torch.cat([h_t, h_u], 0)
        return torch.baddbmm(self.params["d"], h_u[self.perm], self.params["C"])

    def _recurrence(self, x, h, xt_all, weights, k: slice, S: int) -> torch.Tensor:
        """Eq. (1) or (5) for the networks ``k`` (in the forward pass's order) over S steps,
        with the step-t weights (W_t, V_t, b_t) from ``weights``: the last hidden state."""
        for t, (W, V, b) in zip(range(S), weights):
            e = torch.baddbmm(b.unsqueeze(1), h, W.transpose(1, 2))
            if self.kind == "vanilla":
                xk = x[t] if x.dim() == 3 else x[t, k]
                h = torch.tanh(e + torch.matmul(xk, V.transpose(1, 2)))  # Eq. (1)
            else:
                xt = xt_all[t][k]
                u = torch.sigmoid(e + torch.bmm(xt, V.transpose(1, 2)))
                h = u * h + (1 - u) * xt  # Eq. (5)
        return h

    def _forward_tied(self, x, h, xt_all, xt_seq) -> torch.Tensor:
        """The same recurrence when every network has tied weights, with fewer operations per
        step (small networks on a CPU are bound by the number of operations, not their size):
        V x^t + b for all t in one product, then one baddbmm, one nonlinearity and (minimalRNN)
        one lerp, h = x~ + u (h - x~), per step."""
        W, V, b = (self.params[f"{n}_tied"] for n in "WVb")
        Wt, Vt = W.transpose(1, 2), V.transpose(1, 2)
        if self.kind == "vanilla":
            x = x if x.dim() == 4 else x.unsqueeze(1)  # (S, K or 1, B, M)
            # V x^t + b of every step: (K, B, N) per step
            inp = torch.matmul(x, Vt).add_(b.unsqueeze(1)).unbind(0)
            for a in inp:
                h = torch.tanh(torch.baddbmm(a, h, Wt))  # Eq. (1)
        else:
            # the steps' inputs as one tensor (xt_all views it: no stacked copy)
            inp = torch.matmul(xt_seq.contiguous(), Vt).add_(b.unsqueeze(1)).unbind(0)
            for a, xt in zip(inp, xt_all):
                u = torch.sigmoid(torch.baddbmm(a, h, Wt))
                h = torch.lerp(xt, h, u)  # Eq. (5): u h + (1 - u) x~
        return torch.baddbmm(self.params["d"], h[self.perm], self.params["C"])

    def parameters(self) -> list[torch.Tensor]:
        return list(self.params.values())

    def labels(self, y: torch.Tensor) -> torch.Tensor:
        """Labels (B,) shared, or (G, B) per group -> what :func:`losses_and_accuracy` takes."""
        return y[self.group] if y.dim() == 2 else y


def replicate(specs: list[InitSpec], n_seeds: int) -> tuple[list[InitSpec], list[int]]:
    """The specs repeated once per seed (seed-major) and the group (seed) of each network."""
    return [s for _ in range(n_seeds) for s in specs], [
        g for g in range(n_seeds) for _ in specs
    ]


@contextmanager
def flush_denormals():
    """Flush denormal floats to zero while training: vanishing gradients through many steps otherwise become
    denormals, which make the CPU's arithmetic several times slower (values below 1e-38 change nothing)."""
    torch.set_flush_denormal(True)
    try:
        yield
    finally:
        torch.set_flush_denormal(False)


def losses_and_accuracy(
    logits: torch.Tensor, y: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Per-network cross-entropy (K,) and accuracy (K,) for logits (K, B, C), labels (B,) or (K, B)."""
    K, B, C = logits.shape
    y = y.to(logits.device).expand(K, B)
    ce = torch.nn.functional.cross_entropy(
        logits.reshape(K * B, C), y.reshape(K * B), reduction="none"
    ).reshape(K, B)
    return ce.mean(1), (logits.argmax(-1) == y).float().mean(1)


@dataclass
class TrainResult:
    steps: list[int]
    accuracy: np.ndarray  # (n_evals, K)
    loss: np.ndarray  # (n_evals, K)


def checkpoints(n_steps: int, n: int) -> list[int]:
    """``n`` evaluation steps evenly spaced over a run of ``n_steps``, the last one at its end."""
    return sorted({max(round(n_steps * (j + 1) / n), 1) for j in range(n)})


def train(
    net: GridRNN,
    make_batch,
    n_steps: int,
    lr: float,
    eval_fn=None,
    eval_every: int = 0,
    eval_at=(),
) -> TrainResult:
    """Adam on the sum of the K networks' losses (equivalent to K independent Adam runs). ``make_batch(step)``
    returns (x, y); ``eval_fn(net)`` returns (loss (K,), accuracy (K,)) at the steps ``eval_every`` apart,
    at the steps ``eval_at`` and at the end."""
    opt = torch.optim.Adam(net.parameters(), lr=lr)
    evals, accs, losses = [], [], []
    dev = net.params["C"].device
    with flush_denormals():
        for step in range(n_steps):
            x, y = (t.to(dev) for t in make_batch(step))
            loss, _ = losses_and_accuracy(net.forward(x), net.labels(y))
            opt.zero_grad(set_to_none=True)
            loss.sum().backward()
            for p in net.parameters():  # a diverged network must not stop the others
                p.grad.nan_to_num_(0.0, posinf=0.0, neginf=0.0)
            opt.step()
            due = (eval_every and (step + 1) % eval_every == 0) or step + 1 in eval_at
            if eval_fn is not None and (due or step + 1 == n_steps):
                # the gradients' memory is not needed while evaluating (reset next step)
                opt.zero_grad(set_to_none=True)
                with torch.no_grad():
                    l_, a_ = eval_fn(net)
                evals.append(step + 1)
                accs.append(a_.cpu().numpy())
                losses.append(l_.cpu().numpy())
    return TrainResult(evals, np.array(accs), np.array(losses))


def interval(samples, digits: int = 4) -> dict:
    """Mean of a statistic over seeds with its 95% Student-t interval, as the ledger's rules read
    it: {'mean', 'lo', 'hi', 'n'} (rnnbook.stats.seed_interval), with the per-seed samples
    ('seeds') from which the claim engine computes its own interval."""
    x = np.asarray(samples, float)
    iv = seed_interval(x)
    return {
        "mean": round(iv.mean, digits),
        "lo": round(iv.lo, digits),
        "hi": round(iv.hi, digits),
        "n": iv.n,
        "seeds": [round(float(v), digits + 2) for v in x.ravel()],
    }


def per_seed(iv: dict) -> dict:
    """The per-seed samples of an :func:`interval` alone, ``{'seeds': [...]}``: what a rule
    reads, joined over the shards of a record (a mean or an interval cannot be)."""
    return {"seeds": list(iv["seeds"])}


def best_seed_mean(per_arm: dict) -> float:
    """The largest seed mean of ``{arm: [value per seed]}``: the best arm, as the gates of the
    training claims read it (their rules compute it from the same lists)."""
    return max(float(np.mean(v)) for v in per_arm.values())


def trend_text(steps, intervals: list[dict]) -> list[str]:
    """A statistic over training as text for the ledger: 'step: mean [lo, hi]' per checkpoint."""
    return [
        f"{s}: {iv['mean']:.3f} [{iv['lo']:.3f}, {iv['hi']:.3f}]"
        for s, iv in zip(steps, intervals)
    ]


def steps_to_reach(steps: list[int], acc: np.ndarray, threshold: float) -> np.ndarray:
    """First evaluation step at which each network's accuracy reaches ``threshold`` (inf if never); acc (n, K)."""
    out = np.full(acc.shape[1], np.inf)
    for k in range(acc.shape[1]):
        hit = np.nonzero(acc[:, k] >= threshold)[0]
        if hit.size:
            out[k] = steps[hit[0]]
    return out


# ------------------------------------------------------------------------------------------ Fig. 2 helpers
def trainability_grid(
    kind: str,
    specs: list[InitSpec],
    Ts: list[int],
    X: torch.Tensor,
    Y: torch.Tensor,
    N: int,
    batch: int,
    steps: int,
    lr: float,
    seed: int,
    sigma_x: float = 1.0,
    input_scale2: float = 1.0,
    n_eval: int = 512,
    n_seeds: int = 1,
    n_checkpoints: int = 1,
    progress=lambda it, **kw: it,
    device: str = "cpu",
    budget: int | None = None,
    seed_start: int = 0,
) -> tuple[list[int], np.ndarray]:
    """Train the K networks of ``specs``, ``n_seeds`` times over (each seed its own initial weights
    and minibatches), on the MNIST-then-noise task for every depth T in ``Ts``: one batched run of
    n_seeds x K networks per T. Returns the evaluation steps (``n_checkpoints`` evenly spaced, the
    last one at ``steps``) and the training accuracy there, shape (n_checkpoints, len(Ts), n_seeds,
    K), measured on ``n_eval`` training images with fresh noise. A grid that does not fit in
    ``budget`` bytes (default ``GRID_BYTES``) trains in chunks (:func:`grid_chunks`).

    The seeds are members ``seed_start .. seed_start + n_seeds - 1`` of the master ``seed``
    (:func:`rnnbook.seeds.member_seed`): member m's networks at depth T are drawn from
    :func:`stream_seed` ``(m, "grid <kind> weights", T, k)`` (k: the spec's index), its
    minibatches and noise from ``(m, "grid <kind> batches", T)``; the evaluation noise, the same
    for every network, from the master seed. A member's draws do not depend on the other
    members of its run (see :func:`member_streams`)."""
    members = member_seeds(seed, seed_start, n_seeds)
    all_specs, groups = replicate(specs, n_seeds)
    at = checkpoints(steps, n_checkpoints)
    n_in = X.shape[1] if kind == "vanilla" else N
    out = []
    for T in progress(Ts, desc=f"{kind}: depths"):
        net_seeds, _ = member_streams(members, f"grid {kind}", len(specs), T)
        acc = []
        rows = max(batch, n_eval)  # the evaluation forward holds n_eval sequences
        chunks = grid_chunks(all_specs, N, n_in, T + 1, rows, budget)
        for part in chunks:
            # every chunk sees the same minibatches and evaluation noise (fresh generators)
            _, gens = member_streams(members, f"grid {kind}", len(specs), T)
            eval_gen = generator(seed, f"master: grid {kind} evaluation", T)
            net = GridRNN(
                kind,
                all_specs[part],
                N,
                X.shape[1],
                T + 1,
                input_scale2=input_scale2,
                groups=groups[part],
                net_seeds=net_seeds[part],
            ).to(device)

            def make_batch(step: int, T=T, gens=gens):
                seqs, ys = [], []
                for g in gens:  # each member its own images and noise
                    idx = torch.randint(0, len(X), (batch,), generator=g, device="cpu")
                    seqs.append(mnist_then_noise(X[idx], T, sigma_x, g))
                    ys.append(Y[idx])
                return torch.stack(seqs, 1), torch.stack(ys)

            Xe, Ye = X[:n_eval], Y[:n_eval]
            res = train(
                net,
                make_batch,
                steps,
                lr,
                eval_fn=lambda net, T=T, g=eval_gen: losses_and_accuracy(
                    net.forward(mnist_then_noise(Xe, T, sigma_x, g)), Ye
                ),
                eval_at=set(at),
            )
            acc.append(res.accuracy)
            # one chunk in memory at a time: freed before the next one is drawn
            del net, res
        out.append(np.concatenate(acc, 1).reshape(len(at), n_seeds, len(specs)))
    return at, np.stack(out, 1)


def member_streams(
    members: list[int], stream: str, n_nets: int, *keys: int | str
) -> tuple[list[int], list[torch.Generator]]:
    """The draws of an ensemble of members (their member seeds), ``n_nets`` networks each,
    seed-major as :func:`replicate` lays them out: each network's weight seed,
    :func:`stream_seed` ``(m, stream + " weights", *keys, k)``, and each member's data
    generator, ``(m, stream + " batches", *keys)``."""
    nets = [
        stream_seed(m, f"{stream} weights", *keys, k)
        for m in members
        for k in range(n_nets)
    ]
    gens = [generator(m, f"{stream} batches", *keys) for m in members]
    return nets, gens


GRID_BYTES = 4 * 2**30  # the most memory one batched training grid may take (4 GiB)


def network_bytes(spec: InitSpec, N: int, n_in: int, steps: int, batch: int) -> int:
    """Estimated training memory of one network of a :class:`GridRNN` (float32): its weights (one
    cell per step when untied) with their gradients and Adam's two moments, and about six (batch,
    N) tensors per step of activations (``batch``: the larger of a minibatch and the evaluation
    set, whose forward pass holds every step's input terms at once)."""
    weights = (1 if spec.tied else steps) * (N * N + N * n_in + N) + N * n_in
    return 4 * (4 * weights + 6 * steps * batch * N)


def grid_chunks(
    specs: list[InitSpec],
    N: int,
    n_in: int,
    steps: int,
    batch: int,
    budget: int | None = None,
) -> list[slice]:
    """Consecutive slices of ``specs`` that train together within ``budget`` bytes (default
    ``GRID_BYTES``; one slice
    whenever the grid fits; at the paper's width 256 and depth 1000 an untied network alone takes
    about 2 GiB, and the 68 networks of a Fig. 2 grid would need about 80 GiB at once)."""
    parts, start, used = [], 0, 0
    for k, s in enumerate(specs):
        b = network_bytes(s, N, n_in, steps, batch)
        if k > start and used + b > (GRID_BYTES if budget is None else budget):
            parts.append(slice(start, k))
            start, used = k, 0
        used += b
    return parts + [slice(start, len(specs))]


def depth_boundary(acc: np.ndarray, Ts: list[int], threshold: float) -> np.ndarray:
    """The largest T of the grid up to which a network is trainable (accuracy >= threshold at that T and every
    smaller one); 0 if not even at the smallest T. acc: (len(Ts), K)."""
    ok = np.cumprod(acc >= threshold, axis=0).astype(bool)
    Ts = np.asarray(Ts)
    return np.array(
        [Ts[ok[:, k]].max() if ok[:, k].any() else 0 for k in range(acc.shape[1])]
    )


def tau_rule_agreement(
    acc: np.ndarray,
    Ts: list[int],
    tau: np.ndarray,
    threshold: float,
    multiples=np.geomspace(0.25, 64, 49),
) -> tuple[float, float]:
    """How well "trainable iff T <= k tau" describes the grid: the fraction of (T, network) cells it classifies
    correctly, for the best single multiple k (one constant for the whole grid, as the paper overlays one
    multiple of tau). Returns (agreement, k)."""
    trainable = acc >= threshold
    Tcol = np.asarray(Ts, float)[:, None]
    best = (-1.0, float("nan"))
    for k in multiples:
        agree = float(np.mean((Tcol <= k * np.asarray(tau)[None, :]) == trainable))
        if agree > best[0]:
            best = (agree, float(k))
    return best


def constant_rule_agreement(
    acc: np.ndarray, Ts: list[int], threshold: float
) -> tuple[float, float]:
    """The baseline that ignores tau: "trainable iff T <= T0" with the best T0 (including 'never' and 'always')."""
    return tau_rule_agreement(
        acc,
        Ts,
        np.ones(acc.shape[1]),
        threshold,
        multiples=np.concatenate([[0.0], np.asarray(Ts, float), [np.inf]]),
    )


def spearman(a, b) -> float:
    """Spearman rank correlation with average ranks for ties (nan if either input is constant)."""

    def ranks(x):
        x = np.asarray(x, float)
        order = np.argsort(x, kind="mergesort")
        r = np.empty(len(x))
        r[order] = np.arange(len(x), dtype=float)
        for v in np.unique(x):  # average the ranks of ties
            r[x == v] = r[x == v].mean()
        return r

    ra, rb = ranks(a), ranks(b)
    if np.ptp(ra) == 0 or np.ptp(rb) == 0:
        return float("nan")
    return float(np.corrcoef(ra, rb)[0, 1])

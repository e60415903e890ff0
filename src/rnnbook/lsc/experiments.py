"""The training runs behind Figs. 1c (bottom), 2, 3, 4 and Table I of Herranz-Celotti & Rouat (Sec. II-G, III).

Every run trains with cross-entropy and AdaBelief inside Lookahead (sync 6, slow step 0.5), evaluates on the
validation set every ``eval_every`` steps, early-stops with a patience (in evaluations), and reports the test
metric of the best validation checkpoint. Raw per-seed results are cached as JSON in the build folder
(``<build>/lsc_runs/``) under a key that hashes the run's parameters *and* the source of the LSC modules, so a
re-run reuses them only when neither changed.
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from . import pretrain as lsc
from . import tasks as lsc_data
from . import models as lsc_models
from rnnbook.cache import build_dir


# ---- caching --------------------------------------------------------------------------------------------------


def code_hash() -> str:
    """sha256 of the source of the modules a run depends on."""
    h = hashlib.sha256()
    for mod in (lsc, lsc_models, lsc_data):
        h.update(inspect.getsource(mod).encode())
    h.update(Path(__file__).read_bytes())
    return h.hexdigest()


def _fn_source(fn: Callable | None) -> str:
    """The source of the function that produces a run (defined in a chapter), so that editing it invalidates."""
    if fn is None:
        return ""
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        code = fn.__code__
        return repr((code.co_code, code.co_consts, code.co_names))


def run_key(params: dict, fn: Callable | None = None) -> str:
    blob = (
        json.dumps(params, sort_keys=True, default=str) + code_hash() + _fn_source(fn)
    )
    return hashlib.sha256(blob.encode()).hexdigest()[:20]


def cached(
    name: str,
    params: dict,
    fn: Callable[[], dict],
    code: Callable | None = None,
    folder: Path | None = None,
) -> dict:
    """``fn()`` (a JSON-able dict of raw results), or its stored result when the parameters and the code are
    unchanged: the key hashes ``params``, the LSC modules and the source of ``code`` (default: ``fn``)."""
    folder = folder or build_dir() / "lsc_runs"
    path = folder / f"{name}-{run_key(params, code or fn)}.json"
    if path.exists():
        return json.loads(path.read_text())["result"]
    result = fn()
    folder.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"name": name, "params": params, "result": result}, default=float)
    )
    return result


def is_cached(
    name: str, params: dict, code: Callable | None = None, folder: Path | None = None
) -> bool:
    folder = folder or build_dir() / "lsc_runs"
    return (folder / f"{name}-{run_key(params, code)}.json").exists()


# ---- generic training loop ------------------------------------------------------------------------------------


@dataclass
class TrainConfig:
    lr: float = 1e-3
    batch: int = 32
    max_steps: int = 500
    eval_every: int = 50
    patience: int = 10  # evaluations without improvement of the validation loss
    clip: float | None = None
    seed: int = 0


def fit(
    model: nn.Module,
    train_batch: Callable[[torch.Generator], tuple[Tensor, Tensor]],
    loss_fn: Callable[[nn.Module, Tensor, Tensor], Tensor],
    evaluate_val: Callable[[nn.Module], float],
    cfg: TrainConfig,
) -> dict:
    """Train with AdaBelief in Lookahead; early stopping on ``evaluate_val`` (a loss). Returns the history and
    leaves the model at the best validation checkpoint."""
    torch.manual_seed(cfg.seed)
    gen = torch.Generator().manual_seed(cfg.seed + 12345)
    opt = lsc.make_optimizer([p for p in model.parameters() if p.requires_grad], cfg.lr)
    best, best_state, bad, hist = math.inf, copy.deepcopy(model.state_dict()), 0, []
    step, diverged = 0, False
    for step in range(1, cfg.max_steps + 1):
        model.train()
        x, y = train_batch(gen)
        loss = loss_fn(model, x, y)
        if not torch.isfinite(loss):
            diverged = True
            break
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if cfg.clip:
            nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
        opt.step()
        if step % cfg.eval_every == 0 or step == cfg.max_steps:
            model.eval()
            with torch.no_grad():
                v = float(evaluate_val(model))
            hist.append((step, float(loss.detach()), v))
            if math.isfinite(v) and v < best:
                best, best_state, bad = v, copy.deepcopy(model.state_dict()), 0
            else:
                bad += 1
                if bad >= cfg.patience:
                    break
    model.load_state_dict(best_state)
    model.eval()
    return {"history": hist, "steps": step, "best_val": best, "diverged": diverged}


def report_summary(rep: lsc.LSCReport | None) -> dict | None:
    if rep is None:
        return None
    return {
        "converged": rep.converged,
        "steps": rep.steps,
        "mean_dev": rep.mean_dev,
        "std": rep.std,
        "mean_radius": rep.mean_radius,
        "group_means": rep.group_means,
        "seconds": rep.seconds,
        "target": rep.target,
    }


# ---- Fig. 2: deep FFNs on MNIST ---------------------------------------------------------------------------------


@dataclass
class MnistSplits:
    xtr: Tensor
    ytr: Tensor
    xva: Tensor
    yva: Tensor
    xte: Tensor
    yte: Tensor


def mnist_splits(n_train: int, n_val: int, n_test: int, seed: int = 0) -> MnistSplits:
    """Real MNIST, pixels scaled to [0, 1] and flattened; train/val from the 60k training images, test from the
    10k test images (random subsets of the given sizes)."""
    from rnnbook import datasets

    xi, yi = datasets.mnist("train")
    xt, yt = datasets.mnist("test")
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(yi))
    tr, va = perm[:n_train], perm[n_train : n_train + n_val]
    te = np.sort(rng.permutation(len(yt))[:n_test])
    f = lambda a: torch.from_numpy(a.reshape(len(a), -1).astype(np.float32) / 255.0)  # noqa: E731
    g = lambda a: torch.from_numpy(a.astype(np.int64))  # noqa: E731
    return MnistSplits(f(xi[tr]), g(yi[tr]), f(xi[va]), g(yi[va]), f(xt[te]), g(yt[te]))


def pretrain_ffn(
    model: lsc_models.FFN, data: MnistSplits, max_steps: int, batch: int, seed: int
) -> lsc.LSCReport:
    """LSC pre-training of an FFN to rho_t = 1 on the training images (Sec. II-E)."""
    g = torch.Generator().manual_seed(seed + 999)

    def batches() -> Iterator[Tensor]:
        while True:
            yield data.xtr[torch.randint(len(data.ytr), (batch,), generator=g)]

    return lsc.pretrain(
        model,
        batches(),
        lsc.LSCConfig(target=1.0, max_steps=max_steps, n_times=None),
        seed=seed,
    )


def train_ffn(model: lsc_models.FFN, data: MnistSplits, cfg: TrainConfig) -> dict:
    n = len(data.ytr)

    def batch(gen):
        idx = torch.randint(n, (cfg.batch,), generator=gen)
        return data.xtr[idx], data.ytr[idx]

    loss_fn = lambda m, x, y: F.cross_entropy(m(x), y)  # noqa: E731
    res = fit(
        model, batch, loss_fn, lambda m: F.cross_entropy(m(data.xva), data.yva), cfg
    )
    with torch.no_grad():
        logits = model(data.xte)
        res["test_acc"] = float((logits.argmax(-1) == data.yte).float().mean())
    return res


# ---- Fig. 3: six RNNs on three tasks ----------------------------------------------------------------------------


@dataclass
class SeqTask:
    """A sequence task: classification with a label per sequence (spikes), or next-word prediction."""

    name: str
    kind: str  # "classify" or "lm"
    n_in: int
    n_out: int
    train: object
    val: object
    test: object
    T: int

    def batch(self, split: str, idx) -> tuple[Tensor, Tensor]:
        data = getattr(self, split)
        if self.kind == "classify":
            return data.dense(idx), torch.from_numpy(data.labels[np.asarray(idx)])
        w = data[torch.as_tensor(idx)]
        return w[:, :-1], w[:, 1:]

    def size(self, split: str) -> int:
        data = getattr(self, split)
        return len(data.labels) if self.kind == "classify" else len(data)


def seq_loss(model: nn.Module, x: Tensor, y: Tensor, kind: str) -> Tensor:
    """Cross-entropy at every time step: the sequence's label for classification (the network predicts the
    target at every time step, Sec. II-G), the next word for language modelling."""
    logits = model(x)
    if kind == "classify":
        y = y[:, None].expand(-1, logits.shape[1])
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))


def mode_accuracy(logits: Tensor, y: Tensor) -> float:
    """Sec. II-G: predict at every step; the chosen class is the most frequent per-step prediction."""
    return float((torch.mode(logits.argmax(-1), dim=1).values == y).float().mean())


def evaluate_seq(model: nn.Module, task: SeqTask, split: str, batch: int = 256) -> dict:
    n = task.size(split)
    tot_loss, tot_n, correct = 0.0, 0, 0.0
    with torch.no_grad():
        for i in range(0, n, batch):
            idx = np.arange(i, min(n, i + batch))
            x, y = task.batch(split, idx)
            logits = model(x)
            yy = (
                y[:, None].expand(-1, logits.shape[1]) if task.kind == "classify" else y
            )
            tot_loss += float(
                F.cross_entropy(
                    logits.reshape(-1, logits.shape[-1]),
                    yy.reshape(-1),
                    reduction="sum",
                )
            )
            tot_n += yy.numel()
            if task.kind == "classify":
                correct += mode_accuracy(logits, y) * len(idx)
    loss = tot_loss / tot_n
    out = {"loss": loss}
    if task.kind == "classify":
        out["acc"] = correct / n
    else:
        out["ppl"] = math.exp(min(loss, 50.0))
    return out


def pretrain_seq(
    model: lsc.StackedRNN,
    task: SeqTask,
    target: float,
    unbalanced: bool,
    max_steps: int,
    batch: int,
    n_times: int,
    seed: int,
) -> lsc.LSCReport:
    g = torch.Generator().manual_seed(seed + 777)
    n = task.size("train")

    def batches():
        while True:
            yield task.batch("train", torch.randint(n, (batch,), generator=g).numpy())[
                0
            ]

    cfg = lsc.LSCConfig(
        target=target,
        unbalanced=unbalanced,
        T=task.T,
        max_steps=max_steps,
        n_times=n_times,
    )
    return lsc.pretrain(model, batches(), cfg, seed=seed)


def train_seq(model: nn.Module, task: SeqTask, cfg: TrainConfig) -> dict:
    n = task.size("train")

    def batch(gen):
        return task.batch(
            "train", torch.randint(n, (cfg.batch,), generator=gen).numpy()
        )

    res = fit(
        model,
        batch,
        lambda m, x, y: seq_loss(m, x, y, task.kind),
        lambda m: evaluate_seq(m, task, "val")["loss"],
        cfg,
    )
    res["val"] = evaluate_seq(model, task, "val")
    res["test"] = evaluate_seq(model, task, "test")
    return res


def score(res: dict, task_kind: str) -> float:
    """The figure of merit, higher is better: test mode accuracy, or minus the test perplexity."""
    return res["test"]["acc"] if task_kind == "classify" else -res["test"]["ppl"]


# ---- Fig. 1c (bottom): the gradient through time of a deep GRU ----------------------------------------------------


def gradient_through_time(
    model: lsc.StackedRNN, x: Tensor, layer: int = 1, n_probe: int = 8, seed: int = 0
) -> np.ndarray:
    """G[Δt] = E ||v^T dh_{T,L} / dh_{T-Δt, layer}|| over random unit probes v (Frobenius-norm estimate of the
    Jacobian / sqrt(n)), averaged over the batch: the gradient that reaches the state of ``layer`` Δt steps back."""
    model.eval()
    g = torch.Generator().manual_seed(seed)
    u_seq = model.encode(x)
    B, T = u_seq.shape[:2]
    hs = [c.initial_state(B) for c in model.cells]
    probes = []
    for t in range(T):
        u = u_seq[:, t]
        for l, cell in enumerate(model.cells):
            hs[l] = cell.step(hs[l], u)
            if l == layer - 1:
                p = torch.zeros_like(hs[l], requires_grad=True)
                hs[l] = hs[l] + p
                probes.append(p)
            u = cell.out(hs[l], u)
    top = hs[-1]
    acc = torch.zeros(T)
    for _ in range(n_probe):
        v = torch.randn(top.shape[1], generator=g)
        v = v / v.norm()
        grads = torch.autograd.grad((top * v).sum(), probes, retain_graph=True)
        acc += torch.stack([gr.norm(dim=1).mean() for gr in grads]).detach()
    return (acc / n_probe).flip(0).numpy()  # index = Δt = T - 1 - t


# ---- the three tasks of Fig. 3 -------------------------------------------------------------------------------

TASKS = ("sl-mnist", "shd-standin", "ptb-standin")


def build_task(
    name: str,
    n_train: int,
    n_val: int,
    n_test: int,
    T: int,
    seed: int = 0,
    side: int = 28,
    n_channels: int = 64,
    vocab: int = 10_000,
    repeat: int = 1,
    rates: tuple[int, ...] = (130, 160, 190, 220),
    pitches: tuple[int, ...] = (35, 50, 65),
) -> SeqTask:
    """One of the three tasks of Fig. 3 at the given scale: sl-MNIST (``side`` x ``side`` channels, T bins over
    50 ms), the spoken-digits stand-in for SHD (``n_channels`` channels, T bins over 1 s), or the word-level
    stand-in for PTB (windows of T words, ``vocab`` words)."""
    if name == "sl-mnist":
        sp = {
            s: lsc_data.sl_mnist(s, n=n, side=side, n_steps=T, repeat=repeat, seed=seed)
            for s, n in (("train", n_train), ("val", n_val), ("test", n_test))
        }
        return SeqTask(
            name,
            "classify",
            side * side,
            10,
            sp["train"],
            sp["val"],
            sp["test"],
            T * repeat,
        )
    if name == "shd-standin":
        sp = {}
        for s, n in (("train", n_train), ("val", n_val), ("test", n_test)):
            d = lsc_data.spoken_digits(
                s,
                n_channels=n_channels,
                n_steps=T,
                bin_ms=1000.0 / T,
                repeat=repeat,
                rates=tuple(rates),
                pitches=tuple(pitches),
            )
            if n < len(d):
                d = d.subset(
                    np.sort(
                        np.random.default_rng(seed).choice(len(d), n, replace=False)
                    )
                )
            sp[s] = d
        return SeqTask(
            name,
            "classify",
            n_channels,
            20,
            sp["train"],
            sp["val"],
            sp["test"],
            T * repeat,
        )
    if name == "ptb-standin":
        c = lsc_data.word_corpus(vocab)
        w = {
            s: lsc_data.lm_windows(getattr(c, part), T, n=n, seed=seed)
            for s, part, n in (
                ("train", "train", n_train),
                ("val", "valid", n_val),
                ("test", "test", n_test),
            )
        }
        return SeqTask(
            name, "lm", vocab, c.vocab_size, w["train"], w["val"], w["test"], T
        )
    raise ValueError(f"task = {name!r}: must be one of {TASKS}")

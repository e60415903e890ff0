"""The training runs behind Figs. 2, 3, 4 and Table I of Herranz-Celotti & Rouat (Sec. II-G, III).

Every run trains with cross-entropy and AdaBelief inside Lookahead (sync 6, slow step 0.5),
evaluates on the validation set every ``eval_every`` steps, early-stops with a patience (in
evaluations), and reports the test metric of the best validation checkpoint. Raw per-seed results
are cached as JSON in the build folder (``<build>/lsc_runs/``) under a key that hashes the run's
parameters *and* the source of the modules that make a run (``RUN_MODULES``, and the grid's own
module, passed as ``code``), so a re-run reuses them only when neither changed. The grids of
runs of each figure live in their own modules: :mod:`~rnnbook.lsc.ffn_mnist` (Fig. 2),
:mod:`~rnnbook.lsc.deep_rnns` (Fig. 3), :mod:`~rnnbook.lsc.lru_ptb` (Table I, Fig. 4).
"""

from __future__ import annotations

import copy
import hashlib
import inspect
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import Tensor, nn

from rnnbook.cache import build_dir, write_atomic

from . import pretrain, tasks

# ---- caching --------------------------------------------------------------------------------------------------

RUN_MODULES = ("pretrain", "models", "tasks", "experiments")


def code_hash() -> str:
    """sha256 of the source of the modules a run depends on (``RUN_MODULES``)."""
    h = hashlib.sha256()
    for name in RUN_MODULES:
        h.update((Path(__file__).parent / f"{name}.py").read_bytes())
    return h.hexdigest()


def use_one_thread(seed: int | None = None) -> None:
    """The models are small: one torch thread is the fastest (and leaves the other core free).
    With ``seed``, also seed torch's global generator."""
    torch.set_num_threads(1)
    if seed is not None:
        torch.manual_seed(seed)


def _fn_source(fn: Callable | None) -> str:
    """The source of the function that produces a run, so that editing it invalidates."""
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
    """``fn()`` (a JSON-able dict of raw results), or its stored result when the parameters and the
    code are unchanged: the key hashes ``params``, the run modules and the source of ``code``
    (default: ``fn``)."""
    folder = folder or build_dir() / "lsc_runs"
    path = folder / f"{name}-{run_key(params, code or fn)}.json"
    if path.exists():
        try:
            return json.loads(path.read_text())["result"]
        except (ValueError, KeyError, TypeError):  # a damaged file: run again
            print(f"damaged stored run {path.name}: running it again")
    result = fn()
    write_atomic(
        path,
        json.dumps({"name": name, "params": params, "result": result}, default=float),
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
    device: str = "cpu",
) -> dict:
    """Train with AdaBelief in Lookahead; early stopping on ``evaluate_val`` (a loss). Returns the history and
    leaves the model at the best validation checkpoint. The model trains on ``device``; its
    batches come from ``train_batch`` called with a CPU generator (the same draws on every
    device) and are moved there."""
    torch.manual_seed(cfg.seed)
    gen = torch.Generator(device="cpu").manual_seed(cfg.seed + 12345)
    model.to(device)
    opt = pretrain.make_optimizer(
        [p for p in model.parameters() if p.requires_grad], cfg.lr
    )
    best, best_state, bad, hist = math.inf, copy.deepcopy(model.state_dict()), 0, []
    step, diverged = 0, False
    for step in range(1, cfg.max_steps + 1):
        model.train()
        x, y = (t.to(device) for t in train_batch(gen))
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


def report_summary(rep: pretrain.LSCReport | None) -> dict | None:
    """The JSON-able part of a pre-training report (what a cached run keeps of it)."""
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


# ---- sequence tasks (Figs. 3, 4, Table I) ----------------------------------------------------------------------


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


def evaluate_seq(
    model: nn.Module,
    task: tasks.SeqTask,
    split: str,
    batch: int = 256,
    device: str = "cpu",
) -> dict:
    """Mean loss and mode accuracy (classification) or perplexity (words) of ``model`` on a
    split, in batches moved to ``device``."""
    n = task.size(split)
    tot_loss, tot_n, correct = 0.0, 0, 0.0
    with torch.no_grad():
        for i in range(0, n, batch):
            idx = np.arange(i, min(n, i + batch))
            x, y = (t.to(device) for t in task.batch(split, idx))
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
    model: pretrain.StackedRNN,
    task: tasks.SeqTask,
    target: float,
    unbalanced: bool,
    max_steps: int,
    batch: int,
    n_times: int,
    seed: int,
    device: str = "cpu",
) -> pretrain.LSCReport:
    """LSC pre-training of a sequence model on the task's training inputs (Sec. II-D), on
    ``device`` (the model is moved there; the batches are drawn on the CPU generator)."""
    g = torch.Generator(device="cpu").manual_seed(seed + 777)
    n = task.size("train")
    model.to(device)

    def batches():
        while True:
            idx = torch.randint(n, (batch,), generator=g, device="cpu").numpy()
            yield task.batch("train", idx)[0].to(device)

    cfg = pretrain.LSCConfig(
        target=target,
        unbalanced=unbalanced,
        T=task.T,
        max_steps=max_steps,
        n_times=n_times,
        shuffle="all",  # the paper's: every learnable tensor
    )
    return pretrain.lsc_pretrain_(model, batches(), config=cfg, seed=seed)


def train_seq(
    model: nn.Module, task: tasks.SeqTask, cfg: TrainConfig, device: str = "cpu"
) -> dict:
    """One network trained on a sequence task by :func:`fit` on ``device`` (its batches drawn
    on the CPU generator), with the validation and test metrics of its best checkpoint."""
    n = task.size("train")

    def batch(gen):
        idx = torch.randint(n, (cfg.batch,), generator=gen, device="cpu")
        return task.batch("train", idx.numpy())

    res = fit(
        model,
        batch,
        lambda m, x, y: seq_loss(m, x, y, task.kind),
        lambda m: evaluate_seq(m, task, "val", device=device)["loss"],
        cfg,
        device,
    )
    res["val"] = evaluate_seq(model, task, "val", device=device)
    res["test"] = evaluate_seq(model, task, "test", device=device)
    return res


def score(res: dict, task_kind: str) -> float:
    """The figure of merit, higher is better: test mode accuracy, or minus the test perplexity."""
    return res["test"]["acc"] if task_kind == "classify" else -res["test"]["ppl"]

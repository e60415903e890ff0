"""Word-level language models with a minimalRNN, GRU or LSTM cell at equal parameter count (Chen et al. 2018,
Sec. 5, Table 1), in the set-up of Zaremba et al. (2014): embedding -> one recurrent layer -> softmax over the
vocabulary, truncated back-propagation through ``bptt`` steps with the state carried across batches.

The minimalRNN cell is Eq. (5) with Phi(x) = tanh(W_x x) (footnote 2); GRU and LSTM are torch's. The hidden
sizes are chosen so that every model has (as nearly as possible) the same total number of parameters.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch
from torch import nn

from rnnbook.seeds import member_seeds

from .trainability import (
    checkpoints,
    flush_denormals,
    interval,
    per_seed,
    stream_seed,
    trend_text,
)

CELLS = ("minimalRNN", "GRU", "LSTM")


class MinimalRNNLayer(nn.Module):
    """The minimalRNN over a sequence (T, B, d): x~ = tanh(W_x x), e = W h + V x~ + b, u = sigma(e),
    h = u h + (1 - u) x~ (Eq. 5)."""

    def __init__(self, d: int, N: int) -> None:
        super().__init__()
        self.N = N
        self.Wx = nn.Linear(d, N, bias=False)
        self.W = nn.Linear(N, N, bias=False)
        self.V = nn.Linear(N, N, bias=True)  # the bias of V is b

    def forward(
        self, x: torch.Tensor, h: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        xt = torch.tanh(self.Wx(x))  # Phi(x^t) for all steps at once
        vx = self.V(xt).unbind(0)
        xs = xt.unbind(0)
        h = h[0]
        out = []
        for t in range(x.shape[0]):
            u = torch.sigmoid(self.W(h) + vx[t])
            h = u * h + (1 - u) * xs[t]
            out.append(h)
        return torch.stack(out), h.unsqueeze(0)


def cell_parameters(cell: str, d: int, N: int) -> int:
    """Parameters of the recurrent layer (torch's GRU/LSTM have two bias vectors per gate)."""
    if cell == "minimalRNN":
        return N * d + 2 * N * N + N
    gates = {"GRU": 3, "LSTM": 4}[cell]
    return gates * (N * d + N * N + 2 * N)


def total_parameters(cell: str, vocab: int, d: int, N: int) -> int:
    """Embedding (vocab x d) + recurrent layer + softmax layer (N x vocab + vocab)."""
    return vocab * d + cell_parameters(cell, d, N) + N * vocab + vocab


def matched_hidden_size(cell: str, vocab: int, d: int, target: int) -> int:
    """The hidden size N whose total parameter count is closest to ``target``."""
    best = min(
        range(1, 4 * d + 2048),
        key=lambda N: abs(total_parameters(cell, vocab, d, N) - target),
    )
    return best


class LanguageModel(nn.Module):
    def __init__(
        self, cell: str, vocab: int, d: int, N: int, dropout: float = 0.0
    ) -> None:
        super().__init__()
        if cell not in CELLS:
            raise ValueError(f"cell = {cell!r}: must be one of {CELLS}")
        self.cell, self.N = cell, N
        self.emb = nn.Embedding(vocab, d)
        self.rnn = {
            "minimalRNN": lambda: MinimalRNNLayer(d, N),
            "GRU": lambda: nn.GRU(d, N),
            "LSTM": lambda: nn.LSTM(d, N),
        }[cell]()
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(N, vocab)
        init = 1.0 / math.sqrt(N)
        for (
            name,
            p,
        ) in self.named_parameters():  # torch's RNN default, for every model alike
            if name.startswith("rnn."):
                nn.init.uniform_(p, -init, init)
        nn.init.uniform_(self.emb.weight, -0.1, 0.1)
        nn.init.uniform_(self.out.weight, -0.1, 0.1)
        nn.init.zeros_(self.out.bias)

    def init_state(self, B: int):
        z = torch.zeros(1, B, self.N, device=self.out.weight.device)
        return (z, z.clone()) if self.cell == "LSTM" else z

    def forward(self, tokens: torch.Tensor, state):
        y, state = self.rnn(self.drop(self.emb(tokens)), state)
        return self.out(self.drop(y)), state


def detach(state):
    return (
        tuple(s.detach() for s in state) if isinstance(state, tuple) else state.detach()
    )


def batchify(ids: np.ndarray, B: int) -> torch.Tensor:
    """The token stream as B parallel columns (T_total, B), as in Zaremba et al."""
    n = len(ids) // B
    return torch.from_numpy(ids[: n * B].reshape(B, n).T.copy())


@dataclass
class LMResult:
    cell: str
    hidden: int
    parameters: int
    train_curve: list[tuple[int, float]]  # (step, train perplexity over the last steps)
    valid_ppl: float
    test_ppl: float
    seconds: float
    test_curve: list[
        tuple[int, float]
    ] = ()  # (step, test perplexity) at the checkpoints


def evaluate(model: LanguageModel, data: torch.Tensor, bptt: int) -> float:
    """Perplexity exp(mean cross-entropy) over a batchified split."""
    model.eval()
    state = model.init_state(data.shape[1])
    total, count = 0.0, 0
    with torch.no_grad():
        for i in range(0, data.shape[0] - 1, bptt):
            x, y = data[i : i + bptt], data[i + 1 : i + 1 + bptt]
            x = x[: len(y)]
            logits, state = model(x, state)
            total += nn.functional.cross_entropy(
                logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="sum"
            ).item()
            count += y.numel()
    model.train()
    return math.exp(total / count)


def train_language_model(
    cell: str,
    corpus,
    d: int,
    N: int,
    steps: int,
    batch: int,
    bptt: int,
    lr: float,
    seed: int,
    clip: float = 5.0,
    eval_tokens: int | None = None,
    log_every: int = 50,
    n_checkpoints: int = 1,
    device: str = "cpu",
) -> LMResult:
    """Adam with gradient-norm clipping for ``steps`` truncated-BPTT updates; the training stream wraps
    around and starts at an offset drawn from ``seed``. Validation and test perplexity on (the first
    ``eval_tokens`` tokens of) the held-out splits; the test perplexity also at ``n_checkpoints``
    evenly spaced steps."""
    import time

    torch.manual_seed(seed)
    V = corpus.vocab_size
    with torch.device("cpu"):  # the initial weights drawn on the CPU, then moved
        model = LanguageModel(cell, V, d, N)
    model.to(device)
    train = batchify(corpus.train, batch).to(device)
    ev_b = 10
    valid = batchify(corpus.valid[:eval_tokens] if eval_tokens else corpus.valid, ev_b)
    test = batchify(corpus.test[:eval_tokens] if eval_tokens else corpus.test, ev_b)
    valid, test = valid.to(device), test.to(device)
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    state = model.init_state(batch)
    t0 = time.perf_counter()
    curve, run, n_run, test_curve = [], 0.0, 0, []
    at = set(checkpoints(steps, n_checkpoints)) - {steps}
    gen = torch.Generator(device="cpu").manual_seed(seed)
    n_pos = max(train.shape[0] - bptt - 1, 1)
    pos = int(torch.randint(0, n_pos, (1,), generator=gen, device="cpu"))
    with flush_denormals():
        for step in range(steps):
            if pos + bptt + 1 > train.shape[0]:
                pos, state = 0, model.init_state(batch)
            x, y = train[pos : pos + bptt], train[pos + 1 : pos + 1 + bptt]
            pos += bptt
            state = detach(state)
            logits, state = model(x, state)
            loss = nn.functional.cross_entropy(logits.reshape(-1, V), y.reshape(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), clip)
            opt.step()
            run, n_run = run + loss.item(), n_run + 1
            if (step + 1) % log_every == 0 or step + 1 == steps:
                curve.append((step + 1, math.exp(run / n_run)))
                run, n_run = 0.0, 0
            if step + 1 in at:
                test_curve.append((step + 1, evaluate(model, test, bptt)))
        valid_ppl, test_ppl = evaluate(model, valid, bptt), evaluate(model, test, bptt)
    n_params = sum(p.numel() for p in model.parameters())
    test_curve.append((steps, test_ppl))
    seconds = time.perf_counter() - t0
    return LMResult(cell, N, n_params, curve, valid_ppl, test_ppl, seconds, test_curve)


PAPER_PERPLEXITY = {
    "LSTM": 95.4,
    "GRU": 99.5,
    "minimalRNN": 101.4,
}  # Table 1, PTB test, 5M


def compare(
    corpus,
    hidden_lstm: int,
    steps: int,
    seed: int,
    eval_tokens: int | None = None,
    n_seeds: int = 1,
    n_checkpoints: int = 1,
    progress=lambda it, **kw: it,
    device: str = "cpu",
    seed_start: int = 0,
) -> dict[str, list[LMResult]]:
    """Table 1 in miniature: the three cells with an embedding of size ``hidden_lstm``, the LSTM's
    hidden size set and the others matched to its parameter count; each trained ``n_seeds`` times
    for ``steps`` Adam steps of 20 x 35 tokens (lr 2e-3). Seed s is member ``seed_start + s`` of
    the master ``seed`` (:func:`rnnbook.seeds.member_seed`); its three models take the seed of
    its stream "lm" (:func:`rnnbook.mean_field.trainability.stream_seed`: initial weights and
    the stream's starting point), the same in any run that holds it. Returns cell -> one
    LMResult per seed."""
    d = hidden_lstm
    target = total_parameters("LSTM", corpus.vocab_size, d, hidden_lstm)
    out = {c: [] for c in CELLS}
    members = member_seeds(seed, seed_start, n_seeds)
    jobs = [(c, s) for s in range(n_seeds) for c in CELLS]
    for cell, s in progress(jobs, desc="language models"):
        N = matched_hidden_size(cell, corpus.vocab_size, d, target)
        out[cell].append(
            train_language_model(
                cell,
                corpus,
                d,
                N,
                steps,
                batch=20,
                bptt=35,
                lr=2e-3,
                seed=stream_seed(members[s], "lm"),
                eval_tokens=eval_tokens,
                n_checkpoints=n_checkpoints,
                device=device,
            )
        )
    return out


def unigram_perplexity(corpus, eval_tokens: int | None = None) -> float:
    """Perplexity on (the first ``eval_tokens`` of) the test split of the unigram model fitted to
    the training split (add-one smoothing): the baseline a trained language model must beat."""
    V = corpus.vocab_size
    p = (np.bincount(corpus.train, minlength=V) + 1.0) / (len(corpus.train) + V)
    test = corpus.test[:eval_tokens] if eval_tokens else corpus.test
    return float(np.exp(-np.log(p[test]).mean()))


def seed_mean(runs: dict[str, list[LMResult]]) -> dict[str, LMResult]:
    """One LMResult per cell with the seed-mean perplexities (for the table)."""
    return {
        c: LMResult(
            c,
            rs[0].hidden,
            rs[0].parameters,
            rs[0].train_curve,
            float(np.mean([r.valid_ppl for r in rs])),
            float(np.mean([r.test_ppl for r in rs])),
            float(np.sum([r.seconds for r in rs])),
        )
        for c, rs in runs.items()
    }


def table(results: dict[str, LMResult]) -> str:
    head = (
        "| model | hidden | parameters | validation perplexity | test perplexity "
        "| paper (5M, PTB test) |\n|---|---|---|---|---|---|\n"
    )
    return head + "\n".join(
        f"| {c} | {r.hidden} | {r.parameters:,} | {r.valid_ppl:.1f} | {r.test_ppl:.1f} "
        f"| {PAPER_PERPLEXITY[c]} |"
        for c, r in results.items()
    )


def perplexity_values(results: dict[str, LMResult]) -> dict:
    """The measured values of the Table 1 claim: ranking, test perplexities and the relative gaps
    of the minimalRNN to the GRU and to the better of GRU and LSTM."""
    ppl = {c: r.test_ppl for c, r in results.items()}
    return {
        "ranking": sorted(ppl, key=ppl.get),
        "test_ppl": {c: round(v, 1) for c, v in ppl.items()},
        "gap_gru": ppl["minimalRNN"] / ppl["GRU"] - 1,
        "gap_best": ppl["minimalRNN"] / min(ppl["GRU"], ppl["LSTM"]) - 1,
        "parameters": {c: r.parameters for c, r in results.items()},
    }


def seed_values(runs: dict[str, list[LMResult]], unigram_ppl: float) -> dict:
    """The measured values of the Table 1 claim over seeds: seed-mean test perplexities and
    their ranking (reported, not decided); per seed the minimalRNN's perplexity relative to the
    GRU's and to the LSTM's ('min_gru_rel', 'min_lstm_rel' as ``{'seeds': [...]}``: the
    claim's 'comparable'; their 95% intervals for the text under '..._iv'), its gap to the
    better of the two and the differences LSTM - GRU and GRU - minimalRNN as 95% intervals; the
    gap at every checkpoint ('trend_gap'); and the gate's numbers: the reference models' (GRU,
    LSTM) test perplexities per seed ('ref_ppl': the gate reads their seed means) and the
    unigram baseline. Every value a rule reads is a list over seeds (or the same in every run:
    the unigram baseline), so that the seeds of a record's shards join. A minimalRNN that did
    not train has a large perplexity, so it lies outside any band of 'comparable' (a loss for
    it inside the statistic)."""
    ppl = {c: np.array([r.test_ppl for r in rs]) for c, rs in runs.items()}
    curve = {
        c: np.array([[p for _, p in r.test_curve] for r in rs])
        for c, rs in runs.items()
    }
    gaps = (
        curve["minimalRNN"] / np.minimum(curve["GRU"], curve["LSTM"]) - 1
    )  # (seeds, ck)
    mean = {c: round(float(v.mean()), 1) for c, v in ppl.items()}
    rel = {
        "min_gru_rel": interval(ppl["minimalRNN"] / ppl["GRU"] - 1),
        "min_lstm_rel": interval(ppl["minimalRNN"] / ppl["LSTM"] - 1),
    }
    return {
        "n_seeds": len(ppl["LSTM"]),
        "test_ppl": mean,
        "ranking": sorted(mean, key=mean.get),
        "gap": interval(ppl["minimalRNN"] / np.minimum(ppl["GRU"], ppl["LSTM"]) - 1),
        "lstm_gru": interval(ppl["LSTM"] - ppl["GRU"], 2),
        "gru_min": interval(ppl["GRU"] - ppl["minimalRNN"], 2),
        "lstm_gru_rel": interval(ppl["LSTM"] / ppl["GRU"] - 1),
        "gru_min_rel": interval(ppl["GRU"] / ppl["minimalRNN"] - 1),
        **{k: per_seed(iv) for k, iv in rel.items()},
        **{f"{k}_iv": iv for k, iv in rel.items()},
        "ref_ppl": {c: [round(float(x), 4) for x in ppl[c]] for c in ("GRU", "LSTM")},
        "unigram_ppl": round(unigram_ppl, 2),
        "parameters": {c: rs[0].parameters for c, rs in runs.items()},
        "trend_steps": [s for s, _ in runs["LSTM"][0].test_curve],
        "trend_gap": [interval(g) for g in gaps.T],
    }


def ledger_values(v: dict) -> dict:
    """What the Table 1 claim passes to the ledger (the trend as text)."""
    out = {k: x for k, x in v.items() if not k.startswith("trend") and k != "n_seeds"}
    out["trend"] = trend_text(v["trend_steps"], v["trend_gap"])
    return out


def trend_panels(v: dict) -> list[dict]:
    """The Table 1 gap over training, for :func:`rnnbook.mean_field.figures.effect_trends`."""
    return [
        {
            "title": "Table 1: minimalRNN / best(GRU, LSTM) - 1",
            "ylabel": "relative test-perplexity gap",
            "band": None,
            "curves": {"minimalRNN": (v["trend_steps"], v["trend_gap"])},
        }
    ]

"""Critical initialization trains faster (Chen et al. 2018, Sec. 4.2, Fig. 3).

Sequential MNIST (the 784 pixels in T steps of 784/T). Four initializations per model, all with
sigma_b = 0 and tied weights: critical with orthogonal and with Gaussian W, and the common
sigma_w^2 = sigma_v^2 = 1 with orthogonal and Gaussian W. The vanilla critical point is
sigma_w^2 = 1/E[phi'^2], sigma_v^2 = (q* - sigma_w^2 E phi^2)/R at q* = 0.5, R = 1; the minimalRNN's is
Algorithm 1 at q* = 4, mu_b = 4 with R measured on the data through the initial input map
Phi(x) = tanh(W_x x). Critical networks start from a fixed random h^0 with the fixed point's second
moment. The speed score is the mean test accuracy over the evaluations (the area under the learning
curve).

Seed s of a run is member s of the chapter's master seed (:func:`rnnbook.seeds.member_seed`): its
input map, its eight networks' weights and its minibatches are drawn from streams of its member
seed alone (:func:`rnnbook.mean_field.trainability.stream_seed`), the same whether it trains
alone (a shard of a record) or among other seeds.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rnnbook.seeds import member_seeds

from .theory import HP, algorithm1, gauss1, minimal_chi1, vanilla_chi1, vanilla_critical
from .trainability import (
    GridRNN,
    InitSpec,
    checkpoints,
    generator,
    interval,
    losses_and_accuracy,
    per_seed,
    replicate,
    sequential_mnist,
    steps_to_reach,
    stream_seed,
    TrainResult,
    train,
    trend_text,
)

LABELS = (
    "critical, orthogonal",
    "critical, Gaussian",
    "off-critical, orthogonal",
    "off-critical, Gaussian",
)


@dataclass(frozen=True)
class Setup:
    """The four initializations of each model and the quantities they were derived from."""

    T: int  # steps per sequence
    Wx: torch.Tensor  # the minimalRNN's input map W_x
    R: float  # second moment of x~ = tanh(W_x x) on the data
    vanilla: tuple[float, float]  # critical (sigma_w^2, sigma_v^2) of the vanilla RNN
    minimal: object  # Algorithm 1 at q* = 4, mu_b = 4, R
    specs: dict  # 'vanilla' | 'minimal' -> four InitSpecs in the order of LABELS
    chi1_off: dict  # chi_1 of the off-critical initialization of each model
    member: int = 0  # the member seed every draw of this seed comes from

    @property
    def M(self) -> int:
        return 784 // self.T

    def describe(self) -> str:
        a, (sw2, sv2) = self.minimal, self.vanilla
        return (
            f"Vanilla critical: $\\sigma_w^2={sw2:.3f}$, $\\sigma_v^2={sv2:.4f}$; "
            f"minimalRNN: $R={self.R:.3f}$, Algorithm 1 gives $\\sigma_w^2={a.sigma_w2:.2f}$, "
            f"$\\sigma_v^2={a.sigma_v2:.3f}$, $Q^*={a.Qstar:.3f}$. Off-critical $\\chi_1$: "
            f"vanilla {self.chi1_off['vanilla']:.3f}, "
            f"minimalRNN {self.chi1_off['minimal']:.3f}."
        )


def initializations(
    X: torch.Tensor, T: int, width: int, input_scale2: float, seed: int
) -> Setup:
    """Draw the minimalRNN's input map (stream "fig3 input map" of the member seed ``seed``),
    measure R on the first 2000 images ``X`` and build the four initializations of each model;
    :func:`run` draws the member's weights and minibatches from the same member seed."""
    M = 784 // T
    sw2_v, sv2_v = vanilla_critical(0.5, 1.0)
    g_in = generator(seed, "fig3 input map")
    Wx = torch.randn(width, M, generator=g_in, device="cpu") * np.sqrt(input_scale2 / M)
    R = float(torch.tanh(sequential_mnist(X[:2000], T) @ Wx.T).pow(2).mean())
    alg = algorithm1(4.0, 4.0, R)
    sw_m, sv_m = float(np.sqrt(alg.sigma_w2)), float(np.sqrt(alg.sigma_v2))
    h0_v = float(gauss1(lambda u: np.tanh(u) ** 2, 0.0, 0.5))  # E h^2 at q* = 0.5
    h0_m = float(alg.Qstar)
    specs = {
        "vanilla": [
            InitSpec(np.sqrt(sw2_v), np.sqrt(sv2_v), 0.0, 0.0, True, orth, h0_v)
            for orth in (True, False)
        ],
        "minimal": [
            InitSpec(sw_m, sv_m, 4.0, 0.0, True, orth, h0_m) for orth in (True, False)
        ],
    }
    for kind in specs:  # off-critical: sigma_w^2 = sigma_v^2 = 1, mu_b = 0, h^0 = 0
        specs[kind] += [InitSpec(1.0, 1.0, 0.0, 0.0, True, o) for o in (True, False)]
    chi1_off = {
        "vanilla": float(vanilla_chi1(HP(1.0, 1.0, 0.0, 1.0))),
        "minimal": float(minimal_chi1(HP(1.0, 1.0, 0.0, R))),
    }
    return Setup(T, Wx, R, (sw2_v, sv2_v), alg, specs, chi1_off, seed)


def seed_setups(
    X: torch.Tensor,
    T: int,
    width: int,
    input_scale2: float,
    seed: int,
    n_seeds: int,
    seed_start: int = 0,
) -> list[Setup]:
    """One :class:`Setup` per seed, for members ``seed_start .. seed_start + n_seeds - 1`` of the
    master ``seed`` (:func:`rnnbook.seeds.member_seeds`): each seed draws its own input map W_x
    of the minimalRNN, so its R and Algorithm 1's critical point are its own."""
    return [
        initializations(X, T, width, input_scale2, m)
        for m in member_seeds(seed, seed_start, n_seeds)
    ]


def run(
    setups: list[Setup],
    train_data: tuple[torch.Tensor, torch.Tensor],
    test_data: tuple[torch.Tensor, torch.Tensor],
    width: int,
    steps: int,
    lr: float,
    batch: int,
    input_scale2: float,
    n_evals: int = 8,
    device: str = "cpu",
) -> dict:
    """Train the four networks of each model for every seed (one Setup each) as one batched
    ensemble of 4 x seeds networks, evaluating the test accuracy ``n_evals`` times. Each seed's
    networks are drawn from its member seed (stream "fig3 <model> weights", one seed per
    network) and its minibatches from its stream "fig3 batches" (the same for both models), so
    a seed trains the same networks on the same data in any run that holds it. Returns model ->
    TrainResult with accuracy (n_evals, seeds x 4), seed-major."""
    (Xtr, Ytr), (Xte, Yte) = train_data, test_data
    T, G, curves = setups[0].T, len(setups), {}
    members = [st.member for st in setups]
    for kind in ("vanilla", "minimal"):
        _, groups = replicate(setups[0].specs[kind], G)
        specs = [sp for st in setups for sp in st.specs[kind]]
        nets = [
            stream_seed(m, f"fig3 {kind} weights", k)
            for m in members
            for k in range(len(LABELS))
        ]
        net = GridRNN(
            kind,
            specs,
            width,
            setups[0].M,
            T,
            input_scale2=input_scale2,
            groups=groups,
            net_seeds=nets,
        )
        if kind == "minimal":  # the same input map as the one R was measured with
            for k, g in enumerate(groups):
                net.params["Wx"].data[k] = setups[g].Wx
        net.to(device)
        gens = [generator(m, "fig3 batches") for m in members]

        def make_batch(step, gens=gens):
            idx = torch.stack(
                [
                    torch.randint(0, len(Xtr), (batch,), generator=g, device="cpu")
                    for g in gens
                ]
            )
            return sequential_mnist(Xtr[idx].reshape(G * batch, -1), T).reshape(
                T, G, batch, -1
            ), Ytr[idx]

        curves[kind] = train(
            net,
            make_batch,
            steps,
            lr,
            eval_fn=lambda net: losses_and_accuracy(
                net.forward(sequential_mnist(Xte, T)), Yte
            ),
            eval_at=set(checkpoints(steps, n_evals)),
        )
    return curves


def by_seed(curves: dict) -> dict:
    """model -> accuracy (n_evals, seeds, 4 initializations in the order of LABELS)."""
    return {
        k: r.accuracy.reshape(len(r.steps), -1, len(LABELS)) for k, r in curves.items()
    }


def seed_values(curves: dict) -> dict:
    """The measured values of the two Fig. 3 claims over seeds. Per seed and model the area under
    the learning curve so far (mean test accuracy over the evaluations up to a step); the effects
    critical minus off-critical (mean of the two of each, 'd_crit') and critical orthogonal minus
    Gaussian ('d_orth') per seed (``{'seeds': [...]}``), with their 95% intervals over seeds at
    the end ('d_crit_iv', 'd_orth_iv') and at every evaluation ('trend_*'); critical minus
    off-critical for each W distribution per seed ('d_pair'); the seed-mean areas ('auc') and
    final accuracies ('arm_acc', in the order of LABELS); and the gate's values ('best_acc':
    per model, per initialization, the final test accuracy per seed; the gate reads the best
    one's seed mean, :func:`rnnbook.mean_field.trainability.best_seed_mean`). Every value a
    rule reads is a list over seeds, so that the seeds of a record's shards join."""
    acc = by_seed(curves)
    out = {k: {} for k in ("d_crit", "d_orth", "d_crit_iv", "d_orth_iv", "d_pair")}
    out |= {k: {} for k in ("auc", "best_acc", "arm_acc", "trend_crit", "trend_orth")}
    for kind, a in acc.items():
        n = np.arange(1, a.shape[0] + 1)[:, None, None]
        auc = np.cumsum(a, 0) / n  # (n_evals, seeds, 4)
        crit = auc[..., :2].mean(-1) - auc[..., 2:].mean(-1)
        orth = auc[..., 0] - auc[..., 1]
        out["trend_crit"][kind] = [interval(c) for c in crit]
        out["trend_orth"][kind] = [interval(c) for c in orth]
        # critical minus off-critical with the same W distribution (orthogonal, Gaussian)
        out["d_pair"][kind] = {
            "orthogonal": per_seed(interval(auc[-1, :, 0] - auc[-1, :, 2])),
            "gaussian": per_seed(interval(auc[-1, :, 1] - auc[-1, :, 3])),
        }
        for key in ("crit", "orth"):
            out[f"d_{key}_iv"][kind] = out[f"trend_{key}"][kind][-1]
            out[f"d_{key}"][kind] = per_seed(out[f"d_{key}_iv"][kind])
        out["auc"][kind] = np.round(auc[-1].mean(0), 3).tolist()
        out["best_acc"][kind] = {
            lab: [round(float(x), 6) for x in a[-1, :, j]]
            for j, lab in enumerate(LABELS)
        }
        out["arm_acc"][kind] = np.round(a[-1].mean(0), 3).tolist()
    out["n_seeds"] = acc["vanilla"].shape[1]
    out["trend_steps"] = next(iter(curves.values())).steps
    return out


def ledger_values(v: dict, claim: str) -> dict:
    """What claim 'critical' or 'orthogonal' passes to the ledger (trends as text): its
    effect per seed ('d') and as an interval for the text ('d_iv'), 'd_pair', the gate's
    'best_acc' and the seed means shown beside them."""
    key = {"critical": "crit", "orthogonal": "orth"}[claim]
    return {
        "d": v[f"d_{key}"],
        "d_iv": v[f"d_{key}_iv"],
        "trend": {
            k: trend_text(v["trend_steps"], t) for k, t in v[f"trend_{key}"].items()
        },
        "auc": v["auc"],
        "best_acc": v["best_acc"],
        "arm_acc": v["arm_acc"],
        "d_pair": v["d_pair"],
    }


def speed(curves: dict, threshold: float) -> dict:
    """Per model, in the order of LABELS: the mean test accuracy over the evaluations (3 decimals),
    the final accuracy and the first evaluated step reaching ``threshold`` (None if never)."""
    out = {"auc": {}, "final": {}, "reach": {}, "threshold": threshold}
    for kind, r in curves.items():
        reach = steps_to_reach(r.steps, r.accuracy, threshold)
        out["auc"][kind] = np.round(r.accuracy.mean(0), 3).tolist()
        out["final"][kind] = np.round(r.accuracy[-1], 3).tolist()
        out["reach"][kind] = [None if not np.isfinite(x) else int(x) for x in reach]
    return out


def speed_table(s: dict) -> str:
    head = (
        "| model | initialization | mean test accuracy over training | final | steps to "
        f"{s['threshold']} |\n|---|---|---|---|---|\n"
    )
    return head + "\n".join(
        f"| {kind} | {lab} | {s['auc'][kind][k]:.3f} | {s['final'][kind][k]:.3f} | "
        f"{s['reach'][kind][k] or 'not reached'} |"
        for kind in s["auc"]
        for k, lab in enumerate(LABELS)
    )


def mean_curves(curves: dict) -> dict:
    """The seed-mean learning curve of each initialization: model -> TrainResult (n_evals, 4)."""
    return {
        k: TrainResult(r.steps, a.mean(1), a.mean(1))
        for (k, a), r in zip(by_seed(curves).items(), curves.values())
    }


def trend_panels(v: dict) -> list[dict]:
    """The two Fig. 3 effects over training, for :func:`rnnbook.mean_field.figures.effect_trends`."""
    st = v["trend_steps"]
    return [
        {
            "title": title,
            "ylabel": "difference in mean test accuracy so far",
            "band": 0.03,
            "curves": {k: (st, t) for k, t in v[key].items()},
        }
        for title, key in (
            ("Fig. 3: critical - off-critical", "trend_crit"),
            ("Fig. 3: orthogonal - Gaussian (critical)", "trend_orth"),
        )
    ]


def vanilla_jacobian_check(
    setup: Setup, X: torch.Tensor, width: int, n: int = 64
) -> dict:
    """Whether the critical vanilla networks of ``setup`` sit at their critical point as drawn:
    for the critical orthogonal and Gaussian initializations (the very weights :func:`run`
    draws for this seed), on the first ``n`` sequences of ``X``, the pre-activation second
    moment q^t over the second half of the sequence (the critical point prescribes q* = 0.5)
    and the log10 singular values of the end-to-start Jacobian dh^T/dh^0 (largest and median,
    mean over sequences), in float64."""
    T, out = setup.T, {}
    x = sequential_mnist(X[:n], T).double()
    for k, (name, spec) in enumerate(
        zip(("orthogonal", "Gaussian"), setup.specs["vanilla"][:2])
    ):
        seeds = [stream_seed(setup.member, "fig3 vanilla weights", k)]
        net = GridRNN("vanilla", [spec], width, setup.M, T, net_seeds=seeds)
        W, V = (net.params[p][0].detach().double() for p in ("W_tied", "V_tied"))
        h = net.h0[0].double().expand(n, width)
        J = torch.eye(width, dtype=torch.float64).expand(n, width, width)
        qs = []
        for t in range(T):
            e = h @ W.T + x[t] @ V.T
            qs.append(float(e.pow(2).mean()))
            h = torch.tanh(e)
            J = ((1 - h**2)[:, :, None] * W) @ J
        ls = torch.log10(torch.linalg.svdvals(J))
        out[name] = {
            "q": round(float(np.mean(qs[T // 2 :])), 3),
            "top": round(float(ls[:, 0].mean()), 1),
            "median": round(float(ls.median()), 1),
        }
    return out

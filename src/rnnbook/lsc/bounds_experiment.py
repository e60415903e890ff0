"""The parameter update of deep linear RNNs against the bounds of Theorems 1-3
(Herranz-Celotti & Rouat, Sec. II-B, App. A, Eqs. 5-23), and the non-normal counterexample to
step (ii) of Eq. (20).

:func:`update_experiment` draws, for every graph, depth and target case, ``S`` networks per
ensemble (orthogonal, Gaussian rescaled to the target radius or norm, and the PascalRNN), runs
the Grid Derivative Pascal Triangle of :mod:`~rnnbook.lsc.bounds` once per network and records
the update of the deepest layer's biases, sigma = sqrt(n Var Delta b_1), for every T, with the
norm path sum (rigorous), the radius path sum and the paper's closed form. Its methods return
the numbers behind the chapter's claims. :func:`nonnormal_experiment` measures the derivative
sums of the pair A = [[rho, c], [0, rho]], B = [[rho, 0], [c, rho]] whose radii are exact but
whose products explode with depth.

Both take a ``device``: the networks and unit vectors are drawn on the CPU generator ``gen`` (the same
numbers on every device) and the Grid Derivative Pascal Triangle runs on the device.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch

from rnnbook import plotting

from . import bounds as lb

ENSEMBLES = ("orthogonal", "gaussian", "gaussian-norm")
RADIUS_EXACT = ("orthogonal", "gaussian", "pascal")  # radius equal to the target
NORM_EXACT = (
    "orthogonal",
    "gaussian-norm",
    "pascal",
)  # spectral norm equal to the target
TOL = 1e-9  # relative tolerance of every bound comparison


def target_cases(rho_split: float) -> dict[str, tuple[float, float]]:
    """The targets (rho_time, rho_depth): 1 and 1, 0.5 and 0.5, and a split with mean 0.5."""
    return {
        "rho = 1": (1.0, 1.0),
        "rho = 0.5": (0.5, 0.5),
        f"split {rho_split:g} / {1 - rho_split:g}": (rho_split, 1 - rho_split),
    }


@dataclass
class UpdateExperiment:
    """One row per (graph, depth, case, ensemble, T): the measured ``sigma``, the norm path sum
    ``norm_bound``, the ``radius_sum`` and the ``paper``'s bound; ``max_J`` the largest
    ||J^{t,L}_{t',l}||_2 of a few tracked networks at the largest depth (Theorem 3), and
    ``check_err`` the largest gap between the recursion and autograd on the network."""

    rows: list[dict]
    max_J: dict
    check_err: float
    cases: dict[str, tuple[float, float]]
    Ts: list[int]
    Ls: list[int]
    conventions: list[str]
    S: int
    width: int

    def sel(self, **kw) -> list[dict]:
        return [r for r in self.rows if all(r[k] == v for k, v in kw.items())]

    @property
    def half_cases(self) -> list[str]:
        return [c for c in self.cases if c != "rho = 1"]

    def radius_violations(self, case: str) -> int:
        """Rows of the radius-exact ensembles where sigma exceeds the paper's bound."""
        return sum(
            r["sigma"] > r["paper"] * (1 + TOL)
            for r in self.sel(case=case)
            if r["ens"] in RADIUS_EXACT
        )

    def theorem2(self) -> dict:
        """sigma against the norm path sum; the path sum at unit norms against the counts."""
        exact = [r for r in self.sel(case="rho = 1") if r["ens"] in NORM_EXACT]
        q = np.sqrt(self.S / (self.S - 1))
        dev = [
            abs(r["norm_bound"] - q * r["radius_sum"]) / max(r["radius_sum"], 1e-300)
            for r in exact
            if r["radius_sum"] > 0
        ]
        stacked = [
            abs(r["radius_sum"] / r["paper"] - 1)
            for r in self.sel(case="rho = 1", ens="orthogonal", conv="stacked")
        ]
        return dict(
            violations=sum(r["sigma"] > r["norm_bound"] * (1 + TOL) for r in self.rows),
            configurations=len(self.rows),
            Ts=self.Ts,
            Ls=self.Ls,
            S=self.S,
            width=self.width,
            norm_vs_count=max(dev),
            stacked_dev=f"{max(stacked) if stacked else float('nan'):.1e}",
        )

    def theorem3(self) -> dict:
        """sup ||J|| and the violations of the (T+1)(T+2)/(2T) bound, norms summing to 1."""
        half = self.half_cases
        rt, rd = self.cases[half[-1]]
        return dict(
            max_J=max(
                v for k, v in self.max_J.items() if k[1] in half and k[2] in NORM_EXACT
            ),
            violations=sum(
                r["sigma"] > r["paper"] * (1 + TOL)
                for r in self.rows
                if r["case"] in half and r["ens"] in NORM_EXACT
            ),
            L=max(self.Ls),
            T=max(self.Ts),
            rho_time=rt,
            rho_depth=rd,
        )

    def theorem1(self) -> dict:
        """rho = 1: violations of the binomial bound, the log-log slopes of sigma in T over the
        last three lengths, and how far the Gaussian matrices' norms are above their radii."""
        slopes = []
        for conv in self.conventions:
            for L in self.Ls:
                for ens in RADIUS_EXACT:
                    s_ = [
                        r["sigma"]
                        for r in self.sel(case="rho = 1", conv=conv, L=L, ens=ens)
                    ]
                    s_ = np.log(np.maximum(s_[-3:], 1e-300))
                    slopes.append(float(np.polyfit(np.log(self.Ts[-3:]), s_, 1)[0]))
        ratio = [
            r["norm_bound"] / r["radius_sum"]
            for r in self.sel(case="rho = 1", ens="gaussian")
            if r["radius_sum"] > 0
        ]
        return dict(
            violations=self.radius_violations("rho = 1"),
            configurations=sum(
                r["ens"] in RADIUS_EXACT for r in self.sel(case="rho = 1")
            ),
            Ts=self.Ts,
            Ls=self.Ls,
            slope_min=min(slopes),
            slope_max=max(slopes),
            gauss_norm_ratio=float(np.median(ratio)),
        )

    def radius_summary(self) -> str:
        """Markdown: Theorem 1's radius bounds in every configuration."""
        t1 = self.theorem1()
        lines = [
            f"* $\\rho=1$: {t1['violations']} violations of "
            f"$\\sigma\\le\\frac1T\\binom{{T+\\Delta l+2}}{{T}}$ in {t1['configurations']} "
            f"configurations; log-log slopes of $\\sigma$ in $T$ over the last three lengths: "
            f"{t1['slope_min']:.2f} to {t1['slope_max']:.2f} (polynomial growth)."
        ]
        for c in self.half_cases:
            lines.append(
                f"* {c}: {self.radius_violations(c)} violations of "
                "$\\sigma\\le\\frac{(T+1)(T+2)}{2T}$."
            )
        lines.append(
            "* For the Gaussian (radius) matrices the norm path sum is typically (median) "
            f"{t1['gauss_norm_ratio']:.3g} times the radius path sum at $\\rho=1$: their "
            "norms are well above their radii, so no single norm with "
            "$\\|M_k\\|\\le\\rho(M_k)+\\epsilon$ serves all of them, and only randomness "
            "keeps their products in check."
        )
        return "\n".join(lines)


def _radius_sums(rt, rd, L, conv, Ts):
    """(1/T) sum sum sum_c prod_k rho_k with the target radii, layer l = 1, for every T."""
    f = lb.path_sums(
        torch.full((1, L + 1), rt, dtype=torch.float64, device="cpu"),
        torch.full((1, L + 1), rd, dtype=torch.float64, device="cpu"),
        max(Ts),
        conv,
    )
    return {T: float(lb.lemma2_average(f[:, 1, 0], T)) for T in Ts}


def _groups(cases, S, L, n, gen, device="cpu"):
    """The random ensembles (width n) of every case, then the PascalRNNs (width 1), on ``device``."""
    blocks, owners = [], []
    for case, (rt, rd) in cases.items():
        for ens in ENSEMBLES:
            blocks.append(
                (
                    lb.target_matrices(S, L, n, rt, ens, gen, device),
                    lb.target_matrices(S, L, n, rd, ens, gen, device),
                )
            )
            owners.append((case, ens))
    W_rec = torch.cat([b[0] for b in blocks])
    W_in = torch.cat([b[1] for b in blocks])
    pw = [
        (lb.pascal_matrices(S, L, rt, device), lb.pascal_matrices(S, L, rd, device))
        for rt, rd in cases.values()
    ]
    return [
        (W_rec, W_in, owners, n),
        (
            torch.cat([p[0] for p in pw]),
            torch.cat([p[1] for p in pw]),
            [(c, "pascal") for c in cases],
            1,
        ),
    ]


def update_experiment(
    cases: dict[str, tuple[float, float]],
    Ts: list[int],
    Ls: list[int],
    conventions: list[str],
    S: int,
    n: int,
    gen: torch.Generator,
    track: int = 4,
    device: str = "cpu",
) -> UpdateExperiment:
    """Measure the update of the deepest layer for every graph, depth, case, ensemble and T
    (``track`` networks per (case, ensemble) have their sup ||J|| tracked, Theorem 3), on
    ``device`` (draws on the CPU generator ``gen``)."""
    T_max = max(Ts)
    rows, max_J, checks = [], {}, []
    for conv in conventions:
        for L in plotting.progress(Ls, desc=f"{conv} graph, depths"):
            rsum = {
                c: _radius_sums(rt, rd, L, conv, Ts) for c, (rt, rd) in cases.items()
            }
            for Wr, Wi, own, nn_ in _groups(cases, S, L, n, gen, device):
                r = lb.unit_vectors(Wr.shape[0], T_max, nn_, gen, device)
                tracked = [
                    i
                    for i, (case, ens) in enumerate(own)
                    if case != "rho = 1" and ens != "gaussian"
                ]
                per = min(track, S)
                idx = torch.tensor(
                    [i * S + k for i in tracked for k in range(per)],
                    dtype=torch.long,
                    device=device,
                )
                jmax = torch.zeros(len(idx), dtype=torch.float64, device=device)

                def on_lag(dt, Ft, jmax=jmax, idx=idx, deepest=(L == max(Ls))):
                    if deepest and len(idx):  # sup over lags and layers of ||J||
                        norms = lb.spectral_norms(Ft[1:, idx]).amax(0)
                        torch.maximum(jmax, norms, out=jmax)

                U = lb.updates_from_jacobians(
                    lb.iter_grid_jacobians(Wr, Wi, T_max, conv), r, on_lag
                )  # (T_max, L+1, S_tot, n)
                a_rec, a_in = lb.spectral_norms(Wr), lb.spectral_norms(Wi)
                fnorm = lb.path_sums(a_rec, a_in, T_max, conv)  # (T_max+1, L+1, S_tot)
                if L == max(Ls):
                    for j, i in enumerate(tracked):
                        max_J[(conv,) + own[i]] = float(
                            jmax[j * per : (j + 1) * per].max()
                        )
                if L == min(Ls) and nn_ > 1:  # autograd on the network agrees
                    T_chk = Ts[len(Ts) // 2]
                    db = lb.bias_updates(Wr[:S], Wi[:S], r[:S, : T_chk + 1], conv)
                    U_chk = U[T_chk - 1, :, :S].permute(1, 0, 2)
                    checks.append(float((U_chk - db).abs().max()))
                for i, (case, ens) in enumerate(own):
                    sl = slice(i * S, (i + 1) * S)
                    for T in Ts:
                        db1 = U[T - 1, 1, sl]  # (S, n): layer 1
                        Bn = lb.lemma2_average(fnorm[:, 1, sl], T)
                        paper = (
                            lb.paper_bound_rho1(T, L - 1)
                            if case == "rho = 1"
                            else lb.paper_bound_rho05(T)
                        )
                        rows.append(
                            dict(
                                conv=conv,
                                L=L,
                                case=case,
                                ens=ens,
                                T=T,
                                sigma=float(db1.var(0, unbiased=True).sum().sqrt()),
                                norm_bound=float((S / (S - 1) * (Bn**2).mean()).sqrt()),
                                radius_sum=rsum[case][T],
                                paper=paper,
                            )
                        )
    return UpdateExperiment(
        rows, max_J, max(checks), cases, list(Ts), list(Ls), list(conventions), S, n
    )


@dataclass
class NonNormal:
    """Derivative sums (1/T) sum_t sum_{t'<=t} ||J^{t,L}_{t',l}||_2 per Delta l of the non-normal
    pair (``D``) and of Gaussian matrices with the same radii (``Dg``), and the update sigma, per
    (case, graph)."""

    results: dict
    paper_half: float
    T: int
    L: int
    c: float

    def rate(self, key) -> float:
        """Fitted exponential growth rate of D per layer over the upper half of Delta l."""
        dl, D = self.results[key]["dl"], self.results[key]["D"]
        keep = dl >= dl.max() // 2
        return float(np.polyfit(dl[keep], np.log(D[keep]), 1)[0])

    def exceed(self, key) -> float:
        return float(self.results[key]["D"].max() / self.paper_half)

    def check(self, case: str) -> dict:
        keys = [k for k in self.results if k[0] == case]
        return dict(
            pair_growth=[[self.rate(k), self.exceed(k)] for k in keys],
            rate_shown={k[1]: round(self.rate(k), 3) for k in keys},
            exceed_shown={k[1]: f"{self.exceed(k):.3g}" for k in keys},
            c=self.c,
            T=self.T,
            dl_max=self.L - 1,
        )

    def table(self) -> str:
        return (
            "| targets, graph | growth rate per layer | max / paper bound |\n|---|---|---|\n"
            + "\n".join(
                f"| {k[0]}, {k[1]} | {self.rate(k):.3f} | {self.exceed(k):.3g} |"
                for k in self.results
            )
        )


def nonnormal_experiment(
    cases: dict[str, tuple[float, float]],
    conventions: list[str],
    c: float,
    L: int,
    T: int,
    S: int,
    n: int,
    gen: torch.Generator,
    device: str = "cpu",
) -> NonNormal:
    """The non-normal pair with the radii of each case (all but rho = 1), on every graph,
    against ``S`` Gaussian networks of width n rescaled to the same radii, on ``device`` (draws
    on the CPU generator ``gen``)."""
    results = {}
    for case in [k for k in cases if k != "rho = 1"]:
        rt, rd = cases[case]
        for conv in conventions:
            Wr, Wi = lb.nonnormal_pair(rt, rd, c, L, S=S, device=device)
            F = lb.grid_jacobians(Wr[:1], Wi[:1], T, conv)
            D = lb.lemma2_average(lb.spectral_norms(F[:, 1:, 0]), T)  # l = 1..L
            r = lb.unit_vectors(S, T, 2, gen, device)
            U = lb.updates_from_jacobians(lb.iter_grid_jacobians(Wr, Wi, T, conv), r)
            sig = U[T - 1, 1:].var(1, unbiased=True).sum(-1).sqrt()  # (L,)
            Wg = lb.target_matrices(S, L, n, rt, "gaussian", gen, device)
            Wgi = lb.target_matrices(S, L, n, rd, "gaussian", gen, device)
            Fg = lb.grid_jacobians(Wg, Wgi, T, conv)[:, 1:]
            Dg = lb.lemma2_average(lb.spectral_norms(Fg), T).mean(-1)
            D, sig, Dg = (v.cpu().numpy() for v in (D, sig, Dg))
            results[case, conv] = dict(
                D=D, sigma=sig, Dg=Dg, dl=L - np.arange(1, L + 1)
            )
    return NonNormal(results, lb.paper_bound_rho05(T), T, L, c)

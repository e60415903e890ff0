"""The Local Stability Condition's bounds on derivatives and parameter updates: Herranz-Celotti & Rouat,
Theorems 1-3 (App. A, Eqs. 4-23) and the PascalRNN of Fig. 1c.

* The PascalRNN's output and its derivative with respect to the input at every time (Fig. 1c), by autograd
  (``torch.func``) on ``gradient_paths.pascal_rnn``, with the closed forms of both derivatives on both graphs.
* Deep *linear* RNNs h_{t,l} = W_rec,l h_{t-1,l} + W_in,l h_{t-1,l-1} + b_l (Eq. 1; or the stacked graph
  h_{t,l} = W_rec,l h_{t-1,l} + W_in,l h_{t,l-1} + b_l) whose transition derivatives are the matrices
  themselves, drawn with a target spectral radius or a target spectral norm.
* The Grid Derivative Pascal Triangle (Eqs. 4 and 15) as a dynamic programme over the time lag, giving every
  J^{t,L}_{t',l} at once; the same recursion on scalars gives the proof's path sums sum_c prod_k a_k (Eq. 11
  before the AGMI step), with a_k the spectral norms (Theorems 2-3) or the radii (Theorem 1).
* The parameter update Delta b_l = -eta dL/db_l of the biases for the loss L = (1/T) sum_t <r_t, h_{t,L}> with
  unit vectors r_t, by autograd over a batch of seeds: dh_{t,l}/db_l = I and ||dL/do_t|| = 1, so the constant
  c_Loh of Eq. (9) is 1 and the update is exactly the sum of Jacobians of Eq. (5).

Devices: the random matrices and unit vectors are drawn (and rescaled) on the CPU generator and moved
to ``device``; the recursions run on the device of the matrices they are given. The PascalRNN of
Fig. 1c (one unit per layer) runs on the CPU.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb
from typing import Callable, Iterable, Iterator, Literal

import numpy as np
import torch
from torch.func import vmap

from .gradient_paths import CONVENTIONS, Convention, pascal_rnn

Derivative = Literal["sum", "last"]
Ensemble = Literal["orthogonal", "gaussian", "gaussian-norm"]
ENSEMBLES: tuple[Ensemble, ...] = ("orthogonal", "gaussian", "gaussian-norm")


# ---- Fig. 1c: the PascalRNN --------------------------------------------------------------------------


def pascal_outputs_and_gradients(
    x: torch.Tensor, L: int, rho: float, convention: Convention
) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """For inputs x of shape (B, T): the output y_t = h_{t,L} (B, T), the network run on each sequence with
    ``vmap``, and by reverse-mode autodiff per sample (the sequences do not interact, so the gradient of a sum
    over the batch is the per-sample gradient)

    * d(sum_t y_t)/dx_t: the derivative of the summed output sequence (what a gradient of the whole output
      returns; the quantity of the time-averaged loss of Eq. 5 with unit output derivatives);
    * dy_{T-1}/dx_t: the derivative of the last output only.
    """
    xx = x.detach().clone().requires_grad_(True)
    y = vmap(lambda s: pascal_rnn(s, L, rho, convention)[:, -1])(xx)
    (g_sum,) = torch.autograd.grad(y.sum(), xx, retain_graph=True)
    (g_last,) = torch.autograd.grad(y[:, -1].sum(), xx)
    return y.detach(), g_sum, g_last


def pascal_gradient_closed_form(
    T: int, L: int, rho: float, convention: Convention, derivative: Derivative = "sum"
) -> np.ndarray:
    """The exact derivative at t = 0..T-1 from counting paths from the input (t, 0) to the outputs (t', L).

    Stacked graph: the first edge climbs to (t, 1), then a grid of Delta t' = t' - t time and L - 1 depth
    steps: binom(Delta t' + L - 1, L - 1) paths of Delta t' + L edges. Eq. (1) graph: every edge takes one
    time step and L of them climb: binom(Delta t' - 1, L - 1) paths of Delta t' edges. ``sum`` adds t' = t..T-1.
    For rho = 1 and ``sum`` the two are binom(L + Delta t - 1, L) and binom(Delta t - 1, L), Delta t = T - t.
    """
    if convention not in CONVENTIONS:
        raise ValueError(f"convention = {convention!r}: must be one of {CONVENTIONS}")

    def one(d: int) -> float:  # the single-output derivative for t' - t = d
        if convention == "stacked":
            return comb(d + L - 1, L - 1) * rho ** (d + L)
        return comb(d - 1, L - 1) * rho**d if d >= L else 0.0

    out = np.empty(T)
    for t in range(T):
        dmax = T - 1 - t
        out[t] = (
            sum(one(d) for d in range(dmax + 1)) if derivative == "sum" else one(dmax)
        )
    return out


def fig1c_paper_curve(T: int, L: int) -> np.ndarray:
    """The binomial the authors draw over the rho = 1 derivative: binom(L + Delta t - 1, Delta l = L), with
    Delta t = T - t for t = 0..T-1 (their legend also writes it c_1 binom(L + Delta t, Delta t) + c_2)."""
    return np.array([float(comb(L + (T - t) - 1, L)) for t in range(T)])


@dataclass(frozen=True)
class Fig1cRuns:
    """The PascalRNN of Fig. 1c on both graphs and for rho in (0.5, 1): per (convention, rho)
    the outputs ``y`` (B, T), and the derivatives ``g_sum`` and ``g_last`` (B, T)."""

    T: int
    L: int
    batch: int
    std: float
    runs: dict
    closed_err: float  # largest relative gap between autograd and the closed forms
    paper_curve: np.ndarray  # the binomial the authors draw, binom(L + Delta t - 1, L)

    def check(self) -> dict:
        """The numbers behind the three claims of Fig. 1c."""
        T, L, runs, paper = self.T, self.L, self.runs, self.paper_curve
        g1s, g1e = runs["stacked", 1.0]["g_sum"][0], runs["eq1", 1.0]["g_sum"][0]
        g05 = {c: runs[c, 0.5]["g_sum"][0] for c in CONVENTIONS}
        far = (T - np.arange(T)) >= 4 * L  # Delta t >= 4L: away from the output end
        near1 = {c: int(np.sum(np.abs(v - 1) < 0.01)) for c, v in g05.items()}
        return dict(
            T=T,
            batch=self.batch,
            closed_err=self.closed_err,
            rel_stacked=float(np.max(np.abs(g1s - paper) / paper)),
            rel_eq1=float(np.max(np.abs(g1e - paper) / paper)),
            ratio0=float(g1e[0] / paper[0]),
            zero_tail=int(np.sum(g1e == 0)),
            spread=max(float(np.ptp(r["g_sum"], axis=0).max()) for r in runs.values()),
            max05=max(float(v.max()) for v in g05.values()),
            near1_stacked=near1["stacked"],
            near1_eq1=near1["eq1"],
            far_ok=all(bool(np.all(np.abs(v[far] - 1) < 0.01)) for v in g05.values()),
            last05=max(float(runs[c, 0.5]["g_last"][0].max()) for c in CONVENTIONS),
        )


def fig1c_runs(T: int, L: int, batch: int, std: float, seed: int) -> Fig1cRuns:
    """Fig. 1c (top): ``batch`` Gaussian input sequences of standard deviation ``std``, the
    PascalRNN of depth L on both graphs with rho = 0.5 and 1, and autograd against the
    closed forms of :func:`pascal_gradient_closed_form`. On the CPU: one unit per layer."""
    gen = torch.Generator(device="cpu").manual_seed(seed)
    x = std * torch.randn(batch, T, dtype=torch.float64, generator=gen, device="cpu")
    runs, closed_err = {}, 0.0
    for conv in ("stacked", "eq1"):
        for rho in (0.5, 1.0):
            y, g_sum, g_last = pascal_outputs_and_gradients(x, L, rho, conv)
            for g, which in ((g_sum, "sum"), (g_last, "last")):
                cf = pascal_gradient_closed_form(T, L, rho, conv, which)
                err = (g - torch.tensor(cf, device="cpu")).abs().max()
                err = err / max(cf.max(), 1e-300)
                closed_err = max(closed_err, float(err))
            runs[conv, rho] = dict(
                y=y.numpy(), g_sum=g_sum.numpy(), g_last=g_last.numpy()
            )
    return Fig1cRuns(T, L, batch, std, runs, closed_err, fig1c_paper_curve(T, L))


# ---- deep linear RNNs with target radii or norms -----------------------------------------------------


def _haar_orthogonal(
    shape: tuple[int, ...], n: int, g: torch.Generator
) -> torch.Tensor:
    A = torch.randn(*shape, n, n, dtype=torch.float64, generator=g, device="cpu")
    Q, R = torch.linalg.qr(A)
    return Q * torch.sign(torch.diagonal(R, dim1=-2, dim2=-1)).unsqueeze(-2)


def target_matrices(
    S: int,
    L: int,
    n: int,
    target: float,
    ensemble: Ensemble,
    g: torch.Generator,
    device: str | torch.device = "cpu",
) -> torch.Tensor:
    """S x (L + 1) random n x n matrices (index 0, the input layer, is zero):

    * ``orthogonal``: target * Haar orthogonal, every eigenvalue of modulus ``target`` and spectral norm ``target``;
    * ``gaussian``: a Gaussian matrix rescaled to spectral radius exactly ``target`` (non-normal: its spectral
      norm is larger, about twice the radius for large n);
    * ``gaussian-norm``: a Gaussian matrix rescaled to spectral norm exactly ``target`` (radius smaller).

    Drawn and rescaled on the CPU (``g`` is a CPU generator), returned on ``device``.
    """
    if ensemble == "orthogonal":
        W = target * _haar_orthogonal((S, L + 1), n, g)
    elif ensemble in ("gaussian", "gaussian-norm"):
        A = torch.randn(S, L + 1, n, n, dtype=torch.float64, generator=g, device="cpu")
        scale = (
            torch.linalg.eigvals(A).abs().amax(-1)
            if ensemble == "gaussian"
            else torch.linalg.matrix_norm(A, ord=2)
        )
        W = target * A / scale[..., None, None]
    else:
        raise ValueError(f"ensemble = {ensemble!r}: must be one of {ENSEMBLES}")
    W[:, 0] = 0.0
    return W.to(device)


def pascal_matrices(
    S: int, L: int, target: float, device: str | torch.device = "cpu"
) -> torch.Tensor:
    """The PascalRNN as a deep linear RNN: 1 x 1 transition derivatives equal to ``target``, (S, L+1, 1, 1)."""
    W = torch.full((S, L + 1, 1, 1), float(target), dtype=torch.float64, device=device)
    W[:, 0] = 0.0
    return W


def nonnormal_pair(
    rho_time: float,
    rho_depth: float,
    c: float,
    L: int,
    S: int = 1,
    device: str | torch.device = "cpu",
) -> tuple[torch.Tensor, torch.Tensor]:
    """A time matrix A = [[rho_time, c], [0, rho_time]] and a depth matrix B = [[rho_depth, 0], [c, rho_depth]]
    in every layer: their spectral radii are exactly rho_time and rho_depth, but the products BA that every
    path climbing a layer contains have a large radius (rho(BA) ~ c^2 for large c). Shapes (S, L+1, 2, 2)."""
    kw = dict(dtype=torch.float64, device=device)
    A = torch.tensor([[rho_time, c], [0.0, rho_time]], **kw)
    B = torch.tensor([[rho_depth, 0.0], [c, rho_depth]], **kw)
    W_rec = A.expand(S, L + 1, 2, 2).clone()
    W_in = B.expand(S, L + 1, 2, 2).clone()
    W_rec[:, 0] = 0.0
    W_in[:, 0] = 0.0
    return W_rec, W_in


def deep_linear_rnn(
    x: torch.Tensor,
    W_rec: torch.Tensor,
    W_in: torch.Tensor,
    b: torch.Tensor,
    convention: Convention = "eq1",
) -> torch.Tensor:
    """h of shape (S, T+1, L+1, n) for inputs x (S, T+1, n) (layer 0 is the input, h_{-1,l} = 0):
    ``eq1``: h_{t,l} = W_rec,l h_{t-1,l} + W_in,l h_{t-1,l-1} + b_l (Eq. 1); ``stacked``: ... + W_in,l h_{t,l-1} + b_l."""
    if convention not in CONVENTIONS:
        raise ValueError(f"convention = {convention!r}: must be one of {CONVENTIONS}")
    S, T1, n = x.shape
    L = W_rec.shape[1] - 1
    mv = lambda W, v: (W @ v.unsqueeze(-1)).squeeze(-1)  # noqa: E731
    prev = [torch.zeros(S, n, dtype=x.dtype, device=x.device) for _ in range(L + 1)]
    rows = []
    for t in range(T1):
        cur = [x[:, t]]
        for l in range(1, L + 1):
            below = prev[l - 1] if convention == "eq1" else cur[l - 1]
            cur.append(mv(W_rec[:, l], prev[l]) + mv(W_in[:, l], below) + b[:, l])
        rows.append(torch.stack(cur, 1))
        prev = cur
    return torch.stack(rows, 1)


def bias_updates(
    W_rec: torch.Tensor,
    W_in: torch.Tensor,
    r: torch.Tensor,
    convention: Convention = "eq1",
) -> torch.Tensor:
    """Delta b_l = -dL/db_l (eta = 1) for L = (1/T) sum_{t=0}^{T} <r_t, h_{t,L}>, by autograd; r has shape
    (S, T+1, n) and each seed s has its own matrices. Returns (S, L+1, n) (row 0, the input, is zero).
    The inputs do not matter (the network is linear), so they are zero."""
    S, T1, n = r.shape
    T = T1 - 1
    kw = dict(dtype=r.dtype, device=r.device)
    b = torch.zeros(S, W_rec.shape[1], n, requires_grad=True, **kw)
    h = deep_linear_rnn(torch.zeros(S, T1, n, **kw), W_rec, W_in, b, convention)
    loss = (r * h[:, :, -1]).sum() / T
    (gb,) = torch.autograd.grad(loss, b)
    return -gb


def unit_vectors(
    S: int, T: int, n: int, g: torch.Generator, device: str | torch.device = "cpu"
) -> torch.Tensor:
    """r_t uniform on the unit sphere of R^n, shape (S, T+1, n): the output derivatives dL/do_t
    (drawn on the CPU generator ``g``, returned on ``device``)."""
    r = torch.randn(S, T + 1, n, dtype=torch.float64, generator=g, device="cpu")
    return (r / r.norm(dim=-1, keepdim=True)).to(device)


def update_sigma(db: torch.Tensor) -> torch.Tensor:
    """sqrt(n Var Delta b_l) = sqrt(sum_i Var_seeds Delta b_{l,i}) per layer: the root of the element-wise
    update variance times the number of parameters m_l = n (Eq. 6), shape (L+1,)."""
    return db.var(0, unbiased=True).sum(-1).sqrt()


# ---- the Grid Derivative Pascal Triangle (Eqs. 4, 15) -------------------------------------------------


def iter_grid_jacobians(
    W_rec: torch.Tensor, W_in: torch.Tensor, T: int, convention: Convention = "eq1"
) -> Iterator[torch.Tensor]:
    """Yield F[dt] = (J^{t,L}_{t-dt,l})_{l=0..L} = dh_{t,L}/dh_{t-dt,l} for dt = 0..T, each of shape
    (L+1, S, n, n) (row l = 0, the input, is zero). The weights do not change with time, so J depends on the
    lag only. Only two lags are kept in memory.

    Eq. (4): J_{t',l} = J_{t'+1,l} dh_{t'+1,l}/dh_{t',l} + J_{t'+1,l+1} dh_{t'+1,l+1}/dh_{t',l}; on the
    stacked graph the depth term is J_{t',l+1} dh_{t',l+1}/dh_{t',l} (same time step)."""
    if convention not in CONVENTIONS:
        raise ValueError(f"convention = {convention!r}: must be one of {CONVENTIONS}")
    S, L1, n, _ = W_rec.shape
    L = L1 - 1
    cur = torch.zeros(L1, S, n, n, dtype=W_rec.dtype, device=W_rec.device)
    cur[L] = torch.eye(n, dtype=W_rec.dtype, device=W_rec.device)
    if convention == "stacked":
        for l in range(L - 1, 0, -1):
            cur[l] = cur[l + 1] @ W_in[:, l + 1]
    yield cur
    for _ in range(T):
        prev, cur = cur, torch.zeros_like(cur)
        for l in range(L, 0, -1):
            acc = prev[l] @ W_rec[:, l]
            if l < L:
                acc = (
                    acc
                    + (prev[l + 1] if convention == "eq1" else cur[l + 1])
                    @ W_in[:, l + 1]
                )
            cur[l] = acc
        yield cur


def grid_jacobians(
    W_rec: torch.Tensor, W_in: torch.Tensor, T: int, convention: Convention = "eq1"
) -> torch.Tensor:
    """All lags of :func:`iter_grid_jacobians` stacked: F[dt, l] = J^{t,L}_{t-dt,l}, shape (T+1, L+1, S, n, n)."""
    return torch.stack(list(iter_grid_jacobians(W_rec, W_in, T, convention)))


def updates_from_jacobians(
    F: Iterable[torch.Tensor],
    r: torch.Tensor,
    on_lag: Callable[[int, torch.Tensor], None] | None = None,
) -> torch.Tensor:
    """Delta b_l(T) = -(1/T) sum_{t=0}^{T} sum_{t'<=t} (J^{t,L}_{t',l})^T r_t for every T = 1..T_max at once
    (Eq. 5 with dh/db = I), from the lag-indexed Jacobians F (an iterable of (L+1, S, n, n), e.g.
    :func:`iter_grid_jacobians`) and r (S, T_max+1, n). ``on_lag(dt, F[dt])`` is called on every lag (to take
    norms without storing F). Returns (T_max, L+1, S, n): row T-1 is the update of the network run for
    t = 0..T."""
    cum, total, out = None, None, []
    for t, Ft in enumerate(F):
        if on_lag is not None:
            on_lag(t, Ft)
        cum = (
            Ft.clone() if cum is None else cum + Ft
        )  # sum_{lag <= t} F[lag]: all t' <= t
        q = torch.einsum("lsij,si->lsj", cum, r[:, t])
        total = q if total is None else total + q
        if t > 0:
            out.append(-total / t)
    return torch.stack(out)


def path_sums(
    a_rec: torch.Tensor, a_in: torch.Tensor, T: int, convention: Convention = "eq1"
) -> torch.Tensor:
    """f[dt, l] = sum over the gradient paths c from (t, L) down to (t - dt, l) of prod_k a_k, where a_k is
    ``a_rec[:, l]`` for a time edge of layer l and ``a_in[:, l]`` for the depth edge into layer l (shapes (S, L+1)).
    The same recursion as :func:`grid_jacobians` on scalars. Returns (T+1, L+1, S)."""
    S, L1 = a_rec.shape
    L = L1 - 1
    f = torch.zeros(T + 1, L1, S, dtype=a_rec.dtype, device=a_rec.device)
    f[0, L] = 1.0
    if convention == "stacked":
        for l in range(L - 1, 0, -1):
            f[0, l] = f[0, l + 1] * a_in[:, l + 1]
    for d in range(1, T + 1):
        for l in range(L, 0, -1):
            acc = f[d - 1, l] * a_rec[:, l]
            if l < L:
                acc = (
                    acc
                    + (f[d - 1, l + 1] if convention == "eq1" else f[d, l + 1])
                    * a_in[:, l + 1]
                )
            f[d, l] = acc
    return f


def lemma2_average(G: torch.Tensor, T: int) -> torch.Tensor:
    """(1/T) sum_{t=0}^{T} sum_{t'<=t} G[t - t'] = (1/T) sum_dt (T + 1 - dt) G[dt], for G indexed by the lag
    (first axis, at least T+1 long). With G = path counts this is Lemma 2's quantity."""
    w = T + 1 - torch.arange(T + 1, dtype=G.dtype, device=G.device)
    w = w.reshape(-1, *([1] * (G.dim() - 1)))
    return (w * G[: T + 1]).sum(0) / T


def spectral_norms(W: torch.Tensor) -> torch.Tensor:
    """||W||_2 over the last two axes (the sub-multiplicative norm induced by the Euclidean vector norm)."""
    return torch.linalg.matrix_norm(W, ord=2)


def spectral_radii(W: torch.Tensor) -> torch.Tensor:
    """rho(W), the largest eigenvalue modulus, over the last two axes (batched eigvals)."""
    return torch.linalg.eigvals(W).abs().amax(-1)


def paper_bound_rho1(T: int, dl: int) -> float:
    """Theorem 1 with E rho = 1: (1/T) binom(T + Delta l + 2, T) (Lemma 2), as a float."""
    return comb(T + dl + 2, T) / T


def paper_bound_rho05(T: int) -> float:
    """Theorems 1 and 3 with E rho = 0.5: (1/T) sum_{t=0}^{T} sum_{t'<=t} 1 = (T+1)(T+2)/(2T); the paper
    writes (T+1)/2, summing t from 1."""
    return (T + 1) * (T + 2) / (2 * T)

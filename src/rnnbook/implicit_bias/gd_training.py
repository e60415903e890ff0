"""Full-batch gradient descent of the three models of Emami et al. (Sec. 5) on a mean-squared error.

Every model here is a convolution of its input with an impulse response L = (L_0, ..., L_{T-1})
(Proposition 2.1(a)): the linear RNN (1) through Eq. (9), the scaled convolution (8) through
L_j = sqrt(rho_j) theta_j, the unscaled convolution (5) directly. The loss of any of them is therefore a
quadratic function of L whose coefficients are *sufficient statistics* of the data set,

    MSE(L) = (1/M) [ sum_a l_a R l_a^T - 2 sum_a l_a . Q_a + sum y^2 ],   l_a = (L_0[a,:], ..., L_{T-1}[a,:]),

with R = sum_{i,t} z_{it} z_{it}^T over the lag vectors z_{it} = (x_{i,t}, x_{i,t-1}, ..., x_{i,t-T+1}) and
M the number of scalar outputs. :func:`lag_stats` computes them once (all samples and times at once);
afterwards a gradient step costs nothing that grows with the number of sequences. The gradient of the
RNN parameters is dMSE/dL pulled back through Eq. (9) (:func:`rnn_impulse_and_grad`): backpropagation
through time of the impulse response, summed over all time lags in one matrix product.

Both models get the same learning rate, as in the paper; all functions accept leading batch axes
(several seeds or data sets trained at once).

**Device.** The trainers run on the device of their starting point (the RNN's parameters, drawn
on a CPU generator and moved by :func:`rnnbook.implicit_bias.linear_rnn.init_params`, or the
convolution's ``L0``): the statistics of the data sets are moved there (:func:`cast`) and the
recorded trajectory comes back on the CPU, so that a CPU and a GPU run start from the same numbers
and return the same kind of result.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor

from .conv_models import lagged, scaled_impulse, theta_from_impulse
from .linear_rnn import Params


@dataclass(frozen=True)
class LagStats:
    """Sufficient statistics of a data set (X, Y) for a convolution with ``lags`` lags (see module doc)."""

    R: Tensor  # (..., lags n_x, lags n_x)
    Q: Tensor  # (..., n_y, lags n_x)
    yy: Tensor  # (...,)
    M: Tensor  # (...,) number of scalar outputs, N T n_y
    lags: int
    n_x: int
    n_y: int


def lag_stats(X: Tensor, Y: Tensor, lags: int | None = None) -> LagStats:
    """Statistics of inputs ``X`` (..., N, T, n_x) and outputs ``Y`` (..., N, T, n_y)."""
    N, T, n_x = X.shape[-3:]
    n_y = Y.shape[-1]
    lags = T if lags is None else lags
    Z = lagged(X, lags).reshape(*X.shape[:-3], N * T, lags * n_x)
    Yf = Y.reshape(*Y.shape[:-3], N * T, n_y)
    R = Z.transpose(-1, -2) @ Z
    Q = Yf.transpose(-1, -2) @ Z
    M = torch.full(R.shape[:-2], N * T * n_y, dtype=R.dtype, device=R.device)
    return LagStats(R, Q, (Yf**2).sum((-1, -2)), M, lags, n_x, n_y)


def stack_stats(stats: list[LagStats]) -> LagStats:
    """Several data sets (of any sizes) as one batch: train one model per data set at once."""
    first = stats[0]
    if any((s.lags, s.n_x, s.n_y) != (first.lags, first.n_x, first.n_y) for s in stats):
        raise ValueError("stack_stats: the data sets need the same lags, n_x and n_y")
    return LagStats(
        *(torch.stack([getattr(s, f) for s in stats]) for f in ("R", "Q", "yy", "M")),
        first.lags,
        first.n_x,
        first.n_y,
    )


def _flat(L: Tensor) -> Tensor:
    """(..., T, n_y, n_x) -> (..., n_y, T n_x), rows l_a as in the module doc."""
    T, n_y, n_x = L.shape[-3:]
    return L.transpose(-3, -2).reshape(*L.shape[:-3], n_y, T * n_x)


def _unflat(l: Tensor, T: int, n_x: int) -> Tensor:
    n_y = l.shape[-2]
    return l.reshape(*l.shape[:-2], n_y, T, n_x).transpose(-3, -2)


def _times_R(l: Tensor, R: Tensor) -> Tensor:
    """``l @ R`` for rows ``l`` (E..., B..., n_y, K) and ``R`` (B..., K, K): extra leading axes E of
    ``l`` (several arms on the same data) become rows of one batched product instead of a broadcast,
    which would copy R once per arm."""
    extra = l.dim() - R.dim()
    if extra <= 0:
        return l @ R
    E, rest = l.shape[:extra], l.shape[extra:]
    m = l.reshape(-1, *rest).movedim(0, -3)  # (B..., prod E, n_y, K)
    out = m.reshape(*rest[:-2], -1, rest[-1]) @ R
    return out.reshape(m.shape).movedim(-3, 0).reshape(*E, *rest)


def mse(L: Tensor, s: LagStats) -> Tensor:
    """Mean-squared error of the convolution with impulse response ``L`` on the data set of ``s``."""
    l = _flat(L)
    quad = (_times_R(l, s.R) * l).sum((-1, -2))
    return (quad - 2 * (l * s.Q).sum((-1, -2)) + s.yy) / s.M


def mse_grad(L: Tensor, s: LagStats) -> Tensor:
    """dMSE/dL, same shape as ``L``."""
    l = _flat(L)
    return _unflat(
        2.0 / s.M[..., None, None] * (_times_R(l, s.R) - s.Q), L.shape[-3], L.shape[-1]
    )


# --- the RNN's impulse response and its adjoint --------------------------------------------------


def _krylov(params: Params, T: int) -> tuple[Tensor, Tensor, Tensor]:
    """V = [F, s W F, ..., (s W)^{T-1} F] (n x T n_x) and U = [C; s C W; ...] (T n_y x n), s = n^{-1/2},
    and the impulse response L_j = s C V_j of Eq. (9)."""
    W, F, C = params["W"], params["F"], params["C"]
    s = W.shape[-1] ** -0.5
    Vs, Us = [F], [C]
    for _ in range(T - 1):  # scale the thin factors, not the n x n matrix
        Vs.append(s * (Vs[-1].mT @ W.mT).mT)  # batched W @ v is slow for thin v
        Us.append(s * (Us[-1] @ W))
    V = torch.cat(Vs, -1)
    U = torch.cat(Us, -2)
    L = _unflat(s * (C @ V), T, F.shape[-1])
    return V, U, L


def _hankel(G: Tensor) -> Tensor:
    """The block Hankel matrix H_{ab} = G_{a+b+1} (zero for a+b+1 >= T), (..., T n_y, T n_x)."""
    T, n_y, n_x = G.shape[-3:]
    ar = torch.arange(T, device=G.device)
    idx = ar[:, None] + ar[None, :] + 1  # a + b + 1
    Gpad = torch.cat([G, G.new_zeros(*G.shape[:-3], 1, n_y, n_x)], -3)
    H = Gpad[
        ..., idx.clamp(max=T), :, :
    ]  # (..., T, T, n_y, n_x); index T is the zero block
    return H.permute(*range(H.dim() - 4), -4, -2, -3, -1).reshape(
        *G.shape[:-3], T * n_y, T * n_x
    )


def _adjoint(params: Params, V: Tensor, U: Tensor, G: Tensor) -> Params:
    return {
        "W": _dW_factor(params, V, U, G) @ V.transpose(-1, -2),
        **_adjoint_FC(params, V, U, G),
    }


def _dW_factor(params: Params, V: Tensor, U: Tensor, G: Tensor) -> Tensor:
    """s^2 U^T H, so that dW = (s^2 U^T H) V^T (n x T n_x times T n_x x n)."""
    s2 = 1.0 / params["W"].shape[-1]
    return s2 * (U.transpose(-1, -2) @ _hankel(G))


def _adjoint_FC(params: Params, V: Tensor, U: Tensor, G: Tensor) -> Params:
    T, n_y, n_x = G.shape[-3:]
    s = params["W"].shape[-1] ** -0.5
    dF = s * U.transpose(-1, -2) @ G.reshape(*G.shape[:-3], T * n_y, n_x)
    dC = s * _flat(G) @ V.transpose(-1, -2)
    return {"F": dF, "C": dC}


def rnn_impulse_and_grad(params: Params, G: Tensor) -> tuple[Tensor, Params]:
    """The impulse response L (9) of the RNN and the gradient of <G, L> with respect to (W, F, C).

    With s = n^{-1/2}, V_j = (sW)^j F and U_a = C (sW)^a:  dC = s sum_j G_j V_j^T,  dF = s sum_j U_j^T G_j,
    dW = s^2 sum_{a+b+1=j} U_a^T G_j V_b^T = s^2 U^T H V^T with the block Hankel matrix H_{ab} = G_{a+b+1}.
    """
    V, U, L = _krylov(params, G.shape[-3])
    return L, _adjoint(params, V, U, G)


# --- training loops ------------------------------------------------------------------------------


@dataclass
class Trajectory:
    """What a training run recorded at every step 0..steps: the impulse response and the losses."""

    L: Tensor  # (steps+1, ..., T, n_y, n_x); (2, ...) (first and last) with keep_L=False
    losses: dict[str, Tensor]  # name -> (steps+1, ...)

    def cpu(self) -> Trajectory:
        """The same trajectory on the CPU."""
        return Trajectory(self.L.cpu(), {k: v.cpu() for k, v in self.losses.items()})


def _stack_L(Ls: list[Tensor], keep_L: bool) -> Tensor:
    return torch.stack(Ls if keep_L else [Ls[0], Ls[-1]])


def _record(L: Tensor, evals: dict[str, LagStats], out: dict[str, list]) -> None:
    for name, st in evals.items():
        out[name].append(mse(L, st))


def train_conv(
    L0: Tensor,
    rho: Tensor | None,
    train: LagStats,
    lr: float,
    steps: int,
    evals: dict[str, LagStats] | None = None,
    keep_L: bool = True,
    device: str | torch.device | None = None,
) -> Trajectory:
    """Full-batch GD on the scaled convolution (8), theta_{l+1} = theta_l - lr dMSE/dtheta, started from
    theta_0 = L0 / sqrt(rho) (Eq. 58). ``rho=None`` is the unscaled convolution (5) (rho_j = 1).

    ``rho`` of shape (..., T) trains several arms at once (e.g. scaled and unscaled, stacked on a
    leading axis of ``L0``). ``keep_L=False`` keeps only the first and last impulse responses.
    Runs on ``device`` (None: that of ``L0``); the trajectory comes back on the CPU."""
    dev = L0.device if device is None else torch.device(device)
    L0 = L0.to(dev)
    rho = (
        torch.ones(L0.shape[-3], dtype=L0.dtype, device=dev)
        if rho is None
        else torch.as_tensor(rho, dtype=L0.dtype, device=dev)
    )
    evals = {
        k: cast(v, None, dev) for k, v in {"train": train, **(evals or {})}.items()
    }
    train = evals["train"]
    theta = theta_from_impulse(L0, rho)
    Ls, losses = [], {k: [] for k in evals}
    for step in range(steps + 1):
        L = scaled_impulse(theta, rho)
        if keep_L or step in (0, steps):
            Ls.append(L)
        _record(L, evals, losses)
        if step < steps:
            theta = theta - lr * scaled_impulse(
                mse_grad(L, train), rho
            )  # dMSE/dtheta_j = sqrt(rho_j) dMSE/dL_j
    return Trajectory(
        _stack_L(Ls, keep_L), {k: torch.stack(v) for k, v in losses.items()}
    ).cpu()


def cast(
    s: LagStats, dtype: torch.dtype | None, device: str | torch.device | None = None
) -> LagStats:
    """The same statistics in another floating-point type (None: the same) and on ``device``
    (None: the same)."""
    device = s.R.device if device is None else device
    return LagStats(
        *(
            getattr(s, f)
            .to(dtype=getattr(s, f).dtype if dtype is None else dtype)
            .to(device)
            for f in ("R", "Q", "yy", "M")
        ),
        s.lags,
        s.n_x,
        s.n_y,
    )


def train_rnn(
    params: Params,
    train: LagStats,
    lr: float,
    steps: int,
    evals: dict[str, LagStats] | None = None,
    keep_L: bool = True,
) -> tuple[Trajectory, Params]:
    """Full-batch GD on the linear RNN (1): (W, F, C) <- (W, F, C) - lr dMSE/d(W, F, C).

    Returns the trajectory (on the CPU) and the final parameters (on the device). Leading batch
    axes of the parameters train independent networks at once. The computation runs in the
    parameters' floating-point type, on their device.
    ``keep_L=False`` keeps only the first and last impulse responses.
    """
    dtype, dev = params["W"].dtype, params["W"].device
    train = cast(train, dtype, dev)
    evals = {
        "train": train,
        **{k: cast(v, dtype, dev) for k, v in (evals or {}).items()},
    }
    p = {k: v.contiguous().clone() for k, v in params.items()}
    T = train.lags
    Ls, losses = [], {k: [] for k in evals}
    for step in range(steps + 1):
        V, U, L = _krylov(p, T)
        if keep_L or step in (0, steps):
            Ls.append(L)
        _record(L, evals, losses)
        if step < steps:
            G = mse_grad(L, train)
            g = _adjoint_FC(p, V, U, G)
            # W <- W - lr (s^2 U^T H) V^T in place: one pass over the n x n matrices
            n, k = V.shape[-2:]
            A = _dW_factor(p, V, U, G).reshape(-1, n, k)
            W = p["W"].view(-1, n, n)
            W.baddbmm_(A, V.reshape(-1, n, k).transpose(-1, -2), alpha=-lr)
            p["F"], p["C"] = p["F"] - lr * g["F"], p["C"] - lr * g["C"]
    return Trajectory(
        _stack_L(Ls, keep_L), {k: torch.stack(v) for k, v in losses.items()}
    ).cpu(), p


def rnn_impulse(params: Params, T: int) -> Tensor:
    """Eq. (9) through the same Krylov recursion the training uses (shape (..., T, n_y, n_x))."""
    return _krylov(params, T)[2]

"""The finite-width three-layer linear network of Chizat, Colombo, Fernández-Real & Figalli in μP (Sec. 2.1-2.2).

    h(x) = V^T W U x,        U ∈ R^{m×d},  W ∈ R^{m×m},  V ∈ R^m,

initialized by (2.1), U_ij ~ N(0, 1), W_ij ~ N(0, 1/m), V_i ~ N(0, 1/m²), and trained by gradient descent
with the layer-wise learning rates m, 1, 1/m (the paper's red factors):

    U ← U − τ m W^T V ξ^T,     W ← W − τ V ξ^T U^T,     V ← V − (τ/m) W U ξ,

where ξ = ∫ x L'(h(x), y) dp(x, y) is the gradient of the risk with respect to the linear predictor.
The scale-free variables (2.3) are U~ = U, W~ = m (W − W(0)) = m W − √m Z, V~ = m V, with Z = √m W(0);
the predictor (2.14) is λ = U~^T (Z/√m + W~/m)^T V~/m = U^T W^T V.

Networks are batched: a leading dimension ``R`` holds independent networks (repetitions), so that one
GD step of all of them is a few batched matrix products (torch; on a GPU when given ``device="cuda"``).
The data and the risk (with its normalisation) are in :mod:`rnnbook.infinite_width.regression`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from .regression import Regression

DISTRIBUTIONS = ("gaussian", "uniform", "rademacher")


def device(gpu: bool) -> str:
    """``"cuda"`` when ``gpu`` is asked for and available, else ``"cpu"``."""
    return "cuda" if gpu and torch.cuda.is_available() else "cpu"


# ------------------------------------------------------------------------------------------- network
def unit_variance(
    shape: tuple[int, ...],
    dist: str,
    generator: torch.Generator,
    dtype: torch.dtype = torch.float64,
) -> Tensor:
    """I.i.d. entries with mean 0 and variance 1: Gaussian, centred uniform on [−√3, √3], or ±1."""
    if dist == "gaussian":
        return torch.randn(shape, generator=generator, dtype=dtype)
    if dist == "uniform":
        return (
            2.0 * torch.rand(shape, generator=generator, dtype=dtype) - 1.0
        ) * 3.0**0.5
    if dist == "rademacher":
        return 2.0 * torch.randint(0, 2, shape, generator=generator).to(dtype) - 1.0
    raise ValueError(f"distribution {dist!r}: must be one of {DISTRIBUTIONS}")


@dataclass
class MuPNet:
    """A batch of ``R`` width-``m`` networks: U (R, m, d), W (R, m, m), V (R, m), and Z = √m W(0) (R, m, m)."""

    U: Tensor
    W: Tensor
    V: Tensor
    Z: Tensor | None = None

    @property
    def reps(self) -> int:
        return self.U.shape[0]

    @property
    def m(self) -> int:
        return self.U.shape[1]

    @property
    def d(self) -> int:
        return self.U.shape[2]

    def clone(self) -> "MuPNet":
        return MuPNet(
            self.U.clone(),
            self.W.clone(),
            self.V.clone(),
            None if self.Z is None else self.Z.clone(),
        )


def init_mup(
    m: int,
    d: int,
    reps: int,
    seed: int,
    dist: str = "gaussian",
    keep_init: bool = True,
    dtype: torch.dtype = torch.float64,
    device: str | torch.device = "cpu",
) -> MuPNet:
    """Initialization (2.1) in μP: U = U~(0), W = Z/√m, V = V~(0)/m, with U~(0), Z, V~(0) i.i.d. of unit
    variance drawn from ``dist`` (Gaussian in (2.1); uniform or Rademacher for Remark (v) and Fig. 2.3)."""
    if m < 1 or d < 1 or reps < 1:
        raise ValueError(f"m = {m}, d = {d}, reps = {reps}: must be positive")
    g = torch.Generator().manual_seed(seed)
    U = unit_variance((reps, m, d), dist, g, dtype)
    Z = unit_variance((reps, m, m), dist, g, dtype)
    V = unit_variance((reps, m), dist, g, dtype)
    U, Z, V = U.to(device), Z.to(device), V.to(device)
    return MuPNet(U=U, W=Z / m**0.5, V=V / m, Z=Z if keep_init else None)


def predictor(net: MuPNet) -> Tensor:
    """The linear predictor (2.14), λ = U^T W^T V, shape (R, d)."""
    WtV = torch.bmm(net.W.transpose(1, 2), net.V[:, :, None])
    return torch.bmm(net.U.transpose(1, 2), WtV)[:, :, 0]


def risk(
    U: Tensor, W: Tensor, V: Tensor, X: Tensor, y: Tensor, normalisation: str = "mean"
) -> Tensor:
    """F(U, W, V) = (1/2c) Σ_i (V^T W U x_i − y_i)² for one network (for autograd checks)."""
    h = X @ U.T @ W.T @ V
    c = X.shape[0] if normalisation == "mean" else 1
    return 0.5 * torch.sum((h - y) ** 2) / c


def gradients(net: MuPNet, xi: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The chain-rule gradients of Sec. 2.1: ∂F/∂U = W^T V ξ^T, ∂F/∂W = V ξ^T U^T, ∂F/∂V = W U ξ."""
    WtV = torch.bmm(net.W.transpose(1, 2), net.V[:, :, None])
    Uxi = torch.bmm(net.U, xi[:, :, None])
    return (
        WtV * xi[:, None, :],
        net.V[:, :, None] * Uxi.transpose(1, 2),
        torch.bmm(net.W, Uxi)[:, :, 0],
    )


LR_FACTORS = {"U": "m", "W": "1", "V": "1/m"}


def gd_step(net: MuPNet, M: Tensor, b: Tensor, tau: float) -> Tensor:
    """One GD step with the layer-wise learning rates τm, τ, τ/m, in place; returns λ before the step."""
    m = net.m
    WtV = torch.bmm(net.W.transpose(1, 2), net.V[:, :, None])  # (R, m, 1)
    lam = torch.bmm(net.U.transpose(1, 2), WtV)  # (R, d, 1)
    xi = torch.matmul(M, lam) - b[:, None]  # (R, d, 1)
    Uxi = torch.bmm(net.U, xi)  # (R, m, 1)
    WUxi = torch.bmm(net.W, Uxi)  # (R, m, 1)
    net.U.baddbmm_(WtV, xi.transpose(1, 2), alpha=-tau * m)
    net.W.baddbmm_(net.V[:, :, None], Uxi.transpose(1, 2), alpha=-tau)
    net.V.add_(WUxi[:, :, 0], alpha=-tau / m)
    return lam[:, :, 0]


@dataclass
class Trajectory:
    """What :func:`train` records at the steps ``k``: predictors λ (K, R, d), the mean square of the entries of
    V~ = mV, (1/m) Σ_i V~_i² (K, R), and snapshots of the network at the steps asked for."""

    k: np.ndarray
    lam: np.ndarray
    v_msq: np.ndarray
    snapshots: dict[int, MuPNet]


def train(
    net: MuPNet,
    data: Regression,
    tau: float,
    steps: int,
    every: int = 1,
    snapshot_at: tuple[int, ...] = (),
    chunk_bytes: int | None = 2**20,
) -> Trajectory:
    """Run ``steps`` GD steps of all networks (in place) on ``data``; record every ``every`` steps and at the end.

    On the CPU the repetitions are trained in chunks whose middle layers take about ``chunk_bytes`` (cache-sized
    batches are several times faster than one large batch); the result does not depend on the chunking."""
    if tau <= 0 or steps < 0 or every < 1:
        raise ValueError(
            f"tau = {tau}, steps = {steps}, every = {every}: need tau > 0, steps >= 0, every >= 1"
        )
    per_net = net.m * net.m * net.W.element_size()
    size = (
        net.reps
        if (chunk_bytes is None or net.W.is_cuda)
        else max(1, chunk_bytes // per_net)
    )
    if size < net.reps:
        parts = []
        for i in range(0, net.reps, size):
            sl = slice(i, i + size)
            sub = MuPNet(
                net.U[sl], net.W[sl], net.V[sl], None if net.Z is None else net.Z[sl]
            )
            parts.append(
                train(sub, data, tau, steps, every, snapshot_at, chunk_bytes=None)
            )
        snaps = {
            k: MuPNet(
                *(
                    torch.cat([getattr(p_.snapshots[k], f) for p_ in parts])
                    for f in ("U", "W", "V")
                ),
                None
                if net.Z is None
                else torch.cat([p_.snapshots[k].Z for p_ in parts]),
            )
            for k in snapshot_at
            if k <= steps
        }
        return Trajectory(
            k=parts[0].k,
            lam=np.concatenate([p_.lam for p_ in parts], axis=1),
            v_msq=np.concatenate([p_.v_msq for p_ in parts], axis=1),
            snapshots=snaps,
        )
    M, b = data.torch_moments(net.U.dtype, net.U.device)
    ks, lams, vs, snaps = [], [], [], {}
    for k in range(steps + 1):
        if k in snapshot_at:
            snaps[k] = net.clone()
        record = k % every == 0 or k == steps
        if record:
            ks.append(k)
            vs.append((net.m * (net.V**2).sum(1)).cpu().numpy())
        if k == steps:
            lams.append(predictor(net).cpu().numpy())
            break
        lam = gd_step(net, M, b, tau)
        if record:
            lams.append(lam.cpu().numpy())
    return Trajectory(
        k=np.array(ks), lam=np.array(lams), v_msq=np.array(vs), snapshots=snaps
    )


def scale_free(net: MuPNet) -> tuple[Tensor, Tensor, Tensor]:
    """The scale-free variables (2.3): U~ = U, W~ = m W − √m Z, V~ = m V (needs Z: ``keep_init=True``)."""
    if net.Z is None:
        raise ValueError(
            "the scale-free W~ needs Z = sqrt(m) W(0): initialize with keep_init=True"
        )
    m = net.m
    return net.U, m * net.W - m**0.5 * net.Z, m * net.V


def layer_kernels(net: MuPNet) -> tuple[Tensor, Tensor, Tensor]:
    """Each layer's contribution to the change of λ per unit step, η_l J_l J_l^T with η = (m, 1, 1/m):
    K_U = m ‖W^T V‖² I, K_W = ‖V‖² U^T U, K_V = (1/m) U^T W^T W U; each tends to I_d at initialization."""
    m, d = net.m, net.d
    WtV = torch.bmm(net.W.transpose(1, 2), net.V[:, :, None])[:, :, 0]
    eye = torch.eye(d, dtype=net.U.dtype, device=net.U.device)
    K_U = m * (WtV**2).sum(1)[:, None, None] * eye
    K_W = (net.V**2).sum(1)[:, None, None] * torch.bmm(net.U.transpose(1, 2), net.U)
    WU = torch.bmm(net.W, net.U)
    K_V = torch.bmm(WU.transpose(1, 2), WU) / m
    return K_U, K_W, K_V

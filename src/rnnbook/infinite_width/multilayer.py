"""The finite-width multi-layer linear network in μP (Chizat et al., Sec. 6), for any number L of middle layers.

    h(x) = V^T W_L ⋯ W_1 U x,    U ∈ R^{m×d},  W_l ∈ R^{m×m},  V ∈ R^m,

initialized as in Sec. 6 (scale-free U~(0), V~(0) with N(0, 1) entries, W~_l(0) = 0): U = U~,
W_l = Z_l/√m + W~_l/m, V = V~/m, and trained by GD with the layer-wise learning rates τm (U), τ (every W_l)
and τ/m (V). In the scale-free variables this is the update written in Sec. 6,

    U~ ← U~ − τ H_1^T ⋯ H_L^T V~ ξ^T,   W~_l ← W~_l − τ (H_{l+1}^T ⋯ H_L^T V~)(H_{l-1} ⋯ H_1 U~ ξ)^T,
    V~ ← V~ − τ H_L ⋯ H_1 U~ ξ,   H_l = Z_l/√m + W~_l/m,

and the predictor is λ = U^T W_1^T ⋯ W_L^T V. L = 1 is the three-layer network of
:mod:`~rnnbook.infinite_width.deep_linear`; Sec. 6.2 is L = 2. Batched over a leading dimension of ``R``
independent networks (torch, float64), on the device given to :func:`init_multilayer` (the draws
are made on a CPU generator and moved there, so that every device trains the same networks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import torch
from torch import Tensor

from .regression import Regression


@dataclass
class MultiNet:
    """A batch of ``R`` width-``m`` networks: U (R, m, d), the middle layers Ws[l] (R, m, m), V (R, m)."""

    U: Tensor
    Ws: list[Tensor]
    V: Tensor

    @property
    def m(self) -> int:
        return self.U.shape[1]


def init_multilayer(
    m: int, d: int, L: int, reps: int, seed: int, device: str = "cpu"
) -> MultiNet:
    """Sec. 6 initialization in μP: U = U~(0), W_l = Z_l/√m, V = V~(0)/m, all entries i.i.d. N(0, 1),
    drawn on a CPU generator and moved to ``device``."""
    if min(m, d, L, reps) < 1:
        raise ValueError(f"m = {m}, d = {d}, L = {L}, reps = {reps}: must be positive")
    g = torch.Generator(device="cpu").manual_seed(seed)

    def rn(*shape: int) -> Tensor:
        return torch.randn(*shape, generator=g, dtype=torch.float64, device="cpu")

    U = rn(reps, m, d).to(device)
    Ws = [(rn(reps, m, m) / m**0.5).to(device) for _ in range(L)]
    V = (rn(reps, m) / m).to(device)
    return MultiNet(U, Ws, V)


def _backward(net: MultiNet) -> list[Tensor]:
    """b[l] = W_{l+1}^T ⋯ W_L^T V (R, m, 1) for l = 0..L (b[L] = V)."""
    b = [net.V[:, :, None]]
    for W in reversed(net.Ws):
        b.append(torch.bmm(W.transpose(1, 2), b[-1]))
    return b[::-1]


def predictor(net: MultiNet) -> Tensor:
    """λ = U^T W_1^T ⋯ W_L^T V, shape (R, d)."""
    return torch.bmm(net.U.transpose(1, 2), _backward(net)[0])[:, :, 0]


def gd_step(net: MultiNet, M: Tensor, b: Tensor, tau: float) -> Tensor:
    """One GD step with learning rates τm, τ, ..., τ, τ/m, in place (all gradients at the old weights);
    returns λ before the step. ξ = M λ − b."""
    m = net.m
    back = _backward(net)
    lam = torch.bmm(net.U.transpose(1, 2), back[0])  # (R, d, 1)
    xi = torch.matmul(M, lam) - b[:, None]
    fwd = [torch.bmm(net.U, xi)]  # f[l] = W_l ⋯ W_1 U ξ
    for W in net.Ws:
        fwd.append(torch.bmm(W, fwd[-1]))
    net.U.baddbmm_(back[0], xi.transpose(1, 2), alpha=-tau * m)
    for l, W in enumerate(net.Ws):
        W.baddbmm_(back[l + 1], fwd[l].transpose(1, 2), alpha=-tau)
    net.V.add_(fwd[-1][:, :, 0], alpha=-tau / m)
    return lam[:, :, 0]


def train(net: MultiNet, data: Regression, tau: float, steps: int) -> np.ndarray:
    """Run ``steps`` GD steps in place, on the networks' device; the predictors λ(k) for
    k = 0..steps, shape (steps + 1, R, d), as a numpy array."""
    if tau <= 0 or steps < 0:
        raise ValueError(f"tau = {tau}, steps = {steps}: need tau > 0, steps >= 0")
    M, b = data.torch_moments(device=net.U.device)
    lams = [gd_step(net, M, b, tau) for _ in range(steps)]
    return torch.stack(lams + [predictor(net)]).cpu().numpy()


@dataclass
class WidthStudy:
    """‖λ^m(k) − λ^∞(k)‖ for every width (axis 0), step k = 0..K (axis 1) and network (axis 2)."""

    widths: list[int]
    errors: np.ndarray
    limit_lam: np.ndarray  # (K + 1, d)
    finite_lam: dict  # width -> λ^m(k) of the first network, (K + 1, d)

    def fit(self, k: int):
        """Power-law fit of the mean error at step k against the width (rnnbook.stats)."""
        from ..stats import power_law_fit

        return power_law_fit(self.widths, self.errors[:, k, :])


def width_study(
    data: Regression,
    L: int,
    tau: float,
    steps: int,
    widths: list[int],
    reps: int,
    seed: int,
    max_len: int,
    device: str = "cpu",
) -> WidthStudy:
    """Train ``reps`` networks per width (seed ``seed + width``, on ``device``) and the limit (6.5)
    on paths of at most ``max_len`` moves, and record the distance of every predictor path to the
    limit's."""
    from .multilayer_limit import train as train_limit

    lim = train_limit(data, L, tau, steps, max_len).lam
    errors, first = [], {}
    for m in widths:
        net = init_multilayer(m, data.d, L, reps, seed + m, device=device)
        lam = train(net, data, tau, steps)
        errors.append(np.linalg.norm(lam - lim[:, None, :], axis=-1))
        first[m] = lam[:, 0, :]
    return WidthStudy(list(widths), np.array(errors), lim, first)


def rate_values(study: WidthStudy) -> dict:
    """The measured values of the rate claim: fitted exponents at k = 0 and k = K."""
    f0, fK = study.fit(0), study.fit(study.errors.shape[1] - 1)
    return {
        "slope0": f0.slope,
        "ci0": [round(x, 3) for x in f0.ci95],
        "slope": fK.slope,
        "ci": [round(x, 3) for x in fK.ci95],
        "means": [round(float(x), 4) for x in fK.means],
    }

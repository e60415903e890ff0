"""The linear RNN of Emami et al., *Implicit Bias of Linear RNNs*, Eq. (1), with the initialization (4).

h_t = W h_{t-1} / sqrt(n) + F x_t,    y_t = C h_t / sqrt(n),    h_{-1} = 0.
"""

from __future__ import annotations

import torch
from torch import Tensor

from rnnbook import device as _device

Params = dict[str, Tensor]


def init_params(
    n: int,
    n_x: int,
    n_y: int,
    nu_W: float,
    nu_F: float,
    nu_C: float,
    seed: int,
    dtype: torch.dtype = torch.float64,
    batch: int | None = None,
    device: str = "cpu",
) -> Params:
    """Eq. (4): W_ij ~ N(0, nu_W), F_ij ~ N(0, nu_F), C_ki ~ N(0, nu_C), i.i.d., drawn from ``seed``.

    With ``batch = B`` every tensor gets a leading axis of ``B`` independent draws (one generator).
    The draws are made on a CPU generator and moved to ``device``: the same networks on every device.
    """
    for name, value in (("n", n), ("n_x", n_x), ("n_y", n_y)):
        if not isinstance(value, int) or value < 1:
            raise ValueError(f"{name} = {value!r}: must be a positive integer")
    for name, value in (("nu_W", nu_W), ("nu_F", nu_F), ("nu_C", nu_C)):
        if not value > 0:
            raise ValueError(f"{name} = {value!r}: must be a positive variance")
    if batch is not None and (not isinstance(batch, int) or batch < 1):
        raise ValueError(f"batch = {batch!r}: must be a positive integer or None")
    g = _device.generator(seed)
    b = () if batch is None else (batch,)
    D = torch.float64  # drawn in float64 and cast: the same networks in every ``dtype``

    def draw(*shape: int, var: float) -> Tensor:
        x = torch.randn(*b, *shape, generator=g, dtype=D, device="cpu") * var**0.5
        return x.to(dtype).to(device)

    return {
        "W": draw(n, n, var=nu_W),
        "F": draw(n, n_x, var=nu_F),
        "C": draw(n_y, n, var=nu_C),
    }


def forward(params: Params, x: Tensor) -> Tensor:
    """Eq. (1) on inputs ``x`` of shape ``(..., T, n_x)``; returns ``y`` of shape ``(..., T, n_y)``."""
    W, F, C = params["W"], params["F"], params["C"]
    n = W.shape[0]
    h = torch.zeros(*x.shape[:-2], n, dtype=W.dtype, device=W.device)
    ys = []
    for t in range(x.shape[-2]):
        h = h @ W.T / n**0.5 + x[..., t, :] @ F.T
        ys.append(h @ C.T / n**0.5)
    return torch.stack(ys, dim=-2)


def impulse_response(params: Params, T: int) -> Tensor:
    """Eq. (9): L_j = C W^j F / n^{(j+1)/2}, j = 0..T-1; shape ``(..., T, n_y, n_x)`` for parameters
    with leading batch axes ``...`` (``W`` of shape ``(..., n, n)``)."""
    W, F, C = params["W"], params["F"], params["C"]
    n = W.shape[-1]
    out, v = [], F / n**0.5
    for _ in range(T):
        out.append(C @ v)
        v = W @ v / n**0.5
    return torch.stack(out, dim=-3)

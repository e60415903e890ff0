"""The networks of Herranz-Celotti & Rouat, Sec. II-E and App. H, with their default initializations.

* :class:`FFN`: ``h_l = a(W_l h_{l-1} + b_l)``, 30 layers of width 128, ReLU, sin or cos, Glorot or He.
* :class:`SimpleRNNCell`: ``h_{t,l} = a(W_rec h_{t-1,l} + W_in u + b)``, a = sigmoid (sigma-RNN) or ReLU (Swish on PTB);
  W_in Glorot uniform, W_rec orthogonal, b Glorot uniform.
* :class:`GRUCell` (Eq. 48) and :class:`LSTMCell` (Eq. 47, state [c, h]): W Glorot uniform, U orthogonal, b zero.
* :class:`ALIFCell` (Eq. 49, state [y, theta]): spikes ``x = H(y - theta)`` with the fast-sigmoid surrogate
  ``dH/dv = gamma / (1 + |omega v|)^2`` (gamma = 0.5, omega = 1); ALIF+ (beta > 0) and ALIF+- (beta centred at 0).
* :class:`LRUCell` (Eqs. 50-51): ``x_k = Lambda x_{k-1} + exp(gamma_log) * (B u_k)``, ``y_k = Re(C x_k) + D u_k``,
  inside the block layer norm -> LRU -> GeLU -> dropout -> GLU -> dropout -> + skip, with an exterior dropout.

Every cell is a :class:`rnnbook.lsc.pretrain.Cell`, so :func:`rnnbook.lsc.lsc_pretrain_` works on all of them.
"""

from __future__ import annotations

import functools
import math

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .stack import Cell, StackedRNN, Transition, batched_jacobian

RNN_KINDS = ("sigma_rnn", "relu_rnn", "gru", "lstm", "alif_plus", "alif_pm")
RNN_LABELS = {
    "sigma_rnn": "σ-RNN",
    "relu_rnn": "ReLU-RNN",
    "gru": "GRU",
    "lstm": "LSTM",
    "alif_plus": "ALIF+",
    "alif_pm": "ALIF±",
    "lru": "LRU",
}
DIFFERENTIABLE = ("sigma_rnn", "relu_rnn", "gru", "lstm")


# ---- initializers (seeded by a torch.Generator) ----------------------------------------------------------------


def glorot_uniform(n_out: int, n_in: int, g: torch.Generator) -> Tensor:
    """U(-a, a) with a = sqrt(6 / (n_in + n_out)) (Glorot & Bengio)."""
    a = math.sqrt(6.0 / (n_in + n_out))
    return (torch.rand(n_out, n_in, generator=g) * 2 - 1) * a


def he_normal(n_out: int, n_in: int, g: torch.Generator) -> Tensor:
    """N(0, 2 / n_in) (He et al.)."""
    return torch.randn(n_out, n_in, generator=g) * math.sqrt(2.0 / n_in)


def orthogonal(n: int, g: torch.Generator) -> Tensor:
    """A Haar-random orthogonal n x n matrix (QR of a Gaussian matrix with the signs of diag(R) fixed)."""
    q, r = torch.linalg.qr(torch.randn(n, n, generator=g))
    return q * torch.sign(torch.diagonal(r))[None, :]


def stacked(blocks: list[Tensor], chunks: int) -> nn.Parameter:
    """Gate matrices stored as one parameter; marked so that shuffling stays within each gate's block."""
    p = nn.Parameter(torch.cat(blocks, 0))
    p.lsc_chunks = chunks
    return p


def truncated_normal_positive(
    n: int, mean: float, std: float, g: torch.Generator
) -> Tensor:
    """N(mean, std) truncated to positive values (resampling the non-positive draws)."""
    x = mean + std * torch.randn(n, generator=g)
    for _ in range(100):
        bad = x <= 0
        if not bad.any():
            break
        x[bad] = mean + std * torch.randn(int(bad.sum()), generator=g)
    return x.clamp_min(1e-6)


def spike(v: Tensor, gamma: float = 0.5, omega: float = 1.0) -> Tensor:
    """Heaviside H(v) forward, fast-sigmoid derivative ``gamma / (1 + |omega v|)^2`` backward (App. H).

    Written as ``H(v) + G(v) - stop_gradient(G(v))`` with ``G(v) = (gamma/omega) omega v / (1 + |omega v|)``, whose
    derivative is the surrogate; this works under ``vmap``/``jacrev`` without a custom autograd function."""
    G = (gamma / omega) * (omega * v) / (1 + (omega * v).abs())
    return (v > 0).to(v.dtype) + (G - G.detach())


ALIF_THRESHOLDS = ("code", "printed")


def threshold_input(a_th: Tensor, drive: Tensor, form: str) -> Tensor:
    """What enters the ALIF threshold at a step, ``drive = b_theta + beta x``: scaled by
    ``1 - alpha_theta`` in the authors' code (``"code"``), unscaled in Eq. (49) as printed."""
    return (1 - a_th) * drive if form == "code" else drive


# ---- recurrent cells -----------------------------------------------------------------------------------------


class SimpleRNNCell(Cell):
    """sigma-RNN / ReLU-RNN (Swish for PTB): h = a(W_rec h + W_in u + b)."""

    input_params = ("W_in",)
    recurrent_params = ("W_rec",)
    ACTS = {"sigmoid": torch.sigmoid, "relu": F.relu, "swish": F.silu}

    def __init__(self, n_in: int, n: int, act: str, g: torch.Generator) -> None:
        super().__init__()
        if act not in self.ACTS:
            raise ValueError(f"act = {act!r}: must be one of {tuple(self.ACTS)}")
        self.act_name, self.state_size = act, n
        self.W_in = nn.Parameter(glorot_uniform(n, n_in, g))
        self.W_rec = nn.Parameter(orthogonal(n, g))
        self.b = nn.Parameter(
            glorot_uniform(1, n, g)[0] * math.sqrt((1 + n) / (2 * n))
        )  # Keras: a = sqrt(3/n)

    def inp(self, u: Tensor) -> Tensor:
        return F.linear(u, self.W_in, self.b)

    def rec(self, h: Tensor, a: Tensor) -> Tensor:
        return self.ACTS[self.act_name](F.linear(h, self.W_rec) + a)


class GRUCell(Cell):
    """Eq. (48): z, r = sigmoid(W x + U h + b); h_hat = tanh(W_h x + U_h (r * h) + b_h); h = (1-z) h + z h_hat."""

    input_params = ("W",)
    recurrent_params = ("U",)

    def __init__(self, n_in: int, n: int, g: torch.Generator) -> None:
        super().__init__()
        self.state_size, self.n = n, n
        self.W = stacked([glorot_uniform(n, n_in, g) for _ in range(3)], 3)
        self.U = stacked([orthogonal(n, g) for _ in range(3)], 3)
        self.b = nn.Parameter(torch.zeros(3 * n))

    def inp(self, u: Tensor) -> Tensor:
        return F.linear(u, self.W, self.b)

    def rec(self, h: Tensor, wx: Tensor) -> Tensor:
        n = self.n
        Uz, Ur, Uh = self.U[:n], self.U[n : 2 * n], self.U[2 * n :]
        z = torch.sigmoid(wx[..., :n] + F.linear(h, Uz))
        r = torch.sigmoid(wx[..., n : 2 * n] + F.linear(h, Ur))
        h_hat = torch.tanh(wx[..., 2 * n :] + F.linear(r * h, Uh))
        return (1 - z) * h + z * h_hat


class LSTMCell(Cell):
    """Eq. (47), with the state [c, h] concatenated (Sec. II-E); passes h up."""

    input_params = ("W",)
    recurrent_params = ("U",)

    def __init__(self, n_in: int, n: int, g: torch.Generator) -> None:
        super().__init__()
        self.n, self.state_size = n, 2 * n
        self.W = stacked([glorot_uniform(n, n_in, g) for _ in range(4)], 4)
        self.U = stacked([orthogonal(n, g) for _ in range(4)], 4)
        self.b = nn.Parameter(torch.zeros(4 * n))

    def inp(self, u: Tensor) -> Tensor:
        return F.linear(u, self.W, self.b)

    def rec(self, state: Tensor, wx: Tensor) -> Tensor:
        n = self.n
        c, h = state[..., :n], state[..., n:]
        a = wx + F.linear(h, self.U)
        i, f, o = (
            torch.sigmoid(a[..., :n]),
            torch.sigmoid(a[..., n : 2 * n]),
            torch.sigmoid(a[..., 2 * n : 3 * n]),
        )
        c_new = f * c + i * torch.tanh(a[..., 3 * n :])
        return torch.cat([c_new, o * torch.tanh(c_new)], -1)

    def out(self, state: Tensor, u: Tensor) -> Tensor:
        return state[..., self.n :]


class ALIFCell(Cell):
    """Eq. (49), state [y, theta]; passes the spikes x = H(y - theta) up.

    y_t = alpha_y y_{t-1} + W_rec x_{t-1} + W_in u_t + b_y - theta_{t-1} x_{t-1},
    theta_t = alpha_theta theta_{t-1} + (1 - alpha_theta) (b_theta + beta x_{t-1}),  alpha = exp(-1/tau).
    The factor (1 - alpha_theta) is the authors' code's (threshold b_theta + beta a with the spike trace
    a_t = alpha_theta a_{t-1} + (1 - alpha_theta) x_{t-1}, the LSNN form for which Tab. S1's b_theta = 0.01 and
    beta = 1.8 are chosen); Eq. (49) as printed omits it (``threshold="printed"``), and then each spike raises
    the threshold by ~1.8 for ~tau_theta steps and ALIF+ falls silent (see the errata).
    Initial tau_y, tau_theta, b_theta, beta: truncated Gaussians of mean mu and std 3 mu / 7 (App. H, Tab. S1);
    ALIF+- draws beta from N(0, mu / n_in). b_y = 0, not trained. Initial state 0."""

    input_params = ("W_in", "b_th", "beta")
    recurrent_params = ("W_rec", "tau_y", "tau_th")

    def __init__(
        self,
        n_in: int,
        n: int,
        g: torch.Generator,
        beta_sign: str = "plus",
        tau_y: float = 0.1,
        tau_th: float = 100.0,
        b_th: float = 0.01,
        beta: float = 1.8,
        gamma: float = 0.5,
        omega: float = 1.0,
        threshold: str = "code",
    ) -> None:
        super().__init__()
        if beta_sign not in ("plus", "pm"):
            raise ValueError(
                f"beta_sign = {beta_sign!r}: must be 'plus' (ALIF+) or 'pm' (ALIF+-)"
            )
        if threshold not in ALIF_THRESHOLDS:
            raise ValueError(
                f"threshold = {threshold!r}: must be one of {ALIF_THRESHOLDS}"
            )
        self.threshold = threshold
        self.n, self.state_size, self.gamma, self.omega = n, 2 * n, gamma, omega
        self.W_in = nn.Parameter(glorot_uniform(n, n_in, g))
        self.W_rec = nn.Parameter(glorot_uniform(n, n, g))
        self.register_buffer("b_y", torch.zeros(n))
        tn = lambda mu: truncated_normal_positive(n, mu, 3 * mu / 7, g)  # noqa: E731
        self.tau_y, self.tau_th, self.b_th = (
            nn.Parameter(tn(tau_y)),
            nn.Parameter(tn(tau_th)),
            nn.Parameter(tn(b_th)),
        )
        self.beta = nn.Parameter(
            tn(beta)
            if beta_sign == "plus"
            else torch.randn(n, generator=g) * beta / n_in
        )

    def spikes(self, state: Tensor) -> Tensor:
        return spike(
            state[..., : self.n] - state[..., self.n :], self.gamma, self.omega
        )

    def inp(self, u: Tensor) -> Tensor:
        return F.linear(u, self.W_in) + self.b_y

    def rec(self, state: Tensor, a: Tensor) -> Tensor:
        y, th = state[..., : self.n], state[..., self.n :]
        x = self.spikes(state)
        a_y, a_th = (
            torch.exp(-1 / self.tau_y.clamp_min(1e-3)),
            torch.exp(-1 / self.tau_th.clamp_min(1e-3)),
        )
        y_new = a_y * y + F.linear(x, self.W_rec) + a - th * x
        th_new = a_th * th + threshold_input(
            a_th, self.b_th + self.beta * x, self.threshold
        )
        return torch.cat([y_new, th_new], -1)

    def out(self, state: Tensor, u: Tensor) -> Tensor:
        return self.spikes(state)


class LRUCell(Cell):
    """The LRU block (Eqs. 50-51): its state is the LRU's x (n_h complex numbers stored as [Re x, Im x]).

    Input: the residual stream s of the layer below. ``u = LN(drop_ext(s))``, ``x' = Lambda x + gamma (B u)``;
    the layer passes up ``drop_ext(s) + drop(GLU(drop(GeLU(Re(C x') + D u))))``.
    Initialization as App. H: |lambda| ~ U[0.5, 1], arg lambda ~ U[0, pi/10], gamma = sqrt(1 - |lambda|^2),
    Re/Im B ~ N(0, 1/n), Re/Im C ~ N(0, 1/(2 n_h)), D ~ N(0, 1)."""

    input_params = ("B_re", "B_im")
    recurrent_params = ()
    R_MAX = 0.9999

    def __init__(
        self,
        n: int,
        n_h: int,
        g: torch.Generator,
        dropout: float = 0.1,
        ext_dropout: float = 0.0,
        r_min: float = 0.5,
        r_max: float = 1.0,
        max_phase: float = math.pi / 10,
    ) -> None:
        super().__init__()
        self.n, self.n_h, self.state_size = n, n_h, 2 * n_h
        r = r_min + (r_max - r_min) * torch.rand(n_h, generator=g)
        r = r.clamp(1e-4, self.R_MAX)
        self.nu_log = nn.Parameter(torch.log(-torch.log(r)))
        self.theta = nn.Parameter(max_phase * torch.rand(n_h, generator=g))
        self.gamma_log = nn.Parameter(0.5 * torch.log(1 - r**2))
        self.B_re = nn.Parameter(torch.randn(n_h, n, generator=g) / math.sqrt(n))
        self.B_im = nn.Parameter(torch.randn(n_h, n, generator=g) / math.sqrt(n))
        self.C_re = nn.Parameter(torch.randn(n, n_h, generator=g) / math.sqrt(2 * n_h))
        self.C_im = nn.Parameter(torch.randn(n, n_h, generator=g) / math.sqrt(2 * n_h))
        self.D = nn.Parameter(torch.randn(n, generator=g))
        self.norm = nn.LayerNorm(n)
        self.glu = nn.Linear(n, 2 * n)
        with torch.no_grad():
            self.glu.weight.copy_(glorot_uniform(2 * n, n, g))
            self.glu.bias.zero_()
        self.drop, self.ext = nn.Dropout(dropout), nn.Dropout(ext_dropout)

    def radius(self) -> Tensor:
        return torch.exp(-torch.exp(self.nu_log))

    def step(self, h: Tensor, s: Tensor) -> Tensor:
        nh = self.n_h
        xr, xi = h[..., :nh], h[..., nh:]
        u = self.norm(self.ext(s))
        r, th, gam = self.radius(), self.theta, torch.exp(self.gamma_log)
        lr, li = r * torch.cos(th), r * torch.sin(th)
        new_r = lr * xr - li * xi + gam * F.linear(u, self.B_re)
        new_i = li * xr + lr * xi + gam * F.linear(u, self.B_im)
        return torch.cat([new_r, new_i], -1)

    def out(self, h: Tensor, s: Tensor) -> Tensor:
        nh = self.n_h
        s_in = self.ext(s)
        u = self.norm(s_in)
        y = (
            F.linear(h[..., :nh], self.C_re)
            - F.linear(h[..., nh:], self.C_im)
            + self.D * u
        )
        z = self.drop(F.gelu(y))
        z = self.drop(F.glu(self.glu(z), -1))
        return s_in + z

    def sequence(self, h0: Tensor, S: Tensor) -> tuple[Tensor, Tensor]:
        """The whole sequence at once: the input maps are batched over time, only the diagonal recurrence
        ``x_k = Lambda x_{k-1} + gamma B u_k`` is stepped (one exterior-dropout mask for the layer norm and the skip)."""
        nh = self.n_h
        s_in = self.ext(S)
        u = self.norm(s_in)
        r, th, gam = self.radius(), self.theta, torch.exp(self.gamma_log)
        lr, li = r * torch.cos(th), r * torch.sin(th)
        bu_r, bu_i = gam * F.linear(u, self.B_re), gam * F.linear(u, self.B_im)
        xr, xi = h0[..., :nh], h0[..., nh:]
        hr, hi = [], []
        for t in range(S.shape[1]):
            xr, xi = lr * xr - li * xi + bu_r[:, t], li * xr + lr * xi + bu_i[:, t]
            hr.append(xr)
            hi.append(xi)
        Hr, Hi = torch.stack(hr, 1), torch.stack(hi, 1)
        y = F.linear(Hr, self.C_re) - F.linear(Hi, self.C_im) + self.D * u
        z = self.drop(F.glu(self.glu(self.drop(F.gelu(y))), -1))
        return torch.cat([Hr, Hi], -1), s_in + z

    @torch.no_grad()
    def lsc_scale(self, kind: str, kappa: float) -> None:
        """Depth: B times kappa. Time: the radii |lambda| times kappa (kept below 1), through nu_log."""
        if kind == "depth":
            self.B_re.mul_(kappa)
            self.B_im.mul_(kappa)
        else:
            r = (self.radius() * kappa).clamp(1e-4, self.R_MAX)
            self.nu_log.copy_(torch.log(-torch.log(r)))


# ---- networks ------------------------------------------------------------------------------------------------


class TiedDecoder(nn.Module):
    """Logits as the last layer's output times the (shared) embedding matrix (App. G, PTB)."""

    def __init__(self, embedding: nn.Embedding) -> None:
        super().__init__()
        self.embedding = embedding

    def forward(self, z: Tensor) -> Tensor:
        return F.linear(z, self.embedding.weight)


def _drawn_on_cpu(build):
    """A network builder whose tensors are made on the CPU, whatever the default device: the
    weights are drawn on the CPU generator (the same on every device) and moved by the caller."""

    @functools.wraps(build)
    def on_cpu(*args, **kw):
        with torch.device("cpu"):
            return build(*args, **kw)

    return on_cpu


@_drawn_on_cpu
def make_rnn(
    kind: str,
    depth: int,
    n_in: int,
    width: int,
    n_out: int,
    seed: int,
    vocab: int | None = None,
    alif: dict | None = None,
) -> StackedRNN:
    """One of the six RNNs of Fig. 3, ``depth`` layers of ``width`` neurons (App. G keeps the width of L = 2 when
    the depth changes). With ``vocab``: an embedding of dimension ``n_in`` feeds the first layer and the output
    is tied to it (then the last layer's output must have width ``n_in``: it gets width ``n_in``)."""
    if kind not in RNN_KINDS:
        raise ValueError(f"kind = {kind!r}: must be one of {RNN_KINDS}")
    if depth < 1 or width < 1:
        raise ValueError("depth and width must be >= 1")
    g = torch.Generator().manual_seed(seed)
    cells, m = [], n_in
    for l in range(depth):
        n = n_in if (vocab and l == depth - 1) else width
        if kind in ("sigma_rnn", "relu_rnn"):
            act = "sigmoid" if kind == "sigma_rnn" else ("swish" if vocab else "relu")
            cells.append(SimpleRNNCell(m, n, act, g))
        elif kind == "gru":
            cells.append(GRUCell(m, n, g))
        elif kind == "lstm":
            cells.append(LSTMCell(m, n, g))
        else:
            cells.append(
                ALIFCell(
                    m, n, g, "plus" if kind == "alif_plus" else "pm", **(alif or {})
                )
            )
        m = n
    encoder = readout = None
    if vocab:
        encoder = nn.Embedding(vocab, n_in)
        with torch.no_grad():
            encoder.weight.copy_(
                torch.randn(vocab, n_in, generator=g) / math.sqrt(n_in)
            )
        readout = TiedDecoder(encoder)
    else:
        readout = nn.Linear(m, n_out, bias=kind not in ("alif_plus", "alif_pm"))
        with torch.no_grad():
            readout.weight.copy_(glorot_uniform(n_out, m, g))
            if readout.bias is not None:
                readout.bias.zero_()
    return StackedRNN(cells, readout, encoder)


@_drawn_on_cpu
def make_lru(
    depth: int,
    vocab: int,
    width: int,
    seed: int,
    n_h: int | None = None,
    dropout: float = 0.1,
    ext_dropout: float = 0.0,
) -> StackedRNN:
    """The LRU language model of Sec. III-D: embedding -> ``depth`` LRU blocks -> tied output."""
    g = torch.Generator().manual_seed(seed)
    cells = [
        LRUCell(width, n_h or width, g, dropout, ext_dropout) for _ in range(depth)
    ]
    emb = nn.Embedding(vocab, width)
    with torch.no_grad():
        emb.weight.copy_(torch.randn(vocab, width, generator=g) / math.sqrt(width))
    return StackedRNN(cells, TiedDecoder(emb), emb)


class FFN(nn.Module):
    """The deep feed-forward nets of Fig. 2: ``h_l = a(W_l h_{l-1} + b_l)``, l = 1..depth, then a linear readout.

    ``init``: ``glorot`` (uniform) or ``he`` (normal); biases zero. Its transition derivatives are
    ``dh_l/dh_{l-1}`` (kind ``depth``); the multiplier scales W_l."""

    ACTS = {"relu": F.relu, "sin": torch.sin, "cos": torch.cos}

    def __init__(
        self,
        n_in: int = 784,
        width: int = 128,
        depth: int = 30,
        n_out: int = 10,
        act: str = "relu",
        init: str = "glorot",
        seed: int = 0,
    ) -> None:
        super().__init__()
        if act not in self.ACTS:
            raise ValueError(f"act = {act!r}: must be one of {tuple(self.ACTS)}")
        if init not in ("glorot", "he"):
            raise ValueError(f"init = {init!r}: must be 'glorot' or 'he'")
        g = torch.Generator().manual_seed(seed)
        self.act_name, self.depth = act, depth
        draw = glorot_uniform if init == "glorot" else he_normal
        self.layers = nn.ModuleList()
        for l in range(depth):
            lin = nn.Linear(n_in if l == 0 else width, width)
            with torch.no_grad():
                lin.weight.copy_(draw(width, lin.in_features, g))
                lin.bias.zero_()
            self.layers.append(lin)
        self.readout = nn.Linear(width, n_out)
        with torch.no_grad():
            self.readout.weight.copy_(draw(n_out, width, g))
            self.readout.bias.zero_()

    def hidden(self, x: Tensor) -> list[Tensor]:
        hs, h = [x], x
        act = self.ACTS[self.act_name]
        for lin in self.layers:
            h = act(lin(h))
            hs.append(h)
        return hs

    def forward(self, x: Tensor) -> Tensor:
        return self.readout(self.hidden(x)[-1])

    def lsc_jacobians(
        self,
        x: Tensor,
        n_times=None,
        generator=None,
        include_input: bool = True,
        mode: str = "rev",
        trace=None,
    ) -> list[Transition]:
        with torch.no_grad():
            hs = self.hidden(x)
        act = self.ACTS[self.act_name]
        out = []
        for l, lin in enumerate(self.layers):
            if l == 0 and not include_input:
                continue
            out.append(
                Transition(
                    l + 1,
                    "depth",
                    batched_jacobian(
                        lambda h, lin=lin: act(lin(h)), hs[l].detach(), mode=mode
                    ),
                )
            )
        return out

    @torch.no_grad()
    def lsc_scale(self, layer: int, kind: str, kappa: float) -> None:
        self.layers[layer - 1].weight.mul_(kappa)

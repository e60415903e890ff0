"""The stacked recurrent network of Eq. (1) of Herranz-Celotti & Rouat (Sec. II-A) and its transition
derivatives (Sec. II-D): a layer is a :class:`Cell`, a network a :class:`StackedRNN`, and
:meth:`StackedRNN.lsc_jacobians` evaluates the time and depth derivatives M_k at sampled points of a batch,
batched with ``torch.func`` (:func:`batched_jacobian`), as the :class:`Transition` s that
:func:`rnnbook.lsc.pretrain.lsc_pretrain_` pre-trains.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal, Sequence

import torch
from torch import Tensor, nn
from torch.func import jacfwd, jacrev, vmap

from .spectral import spectral_radius

Kind = Literal["time", "depth"]
KINDS: tuple[str, ...] = ("time", "depth")


# --------------------------------------------------------------------------------------------------------------
# Jacobians and radii
# --------------------------------------------------------------------------------------------------------------


def batched_jacobian(
    f: Callable[..., Tensor], *args: Tensor, argnum: int = 0, mode: str = "rev"
) -> Tensor:
    """d f / d args[argnum] for each sample of a batch: ``vmap(jacrev(f))`` (or ``jacfwd``).

    ``f`` maps one sample (unbatched tensors) to a vector; every arg has a leading batch dimension. Tensors that
    ``f`` captures (the model's parameters) stay in the autograd graph, so the result can be differentiated.
    """
    if mode not in ("rev", "fwd"):
        raise ValueError(f"mode = {mode!r}: must be 'rev' or 'fwd'")
    jac = jacrev if mode == "rev" else jacfwd
    return vmap(jac(f, argnums=argnum))(*args)


@dataclass
class Transition:
    """A family of transition derivatives M_k of one layer and kind, at S sampled points: ``M`` is (S, n, m)."""

    layer: int  # 1-based, as the paper's l
    kind: str  # "time" or "depth"
    M: Tensor

    def radii(self, nonsquare: str = "pad") -> Tensor:
        return spectral_radius(self.M, nonsquare)


# --------------------------------------------------------------------------------------------------------------
# Stacked recurrent networks (Eq. 1) made of cells
# --------------------------------------------------------------------------------------------------------------


class Cell(nn.Module):
    """One recurrent layer: ``h_{t,l} = step(h_{t-1,l}, u_{t,l})`` with ``u_{t,l} = out_{l-1}(h_{t,l-1}, u_{t,l-1})``.

    ``h`` is the concatenation of all the layer's hidden states (LSTM: [c, h]; ALIF: [y, theta]); ``out`` is what
    the layer passes up (default: the state itself). Methods must accept unbatched (1-D) tensors, for ``vmap``.
    ``input_params`` / ``recurrent_params`` name the tensors that the depth / time multiplier kappa scales.
    A parameter may carry an int attribute ``lsc_chunks``: it is then shuffled within each of that many
    row-blocks (e.g. the four gates of an LSTM stored in one matrix); a cell may say so instead by
    overriding :meth:`lsc_chunks` (the adapters of :mod:`rnnbook.lsc.adapters` do, so that a user's
    module is left untouched).
    """

    state_size: int
    input_params: tuple[str, ...] = ()
    recurrent_params: tuple[str, ...] = ()

    def initial_state(self, batch: int, dtype=torch.float32, device=None) -> Tensor:
        return torch.zeros(batch, self.state_size, dtype=dtype, device=device)

    def step(self, h: Tensor, u: Tensor) -> Tensor:
        """One step of Eq. (1). Default: ``rec(h, inp(u))``; a cell defines either ``step`` or ``inp`` and ``rec``."""
        return self.rec(h, self.inp(u))

    def inp(self, u: Tensor) -> Tensor:
        """The part of the step that only sees the input (computed for all time steps at once in ``sequence``)."""
        return u

    def rec(self, h: Tensor, a: Tensor) -> Tensor:  # pragma: no cover - abstract
        raise NotImplementedError

    def out(self, h: Tensor, u: Tensor) -> Tensor:
        return h

    def sequence(self, h0: Tensor, U: Tensor) -> tuple[Tensor, Tensor]:
        """Run the layer over a whole input sequence U (B, T, m): returns the states (B, T, n) and the outputs
        passed up (B, T, m'). Same result as stepping, with the input part batched over time."""
        if type(self).rec is Cell.rec:  # the cell defines only step()
            A, step = U, self.step
        else:
            A, step = self.inp(U), self.rec
        h, hs = h0, []
        for t in range(U.shape[1]):
            h = step(h, A[:, t])
            hs.append(h)
        H = torch.stack(hs, 1)
        return H, self.out(H, U)

    def lsc_chunks(self, name: str, p: Tensor) -> int:
        """The number of row-blocks the parameter ``name`` of this cell is shuffled within."""
        return int(getattr(p, "lsc_chunks", 1))

    @torch.no_grad()
    def lsc_scale(self, kind: str, kappa: float) -> None:
        """Multiply the input (``kind="depth"``) or recurrent (``kind="time"``) matrices by ``kappa``."""
        for name in self.input_params if kind == "depth" else self.recurrent_params:
            getattr(self, name).mul_(kappa)


@dataclass
class Trace:
    """What a forward pass of a :class:`StackedRNN` saw: per layer, the states ``H[l]`` (B, T, n_l) and the
    inputs ``U[l]`` (B, T, m_l) it received; and the initial states ``H0[l]`` (B, n_l)."""

    H: list[Tensor]
    U: list[Tensor]
    H0: list[Tensor]


class StackedRNN(nn.Module):
    """A stack of :class:`Cell` s with an optional encoder (e.g. an embedding) and a readout.

    ``forward(x)`` maps (B, T, ...) inputs to (B, T, n_out) outputs; with ``trace=True`` it also returns the
    :class:`Trace` used to evaluate the transition derivatives. Layer l reads layer l-1 at the same time step.
    """

    def __init__(
        self,
        cells: Sequence[Cell],
        readout: nn.Module,
        encoder: nn.Module | None = None,
        decoder: Callable[[Tensor], Tensor] | None = None,
    ) -> None:
        super().__init__()
        self.cells = nn.ModuleList(cells)
        self.readout = readout
        self.encoder = encoder
        self.decoder = decoder

    @property
    def depth(self) -> int:
        return len(self.cells)

    def encode(self, x: Tensor) -> Tensor:
        return x if self.encoder is None else self.encoder(x)

    def forward(self, x: Tensor, trace: bool = False):
        """Layer by layer over the whole sequence (exact, since layer l reads layer l-1 at the same time step)."""
        u_seq = self.encode(x)
        B = u_seq.shape[0]
        Hs, Us, H0 = [], [], []
        for cell in self.cells:
            h0 = cell.initial_state(B, u_seq.dtype, u_seq.device)
            H, out = cell.sequence(h0, u_seq)
            if trace:
                Hs.append(H)
                Us.append(u_seq)
                H0.append(h0)
            u_seq = out
        y = self.decoder(u_seq) if self.decoder is not None else self.readout(u_seq)
        if not trace:
            return y
        return y, Trace(Hs, Us, H0)

    # ---- the LSC interface ------------------------------------------------------------------------------------
    def lsc_jacobians(
        self,
        x: Tensor,
        n_times: int | None = None,
        generator: torch.Generator | None = None,
        include_input: bool = True,
        mode: str = "rev",
        trace: Trace | None = None,
    ) -> list[Transition]:
        """The time and depth transition derivatives of every layer at ``n_times`` random time steps of each
        sequence of the batch (all time steps if ``None``), evaluated batched at the states of a forward pass.

        The states are taken without gradient; the M_k keep their dependence on the parameters (through the
        cell equations), which is what the Eq. (2) loss differentiates."""
        was_training = self.training
        self.eval()  # no dropout inside vmap
        try:
            return self._lsc_jacobians(
                x, n_times, generator, include_input, mode, trace
            )
        finally:
            self.train(was_training)

    def _lsc_jacobians(
        self, x, n_times, generator, include_input, mode, trace
    ) -> list[Transition]:
        if trace is None:
            with torch.no_grad():
                _, trace = self(x, trace=True)
        B, T = trace.H[0].shape[:2]
        if n_times is None or n_times >= T:
            bi, ti = torch.meshgrid(
                torch.arange(B, device=x.device),
                torch.arange(T, device=x.device),
                indexing="ij",
            )
            bi, ti = bi.reshape(-1), ti.reshape(-1)
        else:  # the time steps are drawn on the CPU generator, whatever the device
            ti = torch.stack(
                [
                    torch.randperm(T, generator=generator, device="cpu")[:n_times]
                    for _ in range(B)
                ]
            ).reshape(-1)
            ti = ti.to(x.device)
            bi = torch.arange(B, device=x.device).repeat_interleave(n_times)
        out = []
        for l, cell in enumerate(self.cells):
            H, U = trace.H[l].detach(), trace.U[l].detach()
            prev = torch.cat([trace.H0[l].detach()[:, None], H[:, :-1]], 1)  # h_{t-1,l}
            h_prev, u = prev[bi, ti], U[bi, ti]
            out.append(
                Transition(
                    l + 1,
                    "time",
                    batched_jacobian(cell.step, h_prev, u, argnum=0, mode=mode),
                )
            )
            if l == 0:
                if include_input:
                    out.append(
                        Transition(
                            1,
                            "depth",
                            batched_jacobian(cell.step, h_prev, u, argnum=1, mode=mode),
                        )
                    )
                continue
            below = self.cells[l - 1]
            h_below, u_below = (
                trace.H[l - 1].detach()[bi, ti],
                trace.U[l - 1].detach()[bi, ti],
            )

            def f_depth(g, hp, ub, cell=cell, below=below):
                return cell.step(hp, below.out(g, ub))

            out.append(
                Transition(
                    l + 1,
                    "depth",
                    batched_jacobian(
                        f_depth, h_below, h_prev, u_below, argnum=0, mode=mode
                    ),
                )
            )
        return out

    def lsc_scale(self, layer: int, kind: str, kappa: float) -> None:
        self.cells[layer - 1].lsc_scale(kind, kappa)

    def lsc_shuffled(self, which: str) -> list[tuple[str, nn.Parameter, int]]:
        """The tensors the shuffle permutes, as (name, parameter, row-blocks), in the order of
        ``named_parameters``: ``"all"`` every learnable tensor (the paper's), ``"weights"`` the
        cells' matrices (no readout, encoder or bias), ``"none"`` nothing."""
        chunks, weights = {}, set()
        for cell in self.cells:
            for name, p in cell.named_parameters():
                chunks[id(p)] = cell.lsc_chunks(name, p)
                if p.ndim >= 2:
                    weights.add(id(p))
        return [
            (n, p, chunks.get(id(p), int(getattr(p, "lsc_chunks", 1))))
            for n, p in _learnable(self)
            if which == "all" or (which == "weights" and id(p) in weights)
        ]


def _learnable(model: nn.Module) -> list[tuple[str, nn.Parameter]]:
    return [
        (n, p) for n, p in model.named_parameters() if p.requires_grad and p.numel() > 1
    ]

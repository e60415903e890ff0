"""torch's recurrent modules, and a user's own cell, seen as the stacked RNN of Eq. (1) of
Herranz-Celotti & Rouat (Sec. II-A), so that :func:`rnnbook.lsc.pretrain.lsc_pretrain_` can measure
their transition derivatives and pre-train them in place.

An adapter holds the very ``Parameter`` objects of the module it reads (nothing is copied): the
multiplier and the shuffle of the pre-training change the module itself. It knows the module's gate
blocks, so that the shuffle permutes entries within a gate (torch stores the gates of a layer one
above the other: ``[r, z, n]`` for a GRU, ``[i, f, g, o]`` for an LSTM), and which matrices the
depth multiplier (``weight_ih``) and the time multiplier (``weight_hh``) scale.

* ``nn.RNN``, ``nn.GRU``, ``nn.LSTM`` (any ``num_layers``, with or without bias, ``batch_first``
  either way; not ``bidirectional``, not ``proj_size``) become one layer per torch layer; their
  cells ``nn.RNNCell``, ``nn.GRUCell``, ``nn.LSTMCell`` one layer each; a list, tuple,
  ``nn.ModuleList`` or ``nn.Sequential`` of any of these a stack (layer l reads layer l-1). The
  LSTM's state is ``[c, h]`` (Sec. II-E), and it passes ``h`` up.
* **A cell of one's own** is an ``nn.Module`` with

  - ``forward(x, h) -> h_new`` on a batch: ``x`` (B, n_in), ``h`` (B, state_size), as
    ``nn.RNNCell`` (for an LSTM-like cell, ``h`` is the whole state concatenated);
  - ``hidden_size`` (or ``state_size``): the width of ``h``;
  - ``lsc_input_params`` and ``lsc_recurrent_params``: the names of its parameters (as
    ``named_parameters`` gives them) that the depth and the time multiplier scale; an empty tuple
    turns that multiplier off for the cell;
  - optionally ``lsc_output(h) -> y``: what it passes to the layer above (default ``h``), and
    ``lsc_chunks``: ``{name: row-blocks}`` for tensors whose rows hold several gates.

  The cell must be differentiable twice in ``h`` and ``x`` (``torch.func`` takes the Jacobian of
  ``forward`` under ``vmap``, so no in-place writes to its inputs and no data-dependent Python
  control flow).
* A model that already has ``lsc_jacobians`` and ``lsc_scale`` (a
  :class:`~rnnbook.lsc.pretrain.StackedRNN`, :class:`~rnnbook.lsc.models.FFN`) is used as it is.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import Tensor, nn

from .stack import Cell, StackedRNN

#: gate blocks per torch mode
GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "GRU": 3, "LSTM": 4}

PROTOCOL = (
    "pass an nn.RNN, nn.GRU or nn.LSTM, one of their cells, a list or nn.Sequential of them, "
    "or a cell with forward(x, h) -> h_new, hidden_size, lsc_input_params and "
    "lsc_recurrent_params (see rnnbook.lsc.adapters)"
)


class TorchCell(Cell):
    """One layer of an ``nn.RNN``/``nn.GRU``/``nn.LSTM`` or one of their cells, on its own
    parameters (shared, not copied). The equations are torch's (see ``nn.GRU``'s documentation:
    the reset gate multiplies ``W_hn h + b_hn``)."""

    input_params = ("weight_ih",)
    recurrent_params = ("weight_hh",)

    def __init__(
        self,
        mode: str,
        weight_ih: nn.Parameter,
        weight_hh: nn.Parameter,
        bias_ih: nn.Parameter | None,
        bias_hh: nn.Parameter | None,
    ) -> None:
        super().__init__()
        self.mode, self.n = mode, weight_hh.shape[1]
        self.state_size = 2 * self.n if mode == "LSTM" else self.n
        self.weight_ih, self.weight_hh = weight_ih, weight_hh
        self.bias_ih, self.bias_hh = bias_ih, bias_hh

    def lsc_chunks(self, name: str, p: Tensor) -> int:
        return GATES[self.mode]

    def inp(self, u: Tensor) -> Tensor:
        return F.linear(u, self.weight_ih, self.bias_ih)

    def rec(self, h: Tensor, gi: Tensor) -> Tensor:
        n = self.n
        if self.mode == "LSTM":
            c, hh = h[..., :n], h[..., n:]
            a = gi + F.linear(hh, self.weight_hh, self.bias_hh)
            i, f, g, o = a.chunk(4, -1)
            c_new = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
            return torch.cat([c_new, torch.sigmoid(o) * torch.tanh(c_new)], -1)
        gh = F.linear(h, self.weight_hh, self.bias_hh)
        if self.mode == "GRU":
            r = torch.sigmoid(gi[..., :n] + gh[..., :n])
            z = torch.sigmoid(gi[..., n : 2 * n] + gh[..., n : 2 * n])
            cand = torch.tanh(gi[..., 2 * n :] + r * gh[..., 2 * n :])
            return (1 - z) * cand + z * h
        act = torch.tanh if self.mode == "RNN_TANH" else torch.relu
        return act(gi + gh)

    def out(self, h: Tensor, u: Tensor) -> Tensor:
        return h[..., self.n :] if self.mode == "LSTM" else h


class UserCell(Cell):
    """A cell of one's own (the protocol of the module docstring) as a layer."""

    def __init__(self, cell: nn.Module) -> None:
        super().__init__()
        self.cell = cell
        self.state_size = int(getattr(cell, "state_size", None) or cell.hidden_size)
        names = {n for n, _ in cell.named_parameters()}
        self.input_params = tuple(cell.lsc_input_params)
        self.recurrent_params = tuple(cell.lsc_recurrent_params)
        for name in (*self.input_params, *self.recurrent_params):
            if name not in names:
                raise ValueError(
                    f"{type(cell).__name__}.lsc_input_params / lsc_recurrent_params name "
                    f"{name!r}, not a parameter of the cell (its parameters: "
                    f"{', '.join(sorted(names)) or 'none'})"
                )

    def lsc_chunks(self, name: str, p: Tensor) -> int:
        chunks = getattr(self.cell, "lsc_chunks", None) or {}
        return int(chunks.get(name.removeprefix("cell."), getattr(p, "lsc_chunks", 1)))

    def step(self, h: Tensor, u: Tensor) -> Tensor:
        return self.cell(u[None], h[None])[0]

    def out(self, h: Tensor, u: Tensor) -> Tensor:
        f = getattr(self.cell, "lsc_output", None)
        return h if f is None else f(h)

    @torch.no_grad()
    def lsc_scale(self, kind: str, kappa: float) -> None:
        for name in self.input_params if kind == "depth" else self.recurrent_params:
            self.cell.get_parameter(name).mul_(kappa)


class _TimeFirst(nn.Module):
    """(T, B, ...) -> (B, T, ...): a module with ``batch_first=False`` reads time first."""

    def forward(self, x: Tensor) -> Tensor:
        return x.transpose(0, 1)


def _torch_layers(module: nn.RNNBase) -> list[Cell]:
    name = type(module).__name__
    if module.bidirectional:
        raise ValueError(
            f"{name}(bidirectional=True): the LSC's time transition runs one way; pre-train "
            "a unidirectional module (or each direction as its own module)"
        )
    if getattr(module, "proj_size", 0):
        raise ValueError(
            f"{name}(proj_size={module.proj_size}): projections are not read"
        )
    if module.mode not in GATES:
        raise ValueError(f"{name}: mode {module.mode!r} is not read")
    layers = []
    for k in range(module.num_layers):
        b = (
            (getattr(module, f"bias_ih_l{k}"), getattr(module, f"bias_hh_l{k}"))
            if module.bias
            else (None, None)
        )
        layers.append(
            TorchCell(
                module.mode,
                getattr(module, f"weight_ih_l{k}"),
                getattr(module, f"weight_hh_l{k}"),
                *b,
            )
        )
    return layers


def _torch_cell(cell: nn.RNNCellBase) -> Cell:
    if isinstance(cell, nn.RNNCell):
        mode = "RNN_TANH" if cell.nonlinearity == "tanh" else "RNN_RELU"
    elif isinstance(cell, nn.GRUCell):
        mode = "GRU"
    elif isinstance(cell, nn.LSTMCell):
        mode = "LSTM"
    else:
        raise TypeError(f"module: cannot read a {type(cell).__name__}; {PROTOCOL}")
    return TorchCell(mode, cell.weight_ih, cell.weight_hh, cell.bias_ih, cell.bias_hh)


def _is_user_cell(m: nn.Module) -> bool:
    return (
        (hasattr(m, "hidden_size") or hasattr(m, "state_size"))
        and hasattr(m, "lsc_input_params")
        and hasattr(m, "lsc_recurrent_params")
    )


def _layers(module, where: str) -> list[Cell]:
    if isinstance(module, Cell):
        return [module]
    if isinstance(module, nn.RNNBase):
        return _torch_layers(module)
    if isinstance(module, nn.RNNCellBase):
        return [_torch_cell(module)]
    if isinstance(module, (list, tuple, nn.ModuleList, nn.Sequential)):
        if len(module) == 0:
            raise ValueError(f"{where}: an empty stack")
        return [c for i, m in enumerate(module) for c in _layers(m, f"{where}[{i}]")]
    if isinstance(module, nn.Module) and _is_user_cell(module):
        return [UserCell(module)]
    missing = ""
    if isinstance(module, nn.Module):
        lacks = [
            a
            for a in ("hidden_size", "lsc_input_params", "lsc_recurrent_params")
            if not hasattr(module, a)
            and not (a == "hidden_size" and hasattr(module, "state_size"))
        ]
        missing = f" (it has no {', '.join(lacks)})"
    raise TypeError(
        f"{where}: cannot read a {type(module).__name__}{missing}; {PROTOCOL}, or a model "
        "with lsc_jacobians and lsc_scale"
    )


def as_lsc_model(module, batch_first: bool | None = None):
    """``module`` as a model with ``lsc_jacobians`` and ``lsc_scale`` (see the module docstring):
    itself if it has them, else a :class:`~rnnbook.lsc.pretrain.StackedRNN` of adapters that share
    its parameters. ``batch_first`` (default: the first torch module's own; True for cells) says
    whether the data are (B, T, n_in) or (T, B, n_in)."""
    if hasattr(module, "lsc_jacobians") and hasattr(module, "lsc_scale"):
        return module
    cells = _layers(module, "module")
    if batch_first is None:
        first = module
        while isinstance(first, (list, tuple, nn.ModuleList, nn.Sequential)):
            first = first[0]
        batch_first = first.batch_first if isinstance(first, nn.RNNBase) else True
    for i in range(1, len(cells)):
        below, cell = cells[i - 1], cells[i]
        n_up = below.n if isinstance(below, TorchCell) else None
        n_in = cell.weight_ih.shape[1] if isinstance(cell, TorchCell) else None
        if n_up is not None and n_in is not None and n_up != n_in:
            raise ValueError(
                f"module: layer {i + 1} reads {n_in} inputs but layer {i} passes {n_up} up"
            )
    return StackedRNN(cells, nn.Identity(), None if batch_first else _TimeFirst())

"""The library entry point ``rnnbook.lsc.lsc_pretrain_`` on a user's torch modules: the adapters
(torch's equations, shared parameters, gate blocks), the custom-cell protocol, the data it takes,
the report, the global random state, and the errors that name what to provide."""

import pytest
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

from rnnbook.lsc import Cell, LSCConfig, as_lsc_model, lsc_pretrain_, pretrain

N_IN, N = 3, 8


def data(B=4, T=6, seed=0, time_first=False):
    x = torch.randn(B, T, N_IN, generator=torch.Generator().manual_seed(seed))
    return x.transpose(0, 1) if time_first else x


def module_output(module, x):
    """The top layer's output of ``module`` over ``x``, by torch itself."""
    with torch.no_grad():
        if isinstance(module, nn.RNNBase):
            return module(x)[0]
        cells = list(module) if isinstance(module, (list, nn.Sequential)) else [module]
        u = x
        for c in cells:
            h = torch.zeros(x.shape[0], c.hidden_size)
            state = (h, h.clone()) if isinstance(c, nn.LSTMCell) else h
            ys = []
            for t in range(x.shape[1]):
                state = c(u[:, t], state)
                ys.append(state[0] if isinstance(c, nn.LSTMCell) else state)
            u = torch.stack(ys, 1)
        return u


MODULES = {
    "GRU": lambda: nn.GRU(N_IN, N, num_layers=2, batch_first=True),
    "LSTM time-first": lambda: nn.LSTM(N_IN, N, num_layers=2),
    "RNN relu no bias": lambda: nn.RNN(
        N_IN, N, 2, nonlinearity="relu", bias=False, batch_first=True
    ),
    "GRUCell": lambda: nn.GRUCell(N_IN, N),
    "LSTMCell": lambda: nn.LSTMCell(N_IN, N),
    "RNNCell": lambda: nn.RNNCell(N_IN, N),
    "stack": lambda: nn.Sequential(nn.GRUCell(N_IN, N), nn.LSTMCell(N, N)),
}


@pytest.mark.parametrize("name", list(MODULES))
def test_adapters_compute_torch_s_equations_on_its_own_parameters(name):
    torch.manual_seed(0)
    module = MODULES[name]()
    time_first = isinstance(module, nn.RNNBase) and not module.batch_first
    x = data(time_first=time_first)
    model = as_lsc_model(module)
    assert {id(p) for p in model.parameters()} == {id(p) for p in module.parameters()}
    with torch.no_grad():
        _, tr = model(x, trace=True)
    top = model.cells[-1].out(tr.H[-1], None)
    ref = module_output(module, x)
    if time_first:
        ref = ref.transpose(0, 1)
    assert torch.allclose(top, ref, atol=1e-6)


def test_pretrains_a_user_gru_in_place_and_reports():
    torch.manual_seed(0)
    gru = nn.GRU(N_IN, N, num_layers=2, batch_first=True)
    params = list(gru.parameters())
    start = [p.detach().clone() for p in params]
    rng = torch.get_rng_state()
    seen = []
    cfg = LSCConfig(eps=0.05, std_max=0.3)
    rep = lsc_pretrain_(
        gru,
        data(),
        target=1.0,
        max_steps=4,
        config=cfg,
        callback=lambda s, i: seen.append((s, i)),
    )
    assert torch.equal(torch.get_rng_state(), rng)  # no global random state
    assert list(gru.parameters()) == params  # the same tensors, changed in place
    assert not torch.equal(params[0], start[0])
    assert [s for s, _ in seen] == list(range(1, rep.steps + 1))
    assert {"loss", "radii", "criteria", "mean_radius"} <= set(seen[0][1])
    assert (
        set(rep.radii_before)
        == set(rep.radii_after)
        == {
            "l1/time",
            "l1/depth",
            "l2/time",
            "l2/depth",
        }
    )
    text = str(rep)
    assert "before -> after" in text and "(ii) std < 0.3" in text
    assert "(i) |mean - target| <= 0.05" in text and "EMA10(std) < 0.3" in text
    # the same seed gives the same network
    gru2 = nn.GRU(N_IN, N, num_layers=2, batch_first=True)
    with torch.no_grad():
        for p, q in zip(gru2.parameters(), start):
            p.copy_(q)
    lsc_pretrain_(gru2, data(), target=1.0, max_steps=4, config=cfg)
    assert all(torch.equal(p, q) for p, q in zip(gru.parameters(), gru2.parameters()))


def test_radii_move_towards_the_target():
    torch.manual_seed(1)
    lstm = nn.LSTM(N_IN, N, batch_first=True)
    rep = lsc_pretrain_(lstm, data(8, 10), target=1.0, max_steps=12, seed=2)
    before = sum(rep.radii_before.values()) / len(rep.radii_before)
    after = sum(rep.radii_after.values()) / len(rep.radii_after)
    assert abs(after - 1.0) < abs(before - 1.0)


def test_shuffle_choice_and_gate_blocks():
    gru = nn.GRU(N_IN, N, num_layers=2)
    model = as_lsc_model(gru)
    names = lambda which: [n for n, _, _ in pretrain.shuffled_tensors(model, which)]  # noqa: E731
    assert names("weights") == [
        "cells.0.weight_ih",
        "cells.0.weight_hh",
        "cells.1.weight_ih",
        "cells.1.weight_hh",
    ]
    assert len(names("all")) == 8 and names("none") == []
    assert {c for _, _, c in pretrain.shuffled_tensors(model, "all")} == {3}
    # the paper's shuffle is one flag away; a bad value names the choices
    lsc_pretrain_(gru, data(time_first=True), max_steps=1, shuffle="all")
    with pytest.raises(ValueError, match="shuffle = 'every'"):
        lsc_pretrain_(gru, data(time_first=True), max_steps=1, shuffle="every")


class TanhCell(nn.Module):
    """A user's cell under the protocol: forward(x, h), hidden_size, lsc_*_params."""

    lsc_input_params = ("W",)
    lsc_recurrent_params = ("U",)

    def __init__(self, n_in, n):
        super().__init__()
        g = torch.Generator().manual_seed(0)
        self.hidden_size = n
        self.W = nn.Parameter(torch.randn(n, n_in, generator=g) / n_in**0.5)
        self.U = nn.Parameter(torch.randn(n, n, generator=g) / n**0.5)

    def forward(self, x, h):
        return torch.tanh(x @ self.W.T + h @ self.U.T)


def test_custom_cell_through_the_protocol():
    cell = TanhCell(N_IN, N)
    W0 = cell.W.detach().clone()
    rep = lsc_pretrain_([cell, TanhCell(N, N)], data(), target=1.0, max_steps=3)
    assert rep.steps >= 1 and not torch.equal(cell.W.detach(), W0)
    bad = TanhCell(N_IN, N)
    bad.lsc_recurrent_params = ("V",)
    with pytest.raises(ValueError, match="'V', not a parameter of the cell"):
        lsc_pretrain_(bad, data(), max_steps=1)
    assert isinstance(as_lsc_model(cell).cells[0], Cell)


@pytest.mark.parametrize(
    "source",
    ["tensor", "list of pairs", "DataLoader"],
)
def test_data_as_tensor_iterable_or_dataloader(source):
    x, y = data(8), torch.zeros(8, dtype=torch.long)
    feed = {
        "tensor": x,
        "list of pairs": [(x[:4], y[:4]), (x[4:], y[4:])],  # re-iterated when it ends
        "DataLoader": DataLoader(TensorDataset(x, y), batch_size=4),
    }[source]
    rep = lsc_pretrain_(nn.GRUCell(N_IN, N), feed, max_steps=3, min_steps=3, eps=0)
    assert rep.steps == 3


def test_data_that_runs_out_or_is_wrong_says_so():
    cell = nn.GRUCell(N_IN, N)
    two = (x for x in [data(), data(seed=1)])
    with pytest.raises(ValueError, match="ran out after 2 batches"):
        lsc_pretrain_(cell, two, max_steps=5, min_steps=5)
    with pytest.raises(ValueError, match="was empty"):
        lsc_pretrain_(cell, [], max_steps=2)
    with pytest.raises(TypeError, match="each batch must be a tensor"):
        lsc_pretrain_(cell, ["text"], max_steps=2)
    with pytest.raises(TypeError, match="pass a tensor of inputs"):
        lsc_pretrain_(cell, 3.0, max_steps=2)


def test_follows_the_module_s_dtype():
    cell = nn.GRUCell(N_IN, N).double()
    rep = lsc_pretrain_(cell, data(), max_steps=2)  # float32 data, float64 module
    assert cell.weight_hh.dtype == torch.float64 and rep.steps >= 1


def test_errors_name_what_to_provide():
    with pytest.raises(
        TypeError, match="cannot read a Linear .*hidden_size.*lsc_input_params"
    ):
        lsc_pretrain_(nn.Linear(3, 3), data(), max_steps=1)
    with pytest.raises(ValueError, match="bidirectional"):
        lsc_pretrain_(nn.GRU(3, 4, bidirectional=True), data(), max_steps=1)
    with pytest.raises(ValueError, match="proj_size"):
        lsc_pretrain_(nn.LSTM(3, 4, proj_size=2), data(), max_steps=1)
    with pytest.raises(TypeError, match="unknown setting 'step_budget'"):
        lsc_pretrain_(nn.GRUCell(3, 4), data(), step_budget=3)
    with pytest.raises(ValueError, match="max_steps = 0"):
        lsc_pretrain_(nn.GRUCell(3, 4), data(), max_steps=0)
    with pytest.raises(ValueError, match="layer 2 reads 5 inputs but layer 1 passes 4"):
        lsc_pretrain_([nn.GRUCell(3, 4), nn.GRUCell(5, 4)], data(), max_steps=1)


def test_progress_line(capsys):
    lsc_pretrain_(nn.RNNCell(N_IN, N), data(), max_steps=2, min_steps=2, progress=True)
    err = capsys.readouterr().err
    assert "LSC pre-training: step 2/2" in err and err.endswith("\n")


def test_measure_draws_from_its_own_generator():
    gru = nn.GRU(N_IN, N, batch_first=True)
    rng = torch.get_rng_state()
    a = pretrain.measure(gru, data(), seed=3)
    assert torch.equal(torch.get_rng_state(), rng) and set(a) == {
        (1, "time"),
        (1, "depth"),
    }

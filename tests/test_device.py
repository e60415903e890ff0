"""The device layer (rnnbook.device): the parameter's values, draws that do not depend on the
device, and the trainers' device paths. On a CPU-only machine the trainers run with explicit
``device="cpu"`` under a ``meta`` default device, so that any tensor made without a device fails;
the tests marked ``gpu`` run the same paths on CUDA and skip, saying why, elsewhere."""

import contextlib

import pytest
import torch

from rnnbook import device

NO_CUDA = "no CUDA device here (torch.cuda.is_available() is False)"
#: where the device-path tests run: the CPU (under a meta default), and CUDA where present
DEVICES = [
    "cpu",
    pytest.param(
        "cuda",
        marks=[
            pytest.mark.gpu,
            pytest.mark.skipif(not torch.cuda.is_available(), reason=NO_CUDA),
        ],
    ),
]


def strict(dev: str):
    """On the CPU: ``meta`` as the default device, so a tensor made without an explicit device
    is a meta tensor and fails as soon as it meets a real one. On CUDA: the CPU default already
    fails when it meets a CUDA tensor."""
    return torch.device("meta") if dev == "cpu" else contextlib.nullcontext()


def test_resolve(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert device.resolve("auto") == "cpu" and device.resolve("cpu") == "cpu"
    with pytest.raises(ValueError, match="parameter 'device' = 'cuda'"):
        device.resolve("cuda")
    with pytest.raises(ValueError, match="parameter 'device' = 'gpu'"):
        device.resolve("gpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert device.resolve("auto") == "cuda"


def test_graphs_only_on_cuda(monkeypatch):
    assert not device.graphs_enabled("cpu", True)
    assert device.graphs_enabled("cuda", True) and not device.graphs_enabled(
        "cuda", False
    )
    monkeypatch.delenv("RNNBOOK_CUDA_GRAPHS", raising=False)
    assert device.graphs_enabled("cuda") and not device.graphs_enabled("cpu")
    monkeypatch.setenv("RNNBOOK_CUDA_GRAPHS", "0")
    assert not device.graphs_enabled("cuda") and device.graphs_enabled("cuda", True)


def test_meta_default_catches_a_tensor_without_device():
    """The check the device-path tests rely on: it does fail on a forgotten device."""
    x = torch.ones(3)
    with strict("cpu"):
        with pytest.raises((RuntimeError, NotImplementedError)):
            (x + torch.zeros(3)).sum().item()
        assert (x + torch.zeros(3, device="cpu")).sum().item() == 3


@pytest.mark.parametrize("dev", DEVICES)
def test_draws_do_not_depend_on_the_device(dev):
    a = device.randn(4, 3, generator=device.generator(5), device=dev)
    b = device.randn(4, 3, generator=device.generator(5))
    assert a.device.type == dev and torch.equal(a.cpu(), b)


def test_describe():
    d = device.describe("cpu")
    assert d["device"] == "cpu" and d["torch"] == torch.__version__

"""chapter.start: the device parameter is added when the parameters cell has one, resolved, and
recorded in the metadata of the first output, where recorded_device reads it back."""

import json

import pytest

from rnnbook.book import chapter
from rnnbook.book.params import Param, ParameterError, at_least

SPEC = {"seed": Param(int, 0, 0, 0, at_least(0), ">= 0")}


def test_device_parameter_from_the_parameters_cell(monkeypatch):
    import torch

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    P, _ = chapter.start("lsc/lemma2_paths", SPEC, {"device": None}, show=False)
    assert P.device == "cpu" and P.seed == 0
    P, _ = chapter.start("lsc/lemma2_paths", SPEC, {}, show=False)
    assert not hasattr(P, "device")
    with pytest.raises(ParameterError, match="parameter 'device' = 'cuda'"):
        chapter.start("lsc/lemma2_paths", SPEC, {"device": "cuda"}, show=False)


def test_the_device_is_recorded_and_read_back(tmp_path, monkeypatch):
    shown = []
    monkeypatch.setattr(
        "IPython.display.display", lambda obj, metadata=None: shown.append(metadata)
    )
    chapter.start("lsc/lemma2_paths", SPEC, {"device": "cpu"})
    meta = shown[0][chapter.DEVICE_KEY]
    assert meta["device"] == "cpu" and meta["name"] == "CPU"
    nb = {"cells": [{"outputs": [{"metadata": shown[0]}]}]}
    (tmp_path / "a.ipynb").write_text(json.dumps(nb))
    assert chapter.recorded_device(tmp_path / "a.ipynb") == meta
    (tmp_path / "b.ipynb").write_text(json.dumps({"cells": [{"outputs": []}]}))
    assert chapter.recorded_device(tmp_path / "b.ipynb") is None
    assert chapter.recorded_device(tmp_path / "missing.ipynb") is None

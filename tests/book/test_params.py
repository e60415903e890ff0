import pytest

from rnnbook.book.params import Param, ParameterError, at_least, in_open_unit, resolve

SPEC = {
    "nu_W": Param(float, 0.3, 0.3, 0.3, in_open_unit, "0 < nu_W < 1"),
    "widths": Param(list, [8], [8, 16], [8, 16, 32], at_least(2), ">= 2", item=int),
    "seeds": Param(int, 2, 5, 20, at_least(2), ">= 2"),
}


def test_presets_and_overrides():
    assert resolve(SPEC, "smoke").widths == [8]
    assert resolve(SPEC, "paper").seeds == 20
    p = resolve(SPEC, "book", nu_W=0.5, widths=None)
    assert p.nu_W == 0.5 and p.widths == [8, 16] and p.profile == "book"
    assert isinstance(resolve(SPEC, "book", nu_W=1 - 1e-9).nu_W, float)


@pytest.mark.parametrize("profile", ["fast", "", None, 3])
def test_unknown_profile_names_parameter(profile):
    with pytest.raises(
        ParameterError, match=r"parameter 'profile'.*'smoke', 'book', 'gpu', 'paper'"
    ):
        resolve(SPEC, profile)


@pytest.mark.parametrize(
    "name,value,pattern",
    [
        ("nu_W", 1.5, r"parameter 'nu_W' = 1.5: must be a float \(0 < nu_W < 1\)"),
        ("nu_W", "0.5", r"parameter 'nu_W'"),
        ("nu_W", True, r"parameter 'nu_W'"),
        ("widths", [8, -4], r"parameter 'widths' .*list of int"),
        ("widths", [8, 2.5], r"parameter 'widths'"),
        ("widths", [], r"parameter 'widths'.*non-empty"),
        ("seeds", 1, r"parameter 'seeds' = 1"),
        ("seeds", 2.0, r"parameter 'seeds'"),
    ],
)
def test_bad_values_name_the_parameter(name, value, pattern):
    with pytest.raises(ParameterError, match=pattern):
        resolve(SPEC, "book", **{name: value})


def test_unknown_name():
    with pytest.raises(
        ParameterError, match=r"unknown parameter 'width'.*nu_W, widths, seeds"
    ):
        resolve(SPEC, "book", width=3)


def test_describe_lists_every_resolved_parameter():
    from rnnbook.book.params import describe

    text = describe(resolve(SPEC, "smoke", seeds=3))
    assert (
        text.startswith("Profile **smoke**")
        and "`seeds=3`" in text
        and "`widths=[8]`" in text
    )


def test_dry_run_caps_training_lengths_within_their_rule(monkeypatch):
    spec = {
        "steps": Param(int, 40, 500, 2000, at_least(1), ">= 1", training=True),
        "gd": Param(int, 60, 1000, 5000, at_least(10), ">= 10", training=True),
        "width": Param(int, 8, 16, 512, at_least(1), ">= 1"),
    }
    monkeypatch.setenv("RNNBOOK_DRY_RUN", "2")
    p = resolve(spec, "paper")
    assert (p.steps, p.gd, p.width) == (2, 16, 512)  # sizes stay the paper's
    assert resolve(spec, "paper", steps=7).steps == 7  # given values are not capped


def test_dry_run_caps_repetition_counts_apart_from_steps(monkeypatch):
    from rnnbook.book.params import Repeats, Steps

    spec = {
        "steps": Steps(40, 500, 2000, "steps"),
        "draws": Repeats(200, 1000, 20000, "draws", 50),
        "pairs": Repeats(10, 20, 3, "pairs"),
        "width": Param(int, 8, 16, 512, at_least(1), ">= 1"),
    }
    assert vars(resolve(spec, "paper"))["draws"] == 20000  # no dry run: no cap
    monkeypatch.setenv("RNNBOOK_DRY_RUN", "2")
    p = resolve(spec, "paper")
    assert (p.steps, p.draws, p.width) == (
        2,
        20000,
        512,
    )  # repeats uncapped on their own
    monkeypatch.setenv("RNNBOOK_DRY_RUN_REPEATS", "4")
    p = resolve(spec, "paper")
    assert (p.steps, p.draws, p.pairs, p.width) == (2, 64, 3, 512)  # >= 50; 3 < 4 stays
    with pytest.raises(ParameterError, match="'draws'"):
        resolve(spec, "paper", draws=5)


def test_dry_run_caps_evaluation_sets_on_their_own(monkeypatch):
    from rnnbook.book.params import Repeats, Samples

    spec = {
        "n_test": Samples(50, 256, 10000, "test sequences", 10),
        "seeds": Repeats(2, 3, 4, "seeds"),
        "n_train": Param(int, 100, 1000, 45000, at_least(10), ">= 10"),
    }
    monkeypatch.setenv("RNNBOOK_DRY_RUN_REPEATS", "2")
    p = resolve(spec, "paper")
    assert (p.n_test, p.seeds, p.n_train) == (10000, 2, 45000)
    monkeypatch.setenv("RNNBOOK_DRY_RUN_SAMPLES", "5")
    p = resolve(spec, "paper")
    assert (p.n_test, p.seeds, p.n_train) == (10, 2, 45000)  # >= 10; data stays
    monkeypatch.setenv("RNNBOOK_DRY_RUN_SAMPLES", "256")
    assert resolve(spec, "paper").n_test == 256
    assert resolve(spec, "smoke").n_test == 50  # below the cap: the preset


def test_gpu_preset_defaults_to_the_book_one():
    from rnnbook.book.params import Repeats, Steps

    spec = {
        **SPEC,
        "steps": Steps(1, 10, 1000, "steps", gpu=200),
        "draws": Repeats(2, 8, 64, "draws"),
    }
    p = resolve(spec, "gpu")
    assert p.steps == 200 and p.draws == 8 and p.widths == [8, 16] and p.seeds == 5
    assert resolve(spec, "book").steps == 10 and resolve(spec, "paper").steps == 1000


def test_gpu_preset_is_capped_by_a_dry_run(monkeypatch):
    from rnnbook.book.params import Steps

    monkeypatch.setenv("RNNBOOK_DRY_RUN", "2")
    assert resolve({"steps": Steps(1, 10, 1000, "s", gpu=200)}, "gpu").steps == 2


def test_device_parameter(monkeypatch):
    import torch

    from rnnbook.book.params import Device

    spec = {"device": Device()}
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve(spec, "book").device == "cpu"
    assert resolve(spec, "gpu", device="cpu").device == "cpu"
    with pytest.raises(ParameterError, match=r"parameter 'device' = 'cuda'.*no CUDA"):
        resolve(spec, "book", device="cuda")
    with pytest.raises(ParameterError, match=r"parameter 'device' = 'tpu'.*auto, cpu"):
        resolve(spec, "book", device="tpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve(spec, "book").device == "cuda"
    assert resolve(spec, "book", device="cuda").device == "cuda"

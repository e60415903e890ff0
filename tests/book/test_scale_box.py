"""The scale-and-re-run box: each parameter beside the paper's value, the run time, the command."""

from rnnbook.book import scale_box
from rnnbook.book.params import Param, Repeats, Steps, at_least, resolve

SPEC = {
    "width": Param(int, 8, 32, 128, at_least(1), ">= 1"),
    "steps": Steps(10, 300, 20000, "training steps"),
    "seeds": Repeats(2, 4, 4, "seeds"),
    "widths": Param(list, [8], [32, 64], [64, 128], at_least(1), ">= 1", item=int),
    "rate": Param(float, 0.1, 0.1, 0.1),
}


def test_ratio_says_how_far_from_the_paper():
    assert scale_box.ratio(32, 128) == "1/4"
    assert scale_box.ratio(300, 20000) == "1/67"
    assert scale_box.ratio(4, 4) == "="
    assert scale_box.ratio(256, 128) == "×2"
    assert scale_box.ratio([32, 64], [64, 128]) == "largest 1/2"
    assert scale_box.ratio("tanh", "relu") == "differs"


def test_box_shows_every_parameter_its_time_and_the_commands():
    P = resolve(SPEC, "book")
    box = scale_box.box("lsc/deep_rnns", SPEC, P)
    for name in SPEC:
        assert f"<code>{name}</code>" in box
    assert "3 of 5 parameters below the paper" in box
    assert "(most: <code>steps</code> 1/67, <code>width</code> 1/4" in box
    assert "<td>300</td><td>20,000</td><td>1/67</td>" in box
    assert '<details class="rnnbook-scale">' in box
    assert "make chapter NB=lsc/deep_rnns ARGS=&quot;-p profile paper&quot;" in box
    assert "../../_sources/notebooks/lsc/deep_rnns.ipynb" in box
    secs = scale_box.committed_seconds()["book"]["notebooks/lsc/deep_rnns"]
    assert f"about {scale_box.duration(secs)} at the <code>book</code> profile" in box


def test_a_chapter_without_committed_timing_says_so():
    P = resolve(SPEC, "smoke")
    assert "no committed timing" in scale_box.box("lsc/nonexistent", SPEC, P)

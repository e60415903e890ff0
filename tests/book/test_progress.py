"""Progress a person can read: done/total, elapsed, time left from the expected chapter times."""

import io

from rnnbook.book.progress import Progress, clock


class Clock:
    def __init__(self) -> None:
        self.t = 0.0

    def __call__(self) -> float:
        return self.t


def test_clock():
    assert (clock(0), clock(75), clock(3725)) == ("0:00", "1:15", "1:02:05")


def test_one_line_per_event_with_the_time_left():
    lines, t = [], Clock()
    expected = {"a": 100.0, "b": 50.0, "c": 50.0}
    p = Progress(3, expected, workers=2, log=lines.append, now=t)
    p.queue(["a", "b", "c"])
    p.start("a")
    p.start("b")
    # a (100 s) on one worker, b then c (50 s each) on the other: 100 s left
    assert p.left() == 100.0
    assert lines[-1] == "  [0/3] 0:00 elapsed, ~1:40 left | start  b (~0:50)"
    t.t = 100.0  # b took twice its expectation: the rest is expected to as well
    p.finish("b", 100.0, ok=True, detail=": no earlier run")
    assert p.ratio() == 2.0
    assert (
        lines[-1]
        == "  [1/3] 1:40 elapsed, ~1:40 left | ran    b in 100.0 s: no earlier run"
    )
    p.start("c")
    t.t = 150.0  # a: 200 s expected now, 150 s done; c: 100 s expected, 50 s done
    assert p.left() == 50.0
    p.finish("a", 150.0, ok=False)
    t.t = 160.0
    p.finish("c", 60.0, ok=True)
    p.close()
    assert lines[-2].startswith("  [3/3] 2:40 elapsed, ~0:00 left | ran    c in 60.0 s")
    assert lines[-1] == "  2 of 3 chapter(s) ran in 2:40, 1 failed"
    assert sum("FAILED a" in s for s in lines) == 1


def test_a_live_bar_on_a_terminal():
    out, lines, t = io.StringIO(), [], Clock()
    p = Progress(2, {"a": 10.0}, workers=1, log=lines.append, stream=out, now=t)
    p.queue(["a", "b"])
    p.start("a")
    t.t = 4.0
    p.finish("a", 4.0, ok=True)
    p.close()
    text = out.getvalue()
    # each event clears the bar, prints its line, and redraws the bar below it
    assert "\r\x1b[K  [1/2] 0:04 elapsed" in text
    assert "[##########..........] [1/2]" in text
    assert text.endswith("\r\x1b[K") and lines == ["  1 of 2 chapter(s) ran in 0:04"]

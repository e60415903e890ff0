"""What a build is doing, for the person who waits for it.

While chapters run, :class:`Progress` says which are running, how many are done, the time since the
first one started and an estimate of the time left. The estimate comes from each chapter's
expected time (the last build's timings, else the committed ``chapter_seconds.yaml``), scaled by
how the chapters done so far compared with their expectation (this machine may be faster or busier
than the one that measured them), and spread over the workers.

On a terminal it is a live bar redrawn every second, with a line above it for each chapter that
starts or ends; in a log (output redirected, CI) it is one line per event.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from typing import Callable, TextIO


def clock(seconds: float) -> str:
    """``75`` -> ``1:15``, ``3725`` -> ``1:02:05``."""
    s = max(0, int(round(seconds)))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


class Progress:
    """Counts and times the chapters of one build (``total``: those that execute)."""

    def __init__(
        self,
        total: int,
        expected: dict[str, float],
        workers: int,
        log: Callable[[str], None] = print,
        stream: TextIO | None = None,
        now: Callable[[], float] = time.monotonic,
    ) -> None:
        self.total, self.workers, self.log, self.now = total, max(1, workers), log, now
        self.expected = {k: float(v) for k, v in expected.items() if v}
        self.default = (
            sum(self.expected.values()) / len(self.expected) if self.expected else 10.0
        )
        self.t0 = now()
        self.running: dict[str, float] = {}  # chapter -> when it started
        self.done: dict[str, float] = {}  # chapter -> its seconds
        self.waiting: list[str] = []
        self.failed = 0
        self.stream = stream
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = None
        if stream is not None:
            self._thread = threading.Thread(target=self._redraw, daemon=True)
            self._thread.start()

    @classmethod
    def for_terminal(cls, log: Callable[[str], None], **kw) -> "Progress":
        """A live bar when the build prints to a terminal, else one line per event."""
        live = log is print and sys.stdout.isatty()
        return cls(log=log, stream=sys.stdout if live else None, **kw)

    def queue(self, chapters: list[str]) -> None:
        self.waiting = list(chapters)

    def expect(self, chapter: str) -> float:
        return self.expected.get(chapter, self.default)

    def ratio(self) -> float:
        """How long the chapters done took against their expectation (1 before the first)."""
        spent = sum(self.done.values())
        planned = sum(self.expect(c) for c in self.done)
        return spent / planned if spent > 0 and planned > 0 else 1.0

    def left(self) -> float:
        """Seconds until the last chapter ends: the work left shared by the workers, but never
        less than the longest chapter still running or waiting needs."""
        r, t = self.ratio(), self.now()
        running = [
            max(self.expect(c) * r - (t - s), 0.0) for c, s in self.running.items()
        ]
        waiting = [self.expect(c) * r for c in self.waiting]
        work = sum(running) + sum(waiting)
        return max([work / self.workers, *running, *waiting[:1]], default=0.0)

    def status(self) -> str:
        return (
            f"[{len(self.done):>{len(str(self.total))}}/{self.total}]"
            f" {clock(self.now() - self.t0)} elapsed, ~{clock(self.left())} left"
        )

    def _event(self, text: str) -> None:
        with self._lock:
            line = f"  {self.status()} | {text}"
            if self.stream is None:
                self.log(line)
            else:
                self.stream.write("\r\x1b[K" + line + "\n" + self._bar())
                self.stream.flush()

    def start(self, chapter: str) -> None:
        if chapter in self.waiting:
            self.waiting.remove(chapter)
        self.running[chapter] = self.now()
        self._event(
            f"start  {short(chapter)} (~{clock(self.expect(chapter) * self.ratio())})"
        )

    def finish(self, chapter: str, seconds: float, ok: bool, detail: str = "") -> None:
        self.running.pop(chapter, None)
        if chapter in self.waiting:
            self.waiting.remove(chapter)
        self.done[chapter] = seconds
        self.failed += not ok
        word = "ran   " if ok else "FAILED"
        self._event(f"{word} {short(chapter)} in {seconds:.1f} s{detail}")

    def _bar(self) -> str:
        width = shutil.get_terminal_size((100, 20)).columns
        n = 20
        filled = n * len(self.done) // max(self.total, 1)
        now = self.now()
        runs = ", ".join(
            f"{short(c)} {clock(now - s)}" for c, s in self.running.items()
        )
        text = f"[{'#' * filled}{'.' * (n - filled)}] {self.status()}"
        if runs:
            text += f" | running: {runs}"
        return text[: width - 1]

    def _redraw(self) -> None:
        while not self._stop.wait(1.0):
            with self._lock:
                self.stream.write("\r\x1b[K" + self._bar())
                self.stream.flush()

    def close(self) -> None:
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            with self._lock:
                self.stream.write("\r\x1b[K")
                self.stream.flush()
        ok = len(self.done) - self.failed
        self.log(
            f"  {ok} of {self.total} chapter(s) ran in {clock(self.now() - self.t0)}"
            + (f", {self.failed} failed" if self.failed else "")
        )


def short(chapter: str) -> str:
    return chapter.removeprefix("notebooks/")

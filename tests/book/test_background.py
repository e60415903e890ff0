"""A queue runs below other work (rnnbook.book.background): the processes below it are
found from /proc (a fake one here), each gets the autogroup nice value, and on a Linux with
autogroups a kernel started in a session of its own (as a chapter's is) is lowered too."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rnnbook.book import background


def _proc(tmp_path: Path, table: dict[int, tuple[str, int]]) -> Path:
    for pid, (name, ppid) in table.items():
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "stat").write_text(f"{pid} ({name}) S {ppid} 1 1 0 -1\n")
    return tmp_path


def test_the_processes_below_one_are_read_from_proc(tmp_path):
    proc = _proc(
        tmp_path,
        {1: ("init", 0), 10: ("a b) c", 1), 11: ("kernel", 10), 12: ("x", 99)},
    )
    (proc / "self").mkdir()  # not a process
    assert sorted(background.children(1, proc)) == [10, 11]
    assert background.children(11, proc) == []


def test_a_sweep_sets_the_autogroup_of_each_and_skips_what_it_cannot(tmp_path):
    proc = _proc(tmp_path, {5: ("queue", 1), 6: ("kernel", 5), 7: ("gone", 5)})
    for pid in (5, 6):
        (proc / str(pid) / "autogroup").write_text("/autogroup-3 nice 0\n")
    (proc / "7" / "autogroup").mkdir()  # cannot be written
    assert sorted(background.sweep(5, 19, proc)) == [5, 6]
    assert (proc / "6" / "autogroup").read_text() == "19"


def test_bad_values_are_refused_by_name():
    with pytest.raises(ValueError, match="level"):
        background.lower(level=25)
    with pytest.raises(ValueError, match="every"):
        background.lower(every=0)


@pytest.mark.skipif(
    not Path("/proc/self/autogroup").exists(), reason="no autogroups on this system"
)
def test_a_kernel_in_a_session_of_its_own_is_lowered_too():
    code = (
        "import subprocess, time\n"
        "from rnnbook.book import background\n"
        "background.lower(every=0.1)\n"
        "p = subprocess.Popen(['sleep', '120'], start_new_session=True)\n"
        "end = time.time() + 60\n"  # the sweep runs at nice 19: on a busy machine, late
        "while True:\n"
        "    got = open(f'/proc/{p.pid}/autogroup').read().strip()\n"
        "    if got.endswith('nice 19') or time.time() > end:\n"
        "        break\n"
        "    time.sleep(0.1)\n"
        "print(got, flush=True)\n"
        "p.kill()\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("nice 19")

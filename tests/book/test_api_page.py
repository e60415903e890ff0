"""The API page's example runs as printed, and the generated reference lists every module."""

import re
from pathlib import Path

from rnnbook.book import pages, pipeline

ROOT = Path(__file__).resolve().parents[2]


def test_pretraining_example_runs_as_printed(capsys):
    text = (ROOT / "book" / "api.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], "book/api.md", "exec"), {"__name__": "api_example"})
    out = capsys.readouterr().out
    assert "LSC pre-training converged" in out


def test_where_and_api_cover_every_chapter_and_module():
    chapters = pipeline.chapters(ROOT)
    table = pages.where(chapters)
    for ch in chapters:
        assert f"`/{ch.name}`" in table
    assert "{mod}`rnnbook.lsc.gradient_paths`" in table
    api = pages.api()
    for room in ("lsc", "implicit_bias", "mean_field", "infinite_width"):
        for mod in (ROOT / "src" / "rnnbook" / room).glob("[!_]*.py"):
            assert f".. automodule:: rnnbook.{room}.{mod.stem}\n   :members:" in api

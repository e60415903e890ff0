"""The book's own Sphinx extension (rnnbook.book.sphinx_ext): a page is never left as an
older version of the book room rendered it."""

from __future__ import annotations

from rnnbook.book import sphinx_ext


def test_the_environment_version_follows_the_book_rooms_sources(tmp_path):
    (tmp_path / "a.py").write_text("x = 1\n")
    (tmp_path / "b.py").write_text("y = 2\n")
    before = sphinx_ext.room_version(tmp_path)
    assert isinstance(before, int) and before == sphinx_ext.room_version(tmp_path)
    (tmp_path / "b.py").write_text("y = 3\n")  # a transform changed: every page re-read
    assert sphinx_ext.room_version(tmp_path) != before
    (tmp_path / "b.py").write_text("y = 2\n")
    (tmp_path / "notes.txt").write_text("not code")  # only the modules count
    assert sphinx_ext.room_version(tmp_path) == before


def test_the_extension_declares_it():
    class App:
        def connect(self, *a, **k):
            pass

        def setup_extension(self, name):
            pass

    got = sphinx_ext.setup(App())
    assert got["env_version"] == sphinx_ext.room_version()
    assert got["parallel_read_safe"] and got["parallel_write_safe"]

"""The README's Python examples run as written (doctest)."""

from __future__ import annotations

import doctest
from pathlib import Path

from tests.support.media import bikes_path

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_python_examples_run(tmp_path, monkeypatch):
    monkeypatch.setenv("LONGGROUND_CACHE", str(tmp_path / "cache"))
    text = README.read_text(encoding="utf-8")
    block = text.split("## Python\n", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    test = doctest.DocTestParser().get_doctest(
        block, {"BIKES": bikes_path(), "OUT": tmp_path}, "README.md", str(README), 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    assert runner.failures == 0 and runner.tries >= 8
    header = (tmp_path / "moments.csv").read_text().splitlines()[0]
    assert header.startswith("video,query,start,end,start_s,end_s,score")

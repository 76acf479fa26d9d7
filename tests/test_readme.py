"""The README's code runs as written: every fenced block after a ``<!-- runnable ... -->`` comment, in the
README's order, in one empty folder (python blocks in one namespace, as a reader pasting them in turn into
one session; bash blocks with ``lpparse`` and ``python`` of this interpreter on the PATH)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

README = Path(__file__).resolve().parent.parent / "README.md"
#: a runnable marker, then the fenced block right after it: its language and its code
BLOCK = re.compile(r"<!-- runnable[^>]*-->\n```(\w+)\n(.*?)\n```", re.DOTALL)


def runnable_blocks(text: str) -> list[tuple[str, str]]:
    """(language, code) of every block marked runnable in ``text``, in order."""
    return BLOCK.findall(text)


def test_the_marked_blocks_are_found() -> None:
    """Every python block of the README is marked, and the markers all precede a block."""
    text = README.read_text(encoding="utf-8")
    blocks = runnable_blocks(text)
    assert len(blocks) == text.count("<!-- runnable")
    assert sum(language == "python" for language, _ in blocks) == text.count("```python") >= 5
    assert any(language == "bash" and "scores export" in code for language, code in blocks)


def test_readme_blocks_run_as_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    namespace: dict[str, object] = {"__name__": "__readme__"}
    for number, (language, code) in enumerate(runnable_blocks(README.read_text(encoding="utf-8")), 1):
        if language == "python":
            exec(compile(code, f"README.md block {number}", "exec"), namespace)  # noqa: S102
        else:
            assert language == "bash", language
            done = subprocess.run(
                ["bash", "-euo", "pipefail", "-c", code], capture_output=True, text=True, env=env, timeout=300,
                check=False,
            )
            assert done.returncode == 0, f"README.md block {number}:\n{done.stderr}"
    assert (tmp_path / "mine.npz").is_file() and (tmp_path / "results" / "ppc-mine.jsonl").is_file()
    assert namespace["best"].certified  # type: ignore[attr-defined]

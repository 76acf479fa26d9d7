"""No function in the library over 60 lines or 8 parameters, unless a comment ``# long: <why>`` on its def
line (or the line before) says why."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "lpparse"
MAX_LINES = 60
MAX_PARAMETERS = 8
REASON = re.compile(r"#\s*long:\s*\S")

#: Long functions not shortened yet, as "path relative to lpparse/:function name" (none today: a function that
#: must stay long says why in a ``# long:`` comment instead)
ALLOWED: frozenset[str] = frozenset()


def parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Named parameters, not counting self/cls, *args or **kwargs."""
    args = node.args
    names = [a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)]
    return len(names) - (1 if names and names[0] in ("self", "cls") else 0)


def long_functions(root: Path = PACKAGE) -> Iterator[tuple[str, str, int, int, int]]:
    """(file, name, def line, lines, parameters) of each function over a limit that gives no reason."""
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text, str(path))):
            if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
            length = (node.end_lineno or node.lineno) - first + 1
            count = parameters(node)
            if length <= MAX_LINES and count <= MAX_PARAMETERS:
                continue
            said = lines[node.lineno - 1 : node.lineno] + lines[max(0, first - 2) : first - 1]
            if not any(REASON.search(line) for line in said):
                yield path.relative_to(root).as_posix(), node.name, node.lineno, length, count


def test_no_long_function_without_a_reason() -> None:
    found = [f for f in long_functions() if f"{f[0]}:{f[1]}" not in ALLOWED]
    listing = "\n".join(
        f"lpparse/{file}:{line} {name}: {length} lines, {count} parameters"
        for file, name, line, length, count in found
    )
    assert not found, (
        f"{len(found)} functions over {MAX_LINES} lines or {MAX_PARAMETERS} parameters:\n{listing}"
    )


def test_the_allow_list_names_only_long_functions() -> None:
    every = {f"{f[0]}:{f[1]}" for f in long_functions()}
    assert ALLOWED <= every, f"no longer long (remove from ALLOWED): {sorted(ALLOWED - every)}"


def test_a_reason_lets_a_long_function_pass(tmp_path: Path) -> None:
    body = "".join(f"    x{i} = {i}\n" for i in range(MAX_LINES))
    (tmp_path / "plain.py").write_text(f"def f(a, b, c, d, e, f, g, h, i):\n{body}")
    (tmp_path / "said.py").write_text(f"# long: a table\ndef f(self, a, *args, **kwargs):\n{body}")
    assert [(file, name) for file, name, *_ in long_functions(tmp_path)] == [("plain.py", "f")]

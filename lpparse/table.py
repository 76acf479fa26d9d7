"""Plain-text and Markdown tables for command output and reports."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

__all__ = ["format_cell", "markdown_table"]


def format_cell(value: Any, digits: int = 4) -> str:
    """Floats with ``digits`` significant decimals, everything else with ``str``."""
    if isinstance(value, float):
        if math.isnan(value):
            return "-"
        return f"{value:.{digits}f}" if abs(value) < 1e6 else f"{value:.{digits}g}"
    return str(value)


def markdown_table(headers: Sequence[str], rows: Sequence[Sequence[Any]], digits: int = 4) -> str:
    """A Markdown table with columns padded to equal width, readable as plain text too."""
    cells = [[format_cell(v, digits) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(headers)]
    numeric = [all(_is_number(row[i]) for row in rows) and bool(rows) for i in range(len(headers))]

    def line(values: Sequence[str]) -> str:
        padded = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)]
        return "| " + " | ".join(padded) + " |"

    rule = "|" + "|".join(("-" * (w + 1) + ":") if num else "-" * (w + 2) for w, num in zip(widths, numeric)) + "|"
    return "\n".join([line(list(headers)), rule, *(line(r) for r in cells)])


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)

"""Lazy package exports (PEP 562): a package names what it exports and from which submodule, and a name is
imported on first use. Importing one submodule (``lpparse.lp.program``) then runs only what that submodule
needs: a proof checker that reads programs does not load HiGHS, nor a formulation the column-generation
engine."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str, exports: dict[str, tuple[str, ...]]
) -> tuple[list[str], Callable[[str], Any], Callable[[], list[str]]]:
    """``__all__``, ``__getattr__`` and ``__dir__`` of ``package``, which exports the names of ``exports``
    (submodule, relative to the package or absolute -> names) on first access."""
    where = {
        name: module if module.startswith("lpparse.") else f"{package}.{module}"
        for module, names in exports.items()
        for name in names
    }

    def __getattr__(name: str) -> Any:
        if name not in where:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(where[name]), name)
        setattr(sys.modules[package], name, value)  # later accesses skip this function
        return value

    def __dir__() -> list[str]:
        return sorted({*where, *vars(sys.modules[package])})

    return sorted(where), __getattr__, __dir__

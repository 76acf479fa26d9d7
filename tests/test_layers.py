"""The import layers of lpparse, checked in fresh interpreters: scoring and the decoder interface below the
algorithms, the algorithms below BP, the decoder registry, parsing with a model and training, and those
below the command line. A module's import must load no package of a layer above it."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

ALGORITHMS = {
    "lpparse.oracles",
    "lpparse.dp",
    "lpparse.hypergraph",
    "lpparse.lp",
    "lpparse.formulations",
    "lpparse.colgen",
    "lpparse.ppc",
    "lpparse.dd",
    "lpparse.pruning",
}
#: Packages above the BP layer: the decoder registry (it imports every decoder), parsing and training
ABOVE_BP = {"lpparse.decoding", "lpparse.parsing", "lpparse.training"}
TOP = {"lpparse.cli", "lpparse.commands", "lpparse.experiments"}

#: module -> packages and modules its import must not load
FORBIDDEN = {
    "lpparse.scoring": ALGORITHMS | {"lpparse.bp"} | ABOVE_BP | TOP,
    "lpparse.decoder": ALGORITHMS | {"lpparse.bp", "lpparse.scoring"} | ABOVE_BP | TOP,
    **{name: {"lpparse.bp"} | ABOVE_BP | TOP for name in sorted(ALGORITHMS)},
    "lpparse.exact.decoder": {"lpparse.bp"} | ABOVE_BP | TOP,
    "lpparse.bp": ABOVE_BP | TOP,
    "lpparse.bp.decoder": ABOVE_BP | TOP,
    "lpparse.decoding": {"lpparse.scoring", "lpparse.parsing", "lpparse.training"} | TOP,
    "lpparse.parsing": {"lpparse.training"} | TOP,
    "lpparse.training": TOP,
}


def loaded(module: str) -> set[str]:
    """The lpparse packages and top-level modules (two name parts) in ``sys.modules`` after importing
    ``module`` in a fresh interpreter."""
    code = (
        "import importlib, json, sys\n"
        f"importlib.import_module({module!r})\n"
        "print(json.dumps(sorted({'.'.join(k.split('.')[:2]) for k in sys.modules if k.startswith('lpparse.')})))"
    )
    done = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout))


def names(module: str) -> set[str]:
    """``module`` and its leading two-part name (the form :func:`loaded` reports)."""
    return {module, ".".join(module.split(".")[:2])}


@pytest.mark.parametrize("module", sorted(FORBIDDEN))
def test_imports_stay_below_their_layer(module: str) -> None:
    found = loaded(module)
    assert names(module) & found  # the probe saw the import itself
    forbidden = {f for f in FORBIDDEN[module] if f not in names(module)}
    assert not found & forbidden, f"{module} imports {sorted(found & forbidden)}"


def test_the_probe_sees_imports_across_layers() -> None:
    """Training loads what it stands on, so an import of a higher layer would show."""
    found = loaded("lpparse.training")
    assert {"lpparse.scoring", "lpparse.bp", "lpparse.decoding", "lpparse.parsing", "lpparse.ppc"} <= found
    assert {"lpparse.bp", "lpparse.ppc"} <= loaded("lpparse.decoding")  # the registry imports every decoder


@pytest.mark.parametrize("package", ["lpparse.lp", "lpparse.colgen", "lpparse.ppc"])
def test_lazy_package_exports_resolve(package: str) -> None:
    """Every name a package exports on first use (:mod:`lpparse._lazy`) is its submodule's object, is listed by
    ``dir``, and a name it does not export is an AttributeError."""
    import importlib

    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None and name in dir(module), name
    with pytest.raises(AttributeError, match="no attribute"):
        module.not_exported  # noqa: B018

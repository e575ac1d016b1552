"""``model.lazy.lazy_import``: a module it hands out runs on its first attribute read, and the modules handed out
keep to the contracts of ``.importlinter`` (which sees imports, not the names in ``lazy_import("...")`` strings)."""

from __future__ import annotations

import ast
import configparser
import importlib
import importlib.util
import sys
import types
from collections.abc import Iterator
from pathlib import Path

import pytest

from ortcopy_doctor.model.lazy import lazy_import, loaded
from render_helpers import REPO

PACKAGE = REPO / "ortcopy_doctor"
CONTRACTS = configparser.ConfigParser()
CONTRACTS.read(REPO / ".importlinter")


def _listed(section: str, key: str) -> list[str]:
    return [line.strip() for line in CONTRACTS[section][key].splitlines() if line.strip()]


LAYERS = _listed("importlinter:contract:layers", "layers")  # top first: cli ... model


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _lazy_imports() -> list[tuple[str, str, int]]:
    """(module, the name it hands to ``lazy_import``, line) of every ``lazy_import("...")`` call in the package."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name != "lazy_import":
                continue
            assert node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str), (
                f"{path}:{node.lineno}: lazy_import takes the module's name as a string literal (for this test)")
            found.append((_module_name(path), node.args[0].value, node.lineno))
    return found


LAZY = _lazy_imports()


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _layer(module: str) -> int | None:
    """The index of ``module``'s layer in ``LAYERS`` (0: cli, the top), None outside every layer."""
    return next((i for i, layer in enumerate(LAYERS) if _within(module, layer)), None)


def test_the_package_hands_out_lazy_modules():
    # the command line's and the registry's handles at least (a parser that found none would check nothing)
    targets = {target for _, target, _ in LAZY}
    assert {"ortcopy_doctor.render.html", "ortcopy_doctor.render.text", "ortcopy_doctor.api"} <= targets
    assert LAYERS[0] == "ortcopy_doctor.cli" and LAYERS[-1] == "ortcopy_doctor.model"


@pytest.mark.parametrize(("source", "target", "line"), LAZY, ids=[f"{s}:{n}->{t}" for s, t, n in LAZY])
def test_a_lazy_import_keeps_to_the_layers(source, target, line):
    if not _within(target, "ortcopy_doctor"):
        return  # the standard library: no layer
    below, above = _layer(target), _layer(source)
    assert below is not None, f"{source}:{line}: {target} is in no layer of .importlinter"
    if above is None:
        return  # the package's own top (ortcopy_doctor/__init__.py, __main__.py): above every layer
    assert below >= above, (f"{source}:{line}: lazy_import({target!r}) reaches up, from {LAYERS[above]} to "
                            f"{LAYERS[below]}")


@pytest.mark.parametrize(("source", "target", "line"), LAZY, ids=[f"{s}:{n}->{t}" for s, t, n in LAZY])
def test_a_lazy_import_keeps_to_the_forbidden_contracts(source, target, line):
    for section in CONTRACTS.sections():
        if CONTRACTS[section].get("type") != "forbidden":
            continue
        if any(_within(source, s) for s in _listed(section, "source_modules")):
            forbidden = [f for f in _listed(section, "forbidden_modules") if _within(target, f)]
            assert not forbidden, f"{source}:{line}: lazy_import({target!r}) breaks {CONTRACTS[section]['name']!r}"


@pytest.mark.parametrize("target", sorted({t for _, t, _ in LAZY}))
def test_a_lazy_import_names_a_module_that_exists(target):
    assert importlib.util.find_spec(target) is not None, target


# --- lazy_import itself -----------------------------------------------------------------------------------------


@pytest.fixture()
def runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The names of the probe modules (written to ``tmp_path``, on ``sys.path``) in the order they ran: each
    appends its name to this list when it runs."""
    log = types.ModuleType("lazy_probe_log")
    log.RUNS = []
    monkeypatch.setitem(sys.modules, "lazy_probe_log", log)
    probe = "import lazy_probe_log\nlazy_probe_log.RUNS.append(__name__)\nVALUE = 42\n"
    (tmp_path / "lazy_probe.py").write_text(probe, encoding="utf-8")
    (tmp_path / "lazy_probe_pkg").mkdir()
    (tmp_path / "lazy_probe_pkg" / "__init__.py").write_text(probe, encoding="utf-8")
    (tmp_path / "lazy_probe_pkg" / "sub.py").write_text(probe, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.invalidate_caches()
    yield log.RUNS
    for name in ("lazy_probe", "lazy_probe_pkg", "lazy_probe_pkg.sub"):
        sys.modules.pop(name, None)


def test_the_module_runs_on_its_first_attribute_read(runs):
    module = lazy_import("lazy_probe")
    assert runs == []
    assert sys.modules["lazy_probe"] is module and not loaded("lazy_probe")
    assert module.VALUE == 42
    assert runs == ["lazy_probe"] and loaded("lazy_probe")
    assert module.VALUE == 42 and runs == ["lazy_probe"]  # once


def test_a_module_already_handed_out_or_loaded_is_returned_as_it_is(runs):
    module = lazy_import("lazy_probe")
    assert lazy_import("lazy_probe") is module and runs == []
    assert importlib.import_module("lazy_probe") is module  # an import reads it: it runs then, once
    assert module.VALUE == 42 and runs == ["lazy_probe"]
    assert lazy_import("lazy_probe") is module and runs == ["lazy_probe"]


def test_a_submodule_s_package_is_imported_at_once(runs):
    module = lazy_import("lazy_probe_pkg.sub")
    assert runs == ["lazy_probe_pkg"]
    assert sys.modules["lazy_probe_pkg"].sub is module  # the package names it, as an import would
    assert module.VALUE == 42 and runs == ["lazy_probe_pkg", "lazy_probe_pkg.sub"]


def test_a_module_that_does_not_exist_is_an_error_at_once(runs):
    with pytest.raises(ModuleNotFoundError):
        lazy_import("lazy_probe_missing")
    assert "lazy_probe_missing" not in sys.modules


def test_loaded_is_false_for_a_module_never_imported():
    assert loaded("lazy_probe_never_imported") is False
    assert loaded("sys") is True

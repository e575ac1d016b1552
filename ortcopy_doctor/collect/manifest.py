"""What an audit checks (``ortcopy-doctor audit``, issue 37): a manifest (TOML, JSON or YAML) of models, each with the
flags ``check`` takes and optional configurations, or model files and folders with shared flags, read into one
``AuditEntry`` a row. Pure reading: nothing runs here.

A manifest::

    [defaults]                      # every model's flags, unless it gives its own
    providers = ["cuda"]
    timeout = 600

    [[model]]
    path = "zoo/resnet18.onnx"      # relative to the manifest's folder
    name = "resnet18"               # the row's id (default: the file's stem)
    dims = { batch = 8 }
    configs = [{ label = "batch=1", dims = { batch = 1 } }, { label = "batch=64", dims = { batch = 64 } }]

Keys of a model (and of ``[defaults]``, and of a config, which overrides its model's): ``dims`` (symbol → size),
``shapes`` (input → list of sizes), ``values`` (input → text), ``inputs`` (an .npz), ``providers`` (names, as
``--provider``), ``provider_options`` (key → value), ``allow`` (rule ids or slugs), ``custom_op_library`` (paths),
``static`` (a prediction only: runs nothing, takes no GPU), ``runs``, ``timed_runs``, ``warmup``, ``timeout``
(seconds), ``args`` (more ``check`` flags, as they are typed).
"""

from __future__ import annotations

import glob
import json
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from ortcopy_doctor.model.audit import AuditEntry
from ortcopy_doctor.model.errors import UsageError

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

DEFAULT_TIMEOUT_S = 900.0
KEYS = {"path", "name", "configs", "dims", "shapes", "values", "inputs", "providers", "provider_options", "allow",
        "custom_op_library", "static", "runs", "timed_runs", "warmup", "timeout", "args", "label"}
_ID = re.compile(r"[^\w.=,\[\]+-]+")


def _load(path: Path) -> Any:
    """The manifest's document, by its suffix: .toml, .json, .yaml/.yml."""
    try:
        text = path.read_bytes()
    except OSError as exc:
        raise UsageError(f"manifest {path} cannot be read ({exc.strerror or exc}): pass a TOML, JSON or YAML "
                         "file") from None
    suffix = path.suffix.lower()
    try:
        if suffix == ".toml":
            return tomllib.loads(text.decode("utf-8"))
        if suffix == ".json":
            return json.loads(text)
        if suffix in (".yaml", ".yml"):
            try:
                import yaml  # here: optional (pip install pyyaml); TOML and JSON need nothing
            except ImportError:
                raise UsageError(f"manifest {path} is YAML and PyYAML is not installed: pip install pyyaml, or write "
                                 "the manifest in TOML or JSON") from None
            return yaml.safe_load(text)
    except UsageError:
        raise
    except Exception as exc:  # noqa: BLE001 - the parser's own message, on one line
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise UsageError(f"manifest {path} is not valid {suffix[1:].upper()}: {first}") from None
    raise UsageError(f"manifest {path}: give a .toml, .json, .yaml or .yml file")


def _where(index: int, name: str, config: str = "") -> str:
    return f"model {index + 1} ({name})" + (f", config {config!r}" if config else "")


def _mapping(value: Any, key: str, where: str) -> dict[str, Any]:
    if not isinstance(value, Mapping):
        raise UsageError(f"manifest: {where}: {key} must be a table of names to values, got {value!r}")
    return dict(value)


def _strings(value: Any, key: str, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, Sequence) or not all(isinstance(v, (str, int, float)) for v in value):
        raise UsageError(f"manifest: {where}: {key} must be a list of strings, got {value!r}")
    return [str(v) for v in value]


def _int(value: Any, key: str, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UsageError(f"manifest: {where}: {key} must be a whole number, got {value!r}")
    return value


def check_args(spec: Mapping[str, Any], base: Path, where: str) -> list[str]:
    """The ``check`` flags of one model (or config) ``spec``: paths made absolute from ``base``."""
    args: list[str] = []
    for symbol, size in _mapping(spec.get("dims", {}), "dims", where).items():
        args += ["--dim", f"{symbol}={_int(size, f'dims.{symbol}', where)}"]
    for name, dims in _mapping(spec.get("shapes", {}), "shapes", where).items():
        sizes = dims if isinstance(dims, Sequence) and not isinstance(dims, str) else None
        if sizes is None or not all(isinstance(d, int) and not isinstance(d, bool) for d in sizes):
            raise UsageError(f"manifest: {where}: shapes.{name} must be a list of sizes, e.g. [1, 3, 224, 224]")
        args += ["--shape", f"{name}={'x'.join(str(d) for d in sizes)}"]
    for name, value in _mapping(spec.get("values", {}), "values", where).items():
        args += ["--value", f"{name}={value}"]
    if "inputs" in spec:
        args += ["--inputs", str(base / str(spec["inputs"]))]
    for provider in _strings(spec.get("providers", []), "providers", where):
        args += ["--provider", provider]
    for key, value in _mapping(spec.get("provider_options", {}), "provider_options", where).items():
        args += ["--provider-option", f"{key}={value}"]
    for kind in _strings(spec.get("allow", []), "allow", where):
        args += ["--allow", kind]
    for library in _strings(spec.get("custom_op_library", []), "custom_op_library", where):
        args += ["--custom-op-library", str(base / library)]
    for key, flag in (("runs", "--runs"), ("timed_runs", "--timed-runs"), ("warmup", "--warmup")):
        if key in spec:
            args += [flag, str(_int(spec[key], key, where))]
    if spec.get("static", False) is True:
        args.append("--static")
    return args + _strings(spec.get("args", []), "args", where)


def _timeout(spec: Mapping[str, Any], where: str) -> float:
    value = spec.get("timeout", DEFAULT_TIMEOUT_S)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise UsageError(f"manifest: {where}: timeout must be a number of seconds, got {value!r}")
    return float(value)


def _unknown(spec: Mapping[str, Any], where: str) -> None:
    unknown = sorted(set(spec) - KEYS)
    if unknown:
        raise UsageError(f"manifest: {where}: unknown key {unknown[0]!r} (keys: {', '.join(sorted(KEYS))})")


def row_id(name: str, label: str = "") -> str:
    """The row's id: the model's name, and its configuration's label in brackets (``resnet18[batch=8]``)."""
    text = f"{name}[{label}]" if label else name
    return _ID.sub("_", text)


def entries_from_document(document: Any, base: Path, shared: Sequence[str] = ()) -> list[AuditEntry]:
    """The rows of a parsed manifest (``base``: its folder), ``shared`` flags after each model's own."""
    if not isinstance(document, Mapping) or not isinstance(document.get("model"), list) or not document["model"]:
        raise UsageError("manifest: give a list of models under the key 'model' (TOML: [[model]] tables)")
    defaults = _mapping(document.get("defaults", {}), "defaults", "[defaults]")
    _unknown(defaults, "[defaults]")
    entries: list[AuditEntry] = []
    for index, raw in enumerate(document["model"]):
        if not isinstance(raw, Mapping) or not isinstance(raw.get("path"), str):
            raise UsageError(f"manifest: model {index + 1}: give its path (path = \"model.onnx\")")
        spec = {**defaults, **raw}
        name = str(spec.get("name") or Path(spec["path"]).stem)
        _unknown(raw, _where(index, name))
        configs = spec.pop("configs", None) or [{}]
        if not isinstance(configs, list):
            raise UsageError(f"manifest: {_where(index, name)}: configs must be a list of tables")
        for config in configs:
            config = _mapping(config, "configs[]", _where(index, name))
            label = str(config.get("label", "")) if len(configs) > 1 or config.get("label") else ""
            where = _where(index, name, label)
            if len(configs) > 1 and not label:
                raise UsageError(f"manifest: {where}: each of several configs needs a label")
            _unknown(config, where)
            merged = {**spec, **{k: v for k, v in config.items() if k != "label"}}
            entries.append(AuditEntry(id=row_id(name, label), model=str(base / spec["path"]), config=label,
                                      args=[*check_args(merged, base, where), *shared],
                                      measure=merged.get("static", False) is not True and "--static" not in shared,
                                      timeout_s=_timeout(merged, where)))
    return _unique(entries)


def _unique(entries: list[AuditEntry]) -> list[AuditEntry]:
    seen: set[str] = set()
    for entry in entries:
        if entry.id in seen:
            raise UsageError(f"manifest: two rows are called {entry.id!r}: give one model a name (name = \"...\") or "
                             "its configs other labels")
        seen.add(entry.id)
    return entries


def read_targets(targets: Iterable[str], shared: Sequence[str] = (), timeout_s: float = DEFAULT_TIMEOUT_S) -> list[AuditEntry]:
    """The rows of ``targets``: one manifest (.toml/.json/.yaml/.yml), or model files, folders (every .onnx under
    them) and globs, each model one row with the ``shared`` check flags."""
    targets = list(targets)
    manifests = [t for t in targets if Path(t).suffix.lower() in (".toml", ".json", ".yaml", ".yml")]
    if manifests:
        if len(targets) > 1:
            raise UsageError("give one manifest, or model files and folders, not both")
        path = Path(manifests[0])
        return entries_from_document(_load(path), path.parent, shared)
    models: list[Path] = []
    for target in targets:
        path = Path(target)
        if path.is_dir():
            models += sorted(path.rglob("*.onnx"))
        elif any(c in target for c in "*?["):
            models += sorted(Path(found) for found in glob.glob(target, recursive=True))
        elif path.is_file():
            models.append(path)
        else:
            raise UsageError(f"{target} is not a manifest, a model file or a folder: pass one of them")
    if not models:
        raise UsageError(f"no .onnx model under {', '.join(targets)}: pass a manifest, model files or folders")
    static = "--static" in shared
    stems_unique = len({m.stem for m in models}) == len(models)  # else the paths name the rows
    return _unique([AuditEntry(id=row_id(m.stem if stems_unique else str(m)), model=str(m), args=list(shared),
                               measure=not static, timeout_s=timeout_s) for m in models])


__all__ = ["DEFAULT_TIMEOUT_S", "check_args", "entries_from_document", "read_targets", "row_id"]

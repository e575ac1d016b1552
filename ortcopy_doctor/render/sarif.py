"""SARIF 2.1.0 output (``--sarif FILE``) for code-scanning UIs.

One SARIF rule per finding kind (``rules.CHECK_RULES``: id, slug as name, title as short description, the general fix
as help), one result per finding: level error/warning/note (the rules' info is SARIF's note), the message with its
specific fix, the model file as the physical location (a URI relative to the base folder, the current directory
for the CLI, where the model lies under it, else an absolute file URI; each path segment percent-encoded) and the
node or tensor as the logical location, and the bytes per run in the result's properties. Findings of a kind passed
with ``--allow`` keep their result, at level "note" with an accepted external suppression (see
``ortcopy_doctor.report.gate``). Predicted findings (static analysis for a requested provider that was not active)
are results too, marked ``"predicted": true``. A prediction names every Memcpy node by its op type (MemcpyToHost,
MemcpyFromHost): such a Memcpy-node finding is told apart by the tensor it copies, in its fingerprint and its
logical location's name.

A run report (``PipelineReport`` of ``ortcopy-doctor run``) has its own log (``run_sarif_log``): the run rules
(OCD1xx) as its rules, one result per finding at the program's code: the source file of the call or creation site
(relative to the base folder where it lies under it) with the line as its region and the function as the logical
location; where the recording has no site, the program's script without a line. Its bytes are per iteration of the
pipeline's loop (``bytesPerIteration``), and its fingerprint leaves the line out, so an edit above the call does not
make a finding new.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
from collections.abc import Iterable, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ortcopy_doctor.model import codec
from ortcopy_doctor.model.version import __version__
from ortcopy_doctor.knowledge.providers import short
from ortcopy_doctor.render.terminal import json_safe
from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.model.pipeline import split_site
from ortcopy_doctor.rules import CHECK_RULES, RUN_RULES, Rule, is_allowed, rule_help_uri

if TYPE_CHECKING:
    from ortcopy_doctor.model.pipeline import PipelineReport
    from ortcopy_doctor.model.report import Report

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
SRCROOT = "%SRCROOT%"

LEVEL = {"error": "error", "warning": "warning", "info": "note"}
# GitHub code scanning reads this property for its severity column.
PROBLEM_SEVERITY = {"error": "error", "warning": "warning", "info": "recommendation"}

# Which logical location a finding's ``location`` names.
_NODE_SLUGS = {r.slug for r in CHECK_RULES if r.location == "node"}  # census findings: looked up by name
_INPUT_SLUGS = {r.slug for r in CHECK_RULES if r.location == "input"}
_OUTPUT_SLUGS = {r.slug for r in CHECK_RULES if r.location == "output"}


def _uri_path(path: str) -> str:
    """``path`` (``/``-separated) as the path of a URI: each segment percent-encoded (UTF-8), ``/`` kept between
    them, so a space, ``%``, ``#``, ``?``, ``:`` or a non-ASCII character stays part of its segment."""
    return quote(path, safe="/", encoding="utf-8", errors="surrogateescape")


def _relative_to(path: str, base: str) -> PurePosixPath | None:
    """``path`` relative to ``base`` (both absolute) where it lies under it: as spelled (a symbolic link under the
    base stays a path under it), else with links resolved (a base spelled through a link); None where not."""
    for p, b in ((os.path.normpath(path), os.path.normpath(base)), (os.path.realpath(path), os.path.realpath(base))):
        try:
            rel = Path(p).relative_to(b)
        except ValueError:
            continue
        if rel.parts:
            return PurePosixPath(*rel.parts)
    return None


def artifact_location(model_path: str, base: Path | None) -> dict[str, Any]:
    """The model file as a SARIF artifactLocation: relative to ``base`` (with uriBaseId %SRCROOT%) where it lies
    under it, however the path is spelled (a relative path is taken from ``base``, the current directory for the
    CLI: ``../other/m.onnx`` is not under it), else an absolute file URI. Without a base a relative path stays
    relative unless it leads out (``../``). Each path segment is percent-encoded (RFC 3986), so the uri is a valid
    URI reference whatever the folder and file names hold."""
    path = Path(model_path)
    if not path.parts:
        return {"uri": _uri_path(model_path), "uriBaseId": SRCROOT}
    if base is None and not path.is_absolute():
        normal = PurePosixPath(posixpath.normpath(PurePosixPath(*path.parts).as_posix()))
        if normal.parts and normal.parts[0] != "..":
            return {"uri": _uri_path(normal.as_posix()), "uriBaseId": SRCROOT}
    anchor = os.path.abspath(base if base is not None else os.curdir)
    absolute = os.path.normpath(os.path.join(anchor, path))  # as spelled, normalised: "a/../b" is "b"
    if base is not None:
        try:
            rel = _relative_to(absolute, anchor)
        except OSError:
            rel = None
        if rel is not None:
            return {"uri": _uri_path(rel.as_posix()), "uriBaseId": SRCROOT}
    return {"uri": Path(absolute).as_uri()}


def _rule_descriptor(rule: Rule) -> dict[str, Any]:
    help_text = rule.help or rule.title
    return {
        "id": rule.id,
        "name": rule.slug,
        "shortDescription": {"text": rule.title},
        "fullDescription": {"text": f"{rule.title} ({rule.slug}): {help_text}"},
        "help": {"text": help_text, "markdown": f"**{rule.title}** (`{rule.id}` `{rule.slug}`)\n\n{help_text}"},
        "helpUri": rule_help_uri(rule),
        "defaultConfiguration": {"level": LEVEL[rule.severity.value]},
        "properties": {"tags": ["performance", "onnxruntime", "host-device-copy"],
                       "problem.severity": PROBLEM_SEVERITY[rule.severity.value]},
    }


def _memcpy_tensor(finding: Finding, predicted_for: str) -> str:
    """The tensor a Memcpy-node finding copies where the node's name does not tell it apart, else "": a prediction
    names every Memcpy node by its op type (MemcpyToHost, MemcpyFromHost), and a measured Memcpy node the profile did
    not show has no name. A measured node keeps ORT's own name (Memcpy, Memcpy_token_0, ...), unique in its session."""
    if finding.slug != "memcpy-node" or not (finding.predicted or predicted_for or not finding.location):
        return ""
    tensor = finding.details.get("tensor")
    return tensor if isinstance(tensor, str) else ""


def _logical_locations(report: Report, finding: Finding, predicted_for: str = "") -> list[dict[str, Any]]:
    name = finding.location
    copied = _memcpy_tensor(finding, predicted_for)
    if copied:
        # MemcpyToHost(t): the op (a measured node without a name: the op of its direction) and the tensor copied.
        op = name or ("MemcpyToHost" if finding.details.get("direction") == "device_to_host" else "MemcpyFromHost")
        name = f"{op}({copied})"
    if not name or finding.slug == "ep-not-active" or name == "session":
        return [{"name": "session", "kind": "module"}]
    nodes = {n.name: n for n in report.evidence.nodes}
    inputs = {v.name for v in report.evidence.model.inputs}
    outputs = {v.name for v in report.evidence.model.outputs}
    if finding.slug in _NODE_SLUGS or (name in nodes and finding.slug not in _INPUT_SLUGS | _OUTPUT_SLUGS):
        node = nodes.get(name)
        graph = node.graph if node is not None else str(finding.details.get("graph", "") or "")
        location = {"name": name, "fullyQualifiedName": f"{graph}/{name}" if graph else name, "kind": "function"}
        result = [location]
        tensor = finding.details.get("tensor")
        if isinstance(tensor, str) and tensor:
            result.append({"name": tensor, "kind": "variable"})
        return result
    if finding.slug in _INPUT_SLUGS or name in inputs:
        return [{"name": name, "kind": "parameter"}]
    if finding.slug in _OUTPUT_SLUGS or name in outputs:
        return [{"name": name, "kind": "returnType"}]
    return [{"name": name, "kind": "object"}]


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _fingerprint(model_sha: str, finding: Finding, predicted_for: str) -> str:
    parts = [model_sha, finding.rule, finding.location, predicted_for]
    copied = _memcpy_tensor(finding, predicted_for)
    if copied:  # only where the node name does not tell the finding apart: other fingerprints stay as they were
        parts.append(copied)
    key = "\0".join(parts)
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]


def _result(report: Report, finding: Finding, rule_index: dict[str, int], location: dict[str, Any],
            allow: frozenset[str], predicted_for: str = "") -> dict[str, Any]:
    allowed = is_allowed(finding, allow)
    prefix = f"Predicted for {predicted_for}: " if predicted_for else ""
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index[finding.rule],
        "level": "note" if allowed else LEVEL[finding.severity],
        "message": {"text": f"{prefix}{_sentence(finding.message)} Fix: {_sentence(finding.fix)}"},
        "locations": [{
            "physicalLocation": {"artifactLocation": location},
            "logicalLocations": _logical_locations(report, finding, predicted_for),
        }],
        "partialFingerprints": {"ortcopyDoctorFinding/v1": _fingerprint(report.evidence.model.sha256, finding,
                                                                        predicted_for)},
        "properties": {
            "slug": finding.slug,
            "severity": finding.severity,
            "bytesPerRun": finding.bytes_per_run,
            "predicted": bool(finding.predicted or predicted_for),
            "fix": finding.fix,
        },
    }
    if allowed:
        result["suppressions"] = [{"kind": "external", "status": "accepted",
                                   "justification": f"finding kind {finding.rule} {finding.slug} accepted with --allow"}]
    return result


def sarif_log(report: Report, allow: Iterable[str] = (), base: Path | str | None = None) -> dict[str, Any]:
    """The SARIF log of ``report``; ``allow`` holds rule ids (``gate.resolve_allow``), ``base`` the folder that
    relative model URIs start from (None: always an absolute file URI unless the recorded path is relative)."""
    allow = frozenset(allow)
    base_path = Path(base) if base is not None else None
    rule_index = {r.id: i for i, r in enumerate(CHECK_RULES)}
    ev = report.evidence
    location = artifact_location(ev.model.path, base_path)
    results = [_result(report, f, rule_index, location, allow) for f in report.findings if f.rule in rule_index]
    if report.prediction is not None:
        p = report.prediction
        provider = short(p.evidence.session.active_providers[0]) if p.evidence.session.active_providers else "?"
        results += [_result(report, f, rule_index, location, allow, predicted_for=provider)
                    for f in p.findings if f.rule in rule_index]
    s = report.summary
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "ortcopy-doctor",
            "version": __version__,
            "semanticVersion": __version__,
            "rules": [_rule_descriptor(r) for r in CHECK_RULES],
        }},
        "artifacts": [{"location": location, "length": ev.model.file_bytes,
                       "hashes": {"sha-256": ev.model.sha256} if ev.model.sha256 else {}}],
        "results": results,
        "columnKind": "utf16CodeUnits",
        "properties": {
            "verdict": report.verdict,
            "mode": ev.mode,
            "copiesPerRun": s.copies_per_run,
            "bytesPerRun": s.bytes_per_run,
            "medianRunMs": s.median_run_ms,
            "activeProviders": list(ev.session.active_providers),
            "ortVersion": ev.environment.ort_version,
            "allowed": sorted(allow),
        },
    }
    if not run["artifacts"][0]["hashes"]:
        del run["artifacts"][0]["hashes"]
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def render_sweep_sarif(reports: Sequence[Report], labels: Sequence[str], allow: Iterable[str] = (),
                       base: Path | str | None = None) -> str:
    """The SARIF log of a check at several shapes: one run per shape (``sarif_log`` of its report), told apart by
    ``automationDetails.id`` (``ortcopy-doctor/check/<shape label>``, the category code-scanning UIs keep apart)
    and the shape in the run's properties."""
    allow = frozenset(allow)
    runs = []
    for report, label in zip(reports, labels):
        run = sarif_log(report, allow, base)["runs"][0]
        run["automationDetails"] = {"id": f"ortcopy-doctor/check/{label}"}
        run["properties"]["shape"] = label
        runs.append(run)
    return json_safe(codec.to_json({"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": runs})) + "\n"


def render_sarif(report: Report, allow: Iterable[str] = (), base: Path | str | None = None) -> str:
    """The SARIF log of ``report`` as JSON text (see ``sarif_log``)."""
    # names and messages from the model or the report file: no raw control characters in the file
    return json_safe(codec.to_json(sarif_log(report, allow, base))) + "\n"


# --- run reports --------------------------------------------------------------------------------------------------


def _script(report: PipelineReport) -> str:
    """The program's script as its command line names it (``python prog.py``: prog.py), "" for ``-m`` or none."""
    words = list(report.program)
    if words and not words[0].endswith(".py"):
        words = words[1:]  # the interpreter
    return words[0] if words and words[0].endswith(".py") else ""


def _run_location(report: PipelineReport, finding: Finding, base: Path | None) -> dict[str, Any]:
    """Where a run finding is: the site's file and line (the function as the logical location), else the script."""
    site = finding.details.get("site")
    path, function, line = split_site(site if isinstance(site, str) else "")
    subject = str(finding.details.get("subject", "") or finding.location)
    logical = [{"name": subject, "kind": "object"}]
    location: dict[str, Any] = {}
    if path:
        location["physicalLocation"] = {"artifactLocation": artifact_location(path, base),
                                        "region": {"startLine": line}}
        logical.insert(0, {"name": function, "kind": "function"})
    elif _script(report):
        location["physicalLocation"] = {"artifactLocation": artifact_location(_script(report), base)}
    location["logicalLocations"] = logical
    return location


def _run_result(report: PipelineReport, finding: Finding, rule_index: dict[str, int], allow: frozenset[str],
                base: Path | None) -> dict[str, Any]:
    allowed = is_allowed(finding, allow)
    location = _run_location(report, finding, base)
    where = location.get("physicalLocation", {}).get("artifactLocation", {}).get("uri", "")
    function = location["logicalLocations"][0]["name"] if len(location["logicalLocations"]) > 1 else ""
    key = "\0".join([finding.rule, str(finding.details.get("subject", "") or finding.location), where, function])
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index[finding.rule],
        "level": "note" if allowed else LEVEL[finding.severity],
        "message": {"text": f"{_sentence(finding.message)} Fix: {_sentence(finding.fix)}"},
        "locations": [location],
        "partialFingerprints": {"ortcopyDoctorFinding/v1": hashlib.sha256(key.encode("utf-8")).hexdigest()[:32]},
        "properties": {
            "slug": finding.slug,
            "severity": finding.severity,
            "bytesPerIteration": finding.bytes_per_run,
            "predicted": finding.predicted,
            "fix": finding.fix,
            "site": finding.details.get("site", ""),
        },
    }
    if allowed:
        result["suppressions"] = [{"kind": "external", "status": "accepted", "justification":
                                   f"finding kind {finding.rule} {finding.slug} accepted with --allow"}]
    return result


def run_sarif_log(report: PipelineReport, allow: Iterable[str] = (), base: Path | str | None = None) -> dict[str, Any]:
    """The SARIF log of a run report: its findings at the program's code; ``allow`` holds rule ids, ``base`` the
    folder that relative source URIs start from (None: a relative site stays relative)."""
    allow = frozenset(allow)
    base_path = Path(base) if base is not None else None
    rule_index = {r.id: i for i, r in enumerate(RUN_RULES)}
    results = [_run_result(report, f, rule_index, allow, base_path) for f in report.findings if f.rule in rule_index]
    run: dict[str, Any] = {
        "tool": {"driver": {
            "name": "ortcopy-doctor",
            "version": __version__,
            "semanticVersion": __version__,
            "rules": [_rule_descriptor(r) for r in RUN_RULES],
        }},
        "results": results,
        "columnKind": "utf16CodeUnits",
        "properties": {
            "verdict": report.verdict,
            "program": list(report.program),
            "exitCode": report.exit_code,
            "pipelines": [{"sessions": list(p.sessions), "iterations": p.iterations,
                           "bytesUpPerIteration": p.h2d_bytes_per_iteration,
                           "bytesDownPerIteration": p.d2h_bytes_per_iteration,
                           "bytesPredicted": p.bytes_predicted, "iterationMs": p.iteration_ms}
                          for p in report.pipelines],
            "allowed": sorted(allow),
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def render_run_sarif(report: PipelineReport, allow: Iterable[str] = (), base: Path | str | None = None) -> str:
    """The SARIF log of a run report as JSON text (see ``run_sarif_log``)."""
    return json_safe(codec.to_json(run_sarif_log(report, allow, base))) + "\n"

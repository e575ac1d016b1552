"""The published JSON Schema of the report (ortcopy_doctor/model/schema/report.schema.json).

Everything the tool writes validates: the GPU fixtures as recorded, their re-analysis, the golden files, a static
and a CPU check; the schema catches drift (a wrong kind, direction or severity, a missing key, a wrong type) and
tolerates the optional fields added within format version 1. The CLI tests validate the JSON they write too
(schema_helpers.assert_valid_report).
"""

from __future__ import annotations

import copy
import gzip
import json
import re

import jsonschema
import onnx
import pytest

import models
from ortcopy_doctor.model.evidence import FORMAT_VERSION as EVIDENCE_FORMAT_VERSION
from ortcopy_doctor.report.core import REPORT_FORMAT, REPORT_FORMAT_VERSION, load_report
from ortcopy_doctor.rules import RULES
from ortcopy_doctor.model.schema import SCHEMA_ID, load_schema, validation_errors
from render_helpers import FIXTURES, GOLDEN, REPO, fixture_report_dict, write_report_json
from schema_helpers import assert_valid_report, run_cli

ALL_FIXTURES = sorted(p.name[: -len(".json.gz")] for p in FIXTURES.glob("*.json.gz"))


def test_schema_is_valid_draft_2020_12():
    schema = load_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"] == SCHEMA_ID
    jsonschema.Draft202012Validator.check_schema(schema)


def test_schema_versions_match_the_code():
    schema = load_schema()
    assert schema["properties"]["format"] == {"const": REPORT_FORMAT}
    # Version 2 added "advice"; version 1 files (the recorded fixtures) still validate.
    assert schema["properties"]["format_version"] == {"enum": list(range(1, REPORT_FORMAT_VERSION + 1))}
    evidence_version = schema["$defs"]["evidence"]["properties"]["format_version"]
    assert evidence_version["maximum"] == EVIDENCE_FORMAT_VERSION, "evidence FORMAT_VERSION changed: update the schema"


def test_schema_ships_in_the_package_directory():
    # hatchling puts every file under ortcopy_doctor/ into the wheel (tests/project/test_wheel.py checks the wheel).
    assert (REPO / "ortcopy_doctor" / "model" / "schema" / "report.schema.json").is_file()


def test_format_doc_names_the_versions():
    doc = (REPO / "docs" / "json-format.md").read_text(encoding="utf-8")
    assert f"format_version` {REPORT_FORMAT_VERSION}" in doc
    assert "report.schema.json" in doc and "(../CHANGELOG.md)" in doc


def test_one_change_log_lists_every_format_version():
    """CHANGELOG.md at the root is the one change log; the docs and docstrings point at it instead of repeating it."""
    log = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    report = log[log.index("## Report format"):log.index("## Evidence format")]
    evidence = log[log.index("## Evidence format"):]
    assert [int(v) for v in re.findall(r"^- \*\*(\d+)\*\*:", report, flags=re.M)] == list(
        range(REPORT_FORMAT_VERSION, 0, -1))
    assert [int(v) for v in re.findall(r"^- \*\*(\d+)\*\*:", evidence, flags=re.M)] == list(
        range(EVIDENCE_FORMAT_VERSION, 0, -1))
    for place in ("docs/json-format.md", "README.md", "ortcopy_doctor/report/core.py",
                  "ortcopy_doctor/model/evidence.py", "ortcopy_doctor/model/schema/report.schema.json"):
        text = (REPO / place).read_text(encoding="utf-8")
        assert "CHANGELOG.md" in text, place
        assert not re.search(r"^\s*[-*] \**(report format )?1\**:", text, flags=re.M), f"{place} repeats the change log"


def test_every_rule_fits_the_finding_patterns():
    finding = load_schema()["$defs"]["finding"]["properties"]
    for rule in RULES:
        assert re.fullmatch(finding["rule"]["pattern"], rule.id), rule.id
        assert re.fullmatch(finding["slug"]["pattern"], rule.slug), rule.slug


# --- what the tool writes validates -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_recorded_gpu_report_validates(name):
    assert_valid_report(fixture_report_dict(name))


@pytest.mark.parametrize("name", ALL_FIXTURES)
def test_reanalysed_gpu_report_validates(name, tmp_path):
    report = load_report(write_report_json(fixture_report_dict(name), tmp_path / f"{name}.json"))
    assert_valid_report(json.loads(report.to_json()))


BINDING_AB = REPO / "tests" / "fixtures" / "binding_ab"


@pytest.mark.parametrize("name", sorted(p.name[: -len(".json.gz")] for p in BINDING_AB.glob("*.json.gz")))
def test_reanalysed_binding_ab_report_validates(name, tmp_path):
    """The H200 recordings with a binding measurement and a census: every closed object the JSON can hold is filled
    (advice, measured, census, evidence.binding_measurement), as recorded and as re-analysed."""
    with gzip.open(BINDING_AB / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        recorded = json.load(f)["report"]
    assert_valid_report(recorded)
    data = json.loads(load_report(write_report_json(recorded, tmp_path / f"{name}.json")).to_json())
    assert_valid_report(data)
    assert data["evidence"]["binding_measurement"]["status"] == "measured"
    assert None not in (data["advice"], data["measured"], data["census"])


def _unmask(value):
    """Golden JSON has timing numbers masked as "<time>" and the analysis seal as "<ANALYSIS_SEAL>": put numbers and
    a seal's 64 hex digits back to validate the structure."""
    if isinstance(value, dict):
        return {k: "0" * 64 if k == "analysis_seal" and v == "<ANALYSIS_SEAL>" else _unmask(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unmask(v) for v in value]
    return 0 if value == "<time>" else value


# <fixture>.json are report goldens; <fixture>.sarif.json and <fixture>.trace.json are other formats.
@pytest.mark.parametrize("golden", sorted(p.name for p in GOLDEN.glob("*.json") if p.name.count(".") == 1))
def test_golden_report_json_validates(golden):
    data = json.loads((GOLDEN / golden).read_text(encoding="utf-8"))
    if data.get("format") != REPORT_FORMAT:
        pytest.skip(f"{golden} is not a report")
    assert_valid_report(_unmask(data))


def test_static_report_validates(tmp_path):
    from ortcopy_doctor.api import check

    onnx.save(models.cpu_op_between(), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", dims={"batch": 2}, static=True)
    data = assert_valid_report(json.loads(report.to_json()))
    assert data["evidence"]["mode"] == "static"


def test_cli_report_json_validates(tmp_path):
    """`report --json` writes the re-analysed report: it validates, and so does `report` re-reading it."""
    src = write_report_json(fixture_report_dict("demo"), tmp_path / "demo.json")
    result = run_cli(["report", str(src), "--json", "again.json"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert_valid_report(tmp_path / "again.json")
    result = run_cli(["report", "again.json", "--json", "third.json"], tmp_path)
    assert result.returncode == 0, result.stderr
    assert_valid_report(tmp_path / "third.json")


# --- the schema catches drift -------------------------------------------------------------------------------------


@pytest.fixture
def good():
    return fixture_report_dict("cpu_op_between")


def _errors_after(data, edit) -> list[str]:
    data = copy.deepcopy(data)
    edit(data)
    return validation_errors(data)


@pytest.mark.parametrize("edit, where", [
    (lambda d: d["copies"][0].update(kind="memcpy"), "copies/0/kind"),
    (lambda d: d["copies"][0].update(direction="h2d"), "copies/0/direction"),
    (lambda d: d["copies"][0].pop("tensor"), "copies/0"),
    (lambda d: d["copies"][0].update(bytes_per_run="512"), "copies/0/bytes_per_run"),
    (lambda d: d["findings"][0].update(severity="fatal"), "findings/0/severity"),
    (lambda d: d["findings"][0].update(rule="X1"), "findings/0/rule"),
    (lambda d: d["summary"].update(findings_by_severity={"fatal": 1}), "summary/findings_by_severity"),
    (lambda d: d["summary"].pop("bytes_per_run"), "summary"),
    (lambda d: d.pop("verdict"), "<root>"),
    (lambda d: d.update(format_version=3), "format_version"),
    (lambda d: d["evidence"].update(format_version=2), "evidence/format_version"),
    (lambda d: d["evidence"].update(mode="guessed"), "evidence/mode"),
    (lambda d: d["evidence"]["run_events"][0].update(warmup="no"), "evidence/run_events/0/warmup"),
    (lambda d: d["evidence"]["node_events"][0].pop("ts_us"), "evidence/node_events/0"),
    (lambda d: d["evidence"]["model"].update(opsets={"ai.onnx": "17"}), "evidence/model/opsets/ai.onnx"),
    (lambda d: d["evidence"]["session"].update(active_providers="CUDA"), "evidence/session/active_providers"),
    (lambda d: d["binding"]["entries"][0].update(place="gpu"), "binding/entries/0/place"),
])
def test_schema_rejects_drift(good, edit, where):
    errors = _errors_after(good, edit)
    assert errors, f"schema accepted a broken report ({where})"
    assert any(e.startswith(where + ":") for e in errors), errors


def test_schema_tolerates_optional_additions(good):
    """Fields added within a format version (evidence.census, a binding measurement, confirmed on a copy) validate."""
    def edit(d):
        d["evidence"]["census"] = {"backend": "cupti-python", "backend_version": "13.4.0", "records": [
            {"direction": "host_to_device", "bytes": 512, "src_kind": "pageable", "dst_kind": "device",
             "start_ns": 1, "end_ns": 2, "correlation_id": 3, "api_start_ns": None, "api_kind": "runtime"}],
            "clock_pairs": [[1, 2]], "traced_runs": [2, 3]}
        d["evidence"]["census_status"] = "recorded: 1 transfer"
        d["evidence"]["binding_measurement"] = {"status": "skipped", "reason": "no GPU"}
        d["copies"][0]["confirmed"] = True
        d["prediction"] = None
        d["measured"] = None
    assert _errors_after(good, edit) == []


@pytest.mark.parametrize("edit, where", [
    (lambda d: d.update(new_key=1), "<root>"),
    (lambda d: d["copies"][0].update(new_field="x"), "copies/0"),
    (lambda d: d["summary"].update(new_count=3), "summary"),
    (lambda d: d["evidence"].update(binding_measurements={}), "evidence"),
    (lambda d: d["evidence"]["model"].update(new_field=1), "evidence/model"),
    (lambda d: d["binding"]["entries"][0].update(new_field=1), "binding/entries/0"),
])
def test_schema_rejects_unknown_keys(good, edit, where):
    """The objects are closed: a key the dataclasses do not have is drift (a typo, a field not added to the schema)."""
    errors = _errors_after(good, edit)
    assert any(e.startswith(where + ": Additional properties are not allowed") for e in errors), errors


def test_finding_details_stay_open(good):
    """A finding's details are the rule's own data (rules add keys freely); the schema leaves them open."""
    def edit(d):
        d["findings"][0]["details"] = {"any_key": [1, "two"], "nested": {"x": None}}
    assert _errors_after(good, edit) == []


def test_schema_checks_census_records_when_present(good):
    def edit(d):
        d["evidence"]["census"] = {"backend": "cupti-python", "records": [{"direction": "host_to_device", "bytes": -1}]}
    errors = _errors_after(good, edit)
    assert any(e.startswith("evidence/census/records/0") for e in errors), errors


def test_older_report_without_prediction_key_validates(good):
    good.pop("prediction", None)
    assert validation_errors(good) == []


def test_validation_errors_name_the_path():
    errors = validation_errors({"format": "ortcopy-doctor-report"})
    assert "<root>: 'verdict' is a required property" in errors


def test_gzip_fixture_files_hold_reports():
    """The fixtures the schema tests read are what `check --json` wrote on the GPU machine."""
    for name in ALL_FIXTURES:
        with gzip.open(FIXTURES / f"{name}.json.gz", "rt", encoding="utf-8") as f:
            assert json.load(f)["report"]["format"] == REPORT_FORMAT


# --- the schema matches the dataclasses, field by field -----------------------------------------------------------
#
# The report JSON is the dataclasses of ortcopy_doctor written by model.evidence.to_jsonable, plus what
# Report.to_dict adds around them. Walking from Report through the type hints, each dataclass is checked against the
# schema object its property points at: every field is a property of a compatible type, every property is a field,
# a field left out of the JSON while it holds its default (omit_if_default) is not required, and the object is
# closed (additionalProperties: false) unless it is listed in OPEN.

import dataclasses
import enum
import types
import typing

from ortcopy_doctor.report.core import Report

# Keys Report.to_dict and recommend.advice_json write that are no dataclass field.
EXTRA_KEYS = {"Report": {"format", "format_version", "analysis_seal"}, "Advice": {"gain_left"}}
# Fields of Report that are never written: ``from_cache`` says how this process read the report (report/core.py).
NOT_WRITTEN = {"from_cache"}
# Report.to_dict writes the prediction as the nested report's verdict, summary, copies (and conditional copies),
# findings and plan only.
PREDICTION_KEYS = {"verdict", "summary", "copies", "conditional_copies", "findings", "binding"}
# Dataclass objects the schema leaves open, with why (and the schema's description says so). None today: what is
# genuinely open (a finding's details, maps keyed by names) is a dict, checked through its value type.
OPEN: dict[str, str] = {}


def _resolve(schema: dict, node: dict) -> dict:
    while "$ref" in node:
        node = schema["$defs"][node["$ref"].removeprefix("#/$defs/")]
    return node


def _non_null(schema: dict, node: dict) -> tuple[dict, bool]:
    """(the schema for non-null values, whether null is allowed)."""
    node = _resolve(schema, node)
    if node.get("if") == {"type": "null"}:
        return node["else"], True  # unresolved: a $ref names the object
    types_ = node.get("type")
    if isinstance(types_, list) and "null" in types_:
        rest = [t for t in types_ if t != "null"]
        return {**node, "type": rest[0] if len(rest) == 1 else rest}, True
    if "enum" in node and None in node["enum"]:
        return {**node, "enum": [v for v in node["enum"] if v is not None]}, True
    return node, False


def _json_types(node: dict) -> set[str]:
    """The JSON types a schema node allows ("number" includes "integer")."""
    if "const" in node:
        values = [node["const"]]
    elif "enum" in node:
        values = node["enum"]
    else:
        types_ = node.get("type")
        if types_ is None:
            return {"any"}
        return set([types_] if isinstance(types_, str) else types_)
    names = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
    return {names[type(v)] for v in values}


_SCALAR = {str: "string", int: "integer", float: "number", bool: "boolean"}


def _check_type(schema: dict, hint, node: dict, where: str, seen: dict, problems: list[str]) -> None:
    if hint is typing.Any or hint is object:
        return
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        options = [a for a in args if a is not type(None)]
        inner, nullable = _non_null(schema, node)
        if type(None) in args and not nullable:
            problems.append(f"{where}: the field may be None, the schema does not allow null")
        if len(options) == 1:
            _check_type(schema, options[0], inner, where, seen, problems)
        else:  # a union of scalars (Dim: int | str | None)
            wanted = {_SCALAR[a] for a in options}
            if not wanted <= _json_types(_resolve(schema, inner)):
                problems.append(f"{where}: the field is {hint}, the schema allows "
                                f"{sorted(_json_types(_resolve(schema, inner)))}")
        return
    if dataclasses.is_dataclass(hint):
        _check_object(schema, hint, node, where, seen, problems)
        return
    inner, nullable = _non_null(schema, node)
    inner = _resolve(schema, inner)
    if nullable:
        problems.append(f"{where}: the schema allows null, the field ({hint}) is never None")
    if origin in (list, tuple):
        if _json_types(inner) != {"array"}:
            problems.append(f"{where}: the field is a list, the schema allows {sorted(_json_types(inner))}")
            return
        if origin is list and args and "items" in inner:
            _check_type(schema, args[0], inner["items"], where + "[]", seen, problems)
        elif origin is tuple and args:
            items = inner.get("items", {})
            for arg in set(args) - {Ellipsis}:
                _check_type(schema, arg, items, where + "[]", seen, problems)
        return
    if origin is dict:
        if _json_types(inner) != {"object"}:
            problems.append(f"{where}: the field is a dict, the schema allows {sorted(_json_types(inner))}")
            return
        values = inner.get("additionalProperties")
        if isinstance(args[0], type) and issubclass(args[0], enum.Enum):
            _check_enum(args[0], inner.get("propertyNames", {}), where + " keys", problems)
        if isinstance(values, dict):
            _check_type(schema, args[1], values, where + "{}", seen, problems)
        elif values is not True and "additionalProperties" in inner or inner.get("properties"):
            problems.append(f"{where}: a dict of any keys, the schema fixes its keys")
        return
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        _check_enum(hint, inner, where, problems)
        return
    if hint in _SCALAR:
        allowed = _json_types(inner)
        wanted = _SCALAR[hint]
        ok = wanted in allowed or (wanted == "integer" and "number" in allowed and hint is not bool)
        if hint is float:
            ok = allowed <= {"number", "integer"} and "number" in allowed
        if "any" in allowed or not ok or len(allowed) > 1 and hint is not float:
            problems.append(f"{where}: the field is {hint.__name__}, the schema allows {sorted(allowed)}")
        return
    problems.append(f"{where}: no rule for the type {hint}")


def _check_enum(hint: type[enum.Enum], node: dict, where: str, problems: list[str]) -> None:
    """A closed set (model.vocabulary) is an ``enum`` list in the schema, of its values (a field may narrow it:
    Copy.direction takes two of the three directions); a value the schema allows and the set lacks would not load."""
    values = node.get("enum")
    if values is None:
        problems.append(f"{where}: the field is the closed set {hint.__name__}, the schema has no enum list")
        return
    members = {m.value for m in hint}
    if not values or not set(values) <= members:
        problems.append(f"{where}: the schema allows {sorted(set(values) - members)}, not in {hint.__name__}")


def _check_object(schema: dict, cls, node: dict, where: str, seen: dict, problems: list[str],
                  keys: set[str] | None = None) -> None:
    ref = node.get("$ref", where)
    if ref in seen:
        if seen[ref] is not cls:
            problems.append(f"{where}: {ref} serves both {seen[ref].__name__} and {cls.__name__}")
        return
    seen[ref] = cls
    if _non_null(schema, node)[1]:
        problems.append(f"{where}: the schema allows null, the field ({cls.__name__}) is never None")
    obj = _resolve(schema, node)
    name = cls.__name__
    hints = typing.get_type_hints(cls)
    fields = {f.name: f for f in dataclasses.fields(cls)}
    if keys is not None:
        fields = {k: v for k, v in fields.items() if k in keys}
    props = obj.get("properties", {})
    if obj.get("type") != "object":
        problems.append(f"{where} ({name}): the schema is not an object")
    for missing in sorted(set(fields) - set(props)):
        problems.append(f"{where} ({name}): field {missing!r} is not in the schema")
    for extra in sorted(set(props) - set(fields) - EXTRA_KEYS.get(name, set())):
        problems.append(f"{where} ({name}): schema property {extra!r} is no field")
    for req in obj.get("required", []):
        if req in fields and fields[req].metadata.get("omit_if_default"):
            problems.append(f"{where} ({name}): {req!r} is left out of the JSON at its default, yet required")
        if req not in props:
            problems.append(f"{where} ({name}): required {req!r} is not a property")
    if name in OPEN:
        if obj.get("additionalProperties") is False:
            problems.append(f"{where} ({name}): listed as open, the schema closes it")
    elif obj.get("additionalProperties") is not False:
        problems.append(f"{where} ({name}): not closed with additionalProperties: false")
    for fname in fields:
        if fname in props:
            _check_type(schema, hints[fname], props[fname], f"{where}.{fname}", seen, problems)


def _report_problems(schema: dict) -> list[str]:
    problems: list[str] = []
    seen: dict = {}
    root_fields = {f.name for f in dataclasses.fields(Report)} - NOT_WRITTEN
    hints = typing.get_type_hints(Report)
    props = schema["properties"]
    for missing in sorted(root_fields - set(props)):
        problems.append(f"<root> (Report): field {missing!r} is not in the schema")
    for extra in sorted(set(props) - root_fields - EXTRA_KEYS["Report"]):
        problems.append(f"<root> (Report): schema property {extra!r} is no field")
    if schema.get("additionalProperties") is not False:
        problems.append("<root> (Report): not closed with additionalProperties: false")
    # the conditional copies share the copies' definition: checked (and named in a problem) as the copies
    for name in sorted(root_fields & set(props), key=lambda n: (n == "conditional_copies", n)):
        if name == "prediction":
            inner, nullable = _non_null(schema, props[name])
            assert nullable
            _check_object(schema, Report, {"$ref": props[name]["else"]["$ref"]}, "prediction", {}, problems,
                          keys=PREDICTION_KEYS)
            continue
        _check_type(schema, hints[name], props[name], name, seen, problems)
    return problems


def test_schema_matches_the_dataclasses_field_by_field():
    problems = _report_problems(load_schema())
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("edit, problem", [
    (lambda s: s["$defs"]["copy"]["properties"].pop("cause"), "copies[] (Copy): field 'cause' is not in the schema"),
    (lambda s: s["$defs"]["copy"]["properties"].update(origin={"type": "string"}),
     "copies[] (Copy): schema property 'origin' is no field"),
    (lambda s: s["$defs"]["copy"]["properties"].update(count_per_run={"type": "string"}),
     "copies[].count_per_run: the field is int, the schema allows ['string']"),
    (lambda s: s["$defs"]["copy"]["properties"].update(dtype={"type": "string"}),
     "copies[].dtype: the field may be None, the schema does not allow null"),
    (lambda s: s["$defs"]["copy"]["properties"].update(producers={"type": "array", "items": {"type": "integer"}}),
     "copies[].producers[]: the field is str, the schema allows ['integer']"),
    (lambda s: s["$defs"]["copy"].update(additionalProperties=True),
     "copies[] (Copy): not closed with additionalProperties: false"),
    (lambda s: s["$defs"]["bindingMeasurement"]["required"].append("min_runs"),
     "evidence.binding_measurement (BindingMeasurement): 'min_runs' is left out of the JSON at its default, "
     "yet required"),
    (lambda s: s["properties"].pop("measured"), "<root> (Report): field 'measured' is not in the schema"),
    (lambda s: s["$defs"]["copy"]["properties"].update(kind={"type": "string"}),
     "copies[].kind: the field is the closed set CopyKind, the schema has no enum list"),
    (lambda s: s["$defs"]["copy"]["properties"]["direction"]["enum"].append("sideways"),
     "copies[].direction: the schema allows ['sideways'], not in Direction"),
    (lambda s: s["$defs"]["runTotals"]["properties"]["classes"].pop("propertyNames"),
     "census.runs[].classes keys: the field is the closed set CensusClass, the schema has no enum list"),
])
def test_field_check_catches_drift(edit, problem):
    """The field-by-field check is not vacuous: each kind of drift in a copy of the schema is reported."""
    schema = load_schema()
    edit(schema)
    problems = _report_problems(schema)
    assert problem in problems, problems

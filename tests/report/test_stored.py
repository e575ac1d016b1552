"""A report JSON this code wrote, unchanged, is read as it is by ``load_report(cache=True)`` (report/seal.py):
exactly what re-analysis gives.

Every recorded report (H200 fixtures, corpus, pipelines...) is re-analysed here, written with its ``analysed_by``
key, and read back through the stored path: the same report, object for object, and the same JSON. Any change to the file, to the
code that analysed it, or a file that does not decode or holds what the analysis never makes, goes back to
re-analysis; so does every load without ``cache=True``, and a report read from the cache is never judged.
"""

from __future__ import annotations

import msgspec
import functools
import gzip
import json
import math
import os
import shutil
import subprocess
import sys
import types
import typing
from msgspec.structs import replace
from pathlib import Path

import onnx
import pytest

import models
from fixture_loader import recorded
from ortcopy_doctor.api import CheckOptions, check, load_report
from ortcopy_doctor.model import codec
from ortcopy_doctor.report.core import Report, _stored_report as _stored, analyse, load_report_bytes
from ortcopy_doctor.report.seal import ANALYSIS_PACKAGES, analysis_key, code_digest
from render_helpers import REPO, TESTS
from seal_helpers import sealed, unsealed, verified


def _stored_report(raw: bytes | str) -> Report | None:
    """What ``load_report(cache=True)`` reads from ``raw`` as it is (None: it re-analyses)."""
    return _stored(raw.encode("utf-8") if isinstance(raw, str) else raw)

PACKAGE = REPO / "ortcopy_doctor"


@functools.lru_cache(maxsize=None)
def _hints(cls: type) -> dict:
    return typing.get_type_hints(cls)


def _ints_in_float_slots(value, annotation, where: str = "report") -> list[str]:
    """Where ``value`` (a report) holds an int in a field, list or map annotated ``float``: msgspec reads a JSON
    integer there as a float (2 → 2.0), re-analysis keeps the int, so a sealed file would read back as ``2.0``."""
    origin, args = typing.get_origin(annotation), typing.get_args(annotation)
    if annotation is float:
        return [where] if type(value) is int else []
    if origin in (typing.Union, types.UnionType):
        if type(value) is int and float in args and int not in args:
            return [where]
        for arg in args:
            base = typing.get_origin(arg) or arg
            if arg is not type(None) and base is not float and isinstance(base, type) and isinstance(value, base):
                return _ints_in_float_slots(value, arg, where)
        return []
    if origin in (list, tuple) and isinstance(value, (list, tuple)) and args:
        if origin is tuple and args[-1] is not Ellipsis:
            return [w for item, arg in zip(value, args) for w in _ints_in_float_slots(item, arg, f"{where}[]")]
        return [w for item in value for w in _ints_in_float_slots(item, args[0], f"{where}[]")]
    if origin is dict and isinstance(value, dict) and args:
        return [w for item in value.values() for w in _ints_in_float_slots(item, args[1], f"{where}{{}}")]
    if isinstance(value, msgspec.Struct):
        hints = _hints(type(value))
        return [w for f in msgspec.structs.fields(value)
                for w in _ints_in_float_slots(getattr(value, f.name), hints[f.name], f"{type(value).__name__}.{f.name}")]
    return []


def test_an_int_in_a_float_slot_is_found(tmp_path):
    report = load_report(_check(tmp_path, models.cpu_op_between(), providers=["CPUExecutionProvider"])[0])
    changed = replace(report, summary=replace(report.summary, median_run_ms=2))
    assert _ints_in_float_slots(changed, Report) == ["Summary.median_run_ms"]


def _reports_in(value, found):
    """Every report or bare evidence object in a fixture's JSON (some hold several, under keys of their own)."""
    if isinstance(value, dict):
        if value.get("format") == "ortcopy-doctor-report" or ("model" in value and "session" in value):
            found.append(value)
            return
        for v in value.values():
            _reports_in(v, found)
    elif isinstance(value, list):
        for v in value:
            _reports_in(v, found)


def _recorded_reports():
    out = []
    for path in sorted((TESTS / "fixtures").rglob("*.json*")):
        raw = gzip.decompress(path.read_bytes()) if path.name.endswith(".gz") else path.read_bytes()
        try:
            data = json.loads(raw)
        except ValueError:
            continue
        found: list = []
        _reports_in(data, found)
        out += [pytest.param(r, id=f"{path.relative_to(TESTS / 'fixtures')}#{i}") for i, r in enumerate(found)]
    return out


RECORDED = _recorded_reports()


def test_the_recorded_reports_are_many():
    # the corpus below: every report the fixtures hold (a fixture file that moved would empty it silently)
    assert len(RECORDED) >= 100


@pytest.mark.parametrize("recorded", RECORDED)
def test_a_sealed_recorded_report_reads_back_as_its_reanalysis(recorded, tmp_path):
    path = tmp_path / "recorded.json"
    path.write_text(json.dumps(recorded), encoding="utf-8")
    reanalysed = load_report(path)  # written by older code, unsealed: re-analysed
    text = reanalysed.to_json()
    raw = text.encode("utf-8")
    stored = _stored_report(raw)
    assert stored is not None
    assert _ints_in_float_slots(reanalysed, Report) == []  # else the JSON text below would differ (2 vs 2.0)
    assert replace(stored, from_cache=False) == reanalysed
    assert stored.to_json() == text


def _checked(tmp_path: Path, model: onnx.ModelProto, **options) -> tuple[Path, Report]:
    """A check of ``model`` here (CUDA requested: without a GPU the report holds a prediction for it, unless
    ``options`` say otherwise), its JSON written to a file; (the file, the report the check made)."""
    model_path = tmp_path / "model.onnx"
    onnx.save(model, str(model_path))
    report = check(model_path, CheckOptions(**options))
    out = tmp_path / "report.json"
    out.write_text(report.to_json(), encoding="utf-8")
    return out, report


def _check(tmp_path: Path, model: onnx.ModelProto, **options) -> tuple[Path, str]:
    """``_checked``: (the file, its text)."""
    path, _ = _checked(tmp_path, model, **options)
    return path, path.read_text(encoding="utf-8")


@pytest.mark.parametrize("options", [{}, {"static": True}, {"providers": ["CPUExecutionProvider"]}],
                         ids=["cuda-requested", "static", "cpu"])
def test_a_check_json_reads_back_as_it_is_and_as_its_reanalysis(tmp_path, options):
    path, checked = _checked(tmp_path, models.cpu_op_between(), **options)
    text = path.read_text(encoding="utf-8")
    stored = _stored_report(path.read_bytes())
    assert stored is not None
    assert stored.to_json() == text
    assert replace(stored, from_cache=False) == analyse(stored.evidence)
    assert _ints_in_float_slots(checked, Report) == []


@pytest.mark.parametrize("options", [{"static": True},
                                     pytest.param({"values": {"cond": "1"}}, marks=pytest.mark.no_cuda)],
                         ids=["static", "cuda-requested"])
def test_a_sealed_report_keeps_its_conditional_copies(tmp_path, options):
    path, _ = _checked(tmp_path, models.if_branch_transfers(), **options)
    stored = _stored_report(path.read_bytes())
    assert stored is not None
    predicted = stored if stored.prediction is None else stored.prediction
    assert [c.branch for c in predicted.conditional_copies] == ["branch.else_branch"] * 2
    assert replace(stored, from_cache=False) == analyse(stored.evidence)


@pytest.mark.no_cuda  # where CUDA runs, the session's own plan is shown and there is no prediction
def test_a_check_json_with_a_prediction_keeps_its_plan(tmp_path):
    path, _ = _check(tmp_path, models.cpu_op_between())  # CUDA requested, CPU session: the plan is predicted
    report = load_report(path)
    assert report.prediction is not None and report.prediction.binding.applicable
    assert report.shown_binding() == report.prediction.binding
    assert json.loads(path.read_text(encoding="utf-8"))["prediction"]["binding"]["code"] == report.shown_binding().code


def _edited(text: str, old: str, new: str) -> str:
    assert text.count(old) >= 1
    return text.replace(old, new)


def test_the_key_is_the_last_member_and_covers_the_rest(tmp_path):
    path, text = _check(tmp_path, models.cpu_op_between(), static=True)
    data = json.loads(text)
    assert list(data)[-1] == "analysed_by"
    stored = _stored_report(path.read_bytes())
    assert stored is not None
    document = replace(stored.to_document(), analysed_by="")
    assert data["analysed_by"] == analysis_key(document) and len(data["analysed_by"]) == 64
    assert sealed(unsealed(text)) == text


def test_a_resealed_edit_is_read_as_written_from_the_cache_only(tmp_path):
    path, text = _check(tmp_path, models.cpu_op_between(), static=True)
    verdict = json.loads(text)["verdict"]
    edited = _edited(unsealed(text), json.dumps(verdict, ensure_ascii=False), '"edited by hand"')
    path.write_text(sealed(edited), encoding="utf-8")
    cached = load_report(path, cache=True)
    assert (cached.verdict, cached.from_cache) == ("edited by hand", True)  # no re-analysis ran: the file's word
    analysed = load_report(path)  # the default: this code's analysis of the evidence, whatever the seal says
    assert (analysed.verdict, analysed.from_cache) == (verdict, False)


def test_a_report_read_from_the_cache_is_never_judged(tmp_path):
    from ortcopy_doctor.report.gate import Gate, evaluate

    path, _ = _check(tmp_path, models.cpu_op_between(), static=True)
    cached = load_report(path, cache=True)
    assert cached.from_cache and replace(cached, from_cache=False) == load_report(path)
    with pytest.raises(ValueError, match=r"Report.fails: .*load_report\(path\)"):
        cached.fails("warning")
    with pytest.raises(ValueError, match="the CI gate: "):
        evaluate(cached, Gate("warning"))
    with pytest.raises(ValueError, match="the CI gate: "):
        evaluate(replace(cached, verdict="copied"), Gate("never", max_transfer_bytes=1))  # replace keeps the mark
    assert not evaluate(cached, Gate("never")).failed  # nothing to judge: no threshold set
    assert load_report(path).fails("warning")


@pytest.mark.parametrize("edit", ["rule", "slug", "p90", "ci_low", "ab_row"])
def test_a_sealed_file_holding_what_the_analysis_never_makes_is_reanalysed(tmp_path, edit):
    """``cache_problem``: a rule that is none of this code's, quantiles or an interval half null, an A/B row
    without its columns (each one an exit 4 in a renderer, or an escape sequence on the terminal, when read as
    it is)."""
    path = tmp_path / "demo.json"
    path.write_text(json.dumps(recorded("demo")["report"]), encoding="utf-8")
    text = load_report(path).to_json()
    data = json.loads(unsealed(text))
    if edit == "rule":
        data["findings"][0]["rule"] = "\x1b]52;c;ZXZpbA==\x07"
    elif edit == "slug":
        data["findings"][0]["slug"] = "\x1b[2J"
    elif edit == "p90":
        data["summary"]["p90_run_ms"] = None
    elif edit == "ci_low":
        data["advice"]["speedup_ci_low"] = None
    else:
        data["measured"]["ab_rows"][0] = {}
    path.write_text(sealed(codec.to_json(data)), encoding="utf-8")
    assert verified(path.read_bytes())
    assert _stored_report(path.read_bytes()) is None
    reread = load_report(path, cache=True)
    assert not reread.from_cache and reread.to_json() == text


def test_an_edit_without_a_new_key_is_reanalysed(tmp_path):
    path, text = _check(tmp_path, models.cpu_op_between(), static=True)
    verdict = json.loads(text)["verdict"]
    path.write_text(_edited(text, json.dumps(verdict, ensure_ascii=False), '"edited by hand"'), encoding="utf-8")
    assert not verified(path.read_bytes())
    assert load_report(path).verdict == verdict


def test_a_report_keyed_by_other_code_is_reanalysed_from_one_decode(tmp_path, monkeypatch):
    """A report of this format whose key is another code's is re-analysed from the evidence decoded as its cache
    was tried: the file is decoded once, not again for the re-analysis."""
    path, text = _check(tmp_path, models.cpu_op_between(), static=True)
    data = json.loads(text)
    data["analysed_by"] = "0" * 64
    path.write_text(json.dumps(data), encoding="utf-8")
    decoded: list[str] = []
    real = codec.decode

    def counted(raw, into=typing.Any):
        decoded.append(getattr(into, "__name__", str(into)))
        return real(raw, into)

    monkeypatch.setattr(codec, "decode", counted)
    reread = load_report(path, cache=True)
    assert decoded == ["ReportDocument"]
    assert not reread.from_cache and reread.to_json() == text


def test_a_reindented_report_keeps_its_key(tmp_path):
    """The key is of what the file holds, not of its bytes: the same values laid out otherwise read back as they are."""
    path, text = _check(tmp_path, models.cpu_op_between(), static=True)
    path.write_text(json.dumps(json.loads(text), indent=2), encoding="utf-8")
    assert verified(path.read_bytes())
    cached = load_report(path, cache=True)
    assert cached.from_cache and cached.to_json() == text


def test_a_sealed_file_that_does_not_decode_is_reanalysed(tmp_path):
    path, text = _check(tmp_path, models.cpu_op_between(), static=True)
    copies = json.loads(text)["copies"]
    assert copies
    broken = _edited(text, '"kind": "memcpy_node"', '"kind": "teleport"')  # its key kept: no key can name it
    assert _stored_report(broken.encode("utf-8")) is None
    path.write_text(broken, encoding="utf-8")
    assert load_report(path, cache=True).to_json() == text


def test_a_sealed_file_with_broken_evidence_gets_the_usual_error(tmp_path):
    path, text = _check(tmp_path, models.cpu_op_between(), static=True)
    broken = sealed(_edited(unsealed(text), '"mode": "static"', '"mode": 7'))
    path.write_text(broken, encoding="utf-8")
    from ortcopy_doctor.model.errors import UsageError
    with pytest.raises(UsageError, match="does not match the evidence format"):
        load_report(path, cache=True)


def test_stdin_reads_a_sealed_report_as_it_is(tmp_path):
    path, text = _check(tmp_path, models.cpu_op_between(), static=True)
    verdict = json.loads(text)["verdict"]
    resealed = sealed(_edited(unsealed(text), json.dumps(verdict, ensure_ascii=False), '"edited by hand"'))
    assert load_report_bytes(resealed.encode("utf-8"), cache=True).verdict == "edited by hand"
    assert load_report_bytes(resealed.encode("utf-8")).verdict == verdict


def test_a_float_written_as_null_reads_back_as_null(tmp_path):
    """JSON has no NaN: a float that is not finite is written null, and the key is made of what is written."""
    path, _ = _check(tmp_path, models.cpu_op_between(), static=True)
    report = load_report(path)
    report = replace(report, summary=replace(report.summary, median_run_ms=math.nan, p10_run_ms=math.nan,
                                             p90_run_ms=math.nan))
    text = report.to_json()
    assert json.loads(text)["summary"]["median_run_ms"] is None
    stored = _stored_report(text)
    assert stored is not None and stored.summary.median_run_ms is None


def _package_copy(tmp_path: Path) -> Path:
    root = tmp_path / "pkg"
    for package in (*ANALYSIS_PACKAGES, "render"):
        shutil.copytree(PACKAGE / package, root / package, ignore=shutil.ignore_patterns("__pycache__"))
    return root


def test_the_code_digest_is_the_installed_packages():
    assert code_digest() == code_digest(PACKAGE)
    assert len(code_digest()) == 32


@pytest.mark.parametrize("package", ANALYSIS_PACKAGES)
def test_an_edit_of_the_analysis_code_changes_the_digest(tmp_path, package):
    root = _package_copy(tmp_path)
    before = code_digest(root)
    target = sorted((root / package).glob("*.py"))[-1]
    target.write_text(target.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert code_digest(root) != before


def test_a_data_file_of_the_analysis_changes_the_digest(tmp_path):
    root = _package_copy(tmp_path)
    before = code_digest(root)
    (root / "knowledge" / "data" / "kernels.json").write_bytes(b"{}")
    assert code_digest(root) != before


def test_an_edit_of_a_renderer_leaves_the_digest(tmp_path):
    root = _package_copy(tmp_path)
    before = code_digest(root)
    (root / "render" / "html.py").write_text("# edited\n", encoding="utf-8")
    assert code_digest(root) == before



def test_a_rule_edited_while_the_process_runs_keys_nothing(tmp_path):
    # the process analysed with the code it imported; the files now say otherwise: its JSON must not claim them
    shutil.copytree(PACKAGE, tmp_path / "ortcopy_doctor", ignore=shutil.ignore_patterns("__pycache__"))
    rule = tmp_path / "ortcopy_doctor" / "rules" / "cpu_fallback.py"
    code = ("import sys\n"
            "from pathlib import Path\n"
            "from ortcopy_doctor.report.seal import analysis_key, code_digest\n"
            "before = code_digest()\n"
            f"rule = Path({str(rule)!r}); rule.write_text(rule.read_text() + '# edited\\n')\n"
            "print(len(before), code_digest() == b'', analysis_key({}) == '')\n")
    result = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": os.pathsep.join(
                                [str(tmp_path)] + ([os.environ["PYTHONPATH"]] if os.environ.get("PYTHONPATH") else []))})
    assert (result.returncode, result.stdout) == (0, "32 True True\n"), result.stderr

"""The package's layers (cli → api → watch → collect → render → report → rules → analysis → knowledge → model):
imports flow one way, renderers load no model-reading, array or runtime library, and rendering recorded GPU
evidence does not depend on the onnxruntime installed where it is rendered."""

from __future__ import annotations

import msgspec
import gzip
import json
import subprocess
import sys
from pathlib import Path

import pytest

from ortcopy_doctor.model import codec
from render_helpers import REPO, child_env

FIXTURES = REPO / "tests" / "fixtures"


def _python(code: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = child_env()
    return subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300)


def test_import_contracts_hold():
    """.importlinter: the layers, collect/ and watch/ alone importing onnxruntime/CUPTI/torch, renderers importing
    none of onnx, onnxruntime, numpy, analysis, collect, watch (also indirectly), watch/ importing nothing of render/
    (also indirectly: it is a collector, its report types are model/'s and their text and HTML render/'s)."""
    lint = Path(sys.executable).parent / "lint-imports"
    env = child_env()
    result = subprocess.run([str(lint), "--config", str(REPO / ".importlinter"), "--no-cache"], cwd=REPO, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "Contracts: 4 kept, 0 broken." in result.stdout


@pytest.mark.parametrize("module", ["ortcopy_doctor.render.html", "ortcopy_doctor.render.text",
                                    "ortcopy_doctor.render.sarif", "ortcopy_doctor.render.trace",
                                    "ortcopy_doctor.render.diff", "ortcopy_doctor.render.pipeline",
                                    "ortcopy_doctor.render.watch"])
def test_importing_a_renderer_loads_no_onnx_onnxruntime_or_numpy(module):
    code = ("import importlib, json, sys; importlib.import_module(sys.argv[1]); "
            "print(json.dumps(sorted(m for m in ('onnx', 'onnxruntime', 'numpy', 'torch') if m in sys.modules)))")
    result = _python(code, module)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == []


def _recorded_reports() -> list[tuple[str, Path]]:
    """Every recorded GPU report (check fixtures and the binding A/B ones, which carry the measured view)."""
    found = []
    for folder in ("gpu", "binding_ab", "check_json"):
        for path in sorted((FIXTURES / folder).glob("*.json.gz")):
            found.append((f"{folder}/{path.name.removesuffix('.json.gz')}", path))
    return found


_RENDER = """
import gzip, json, sys, tempfile
from pathlib import Path
if sys.argv[2] == "blocked":
    sys.modules["onnxruntime"] = None  # any import of it fails: rendering must not need it
from ortcopy_doctor.render.html import render_html
from ortcopy_doctor.render.text import render_text
from ortcopy_doctor.report.core import load_report
out = {}
for path in sys.argv[1].split(","):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data = json.load(f)
    report_dict = data["report"] if "report" in data else data  # check_json/: the --json file itself
    with tempfile.TemporaryDirectory() as tmp:
        target = Path(tmp) / "report.json"
        target.write_text(json.dumps(report_dict), encoding="utf-8")
        report = load_report(target)
    out[path] = {"html": render_html(report), "text": render_text(report, width=120), "json": report.to_json()}
print(json.dumps(out))
"""


def test_recorded_gpu_reports_render_the_same_without_onnxruntime():
    """The HTML, text and JSON of every recorded GPU report are byte-identical whether onnxruntime (here 1.31) is
    importable or not: nothing rendered is read from the installed onnxruntime (the DLPack choice of the generated
    code comes from the evidence), so onnxruntime 1.32 renders the same bytes too."""
    paths = ",".join(str(p) for _, p in _recorded_reports())
    assert paths
    with_ort = _python(_RENDER, paths, "installed")
    without = _python(_RENDER, paths, "blocked")
    assert with_ort.returncode == 0, with_ort.stderr[-3000:]
    assert without.returncode == 0, without.stderr[-3000:]
    a, b = json.loads(with_ort.stdout), json.loads(without.stdout)
    assert a.keys() == b.keys()
    for path in a:
        for kind in ("html", "text", "json"):
            assert a[path][kind] == b[path][kind], f"{Path(path).name}: {kind} differs without onnxruntime"


def test_a_check_json_recorded_on_the_h200_says_whether_its_onnxruntime_has_from_dlpack():
    """tests/fixtures/check_json/demo.json.gz is the --json of `check` on the H200 (onnxruntime-gpu 1.31.1): the
    evidence records OrtValue.from_dlpack as present, and the measured view is in the JSON."""
    with gzip.open(FIXTURES / "check_json" / "demo.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    assert data["evidence"]["environment"]["ort_version"] == "1.31.1"
    assert data["evidence"]["environment"]["ort_has_from_dlpack"] is True
    assert data["measured"]["status"] == "measured"


def test_generated_code_takes_the_dlpack_choice_from_the_evidence():
    """A report recorded with onnxruntime 1.31.1 (OrtValue.from_dlpack exists) generates from_dlpack code; the same
    evidence claiming onnxruntime 1.25.0 (before it) generates bind_input(data_ptr()) code, wherever it renders."""
    from ortcopy_doctor.analysis.binding import render_code
    from ortcopy_doctor.report.core import analyse
    from ortcopy_doctor.model.evidence import Evidence

    with gzip.open(FIXTURES / "gpu" / "conv_net.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)["report"]["evidence"]
    evidence = codec.convert(data, Evidence)
    report = analyse(evidence)
    assert "OrtValue.from_dlpack" in render_code(evidence, report.binding, "torch")
    evidence = msgspec.structs.replace(evidence, environment=msgspec.structs.replace(
        evidence.environment, ort_version="1.25.0", ort_has_from_dlpack=None))
    assert "OrtValue.from_dlpack" not in render_code(evidence, report.binding, "torch")


def test_no_import_cycle_between_modules():
    """No module reaches itself through the imports of others (run-time imports; `if TYPE_CHECKING:` ones load
    nothing): the layers contract forbids cycles between layers, this one inside them too."""
    import grimp

    graph = grimp.build_graph("ortcopy_doctor", exclude_type_checking_imports=True)
    modules = sorted(graph.modules)
    cyclic = [(a, b) for i, a in enumerate(modules) for b in modules[i + 1:]
              if graph.chain_exists(importer=a, imported=b) and graph.chain_exists(importer=b, imported=a)]
    assert cyclic == []

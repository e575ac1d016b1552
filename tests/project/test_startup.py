"""`ortcopy-doctor --help` starts without loading numpy, onnx, onnxruntime, jinja2 or rich (lazy imports); the
package's public names still resolve, and ``ortcopy_doctor.watch`` stays the function."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from render_helpers import REPO

HEAVY = ["numpy", "onnx", "onnxruntime", "jinja2", "rich"]


def _modules_after(code: str) -> Any:
    """What the last line ``code`` writes to stderr holds (JSON), after it ran in a fresh interpreter and exited 0."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                            check=False)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stderr.strip().splitlines()[-1])


def _cli_modules(argv: list[str], watched: list[str]) -> list[str]:
    """Run ``ortcopy-doctor *argv`` in a fresh interpreter, which must exit 0 (``_modules_after``): which of
    ``watched`` it loaded, printed at exit (the command ends its process itself, after the atexit handlers)."""
    loaded: list[str] = _modules_after(
        "import atexit, json, runpy, sys\n"
        f"sys.argv = ['ortcopy-doctor', *{argv!r}]\n"
        f"atexit.register(lambda: print(json.dumps([m for m in {watched!r} if m in sys.modules]), file=sys.stderr))\n"
        "runpy.run_module('ortcopy_doctor', run_name='__main__')\n")
    return loaded


def test_help_imports_no_numpy_onnx_or_onnxruntime():
    assert _cli_modules(["--help"], HEAVY) == []


def test_check_help_imports_no_numpy_onnx_or_onnxruntime():
    assert _cli_modules(["check", "--help"], HEAVY) == []


def test_public_names_resolve_on_first_use():
    loaded = _modules_after(
        "import json, sys\n"
        "import ortcopy_doctor\n"
        f"before = [m for m in {HEAVY!r} if m in sys.modules]\n"
        "check = ortcopy_doctor.check\n"
        "print(json.dumps({'before': before, 'check': check.__module__, 'numpy': 'numpy' in sys.modules}), "
        "file=sys.stderr)\n")
    assert loaded == {"before": [], "check": "ortcopy_doctor.api", "numpy": True}


def test_watch_stays_the_function_after_its_module_is_imported():
    loaded = _modules_after(
        "import json, sys\n"
        "import ortcopy_doctor\n"
        "from ortcopy_doctor.watch.recorder import Watch\n"
        "import ortcopy_doctor.api\n"
        "print(json.dumps({'watch': type(ortcopy_doctor.watch).__name__, "
        "'module': type(sys.modules['ortcopy_doctor.watch.recorder']).__name__}), file=sys.stderr)\n")
    assert loaded == {"watch": "function", "module": "module"}


def test_importing_the_package_imports_nothing_of_the_cli():
    loaded = _modules_after(
        "import json, sys\n"
        "import ortcopy_doctor\n"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith('ortcopy_doctor.cli'))), file=sys.stderr)\n")
    assert loaded == []


def test_the_package_is_a_plain_module():
    # issue 35: no class of its own swapped in (the watch function stays the function without it, above)
    loaded = _modules_after(
        "import json, sys, types\n"
        "import ortcopy_doctor\n"
        "print(json.dumps(type(ortcopy_doctor) is types.ModuleType), file=sys.stderr)\n")
    assert loaded is True


def test_check_loads_no_pydantic(tmp_path: Path):
    # typer 0.29 imports pydantic and builds a TypeAdapter per option on every run (0.1-0.2 s of each check):
    # pyproject pins typer below 0.29, and a whole `check` then never loads pydantic.
    import onnx

    from models import conv_net

    model = tmp_path / "conv.onnx"
    onnx.save(conv_net(), str(model))
    argv = ["check", str(model), "--provider", "cpu", "--html", str(tmp_path / "r.html"), "--fail-on", "never", "-q"]
    assert _cli_modules(argv, ["pydantic", "onnxruntime"]) == ["onnxruntime"]


def test_quiet_check_loads_no_terminal_renderer(tmp_path: Path):
    # `check -q` prints one line: rich (~45 ms of imports) is left unloaded; the HTML report needs none of it.
    import onnx

    from models import conv_net

    model = tmp_path / "conv.onnx"
    onnx.save(conv_net(), str(model))
    argv = ["check", str(model), "--provider", "cpu", "--html", str(tmp_path / "r.html"), "--fail-on", "never", "-q"]
    assert _cli_modules(argv, ["rich", "jinja2"]) == ["jinja2"]
    assert (tmp_path / "r.html").stat().st_size > 0


def test_a_measured_check_reads_the_model_with_onnx_s_public_package(tmp_path: Path):
    # issue 35: onnx's generated protobuf module is no longer loaded under a private name to skip `import onnx`
    # (~45-60 ms of a small check on the 2-CPU machine, docs/benchmarks.md): the check imports onnx, and no module
    # of onnx's under another name
    import onnx

    from models import conv_net

    model = tmp_path / "conv.onnx"
    onnx.save(conv_net(), str(model))
    argv = ["check", str(model), "--provider", "cpu", "--html", str(tmp_path / "r.html"), "--fail-on", "never", "-q"]
    assert _cli_modules(argv, ["onnx", "onnxruntime", "ortcopy_doctor._onnx_ml_pb2"]) == ["onnx", "onnxruntime"]


def test_a_static_check_imports_onnx_for_its_shape_inference(tmp_path: Path):
    import onnx

    from models import conv_net

    model = tmp_path / "conv.onnx"
    onnx.save(conv_net(), str(model))
    argv = ["check", str(model), "--static", "--html", str(tmp_path / "r.html"), "--fail-on", "never", "-q"]
    assert _cli_modules(argv, ["onnx"]) == ["onnx"]


def test_report_of_a_json_imports_no_onnx_or_onnxruntime(tmp_path: Path):
    # re-analysing recorded evidence needs neither (the model file reader no longer imports onnx either)
    import onnx

    from models import conv_net

    model = tmp_path / "conv.onnx"
    onnx.save(conv_net(), str(model))
    written = _cli_modules(["check", str(model), "--provider", "cpu", "--json", str(tmp_path / "r.json"),
                            "--fail-on", "never", "-q"], [])
    assert written == []
    argv = ["report", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")]
    assert _cli_modules(argv, ["onnx", "onnxruntime", "google.protobuf"]) == []


def test_report_of_a_file_this_code_keyed_runs_no_numpy(tmp_path: Path):
    # a report read as its file holds it (report/seal.py) computes no interval: analysis/stats.py's numpy, a
    # lazy_import, never runs (~35 ms of `report RUN.json`, docs/benchmarks.md)
    import onnx

    from models import conv_net

    model = tmp_path / "conv.onnx"
    onnx.save(conv_net(), str(model))
    _cli_modules(["check", str(model), "--provider", "cpu", "--json", str(tmp_path / "r.json"), "--fail-on", "never",
                  "-q"], [])
    ran = _modules_after(
        "import atexit, json, runpy, sys\n"
        f"sys.argv = ['ortcopy-doctor', 'report', {str(tmp_path / 'r.json')!r}]\n"
        "from ortcopy_doctor.model.lazy import loaded\n"
        "atexit.register(lambda: print(json.dumps([m for m in ('numpy', 'onnxruntime') if loaded(m)]), "
        "file=sys.stderr))\n"
        "runpy.run_module('ortcopy_doctor', run_name='__main__')\n")
    assert ran == []

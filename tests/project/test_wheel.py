"""Build the wheel, install it into a clean venv, and render a report from it: the templates, kernel table
and console script must all come from the wheel, not from the source tree.

The clean venv gets the project from the wheel only (``pip install --no-deps --no-index``); its dependencies
(onnxruntime, jinja2, rich, ...) come from the running interpreter's site-packages, appended to the venv's
sys.path by a .pth file. Appended, not put first as PYTHONPATH would: a copy of ortcopy_doctor installed in
the outer environment must not shadow the wheel's, and the outer environment's .pth files (an editable install
pointing at the source tree) are not processed for a .pth-listed directory.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest

from ortcopy_doctor.render.html import render_html
from markupsafe import escape

from render_helpers import REPO, fixture_json, load_fixture

REQUIRED = ["ortcopy_doctor/templates/report.html.j2", "ortcopy_doctor/knowledge/data/kernels.json", "ortcopy_doctor/py.typed",
            "ortcopy_doctor/__init__.py", "ortcopy_doctor/render/html.py",
            "ortcopy_doctor/model/schema/report.schema.json", "ortcopy_doctor/model/schema/sweep.schema.json",
            "ortcopy_doctor/model/schema/audit-row.schema.json", "ortcopy_doctor/templates/audit_index.html.j2",
            "ortcopy_doctor/templates/diff.html.j2",
            "ortcopy_doctor/templates/base.html.j2", "ortcopy_doctor/templates/pipeline.html.j2",
            "ortcopy_doctor/templates/stage_table.html.j2", "ortcopy_doctor/templates/sweep.html.j2"]
FIXTURE = "cpu_op_between"


def _run(cmd: list[str], timeout: float, **kw) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)
    assert proc.returncode == 0, (f"{' '.join(map(str, cmd))} exited {proc.returncode}\n"
                                  f"stdout: {proc.stdout[-3000:]}\nstderr: {proc.stderr[-3000:]}")
    return proc


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "VIRTUAL_ENV", "PIP_REQUIRE_VIRTUALENV")}
    env.update(PYTHONNOUSERSITE="1", PYTHONDONTWRITEBYTECODE="1", PIP_DISABLE_PIP_VERSION_CHECK="1",
               PIP_NO_INPUT="1", **extra)
    return env


def _outer_site_dirs() -> list[str]:
    """Where the running interpreter's dependencies live (possibly .venv inside the repo); never the repo root."""
    dirs = [sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]]
    dirs += [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    out: list[str] = []
    for d in dirs:
        resolved = Path(d).resolve()
        if resolved.is_dir() and str(resolved) not in out and resolved != REPO:
            out.append(str(resolved))
    return out


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if importlib.util.find_spec("hatchling") is None or importlib.util.find_spec("build") is None:
        pytest.fail("building the wheel offline needs `hatchling` and `build` in this environment: "
                    "pip install -e '.[test]' (both are in the test extras)")
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out), str(REPO)],
         timeout=120, cwd=REPO, env=_clean_env())
    wheels = sorted(out.glob("ortcopy_doctor-*.whl"))
    assert len(wheels) == 1, f"expected one wheel in {out}: {list(out.iterdir())}"
    return wheels[0]


@pytest.fixture(scope="module")
def clean_venv(wheel, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("venv") / "venv"
    venv.EnvBuilder(with_pip=True, clear=True).create(root)
    python = root / "bin" / "python"
    _run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index", str(wheel)], timeout=120,
         cwd=root.parent, env=_clean_env())
    purelib = _run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], timeout=30,
                   cwd=root.parent, env=_clean_env()).stdout.strip()
    (Path(purelib) / "zz_outer_deps.pth").write_text("\n".join(_outer_site_dirs()) + "\n", encoding="utf-8")
    return root


def test_wheel_contents(wheel):
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        for required in REQUIRED:
            assert required in names, f"{required} missing from {wheel.name}"
        template = zf.read("ortcopy_doctor/templates/report.html.j2")
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        scripts = zf.read(entry_points).decode()
    assert template == (REPO / "reports" / "templates" / "report.html.j2").read_bytes()
    assert "ortcopy-doctor = ortcopy_doctor.cli.app:main" in scripts
    assert not any(n.startswith(("tests/", "reports/")) for n in names), "test or report files leaked into the wheel"


RENDER = r"""
import sys
from pathlib import Path
repo, fixture, out = Path(sys.argv[1]).resolve(), sys.argv[2], Path(sys.argv[3])
for entry in sys.path:
    if entry and Path(entry).resolve() == repo:
        raise SystemExit(f"source tree on sys.path: {entry}")
import ortcopy_doctor
from ortcopy_doctor.render.html import render_html, template_dir
from ortcopy_doctor.report.core import load_report
report = load_report(fixture)
out.write_text(render_html(report), encoding="utf-8")
print(ortcopy_doctor.__file__)
print(template_dir())
print(report.verdict)
"""


def test_render_from_installed_wheel(clean_venv, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    fixture = fixture_json(FIXTURE, work)
    out = work / "report.html"
    python = clean_venv / "bin" / "python"
    proc = _run([str(python), "-I", "-c", RENDER, str(REPO), str(fixture), str(out)], timeout=60, cwd=work,
                env=_clean_env())
    module_file, templates, verdict = proc.stdout.splitlines()[-3:]
    venv_root = clean_venv.resolve()
    assert venv_root in Path(module_file).resolve().parents, f"ortcopy_doctor imported from {module_file}"
    assert venv_root in Path(templates).resolve().parents, f"templates read from {templates}, not the wheel"
    expected = load_fixture(FIXTURE, tmp_path)
    assert verdict == expected.verdict
    html = out.read_text(encoding="utf-8")
    assert str(escape(expected.verdict)) in html
    assert html == render_html(expected), "the wheel renders differently from the source tree"


def test_console_script_from_wheel(clean_venv, tmp_path):
    script = clean_venv / "bin" / "ortcopy-doctor"
    assert script.is_file(), "console script not installed from the wheel"
    work = tmp_path / "work"
    work.mkdir()
    fixture = fixture_json(FIXTURE, work)
    proc = _run([str(script), "report", str(fixture), "-o", "out.html"], timeout=60, cwd=work,
                env=_clean_env(COLUMNS="200", NO_COLOR="1"))
    expected = load_fixture(FIXTURE, tmp_path)
    html = (work / "out.html").read_text(encoding="utf-8")
    assert f'id="verdict">{escape(expected.verdict)}</div>' in html
    assert expected.verdict.split(":")[0] in proc.stdout
    assert "out.html" in proc.stdout

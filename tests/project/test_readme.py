"""The README gets a newcomer from clone to first report (issue 36): short, the two commands first, how to call the
tool they installed, a CPU machine's first screen as it is and the H200's as recorded, every command of the CLI in
its reference, and never an install command for a package that is not published. The docs/guide.md tables document
every option."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import typer

from render_helpers import REPO, fixture_report_dict, write_report_json
from schema_helpers import run_cli

from ortcopy_doctor.cli.app import app

README = REPO / "README.md"
GUIDE = REPO / "docs" / "guide.md"


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _section(text: str, heading: str) -> str:
    """The lines of ``text`` from the line ``heading`` to the next heading of the same or a higher level."""
    level = heading.split(" ", 1)[0]
    start = text.index(f"\n{heading}\n") + 1
    rest = text[start + len(heading) + 1:]
    ends = [m.start() for m in re.finditer(r"^#{1,%d} " % len(level), rest, flags=re.M)]
    return heading + "\n" + (rest[:ends[0]] if ends else rest)


def _blocks(text: str) -> list[list[str]]:
    """The fenced code blocks of ``text``, as lists of lines."""
    return [block.splitlines() for block in re.findall(r"^```[a-z]*\n(.*?)^```$", text, flags=re.M | re.S)]


def _commands() -> dict[str, list[str]]:
    """Every command of the CLI with the long names of its options, read from the typer app."""
    group = typer.main.get_command(app)
    return {name: [opt for param in command.params for opt in param.opts if opt.startswith("--")]
            for name, command in group.commands.items()}  # type: ignore[attr-defined]


def test_the_readme_is_short_and_starts_with_the_two_commands():
    lines = _text(README).splitlines()
    assert len(lines) < 185  # raised from 175 for the audit's section (issue 37)
    first_heading = next(i for i, line in enumerate(lines) if line.startswith("## "))
    fence = lines.index("```")
    assert fence < 10 and fence < first_heading  # the first screen: the title, one sentence, the commands
    block = lines[fence + 1:lines.index("```", fence + 1)]
    assert [line.split("#")[0].strip() for line in block] == ["make demo", "make test"]


def test_the_readme_says_how_to_call_the_tool_after_make():
    """`make demo` installs into .venv, which is not on PATH: the README says to call .venv/bin/ortcopy-doctor or to
    activate the virtualenv, before it shows any output."""
    text = _text(README)
    before_output = text[:text.index("## What the first report looks like")]
    assert ".venv/bin/ortcopy-doctor check model.onnx" in before_output
    assert "source .venv/bin/activate" in before_output


def test_the_command_reference_names_every_command():
    """Each command the typer app has is a row of the README's command table, and each row is a command."""
    reference = _section(_text(README), "## Commands")
    rows = re.findall(r"^\| `ortcopy-doctor ([a-z-]+)", reference, flags=re.M)
    assert sorted(rows) == sorted(_commands())
    assert len(_commands()) >= 6 and "run" in rows


def test_every_option_of_every_command_is_in_the_guide():
    """docs/guide.md explains every option: `check` and `run` each in their own table, the others in one table with
    a row per command."""
    guide = _text(GUIDE)
    missing = []
    for command, options in _commands().items():
        if command in ("check", "run"):
            where = _section(guide, f"### `{command}` options")
        else:
            where = "\n".join(re.findall(rf"^\| `{command}\b.*$", guide, flags=re.M))
            assert where or not options, f"docs/guide.md has no row for `{command}`"
        missing += [f"{command} {opt}" for opt in options if not re.search(rf"`{opt}\b|/{opt}\b", where)]
    assert missing == []


def test_no_one_is_told_to_pip_install_the_unpublished_package():
    """ortcopy-doctor is not on PyPI: no document or message says `pip install ortcopy-doctor...`; the README installs
    the cupti extra from the checkout, and pyproject.toml has that extra."""
    places = [README, *sorted((REPO / "docs").glob("*.md")), *sorted((REPO / "ortcopy_doctor").rglob("*.py")),
              *sorted((REPO / "examples").rglob("*.py")), *sorted((REPO / "tools").rglob("*.py")), REPO / "Makefile"]
    by_name = re.compile(r"pip install\s+(?:-U\s+|--upgrade\s+)?['\"]?ortcopy[-_]doctor", re.IGNORECASE)
    assert [str(p.relative_to(REPO)) for p in places if by_name.search(_text(p))] == []
    assert ".venv/bin/pip install -e '.[cupti]'" in _text(README)
    assert re.search(r"^cupti = \[", _text(REPO / "pyproject.toml"), flags=re.M)


def _output_blocks() -> tuple[list[str], list[str]]:
    section = _section(_text(README), "## What the first report looks like")
    cpu, h200, _ = _blocks(section)
    assert cpu[0] == "$ make demo"
    return cpu[1:], h200


def _masked(line: str) -> str:
    """A line of the terminal report with what differs between runs and machines masked: timings, and the reason
    ORT gave for not loading CUDA (the libraries this machine lacks)."""
    line = re.sub(r"(not active: the model ran on CPU\.) .*", r"\1 <ORT's reason>", line)
    return re.sub(r"\d+\.\d+(?= ms|,|\))", "#", line)


@pytest.mark.no_cuda
def test_the_cpu_output_is_what_make_demo_prints(tmp_path):
    """Every line the README shows from a machine without a GPU is a line `make demo` prints there now (the
    timings and ORT's reason masked); the last one is the Makefile's own."""
    cpu, _ = _output_blocks()
    result = run_cli(["demo"], tmp_path)
    assert result.returncode == 1, result.stderr
    printed = {_masked(line) for line in (result.stdout + result.stderr).splitlines()}
    makefile_line = cpu[-1]
    assert makefile_line.startswith("(demo: exit 1") and makefile_line in _text(REPO / "Makefile")
    shown = [line for line in cpu[:-1] if line != "..."]
    assert len(shown) >= 15
    assert [line for line in shown if _masked(line) not in printed] == []


def test_the_h200_output_is_the_recording(tmp_path):
    """Every line of the README's H200 excerpt is a line `ortcopy-doctor report` prints from the recording it
    names (tests/fixtures/gpu/demo.json.gz, onnxruntime-gpu 1.31.1 on an H200)."""
    _, h200 = _output_blocks()
    section = _section(_text(README), "## What the first report looks like")
    assert "tests/fixtures/gpu/demo.json.gz" in section and "H200 with onnxruntime-gpu 1.31.1" in section
    data = fixture_report_dict("demo")
    assert data["evidence"]["environment"]["ort_version"] == "1.31.1"
    write_report_json(data, tmp_path / "demo.json")
    result = run_cli(["report", "demo.json"], tmp_path)
    assert result.returncode == 0, result.stderr
    printed = set((result.stdout + result.stderr).splitlines())
    shown = [line for line in h200 if line != "..."]
    assert len(shown) >= 15
    assert [line for line in shown if line not in printed] == []


def test_links_from_the_readme_and_the_docs_resolve():
    """Every relative link of README.md and docs/*.md names a file that exists, and a #fragment names a heading
    of that file (GitHub's anchors: lower case, punctuation dropped, spaces as dashes)."""
    def anchors(path: Path) -> set[str]:
        headings = re.findall(r"^#+ (.+)$", _text(path), flags=re.M)
        return {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in headings}

    broken = []
    for page in [README, *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)\s]+)\)", _text(page)):
            if re.match(r"[a-z]+:", target):
                continue
            name, _, fragment = target.partition("#")
            path = (page.parent / name).resolve() if name else page
            if not path.exists():
                broken.append(f"{page.relative_to(REPO)}: {target}")
            elif fragment and path.suffix == ".md" and fragment not in anchors(path):
                broken.append(f"{page.relative_to(REPO)}: {target} (no such heading)")
    assert broken == []


def test_the_real_program_s_run_output_is_the_recording():
    """Every line of the README's `run` excerpt (each piece between its "..." marks) is in what the run report
    recorded on the H200 for the OCR package prints (tests/fixtures/real_programs/ocr_rapidocr.json.gz)."""
    import gzip
    import json

    from ortcopy_doctor.model.pipeline import load_pipeline_observations
    from ortcopy_doctor.render.pipeline import render_pipeline_text
    from ortcopy_doctor.report.pipeline import analyse_pipeline

    section = _section(_text(README), "### A real program under `run`")
    [block] = _blocks(section)
    assert block[0] == "$ ortcopy-doctor run -- python tools/real_programs/ocr_rapidocr.py --pages 12"
    with gzip.open(REPO / "tests" / "fixtures" / "real_programs" / "ocr_rapidocr.json.gz", "rt") as f:
        data = json.load(f)
    assert data["ort_version"] == "1.31.1"
    printed = render_pipeline_text(analyse_pipeline(load_pipeline_observations(data["report"]["observations"])))
    pieces = [piece.strip() for line in block[1:] for piece in line.split("...") if piece.strip(" ().")]
    assert len(pieces) >= 10
    assert [piece for piece in pieces if piece not in printed] == []

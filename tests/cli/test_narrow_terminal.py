"""At 80 columns (a narrow terminal, or COLUMNS=80) names and option names are wrapped, never cut; piped with no
COLUMNS (a CI log, `| grep`), a table is as wide as its content, so every name stays on one line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import typer

from ortcopy_doctor.cli.app import app
from ortcopy_doctor.render.text import render_text
from render_helpers import REPO, load_fixture


def _cli(args: list[str], cwd: Path, columns: str | None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("COLUMNS", None)
    if columns is not None:
        env["COLUMNS"] = columns
    return subprocess.run([sys.executable, "-m", "ortcopy_doctor", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120, check=False)


def test_copies_table_at_80_columns_folds_long_names(tmp_path):
    text = render_text(load_fixture("demo", tmp_path), width=80)
    assert "…" not in text
    lines = text.splitlines()
    row = lines.index("│ Memcpy     │ device→host │ hidden     │ 65.5 KB   │ Memcpy_toke │ no         │")
    assert lines[row + 1] == "│ node       │             │            │           │ n_0         │            │"


def test_copies_table_piped_keeps_every_tensor_and_node_name(tmp_path):
    report = load_fixture("demo", tmp_path)
    json_path = tmp_path / "demo.json"
    json_path.write_text(report.to_json(), encoding="utf-8")
    result = _cli(["report", str(json_path)], tmp_path, columns=None)  # piped: no terminal, no COLUMNS
    assert result.returncode == 0, result.stderr
    assert "…" not in result.stdout
    table = [line for line in result.stdout.splitlines() if line.startswith("│")]
    tensor_cells = [line.split("│")[3].strip() for line in table]
    node_cells = [line.split("│")[5].strip() for line in table]
    assert tensor_cells == ["features", "scores", "active_indices", "hidden", "activated", "active_indices"]
    assert node_cells == ["", "", "", "Memcpy_token_0", "Memcpy", "find_active"]


def test_copies_table_piped_with_columns_80_folds_long_names(tmp_path):
    report = load_fixture("demo", tmp_path)
    json_path = tmp_path / "demo.json"
    json_path.write_text(report.to_json(), encoding="utf-8")
    result = _cli(["report", str(json_path)], tmp_path, columns="80")
    assert result.returncode == 0, result.stderr
    node_cells = [line.split("│")[5].strip() for line in result.stdout.splitlines() if line.startswith("│")]
    assert "".join(node_cells) == "Memcpy_token_0Memcpyfind_active" and "Memcpy_token_0" not in node_cells


def test_check_help_at_80_columns_names_every_option_whole(tmp_path):
    result = _cli(["check", "--help"], tmp_path, columns="80")
    assert result.returncode == 0, result.stderr
    assert "…" not in result.stdout
    check = typer.main.get_command(app).commands["check"]
    options = [opt for param in check.params for opt in (*param.opts, *param.secondary_opts) if opt.startswith("-")]
    assert "--provider-option" in options and "--measure-binding" in options
    words = set(re.findall(r"--?[a-z][a-z-]*", result.stdout))
    assert [opt for opt in options if opt not in words] == []


def test_command_list_at_80_columns_is_not_cut(tmp_path):
    result = _cli(["--help"], tmp_path, columns="80")
    assert result.returncode == 0, result.stderr
    commands = result.stdout.split("Commands:\n", 1)[1].splitlines()
    assert [line.split()[0] for line in commands if line.strip()] == ["check", "report", "diff", "env", "demo", "audit",
                                                                                 "run"]
    assert not any(line.endswith(("...", "…")) for line in commands)


def test_columns_0_prints_the_report_as_piped(tmp_path):
    report = load_fixture("demo", tmp_path)
    json_path = tmp_path / "demo.json"
    json_path.write_text(report.to_json(), encoding="utf-8")
    piped = _cli(["report", str(json_path)], tmp_path, columns=None)
    zero = _cli(["report", str(json_path)], tmp_path, columns="0")  # rich alone would print nothing at all
    assert (zero.returncode, zero.stderr) == (0, "")
    assert zero.stdout == piped.stdout


def test_a_report_on_a_terminal_stderr_fits_that_terminal(tmp_path):
    """`report FILE --json -`: the JSON on stdout (piped), the report on stderr, a terminal of 60 columns. The width
    is the terminal's (rich reads it from stderr), not the 80 columns of a piped stdout."""
    import fcntl
    import pty
    import struct
    import termios
    import threading

    report = load_fixture("demo", tmp_path)
    json_path = tmp_path / "demo.json"
    json_path.write_text(report.to_json(), encoding="utf-8")
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 60, 0, 0))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    for name in ("COLUMNS", "LINES", "FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        env.pop(name, None)
    chunks: list[bytes] = []

    def read() -> None:
        while True:
            try:
                data = os.read(master, 65536)
            except OSError:  # the terminal's other end closed
                return
            if not data:
                return
            chunks.append(data)

    reader = threading.Thread(target=read)
    reader.start()
    result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "report", str(json_path), "--json", "-"],
                            cwd=tmp_path, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=slave,
                            timeout=120, check=False)
    os.close(slave)
    reader.join(30)
    os.close(master)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode("utf-8", "replace"))
    table = [line for line in text.splitlines() if line.startswith(("│", "┃", "┏", "└"))]
    assert result.returncode == 0 and result.stdout.startswith(b"{")
    assert table and max(len(line) for line in table) <= 60

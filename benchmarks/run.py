"""Benchmarks of ortcopy-doctor itself; prints tables (these are measurements, not tests).

    python benchmarks/run.py                 # issue 35's budgets, issue 15's goals (ratios, pass/fail), static steps
    python benchmarks/run.py --only budgets  # one section: budgets | goals | overhead | profile | static | big | gpu |
                                             # memory | commands
    python benchmarks/run.py --only big      # the >2 GB external-data model (writes ~2.2 GB under /tmp)

Every goal is a ratio against a baseline measured in the same run, on the same machine, so that the result reads
the same on a fast and on a slow (or loaded) machine: ``python -c "import onnxruntime"`` in a fresh process, a bare
ORT script doing the same session and runs, or the ``check`` that wrote the JSON. Each time is the median of
``--repeats`` measurements; each goal's ratio is the median of the ratios of ``--repeats`` pairs, the measured
command and its baseline run one right after the other (so that both see the machine in the same state). The run
takes a few minutes; it is never part of the test suite.

Sections:
* budgets (issue 35): whole commands as users run them: ``check MODEL`` with its default providers against a bare
  script requesting the same providers and making the same runs (those of the evidence and timing sessions, then
  every run, the generated code's check included), and its floor (the bare script with the check's libraries,
  sessions and runs; then with onnx's shape inference of the model too, the static prediction's library work), on a
  tiny and a mid model; ``report RUN.json`` against the ``check`` that wrote the 10k-node
  JSON (with ``--no-html``, and writing its HTML page as by default), and its floor (the libraries and the file
  decoded into the report's types);
* goals: (a) loading a report JSON against the check that wrote it, on a small and on a 10k-node model, as
  ``report RUN.json`` renders it (the JSON keyed by the code that reads it back, so read from the ``analysed_by``
  cache: report/seal.py); the 10k file re-analysed too, as ``report`` reads it with a gate (``--fail-on``...);
  (b) ``check --static`` on a 10k-node model with 15,000 findings (wall seconds, and as a ratio to importing
  onnxruntime); (c) ``check`` on a small model against a bare script doing the same runs, with where the
  imports go (``python -X importtime``); (d) ``--help`` against importing onnxruntime;
* overhead: ``check`` (CPU provider; evidence session + timing session, default run counts) against a bare
  ``InferenceSession`` created once and run the same number of times (27 = 2 warm-up + 3 profiled in the
  evidence session, then 1 + 1 + 20 timed), in-process (imports done) and end to end (fresh processes);
* profile: time and peak RSS (a fresh process each) of ``parse_profile`` on 10k, 100k and 1M synthetic
  events laid out as ORT 1.31 writes them;
* static: ``check --static`` on the generated 10,000-node model with 15,000 findings, step by step;
* big: ``check --provider cpu`` on a model with 2.2 GB of external weights: wall time and peak RSS against
  a bare session on the same model.
* gpu (where a CUDA session is active): goal a for a report written by a CUDA ``check`` of the 10k-node model
  (what CI replays), goal c with the CUDA EP, with and without the binding A/B.
* memory (issue 38): what one profile event costs, held by onnxruntime during the runs (by intra-op threads) and at
  the peak of a whole ``check`` of a chain of Relus (by ``--runs``, and with every output), against the estimate the
  memory budget uses (collect/budget.py); about 1.5 GB at the largest.
* commands: the commands as users run them, whole processes, this checkout against another one (``--other PATH``)
  in the same rounds: ``check`` of the small model, ``report RUN.json --html`` and ``check --static`` of the
  10k-node model.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(HERE))

import msgspec  # noqa: E402
import onnx  # noqa: E402

import synth  # noqa: E402

C_ROUNDS = 11  # goal c: rounds of bare script, floor and check at the least (each well under a second)
CHECK_RUNS = 2 + 3 + 1 + 1 + 20  # check's defaults: warmup, profiled, first timed, warmup-1, timed


def _env(tree: Path = REPO) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(tree)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env.pop("ORTCOPY_DOCTOR_DEBUG", None)
    # Measured as installed: pip writes every module's bytecode at install time. A shell that sets
    # PYTHONDONTWRITEBYTECODE (this project's build machine does) would otherwise make every fresh process
    # compile ortcopy_doctor's ~70 modules from source: +0.1-0.2 s per process that no user pays.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def _compile_bytecode(tree: Path = REPO) -> None:
    """Write the bytecode of the package (editable checkout) as ``pip install`` does for an installed one."""
    import compileall

    compileall.compile_dir(str(tree / "ortcopy_doctor"), quiet=1)


# A small launcher process starts the measured command and reads its rusage: a child forked straight from
# this (large) benchmark process would report this process's RSS as its own peak (Linux carries the
# high-water mark across fork and exec).
_LAUNCHER = textwrap.dedent("""
    import json, os, subprocess, sys, time
    start = time.perf_counter()
    proc = subprocess.Popen(sys.argv[2:], stdout=open(sys.argv[1] + ".log", "w"), stderr=subprocess.STDOUT)
    _, status, usage = os.wait4(proc.pid, 0)
    json.dump({"wall": time.perf_counter() - start, "maxrss_kb": usage.ru_maxrss,
               "code": os.waitstatus_to_exitcode(status)}, open(sys.argv[1], "w"))
""")


def _popen_rusage(cmd: list[str], cwd: Path | None = None, tree: Path = REPO) -> tuple[float, float, int, str]:
    """(wall seconds, peak RSS in MB, exit code, output tail) of ``cmd`` in a fresh process (``tree``: the checkout
    whose package it imports)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = Path(tmp) / "result.json"
        subprocess.run([sys.executable, "-c", _LAUNCHER, str(result), *cmd], cwd=cwd, env=_env(tree), check=True)
        r = json.loads(result.read_text())
        out = Path(str(result) + ".log").read_text(errors="replace")
    return r["wall"], r["maxrss_kb"] / 1024, r["code"], out[-2000:]


def machine() -> str:
    cpu = platform.processor() or ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mem = int(next(line for line in Path("/proc/meminfo").read_text().splitlines()
                       if line.startswith("MemTotal")).split()[1]) / 2**20
    except (OSError, StopIteration, ValueError):
        mem = 0.0
    import numpy
    import onnxruntime

    return (f"{os.cpu_count()} CPUs ({cpu}), {mem:.0f} GiB RAM, {platform.system()} {platform.release()}, "
            f"Python {platform.python_version()}, onnxruntime {onnxruntime.__version__}, onnx {onnx.__version__}, "
            f"numpy {numpy.__version__}")


def table(title: str, header: list[str], rows: list[list[object]]) -> str:
    lines = [f"### {title}", "", "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    text = "\n".join(lines) + "\n"
    print(text, flush=True)
    return text


# --- goals (issue 15): ratios against a baseline measured in this run ------------------------------------

GOAL_LOAD = 0.10  # (a) load_report / the check that wrote the JSON
GOAL_STATIC_S = 5.0  # (b) check --static, 10k nodes, 15k findings, wall seconds on the 2-CPU machine
GOAL_CHECK = 1.5  # (c) check on a small model / bare script with the same runs
GOAL_HELP = 1.3  # (d) --help / import onnxruntime


def _median_process(cmd: list[str], repeats: int, cwd: Path | None = None) -> float:
    """Median wall seconds of ``cmd`` in fresh processes (one unmeasured run first: page cache, .pyc files)."""
    walls = []
    for i in range(repeats + 1):
        wall, _, code, out = _popen_rusage(cmd, cwd)
        assert code in (0, 1), out  # 1: --fail-on tripped, still a full run
        if i:
            walls.append(wall)
    return statistics.median(walls)


def _paired_process(base: list[str], cmd: list[str], repeats: int) -> tuple[float, float, float]:
    """(median seconds of ``base``, of ``cmd``, median of the ratios cmd/base of each pair), the two run one after
    the other ``repeats`` times (after one unmeasured run of each). Interleaved, a pair sees the same machine: this
    shared machine's speed drifts by up to 1.7x within minutes, which moved a ratio of two separate medians."""
    base_s, ((cmd_s, ratio),) = _interleaved(base, [cmd], repeats)
    return base_s, cmd_s, ratio


def _interleaved(base: list[str], cmds: list[list[str]], repeats: int) -> tuple[float, list[tuple[float, float]]]:
    """``_paired_process`` for several commands against one base: ``base`` then each of ``cmds``, one after the
    other, ``repeats`` times; (median seconds of ``base``, [(median seconds, median ratio to the base run just
    before it) per command])."""
    walls = _rounds([base, *cmds], repeats)
    return statistics.median(walls[0]), [(statistics.median(w), statistics.median(x / b for x, b in zip(w, walls[0])))
                                         for w in walls[1:]]


def _rounds(cmds: list[list[str]], repeats: int) -> list[list[float]]:
    """Each command's wall seconds in ``repeats`` rounds, the commands one after the other in each round (after one
    unmeasured run of each): pairs of the same round see the machine in the same state."""
    for c in cmds:
        _popen_rusage(c)
    walls: list[list[float]] = [[] for _ in cmds]
    for _ in range(repeats):
        for i, c in enumerate(cmds):
            wall, _, code, out = _popen_rusage(c)
            assert code in (0, 1), out  # 1: --fail-on tripped, still a full run
            walls[i].append(wall)
    return walls


def _paired_timed(base, func, repeats: int) -> tuple[float, float, float]:  # noqa: ANN001
    """``_paired_process`` in this process: (median seconds of ``base()``, of ``func()``, median ratio func/base),
    each pair run one after the other; what a call returns is freed after the clock stops (see ``_timed``)."""
    base()
    func()
    walls_a, walls_b, ratios = [], [], []
    for _ in range(repeats):
        start = time.perf_counter()
        result = base()
        a = time.perf_counter() - start
        del result
        start = time.perf_counter()
        result = func()
        b = time.perf_counter() - start
        del result
        walls_a.append(a)
        walls_b.append(b)
        ratios.append(b / a)
    return statistics.median(walls_a), statistics.median(walls_b), statistics.median(ratios)


def _verdict(ok: bool) -> str:
    return "**pass**" if ok else "**FAIL**"


def _import_breakdown(cmd: list[str], top: int = 9) -> tuple[float, list[tuple[str, float]]]:
    """``python -X importtime``: total import seconds and the self time summed per top-level package."""
    proc = subprocess.run([sys.executable, "-X", "importtime", *cmd], env=_env(), capture_output=True, text=True)
    per: dict[str, float] = {}
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        parts = line[len("import time:"):].split("|")
        self_us, name = int(parts[0]), parts[2].strip()
        root = name.split(".")[0].lstrip("_") or name
        per[root] = per.get(root, 0.0) + int(self_us) / 1e6
    total = sum(per.values())
    return total, sorted(per.items(), key=lambda kv: -kv[1])[:top]


def _timed(func, repeats: int) -> float:  # noqa: ANN001
    """Median seconds of ``func()`` in this process, after one unmeasured call. What it returns is freed after the
    clock stops: freeing a 10k-node report (a million objects) is not part of making it, and the CLI never frees
    it (its process ends without interpreter teardown)."""
    func()
    walls = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = func()
        walls.append(time.perf_counter() - start)
        del result
    return statistics.median(walls)


def goals(work: Path, repeats: int) -> str:
    from ortcopy_doctor.api import check, load_report
    from ortcopy_doctor.collect.session import CheckOptions
    from ortcopy_doctor.model import codec
    from ortcopy_doctor.model.evidence import Evidence
    from ortcopy_doctor.cli.gcpolicy import COMMAND_THRESHOLDS
    from ortcopy_doctor.render.html import render_html
    from ortcopy_doctor.report.core import ReportDocument, _stored_report, analyse
    from ortcopy_doctor.report.seal import analysis_key

    py = sys.executable
    doctor = [py, "-m", "ortcopy_doctor"]
    rows: list[list[object]] = []
    import_ort, help_s, help_ratio = _paired_process([py, "-c", "import onnxruntime"], [*doctor, "--help"], repeats)
    rows.append(["baseline", '`python -c "import onnxruntime"` (fresh process)', f"{import_ort:.3f} s", "", "", ""])

    small = work / "conv16.onnx"
    onnx.save(synth.conv_net(channels=16, blocks=4), str(small))
    big = work / "fallback10k.onnx"
    onnx.save(synth.fallback_chain_model(10_000), str(big))

    # (a) load_report against the check that wrote the JSON (in-process: imports done; the check renders the
    # JSON and the HTML it writes by default). Measured twice: as the Python API runs in a user's process (Python's
    # collector thresholds; not a goal), then as the `check`, `report` and `diff` commands run (the goal: the
    # thresholds their entry points set, cli/gcpolicy.py).
    cases = (("small (conv net 16ch, CPU EP, 27 runs)", small, CheckOptions(providers=["CPUExecutionProvider"])),
             ("10k nodes, 15k findings (`--static`)", big, CheckOptions(static=True, dims={"batch": 8})))
    for mode in ("library", "command"):
        if mode == "command":
            gc.set_threshold(*COMMAND_THRESHOLDS)
        for label, path, options in cases:
            out = work / (path.stem + ".json")

            def write(path: Path = path, options: CheckOptions = options, out: Path = out) -> object:
                report = check(path, options)
                out.write_text(report.to_json(), encoding="utf-8")
                render_html(report)
                return report

            # as `report RUN.json` reads it (no gate: rendered from the analysed_by cache, report/seal.py)
            wrote, loaded, ratio = _paired_timed(write, lambda out=out: load_report(out, cache=True), repeats)
            measured = (f"{label}: `load_report(cache=True)` {loaded:.3f} s / check + JSON + HTML {wrote:.3f} s "
                        f"({out.stat().st_size / 1e6:.1f} MB JSON)")
            if mode == "command":
                rows.append([f"a: load JSON ≤ {GOAL_LOAD:.0%} of check", measured, f"{ratio:.1%}",
                             f"≤ {GOAL_LOAD:.0%}", _verdict(ratio <= GOAL_LOAD), "in-process as the commands run, paired"])
            else:
                rows.append(["a: the same in the Python API (not a goal)", measured, f"{ratio:.1%}", "", "",
                             f"in-process as the library runs (Python {sys.version_info[0]}.{sys.version_info[1]}, "
                             f"{gc.get_freeze_count()} objects frozen at start), paired"])
    # Where the 10k-node load goes (`out`: the last JSON written above, keyed by the code that reads it back, so
    # read as it is: report/seal.py), each part on its own: decoding the report's types, checking the key.
    raw = out.read_bytes()
    assert _stored_report(raw) is not None, "the check's JSON is not read as it is (report/seal.py)"
    document = codec.decode(raw, ReportDocument)
    blank = msgspec.structs.replace(document, analysed_by="")
    parts = [("decode into the report's types (msgspec)", _timed(lambda: codec.decode(raw, ReportDocument), repeats)),
             ("check the key (write the values again, SHA-256)", _timed(lambda: analysis_key(blank), repeats))]
    rows.append(["a: the 10k load's parts (not a goal)", ", ".join(f"{what} {s:.3f} s" for what, s in parts),
                 f"{sum(s for _, s in parts) / wrote:.1%}", "", "", "in-process"])
    # The same file re-analysed from its evidence, as `report` reads it whenever it judges (`--fail-on`,
    # `--max-transfer-bytes`, `--fail-on-gain`, `--sarif`; issue 38: a gate never reads a file's derived sections,
    # which anyone can edit and key again), and as any file without a matching key is read; where that time goes.
    reloaded = _timed(lambda: load_report(out), repeats)
    evidence = document.evidence
    evidence_raw = codec.decode(raw, dict[str, msgspec.Raw])["evidence"]  # its bytes, as load_report finds them
    parts = [("decode the evidence (msgspec)", _timed(lambda: codec.decode(evidence_raw, Evidence), repeats)),
             ("re-run the analysis", _timed(lambda: analyse(evidence), repeats))]
    del raw, document, blank, evidence, evidence_raw
    rows.append(["a: the 10k file re-analysed, as `report` with a gate reads it (not a goal)",
                 f"`load_report` {reloaded:.3f} s: " + ", ".join(f"{what} {s:.3f} s" for what, s in parts),
                 f"{reloaded / wrote:.1%}", "", "", "in-process"])

    # (b) check --static on 10k nodes with 15k findings: the default outputs (terminal + HTML), then with --json.
    for extra, what in (([], "terminal + HTML"), (["--json", str(work / "s.json")], "terminal + HTML + JSON")):
        wall = _median_process([*doctor, "check", str(big), "--static", "--dim", "batch=8", "--html",
                                str(work / "s.html"), *extra, "--fail-on", "never"], repeats)
        rows.append([f"b: 10k-node `check --static` < {GOAL_STATIC_S:.0f} s", f"{what}: {wall:.2f} s",
                     f"{wall / import_ort:.1f}x import ort", f"< {GOAL_STATIC_S:.0f} s here "
                     f"(≈ {GOAL_STATIC_S / import_ort:.0f}x)", _verdict(wall < GOAL_STATIC_S), "process"])

    # (c) check on a small model against a bare script: the same session options and runs, fresh processes.
    check_cmd = [*doctor, "check", str(small), "--provider", "cpu", "--html", str(work / "r.html"),
                 "--fail-on", "never", "-q"]
    # The floor under it: the same bare script, which also loads the three dependencies `check` cannot run
    # without (onnx reads the model; jinja2 writes the page; typer parses the command line) and uses none of them; no
    # code of ortcopy-doctor runs in it. Bare, floor and check run one after the other.
    # It starts and ends as the command does: fewer garbage collections while the modules load
    # (cli/gcpolicy.py) and no interpreter teardown at the end (cli/app.py `_exit_process`), so that the floor
    # is what the command could reach, not the cost of collecting and unloading those modules the default way.
    floor_script = _floor_script(_BARE, _FLOOR_IMPORTS)
    floor_cmd = [py, "-c", floor_script, str(small), str(CHECK_RUNS)]
    # Each round takes under a second, and one pair's ratio on this shared 2-CPU machine ranges from 0.9x to 1.9x:
    # at least C_ROUNDS rounds, so that the median says more than the noise (3 rounds gave 1.29x-1.62x).
    rounds = max(repeats, C_ROUNDS)
    bare, ((floor, floor_ratio), (full, check_ratio)) = _interleaved(
        [py, "-c", _BARE, str(small), str(CHECK_RUNS)], [floor_cmd, check_cmd], rounds)
    per_run = 1000 * _timed(lambda: _bare_runs(small, CHECK_RUNS), repeats) / CHECK_RUNS
    rows.append(["c: small-model `check` ≤ 1.5x bare script",
                 f"conv net 16ch ({per_run:.2f} ms/run): check {full:.3f} s / bare session + {CHECK_RUNS} runs "
                 f"{bare:.3f} s", f"{check_ratio:.2f}x", f"≤ {GOAL_CHECK}x", _verdict(check_ratio <= GOAL_CHECK),
                 f"process, paired ({rounds} rounds)"])
    rows.append(["c: its floor (not a goal)", "the bare script + `import onnx, jinja2, typer`, "
                 "started and ended as the command is "
                 f"{floor:.3f} s / "
                 f"bare {bare:.3f} s", f"{floor_ratio:.2f}x", "", "", f"process, paired ({rounds} rounds)"])

    # (d) --help against importing onnxruntime (measured in pairs with the baseline, above).
    rows.append([f"d: `--help` ≤ {GOAL_HELP}x import ort", f"`ortcopy-doctor --help` {help_s:.3f} s",
                 f"{help_ratio:.2f}x", f"≤ {GOAL_HELP}x", _verdict(help_ratio <= GOAL_HELP), "process, paired"])
    text = table(f"Speed goals (issue 15): ratios to baselines measured in this run (median of {repeats}; "
                 "\"paired\": the median of the ratios of pairs run one after the other)",
                 ["goal", "measured", "ratio", "goal", "", "how"], rows)

    # Where the small-model check's imports go (self time per top-level package; one run).
    total, top = _import_breakdown(check_cmd[1:])
    bare_total, _ = _import_breakdown(["-c", _BARE, str(small), str(CHECK_RUNS)])
    text += table(f"Imports of the small-model `check` (python -X importtime, self time per package; "
                  f"{total:.3f} s in all, bare script {bare_total:.3f} s)", ["package", "s", "share of check"],
                  [[name, f"{s:.3f}", f"{s / full:.0%}"] for name, s in top])
    return text


def _bare_runs(path: Path, runs: int) -> None:
    import numpy as np
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.log_severity_level = 3
    s = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    feeds = {i.name: np.random.default_rng(0).standard_normal(
        [d if isinstance(d, int) else 1 for d in i.shape]).astype(np.float32) for i in s.get_inputs()}
    for _ in range(runs):
        s.run(None, feeds)


# --- gpu ------------------------------------------------------------------------------------------------------


def _runs_made(report_json: Path) -> int:
    """How many times a default CUDA ``check`` ran the model, counted from the evidence its ``--json`` wrote: the
    evidence session (warm-up + profiled), the timing session (first run + timed runs + one warm-up), the transfer
    census's traced session, and every round of the binding A/B (warm-up and measured runs of each variant, the
    transfer phases, the pinned-buffer timing)."""
    evidence = json.loads(report_json.read_text(encoding="utf-8"))["evidence"]
    timings = evidence.get("timings") or {}
    runs = timings.get("warmup_runs", 0) + timings.get("profiled_runs", 0) + 2 + len(timings.get("run_ms") or [])
    census = evidence.get("census") or {}
    runs += len(census.get("traced_run_ms") or [])
    ab = evidence.get("binding_measurement") or {}
    for variant in ab.get("variants") or []:
        if variant.get("ran"):
            runs += variant.get("runs", 0) + ab.get("warmup_runs", 0)
    runs += sum(phase.get("runs", 0) for phase in ab.get("phases") or [])
    runs += (ab.get("pinned") or {}).get("runs", 0)
    return runs


def gpu(work: Path, repeats: int) -> str:
    """Goals a and c where the CUDA EP runs (the lent H200): a report written by a CUDA ``check``, which is what CI
    replays, and the small-model check against a bare CUDA script."""
    import onnxruntime as ort

    small = work / "conv16.onnx"
    onnx.save(synth.conv_net(channels=16, blocks=4), str(small))
    # onnxruntime-gpu lists the CUDA EP where no GPU or CUDA library is there too: a session says what runs
    quiet = ort.SessionOptions()
    quiet.log_severity_level = 3
    active = ort.InferenceSession(str(small), quiet,
                                  providers=["CUDAExecutionProvider", "CPUExecutionProvider"]).get_providers()
    if active[0] != "CUDAExecutionProvider":
        text = (f"### Speed goals with the CUDA EP\n\nSkipped: a CUDA session is not active here (onnxruntime "
                f"{ort.__version__}; the session ran on {', '.join(active)}).\n")
        print(text, flush=True)
        return text
    from ortcopy_doctor.api import check, load_report
    from ortcopy_doctor.collect.session import CheckOptions
    from ortcopy_doctor.cli.gcpolicy import COMMAND_THRESHOLDS
    from ortcopy_doctor.render.html import render_html

    py = sys.executable
    doctor = [py, "-m", "ortcopy_doctor"]
    rows: list[list[object]] = []
    big = work / "fallback10k.onnx"
    onnx.save(synth.fallback_chain_model(10_000), str(big))

    # (a) a CUDA check of the 10k-node chain (5,000 CPU fallbacks, ~10,000 Memcpy nodes), in-process, with its
    # defaults (evidence, transfer census where CUPTI is there, binding A/B), writing JSON and HTML; then loading
    # that JSON, as `report` does on a machine without a GPU.
    out = work / "fallback10k_cuda.json"

    def write() -> object:
        report = check(big, CheckOptions(dims={"batch": 8}))
        out.write_text(report.to_json(), encoding="utf-8")
        render_html(report)
        return report

    gc.set_threshold(*COMMAND_THRESHOLDS)  # as the commands run (see goals())
    wrote, loaded, ratio = _paired_timed(write, lambda: load_report(out, cache=True), repeats)
    findings = len(json.loads(out.read_text(encoding="utf-8"))["findings"])
    rows.append([f"a: load JSON ≤ {GOAL_LOAD:.0%} of check", f"10k nodes, CUDA EP ({findings} findings): "
                 f"`load_report(cache=True)` {loaded:.3f} s / check + JSON + HTML {wrote:.3f} s "
                 f"({out.stat().st_size / 1e6:.1f} MB JSON)", f"{ratio:.1%}", f"≤ {GOAL_LOAD:.0%}",
                 _verdict(ratio <= GOAL_LOAD), "in-process as the commands run, paired"])
    reloaded = _timed(lambda: load_report(out), repeats)  # re-analysed: as `report` with a gate reads it
    rows.append(["a: the same re-analysed, as `report` with a gate reads it (not a goal)",
                 f"`load_report` {reloaded:.3f} s", f"{reloaded / wrote:.1%}", "", "", "in-process"])

    # (c) the small model with the CUDA EP: a bare CUDA script (one session, the 27 runs of check's evidence and
    # timing sessions), `check --no-measure-binding`, and `check` with its defaults, whose binding A/B adds rounds
    # until each speed-up is known to ±3% (or 5 s): that check is also set against a bare script doing as many
    # runs as it made (counted from its JSON).
    small_json = work / "conv16_cuda.json"
    _popen_rusage([*doctor, "check", str(small), "--json", str(small_json), "--fail-on", "never", "-q"])
    made = _runs_made(small_json)
    bare_cuda = _BARE.replace('providers=["CPUExecutionProvider"]',
                              'providers=["CUDAExecutionProvider", "CPUExecutionProvider"]')
    assert bare_cuda != _BARE
    html = ["--html", str(work / "r.html"), "--fail-on", "never", "-q"]
    rounds = max(repeats, C_ROUNDS)  # a few seconds a round; as on the CPU (goals()), enough for a median
    bare, ((nomeasure, nomeasure_ratio), (full, full_ratio), (bare_n, bare_n_ratio)) = _interleaved(
        [py, "-c", bare_cuda, str(small), str(CHECK_RUNS)],
        [[*doctor, "check", str(small), "--no-measure-binding", *html], [*doctor, "check", str(small), *html],
         [py, "-c", bare_cuda, str(small), str(made)]], rounds)
    rows.append(["c: small-model `check` ≤ 1.5x bare script", f"conv net 16ch, CUDA EP, `--no-measure-binding`: "
                 f"check {nomeasure:.3f} s / bare CUDA session + {CHECK_RUNS} runs {bare:.3f} s",
                 f"{nomeasure_ratio:.2f}x", f"≤ {GOAL_CHECK}x", _verdict(nomeasure_ratio <= GOAL_CHECK),
                 f"process, paired ({rounds} rounds)"])
    rows.append(["c: small-model `check` ≤ 1.5x bare script", f"the same, `check` with its defaults (binding A/B): "
                 f"{full:.3f} s / bare {CHECK_RUNS} runs {bare:.3f} s", f"{full_ratio:.2f}x", f"≤ {GOAL_CHECK}x",
                 _verdict(full_ratio <= GOAL_CHECK), f"process, paired ({rounds} rounds)"])
    rows.append(["c: the default check against the runs it made (not a goal)",
                 f"bare CUDA session + {made} runs (as many as that check made) {bare_n:.3f} s: check / it "
                 f"{full / bare_n:.2f}x", f"{full_ratio / bare_n_ratio:.2f}x", "", "", f"process, paired ({rounds} rounds)"])
    return table(f"Speed goals with the CUDA EP (onnxruntime {ort.__version__}; median of {repeats}, paired)",
                 ["goal", "measured", "ratio", "goal", "", "how"], rows)


# --- overhead ---------------------------------------------------------------------------------------------

# The floor's imports: onnx (the check reads the model with onnx.load), jinja2 and typer.
_FLOOR_IMPORTS = "import onnx, jinja2, typer\n"

_BARE = textwrap.dedent("""
    import sys, time
    import numpy as np, onnxruntime as ort
    path, runs = sys.argv[1], int(sys.argv[2])
    so = ort.SessionOptions(); so.log_severity_level = 3
    s = ort.InferenceSession(path, so, providers=["CPUExecutionProvider"])
    feeds = {}
    for i in s.get_inputs():
        shape = [d if isinstance(d, int) else 1 for d in i.shape]
        feeds[i.name] = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    for _ in range(runs):
        s.run(None, feeds)
""")


def _in_process(path: Path, repeats: int) -> tuple[float, float, float]:
    """(bare seconds, check seconds, per-run ms), medians over ``repeats``, in this (warm) process."""
    import numpy as np
    import onnxruntime as ort

    from ortcopy_doctor.api import check
    from ortcopy_doctor.collect.session import CheckOptions
    from ortcopy_doctor.render.html import render_html
    from ortcopy_doctor.render.output import write_atomic

    def bare() -> float:
        start = time.perf_counter()
        so = ort.SessionOptions()
        so.log_severity_level = 3
        s = ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
        feeds = {i.name: np.random.default_rng(0).standard_normal(
            [d if isinstance(d, int) else 1 for d in i.shape]).astype(np.float32) for i in s.get_inputs()}
        for _ in range(CHECK_RUNS):
            s.run(None, feeds)
        return time.perf_counter() - start

    def doctor(tmp: Path) -> float:
        start = time.perf_counter()
        report = check(path, CheckOptions(providers=["CPUExecutionProvider"], dims={"batch": 1}))
        write_atomic(tmp / "r.html", render_html(report))  # what `check` writes by default (no --json)
        return time.perf_counter() - start

    bare()  # warm caches (imports, allocator, page cache)
    with tempfile.TemporaryDirectory() as tmp:
        doctor(Path(tmp))
        bares = [bare() for _ in range(repeats)]
        doctors = [doctor(Path(tmp)) for _ in range(repeats)]
    b, d = statistics.median(bares), statistics.median(doctors)
    return b, d, 1000 * b / CHECK_RUNS


def overhead(work: Path, repeats: int) -> str:
    models = {
        "tiny MLP (3 MatMul+Relu, 1x64)": synth.tiny_model(),
        "conv net 16ch (1x3x224x224)": synth.conv_net(channels=16, blocks=4),
        "conv net 48ch (1x3x224x224)": synth.conv_net(channels=48, blocks=6),
        "conv net 64ch (1x3x224x224)": synth.conv_net(channels=64, blocks=8),
        "10k-node chain (1x16)": synth.chain_model(10_000),
    }
    rows = []
    for label, model in models.items():
        path = work / (label.split(" (")[0].replace(" ", "_") + ".onnx")
        onnx.save(model, str(path))
        bare_s, doctor_s, per_run = _in_process(path, repeats)
        cli_bare = statistics.median(_popen_rusage([sys.executable, "-c", _BARE, str(path), str(CHECK_RUNS)])[0]
                                     for _ in range(repeats))
        cli = [_popen_rusage([sys.executable, "-m", "ortcopy_doctor", "check", str(path), "--provider", "cpu",
                              "--dim", "batch=1",
                              "--html", str(work / "r.html"), "--fail-on", "never", "-q"]) for _ in range(repeats)]
        assert all(c[2] == 0 for c in cli), cli[0][3]
        cli_doctor = statistics.median(c[0] for c in cli)
        rows.append([label, f"{per_run:.2f}", f"{1000 / per_run:.0f}" if per_run else "-", f"{bare_s:.3f}",
                     f"{doctor_s:.3f}", f"**{doctor_s / bare_s:.2f}x**", f"{cli_bare:.2f}", f"{cli_doctor:.2f}",
                     f"{cli_doctor / cli_bare:.2f}x"])
    return table(
        f"Doctor overhead: check vs bare session + {CHECK_RUNS} runs (CPU EP; median of {repeats})",
        ["model", "ms/run", "inf/s", "bare in-process s", "check in-process s", "ratio", "bare process s",
         "check process s", "ratio (process)"], rows)


# --- profile parsing --------------------------------------------------------------------------------------

_PARSE = textwrap.dedent("""
    import json, resource, sys, time
    from pathlib import Path
    from ortcopy_doctor.analysis.profile import parse_profile
    before = resource.getrusage(resource.RUSAGE_SELF)
    start = time.perf_counter()
    runs, nodes = parse_profile(Path(sys.argv[1]), 1)
    seconds = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_SELF)
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    print(json.dumps({"seconds": seconds, "cpu": cpu, "runs": len(runs), "nodes": len(nodes),
                      "base_mb": before.ru_maxrss / 1024, "peak_mb": after.ru_maxrss / 1024}))
""")


def profiles(work: Path, sizes: list[int]) -> str:
    rows = []
    for n in sizes:
        path = work / f"profile_{n}.json"
        synth.write_profile(path, n)
        size_mb = path.stat().st_size / 1e6
        wall, _, code, out = _popen_rusage([sys.executable, "-c", _PARSE, str(path)])
        assert code == 0, out
        r = json.loads(out.strip().splitlines()[-1])
        rows.append([f"{n:,}", f"{size_mb:,.0f} MB", f"{r['runs']:,}", f"{r['nodes']:,}", f"{r['seconds']:.2f}",
                     f"{r['cpu']:.2f}",
                     f"{r['peak_mb']:.0f} MB", f"{r['peak_mb'] - r['base_mb']:.0f} MB"])
        path.unlink()
    return table("Profile parsing (parse_profile, fresh process each)",
                 ["events", "file", "runs", "node events", "parse s (wall)", "parse s (CPU)", "peak RSS",
                  "peak RSS - after imports"], rows)


# --- memory of the profile (issue 38) --------------------------------------------------------------------

_ORT_EVENTS = textwrap.dedent("""
    import json, os, sys
    import numpy as np, onnxruntime as ort
    def rss():
        with open("/proc/self/status") as f:
            return next(int(line.split()[1]) * 1024 for line in f if line.startswith("VmRSS"))
    so = ort.SessionOptions(); so.enable_profiling = True; so.profile_file_prefix = sys.argv[3]
    so.intra_op_num_threads = int(sys.argv[2]); so.log_severity_level = 3
    s = ort.InferenceSession(sys.argv[1], so, providers=["CPUExecutionProvider"])
    x = {"x": np.ones((1, 4), np.float32)}
    s.run(None, x)
    before = rss()
    for _ in range(10):
        s.run(None, x)
    held = rss() - before
    path = s.end_profiling()
    with open(path) as f:
        lines = [line for line in f if "_kernel_time" in line]
    os.unlink(path)
    print(json.dumps({"per_event": held * 11 / (10 * len(lines)), "line": sum(map(len, lines)) / len(lines)}))
""")


def memory(work: Path, nodes: int = 10_000, runs: tuple[int, ...] = (1, 5, 20, 50)) -> str:
    from ortcopy_doctor.collect.budget import event_bytes, intra_op_threads

    path = work / f"relu_{nodes}.onnx"
    onnx.save(synth.relu_chain(nodes), str(path))
    held = []
    for threads in (1, 2, 16, 64):
        wall, _, code, out = _popen_rusage([sys.executable, "-c", _ORT_EVENTS, str(path), str(threads),
                                            str(work / "held")])
        assert code == 0, out
        r = json.loads(out.strip().splitlines()[-1])
        held.append([str(threads), f"{r['per_event']:,.0f}", f"{r['line']:,.0f}", f"{event_bytes(threads):,}"])
    texts = [table(f"Held by onnxruntime while a profiling session runs ({nodes:,} Relus, 10 runs; bytes per node "
                   "event)", ["intra-op threads", "RSS growth / event", "its profile line", "estimate"], held)]
    rows = []
    first: tuple[int, float] | None = None
    cases = [(r, []) for r in runs] + [(20, ["--json", "r.json", "-o", "r.html", "--trace", "r.trace", "--sarif",
                                             "r.sarif"])]
    for count, outputs in cases:
        events = nodes * (2 + count)
        cmd = [sys.executable, "-m", "ortcopy_doctor", "check", str(path), "--provider", "cpu", "--runs", str(count),
               "--fail-on", "never", "-q", *(outputs or ["--no-html"])]
        env = {**_env(), "ORTCOPY_DOCTOR_MEMORY_BUDGET": "1TB"}  # measured as asked: nothing lowered
        with tempfile.TemporaryDirectory(dir=work) as tmp:
            subprocess.run([sys.executable, "-c", _LAUNCHER, str(Path(tmp) / "result.json"), *cmd], cwd=tmp, env=env,
                           check=True)
            r = json.loads((Path(tmp) / "result.json").read_text())
        assert r["code"] == 0, r
        peak = r["maxrss_kb"] / 1024
        if first is None:
            first = (events, peak)
        per_event = (peak - first[1]) * 1e6 / (events - first[0]) if events > first[0] else float("nan")
        rows.append([f"--runs {count}" + (" + every output" if outputs else ""), f"{events:,}", f"{r['wall']:.1f}",
                     f"{peak:,.0f}", f"{per_event:,.0f}" if events > first[0] else "",
                     f"{event_bytes(intra_op_threads()):,}"])
    texts.append(table(f"`check --provider cpu` of {nodes:,} Relus (2 warm-up runs; fresh process each; the "
                       "bytes an event take beyond the first row's)", ["runs", "events", "wall s", "peak RSS MB",
                                                                        "bytes / event", "estimate"], rows))
    return "\n".join(texts)


# --- static 10k nodes -------------------------------------------------------------------------------------


def static(work: Path, nodes: int = 10_000) -> str:
    from ortcopy_doctor.collect.check import static_evidence
    from ortcopy_doctor.collect.session import CheckOptions
    from ortcopy_doctor.collect.environment import collect_environment
    from ortcopy_doctor.collect.feeds import build_feeds
    from ortcopy_doctor.knowledge.model_file import inspect_model, load_model
    from ortcopy_doctor.render.html import render_html
    from ortcopy_doctor.render.text import render_text
    from ortcopy_doctor.report.core import analyse

    path = work / f"fallback_{nodes}.onnx"
    onnx.save(synth.fallback_chain_model(nodes), str(path))
    steps: list[tuple[str, float]] = []

    def step(name: str, func):  # noqa: ANN001
        start = time.perf_counter()
        value = func()
        steps.append((name, time.perf_counter() - start))
        return value

    options = CheckOptions(static=True, dims={"batch": 8})
    model = step("load", lambda: load_model(path))
    info = step("inspect", lambda: inspect_model(path, model))
    env = step("environment", collect_environment)
    _, feeds = build_feeds(info.inputs, options.dims)
    evidence = step("predict (CUDA)", lambda: static_evidence(model, info, feeds, options, env))
    report = step("rules + analysis", lambda: analyse(evidence))
    html = step("render HTML", lambda: render_html(report))
    step("render JSON", report.to_json)
    step("render text (terminal)", lambda: render_text(report))
    total = sum(s for _, s in steps)
    cli = _popen_rusage([sys.executable, "-m", "ortcopy_doctor", "check", str(path), "--static", "--dim", "batch=8",
                         "--html", str(work / "static.html"), "--json", str(work / "static.json"), "--fail-on",
                         "never"])
    assert cli[2] == 0, cli[3]
    rows = [[name, f"{s:.3f}"] for name, s in steps]
    rows.append(["**in-process total**", f"**{total:.2f}**"])
    rows.append([f"`check --static` process (wall, peak RSS {cli[1]:.0f} MB)", f"**{cli[0]:.2f}**"])
    rows.append(["HTML size", f"{len(html.encode()) / 1e6:.1f} MB"])
    rows.append(["findings", f"{len(report.findings):,}"])
    return table(f"Static check of a generated {nodes:,}-node model, half its nodes falling back to CPU "
                 "(seconds, one run)", ["step", "s"], rows)


# --- >2 GB external data ----------------------------------------------------------------------------------

_BARE_BIG = textwrap.dedent("""
    import sys
    import numpy as np, onnxruntime as ort
    so = ort.SessionOptions(); so.log_severity_level = 3
    s = ort.InferenceSession(sys.argv[1], so, providers=["CPUExecutionProvider"])
    x = np.ones((1, 64), np.float32)
    for _ in range(int(sys.argv[2])):
        s.run(None, {"x": x})
""")


def big(folder: Path, gigabytes: float) -> str:
    path = folder / "big.onnx"
    if not path.is_file() or (folder / "big.onnx.data").stat().st_size < gigabytes * 1e9 * 0.99:
        start = time.perf_counter()
        synth.external_data_model(folder, gigabytes)
        print(f"wrote {path} + {(folder / 'big.onnx.data').stat().st_size / 1e9:.2f} GB in "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    rows = []
    runs = 3
    bare = _popen_rusage([sys.executable, "-c", _BARE_BIG, str(path), str(2 * runs + 2)])
    assert bare[2] == 0, bare[3]
    rows.append([f"bare session + {2 * runs + 2} runs", f"{bare[0]:.1f}", f"{bare[1]:,.0f}"])
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        cli = _popen_rusage([sys.executable, "-m", "ortcopy_doctor", "check", str(path), "--provider", "cpu",
                             "--runs", "1", "--warmup", "1", "--timed-runs", str(runs), "--html",
                             str(Path(tmp) / "big.html"), "--json", str(Path(tmp) / "big.json"), "--fail-on", "never"])
        assert cli[2] == 0, cli[3]
        rows.append([f"check --provider cpu (2 sessions, {2 + 1 + runs} runs)", f"{cli[0]:.1f}", f"{cli[1]:,.0f}"])
        static_run = _popen_rusage([sys.executable, "-m", "ortcopy_doctor", "check", str(path), "--static", "--html",
                                    str(Path(tmp) / "s.html"), "--fail-on", "never", "-q"])
        assert static_run[2] == 0, static_run[3]
        rows.append(["check --static", f"{static_run[0]:.1f}", f"{static_run[1]:,.0f}"])
        insp = _popen_rusage([sys.executable, "-c", "import sys; from pathlib import Path; "
                              "from ortcopy_doctor.knowledge.model_file import inspect_model; inspect_model(Path(sys.argv[1]))",
                              str(path)])
        rows.append(["inspect_model only (graph without weights)", f"{insp[0]:.1f}", f"{insp[1]:,.0f}"])
    data_gb = (folder / "big.onnx.data").stat().st_size / 1e9
    return table(f"Model with {data_gb:.2f} GB of external weights (float32, {path.stat().st_size / 1e3:.0f} kB graph)",
                 ["what", "wall s", "peak RSS MB"], rows)


# --- commands: whole processes, this checkout against another one -----------------------------------------


def commands(work: Path, repeats: int, other: Path | None) -> str:
    """The commands as users run them, each a fresh process: ``check`` of the small model (CPU EP) against the bare
    script (goal c), and ``report RUN.json --html`` of the 10k-node ``--static`` report (what goal a's load is part
    of), and ``check --static`` of that model (goal b). With ``other`` (a checkout of another commit, e.g. ``git
    worktree add /tmp/before HEAD~3``), the same commands with its package, run in the same rounds (bare script,
    this checkout, the other one, one after the other): before/after pairs that see the machine in the same state.
    Each checkout reads a report JSON it wrote itself (its key names the code that analysed it, report/seal.py).
    Every process starts in ``work``: ``python -m`` puts its working folder first on ``sys.path``, which from a
    checkout would import that checkout's package whatever ``PYTHONPATH`` says."""
    py = sys.executable
    doctor = [py, "-m", "ortcopy_doctor"]
    trees = [("this checkout", REPO)] + ([("other", other.resolve())] if other is not None else [])
    for _, tree in trees[1:]:
        _compile_bytecode(tree)
    small = work / "conv16.onnx"
    onnx.save(synth.conv_net(channels=16, blocks=4), str(small))
    big = work / "fallback10k.onnx"
    onnx.save(synth.fallback_chain_model(10_000), str(big))
    static = [*doctor, "check", str(big), "--static", "--dim", "batch=8", "--fail-on", "never", "-q"]
    for i, (_, tree) in enumerate(trees):
        wall, _, code, out = _popen_rusage([*static, "--json", str(work / f"big{i}.json")], work, tree)
        assert code == 0, out

    def per_tree(make: Callable[[int], list[str]]) -> list[tuple[list[str], Path]]:
        return [(make(i), tree) for i, (_, tree) in enumerate(trees)]

    measured = [
        ("c: `check` small model, CPU EP, `-q --html` (ratio: to the bare script)",
         per_tree(lambda i: [*doctor, "check", str(small), "--provider", "cpu", "--html", str(work / f"r{i}.html"),
                             "--fail-on", "never", "-q"]), [py, "-c", _BARE, str(small), str(CHECK_RUNS)]),
        ("`report RUN.json --html` of the 10k-node `--static` report (terminal output to a file)",
         per_tree(lambda i: [*doctor, "report", str(work / f"big{i}.json"), "--html", str(work / f"rep{i}.html")]),
         None),
        ("b: `check --static` 10k nodes, `-q --html`",
         per_tree(lambda i: [*static, "--html", str(work / f"s{i}.html")]), None),
    ]
    rows: list[list[object]] = []
    rounds = max(repeats, C_ROUNDS)
    for label, cmds, base in measured:
        runs = ([(base, REPO)] if base is not None else []) + cmds
        for cmd, tree in runs:  # one unmeasured run of each
            _popen_rusage(cmd, work, tree)
        walls: list[list[float]] = [[] for _ in runs]
        for _ in range(rounds):
            for k, (cmd, tree) in enumerate(runs):
                wall, _, code, out = _popen_rusage(cmd, work, tree)
                assert code in (0, 1), out
                walls[k].append(wall)
        offset = 1 if base is not None else 0
        cells = [f"{name} {statistics.median(walls[offset + j]):.3f} s" for j, (name, _) in enumerate(trees)]
        if base is not None:
            ratios = [statistics.median(x / b for x, b in zip(walls[offset + j], walls[0])) for j in range(len(trees))]
            cells.insert(0, f"bare {statistics.median(walls[0]):.3f} s")
            cells += [f"{name} / bare {r:.2f}x" for (name, _), r in zip(trees, ratios)]
        if other is not None:
            paired = statistics.median(a / b for a, b in zip(walls[offset], walls[offset + 1]))
            cells.append(f"this / other, paired: {paired:.3f}x")
        rows.append([label, "; ".join(cells), f"process, {rounds} rounds"])
    return table("Commands as users run them (fresh processes, medians; paired ratios are medians of the rounds' "
                 "ratios)", ["command", "measured", "how"], rows)


_BARE_DEFAULT = _BARE.replace('providers=["CPUExecutionProvider"]',
                              'providers=["CUDAExecutionProvider", "CPUExecutionProvider"]')
BUDGET_CHECK = 1.5  # issue 35: `check MODEL` (default providers) / a bare script requesting the same providers
BUDGET_REPORT = 0.25  # issue 35: `report RUN.json` / the `check` that wrote it, 10k nodes


def budgets(work: Path, repeats: int) -> str:
    """The speed budgets of issue 35, measured as users run the commands (whole processes, ratios in one run):
    ``check MODEL`` with its default providers (CUDA requested: on a machine where it does not load, the check runs
    on the CPU EP and adds the static prediction for CUDA) against a bare script that requests the same providers
    and makes the same runs, on a tiny and on a mid model; ``report RUN.json`` against the ``check`` that wrote the
    JSON of a 10k-node model. Each pair runs one right after the other; a ratio is the median of the pairs'."""
    py = sys.executable
    doctor = [py, "-m", "ortcopy_doctor"]
    tiny = work / "tiny.onnx"
    onnx.save(synth.conv_net(channels=8, blocks=1), str(tiny))
    mid = work / "mid.onnx"
    onnx.save(synth.conv_net(channels=64, blocks=8), str(mid))
    big = work / "fallback10k.onnx"
    onnx.save(synth.fallback_chain_model(10_000), str(big))
    rounds = max(repeats, C_ROUNDS)
    rows: list[list[object]] = []
    for label, model in (("tiny (conv net 8ch, 1 block)", tiny), ("mid (conv net 64ch, 8 blocks)", mid)):
        check_cmd = [*doctor, "check", str(model), "--html", str(work / "b.html"), "--fail-on", "never", "-q"]
        _popen_rusage(check_cmd, work)
        out = work / "runs.json"
        _popen_rusage([*check_cmd, "--json", str(out)], work)
        runs = _runs_made(out)
        sessions, all_runs = _work_made(out)
        bare_cmd = [py, "-c", _BARE_DEFAULT, str(model), str(runs)]
        same_cmd = [py, "-c", _BARE_DEFAULT, str(model), str(all_runs)]
        floor_cmd = [py, "-c", _floor_script(_BARE_DEFAULT, _BUDGET_FLOOR_IMPORTS, sessions), str(model), str(all_runs)]
        inferred_cmd = [py, "-c", _floor_script(_BARE_DEFAULT, _BUDGET_FLOOR_INFERENCE, sessions), str(model),
                        str(all_runs)]
        walls = _rounds([bare_cmd, same_cmd, floor_cmd, inferred_cmd, check_cmd], rounds)
        bare, same, floor, inferred, full = (statistics.median(w) for w in walls)
        ratio, same_ratio = (statistics.median(c / b for c, b in zip(walls[4], walls[k])) for k in (0, 1))
        inferred_ratio = statistics.median(i / b for i, b in zip(walls[3], walls[1]))
        rows.append([f"`check MODEL` ≤ {BUDGET_CHECK}x bare script", f"{label}: check {full:.3f} s / bare session "
                     f"(CUDA, CPU requested) + {runs} runs (the evidence and timing sessions') {bare:.3f} s",
                     f"{ratio:.2f}x", f"≤ {BUDGET_CHECK}x", _verdict(ratio <= BUDGET_CHECK),
                     f"process, paired ({rounds} rounds)"])
        rows.append([f"`check MODEL` ≤ {BUDGET_CHECK}x bare script", f"{label}: check {full:.3f} s / bare session "
                     f"+ {all_runs} runs (every run the check makes: the generated code's check runs it too) "
                     f"{same:.3f} s", f"{same_ratio:.2f}x", f"≤ {BUDGET_CHECK}x", _verdict(same_ratio <= BUDGET_CHECK),
                     f"process, paired ({rounds} rounds)"])
        rows.append(["its floor (not a budget)", f"{label}: the bare script + `{_BUDGET_FLOOR_IMPORTS.strip()}`, "
                     f"{sessions} sessions and {all_runs} runs (every session and run the check makes), started and "
                     f"ended as the command is: {floor:.3f} s; the check {full / floor:.2f}x its floor",
                     f"{floor / same:.2f}x the bare script of {all_runs} runs", "", "",
                     f"process, paired ({rounds} rounds)"])
        rows.append(["its floor with onnx's shape inference (not a budget)", f"{label}: the floor, and the model read "
                     "and its shapes inferred by onnx as the static prediction has them (onnx registers every op's "
                     f"schema at its first use): {inferred:.3f} s; the check {full / inferred:.2f}x it",
                     f"{inferred_ratio:.2f}x the bare script of {all_runs} runs", "", "",
                     f"process, paired ({rounds} rounds)"])
    out = work / "big.json"
    static = [*doctor, "check", str(big), "--static", "--dim", "batch=8", "--fail-on", "never", "-q", "--no-html",
              "--json", str(out)]
    default = [*doctor, "check", str(big), "--static", "--dim", "batch=8", "--fail-on", "never", "-q",
               "--json", str(work / "big_default.json"), "--html", str(work / "big_default.html")]
    report_cmd = [*doctor, "report", str(out)]
    _popen_rusage(static, work)
    # The floor under `report`: a fresh process that loads the libraries the command needs (typer, rich, msgspec) and
    # the report's types, and decodes the file into them with the one codec, started and ended as the command is.
    report_floor = [py, "-c", _REPORT_FLOOR.format(thresholds=_command_thresholds()), str(out)]
    for what, wrote_cmd in (("`check --static --json --no-html`", static),
                            ("`check --static --json` with its HTML page, as it writes by default", default)):
        walls = _rounds([wrote_cmd, report_cmd, report_floor], rounds)
        wrote, read, floor = (statistics.median(w) for w in walls)
        ratio, floor_ratio = (statistics.median(x / b for x, b in zip(walls[k], walls[0])) for k in (1, 2))
        rows.append([f"`report RUN.json` ≤ {BUDGET_REPORT:.0%} of the check", f"10k nodes, 15k findings: `report` "
                     f"{read:.3f} s / {what} {wrote:.3f} s ({out.stat().st_size / 1e6:.1f} MB); its floor (start-up, "
                     f"`import typer, rich, msgspec` and the report's types, the file decoded into them) {floor:.3f} s, "
                     f"{floor_ratio:.1%}", f"{ratio:.1%}", f"≤ {BUDGET_REPORT:.0%}", _verdict(ratio <= BUDGET_REPORT),
                     f"process, paired ({rounds} rounds)"])
    return table("Speed budgets (issue 35): whole commands, ratios to baselines in the same run",
                 ["budget", "measured", "ratio", "budget", "", "how"], rows)


# The libraries a check loads that the bare script does not: onnx (it reads the model), jinja2 (the page), typer (the
# command line), msgspec (the JSON).
_BUDGET_FLOOR_IMPORTS = "import onnx, jinja2, typer, msgspec\n"
# ... and the library work of the static prediction for CUDA where CUDA does not load: the model read by onnx and its
# shapes inferred (knowledge/prediction.py `_infer`), which registers onnx's op schemas at their first use.
_BUDGET_FLOOR_INFERENCE = (_BUDGET_FLOOR_IMPORTS + "onnx.shape_inference.infer_shapes(onnx.load(sys.argv[1]), "
                           "strict_mode=False, data_prop=True)\n")


_REPORT_FLOOR = textwrap.dedent("""
    import gc, os, sys
    gc.set_threshold(*{thresholds})
    import typer, rich.console, rich.table, msgspec
    from ortcopy_doctor.model.report import ReportDocument
    with open(sys.argv[1], "rb") as f:
        msgspec.json.decode(f.read(), type=ReportDocument)
    os._exit(0)
""")


def _command_thresholds() -> tuple[int, int, int]:
    """The garbage-collector thresholds the command sets (cli/gcpolicy.py)."""
    from ortcopy_doctor.cli.gcpolicy import COMMAND_THRESHOLDS

    return COMMAND_THRESHOLDS


def _floor_script(bare: str, imports: str, sessions: int = 1) -> str:
    """``bare`` that also imports ``imports``, makes ``sessions`` sessions (the runs on the last one), and starts and
    ends as the command does: its garbage-collector thresholds (cli/gcpolicy.py) and no interpreter teardown (cli/app.py
    ``_exit_process``), so that the floor is what the command could reach."""
    script = bare.replace("import sys, time\n",
                          f"import gc, os, sys, time\ngc.set_threshold(*{_command_thresholds()!r})\n").replace(
        "import numpy as np, onnxruntime as ort\n", "import numpy as np, onnxruntime as ort\n" + imports)
    session_line = next(line for line in script.splitlines() if line.startswith("s = ort.InferenceSession("))
    script = script.replace(session_line, "\n".join([session_line] * sessions))
    assert "gc.set_threshold" in script and imports in script and script.count(session_line) == sessions
    return script + "sys.stdout.flush()\nos._exit(0)\n"


def _work_made(report_json: Path) -> tuple[int, int]:
    """(sessions, runs) a check on a machine without CUDA made, from the JSON it wrote: the evidence and timing
    sessions and their runs (``_runs_made``), then the generated code's check (collect/code_check.py): a session of
    plain run(), and per block checked its own session, its calls, and plain run() twice on the first inputs and once
    on each later call's."""
    evidence = json.loads(report_json.read_text(encoding="utf-8"))["evidence"]
    checks = [c for c in (evidence.get("code_checks") or []) + ((evidence.get("predicted") or {}).get("code_checks")
                                                                 or []) if c.get("calls")]
    sessions = 2 + (1 + len(checks) if checks else 0)
    return sessions, _runs_made(report_json) + sum(2 * c["calls"] + 1 for c in checks)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", choices=["budgets", "goals", "overhead", "profile", "static", "big", "gpu", "memory",
                                           "commands"],
                        action="append")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--events", default="10000,100000,1000000")
    parser.add_argument("--big-dir", type=Path, default=Path(tempfile.gettempdir()) / "ortcopy-big")
    parser.add_argument("--big-gb", type=float, default=2.2)
    parser.add_argument("--out", type=Path, help="also write the tables (markdown) here")
    parser.add_argument("--other", type=Path, help="`commands`: a checkout of another commit, measured in the same "
                        "rounds as this one (before/after)")
    args = parser.parse_args()
    sections = args.only or ["budgets", "goals", "static"]
    _compile_bytecode()
    texts = [f"Machine: {machine()}\n"]
    print(texts[0])
    with tempfile.TemporaryDirectory(prefix="ortcopy-bench-") as tmp:
        work = Path(tmp)
        if "budgets" in sections:
            texts.append(budgets(work, args.repeats))
        if "goals" in sections:
            texts.append(goals(work, args.repeats))
        if "overhead" in sections:
            texts.append(overhead(work, args.repeats))
        if "profile" in sections:
            texts.append(profiles(work, [int(n) for n in args.events.split(",")]))
        if "static" in sections:
            texts.append(static(work))
        if "big" in sections:
            texts.append(big(args.big_dir, args.big_gb))
        if "gpu" in sections:
            texts.append(gpu(work, args.repeats))
        if "memory" in sections:
            texts.append(memory(work))
        if "commands" in sections:
            texts.append(commands(work, args.repeats, args.other))
    if args.out:
        args.out.write_text("\n".join(texts), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

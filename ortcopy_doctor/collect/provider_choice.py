"""Whether the CUDA provider is the right one for a model at ``check``'s inputs, and with which convolution search
(issue 34): the CUDA session timed against the CPU provider, in turn, copies included (collect/ep_compare.py, the
measurement ``run``'s replay uses), and, where the model has convolutions, a fresh CUDA session under each
``cudnn_conv_algo_search`` value with its first run (the search happens there) apart from its later runs, and one
more under EXHAUSTIVE with ``cudnn_conv_use_max_workspace`` the other way from the session's (ORT's default is 1:
cuDNN may take as much workspace as the algorithm wants, which widens the search and the memory it takes).

The CPU session is made with ORT's default session options (its threads: one per physical core), as a program that
switches provider would make it; the CUDA ones with the check's provider options but the search.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import msgspec
import numpy as np

from ortcopy_doctor.analysis.binding import code_sha256
from ortcopy_doctor.analysis.stats import list_median, ratio_ci
from ortcopy_doctor.collect.ep_compare import SWITCH_ROUNDS, compare_providers, first_and_steady, shape_text
from ortcopy_doctor.collect.code_check import largest_difference, same
from ortcopy_doctor.collect.feeds import build_feeds
from ortcopy_doctor.collect.ortlog import capture_native_stderr
from ortcopy_doctor.collect.session import CheckOptions, provider_list
from ortcopy_doctor.knowledge.model_file import inspect_model
from ortcopy_doctor.knowledge.providers import CPU, CUDA
from ortcopy_doctor.model.evidence import CodeCheck
from ortcopy_doctor.model.replay import ProviderChoice, SearchTiming
from ortcopy_doctor.model.vocabulary import CodeCheckStatus
from ortcopy_doctor.model.sweep import ShapeSet, ShapeSwitch, SwitchOption

SEARCHES = ("EXHAUSTIVE", "HEURISTIC", "DEFAULT")  # ORT's default first


def _quiet_options(ort: Any) -> Any:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return so


def _cuda_session(ort: Any, model_path: Path, options: CheckOptions, search: str = "", workspace: str = "") -> Any:
    providers = provider_list(options)
    first = providers[0]
    name, opts = (first, {}) if isinstance(first, str) else (first[0], dict(first[1]))
    if search:
        opts["cudnn_conv_algo_search"] = search
    if workspace:
        opts["cudnn_conv_use_max_workspace"] = workspace
    with capture_native_stderr():
        return ort.InferenceSession(str(model_path), _quiet_options(ort), providers=[(name, opts), CPU])


# CUDA against the CPU provider: floats agree less than two runs of one provider do, and neither is the reference
# (CUDA's TF32 matmuls, ORT's use_tf32 default, and kernels that sum in other orders): on the H200 (onnxruntime-gpu
# 1.31.1) silero-vad's state output differed by 1.7e-3 at batch 1 and 0.69 at batch 64 with random inputs. So the
# check compares what the code gives structurally (names, shapes, dtypes, integers, booleans, strings, map keys:
# exactly) and states the largest float difference; it does not judge the floats.
CROSS_TOLERANCE_TEXT = ("outputs, shapes, dtypes, integers, booleans, strings and map keys exactly; floats compared "
                        "with CUDA's and their largest difference stated (CUDA's TF32 matmuls and kernels that sum in "
                        "other orders differ from the CPU's)")


def check_cpu_code(code: str, cuda: Any, arrays: dict[str, np.ndarray]) -> CodeCheck:
    """The CPU-provider code (``analysis.binding.cpu_provider_code``) run as printed, its ``infer`` called with the
    check's inputs, and its outputs compared with CUDA's plain run() of them (block ``cpu_provider``)."""
    digest = code_sha256(code)
    try:
        namespace: dict[str, Any] = {"__name__": "ortcopy_doctor_cpu_provider"}
        with capture_native_stderr():
            exec(compile(code, "<the CPU-provider code>", "exec"), namespace)  # noqa: S102 - our own generated code
            got = namespace["infer"](dict(arrays))
        want = cuda.run(None, dict(arrays))
    except Exception as exc:  # noqa: BLE001 - recorded: the block is not offered
        return CodeCheck(block="cpu_provider", status=CodeCheckStatus.FAILED, device="cpu", calls=1,
                         detail=f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"[:300],
                         code_sha256=digest)
    names = [o.name for o in cuda.get_outputs()]
    largest = [0.0]

    def floats(got_floats: np.ndarray, want_floats: np.ndarray) -> str:  # stated, not judged (CROSS_TOLERANCE_TEXT)
        largest[0] = max(largest[0], largest_difference(got_floats, want_floats))
        return ""

    differs = next((f"output {n!r}: {d}" for n, g, w in zip(names, got, want) if (d := same(g, w, floats))), "")
    detail = differs or (f"floats differ from CUDA's by {largest[0]:.3g} at most" if largest[0] else "")
    return CodeCheck(block="cpu_provider", status=CodeCheckStatus.DIFFERS if differs else CodeCheckStatus.MATCHED,
                     device="cpu", calls=1, detail=detail, tolerance=CROSS_TOLERANCE_TEXT, code_sha256=digest)


def measure_provider_choice(ort: Any, model_path: Path, convolutions: bool, arrays: dict[str, np.ndarray],
                            options: CheckOptions, active: list[str],
                            cpu_code: str = "") -> tuple[ProviderChoice, CodeCheck | None]:
    """The measurement where the check's session runs on CUDA; else why not (``skipped``). ``convolutions``: the
    session runs a Conv or ConvTranspose on CUDA (where cuDNN searches algorithms). ``cpu_code``: the CPU-provider
    code a report would offer, run as printed next to CUDA's plain run() where the CPU provider measured faster (the
    returned check; None where not run)."""
    if not active or active[0] != CUDA:
        return ProviderChoice(skipped="the session does not run on CUDA: there is no device provider to weigh"), None
    threads = f"ORT's default session options (its intra-op threads: one per physical core; {os.cpu_count()} CPUs here)"
    try:
        cuda = _cuda_session(ort, model_path, options)
        with capture_native_stderr():
            cpu = ort.InferenceSession(str(model_path), _quiet_options(ort), providers=[CPU])
        order = [i.name for i in cuda.get_inputs()]
        comparison = compare_providers(cuda, cpu, arrays, shape=shape_text(arrays, order), program_calls=0)
    except Exception as exc:  # noqa: BLE001 - an extra: the check stands without it
        return ProviderChoice(skipped=f"the CPU provider could not be compared: {type(exc).__name__}: "
                                      f"{str(exc).splitlines()[0] if str(exc) else ''}"[:300]), None
    # only the CPU provider measured faster is recommended (report/recommend.py), so only then is its code run: the
    # check makes a session of its own, which a check on CUDA would otherwise make for nothing
    code_check = check_cpu_code(cpu_code, cuda, arrays) if cpu_code and comparison.faster == CPU else None
    search: list[SearchTiming] = []
    skipped = ""
    workspace = str(cuda.get_provider_options().get(CUDA, {}).get("cudnn_conv_use_max_workspace", ""))
    if convolutions:
        try:
            search = [first_and_steady(_cuda_session(ort, model_path, options, option), arrays, option)
                      for option in SEARCHES]
            if workspace in ("0", "1"):  # ORT's default search with the other workspace: what it buys or costs
                other = "0" if workspace == "1" else "1"
                timing = first_and_steady(_cuda_session(ort, model_path, options, SEARCHES[0], other), arrays,
                                          SEARCHES[0])
                search.append(msgspec.structs.replace(timing, max_workspace=other))
        except Exception as exc:  # noqa: BLE001
            skipped = f"the convolution search options could not be measured: {type(exc).__name__}"
    return ProviderChoice(cpu=comparison, cpu_threads=threads, search=search, skipped=skipped,
                          max_workspace_default=workspace), code_check


SWITCH_OPTIONS = ("EXHAUSTIVE", "HEURISTIC", "padded", "CPU")  # ORT's default first: the others are weighed against it


def measure_shape_switch(ort: Any, model_path: Path, options: CheckOptions, shapes: Sequence[ShapeSet],
                         rounds: int = SWITCH_ROUNDS) -> ShapeSwitch:
    """``shapes`` (two or more) served in turn, the shape changing at every call, under each of ``SWITCH_OPTIONS``:
    a fresh session each (CUDA with EXHAUSTIVE, CUDA with HEURISTIC, CUDA with EXHAUSTIVE at the largest shape every
    call, the CPU provider), each run once at each of its shapes, then ``rounds`` times over the shapes, the four
    options called in turn at each step (the order rotating), numpy in and out. Each option's calls are paired with
    EXHAUSTIVE's at the same step for the ratio's bootstrap interval. An error is ``skipped``, not raised: the
    sweep stands without it."""
    labels = [s.label for s in shapes]
    try:
        info = inspect_model(model_path)
        feeds = [build_feeds(info.inputs, s.dims, s.shapes, None, options.seed, values=options.values,
                             assumed=[])[0] for s in shapes]
    except Exception as exc:  # noqa: BLE001 - an extra
        return ShapeSwitch(shapes=labels, skipped=f"the inputs could not be made: {type(exc).__name__}: {exc}"[:300])
    largest = max(range(len(feeds)), key=lambda i: sum(int(a.size) for a in feeds[i].values()))
    try:
        sessions = {"EXHAUSTIVE": _cuda_session(ort, model_path, options, "EXHAUSTIVE"),
                    "HEURISTIC": _cuda_session(ort, model_path, options, "HEURISTIC"),
                    "padded": _cuda_session(ort, model_path, options, "EXHAUSTIVE")}
        with capture_native_stderr():
            sessions["CPU"] = ort.InferenceSession(str(model_path), _quiet_options(ort), providers=[CPU])
        samples = _switch_samples(sessions, feeds, largest, rounds)
    except Exception as exc:  # noqa: BLE001 - an extra
        return ShapeSwitch(shapes=labels, skipped=f"the shapes could not be run in turn: {type(exc).__name__}: "
                                                  f"{str(exc).splitlines()[0] if str(exc) else ''}"[:300])
    kept = {option: [round(v, 4) for v in values] for option, values in samples.items()}  # as the JSON holds them
    base = kept["EXHAUSTIVE"]
    measured = []
    for option in SWITCH_OPTIONS:
        ci = ratio_ci(base, kept[option]) if option != "EXHAUSTIVE" else None
        measured.append(SwitchOption(option=option, median_ms=round(list_median(kept[option]), 4),
                                     samples_ms=kept[option],
                                     ratio=round(ci.ratio, 4) if ci else 1.0, ratio_low=round(ci.low, 4) if ci else 1.0,
                                     ratio_high=round(ci.high, 4) if ci else 1.0))
    return ShapeSwitch(shapes=labels, padded_to=labels[largest], rounds=rounds, options=measured)


def _switch_samples(sessions: dict[str, Any], feeds: Sequence[dict[str, np.ndarray]], largest: int,
                    rounds: int) -> dict[str, list[float]]:
    """Every option's calls, in ms: each session warmed once at each shape it takes, then ``rounds`` passes over
    the shapes, the sessions called in turn at each step (the order rotating by one a step)."""
    def at(option: str, index: int) -> dict[str, np.ndarray]:
        return feeds[largest] if option == "padded" else feeds[index]

    for option, session in sessions.items():
        for index in ([largest] if option == "padded" else range(len(feeds))):
            session.run(None, at(option, index))
    samples: dict[str, list[float]] = {option: [] for option in sessions}
    order = list(sessions)
    step = 0
    for _ in range(rounds):
        for index in range(len(feeds)):
            turn = order[step % len(order):] + order[:step % len(order)]
            for option in turn:
                start = time.perf_counter()
                sessions[option].run(None, at(option, index))
                samples[option].append((time.perf_counter() - start) * 1e3)
            step += 1
    return samples


__all__ = ["SEARCHES", "SWITCH_OPTIONS", "check_cpu_code", "measure_provider_choice", "measure_shape_switch"]

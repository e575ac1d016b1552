"""Whether the CUDA provider is the right one for a model at ``check``'s inputs, and with which convolution search
(issue 34): the CUDA session timed against the CPU provider, in turn, copies included (collect/ep_compare.py, the
measurement ``run``'s replay uses), and, where the model has convolutions, a fresh CUDA session under each
``cudnn_conv_algo_search`` value with its first run (the search happens there) apart from its later runs.

The CPU session is made with ORT's default session options (its threads: one per physical core), as a program that
switches provider would make it; the CUDA ones with the check's provider options but the search.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from ortcopy_doctor.collect.ep_compare import compare_providers, first_and_steady, shape_text
from ortcopy_doctor.collect.ortlog import capture_native_stderr
from ortcopy_doctor.collect.session import CheckOptions, provider_list
from ortcopy_doctor.model.replay import ProviderChoice, SearchTiming

CUDA = "CUDAExecutionProvider"
CPU = "CPUExecutionProvider"
SEARCHES = ("EXHAUSTIVE", "HEURISTIC", "DEFAULT")  # ORT's default first


def _quiet_options(ort: Any) -> Any:
    so = ort.SessionOptions()
    so.log_severity_level = 3
    return so


def _cuda_session(ort: Any, model_path: Path, options: CheckOptions, search: str = "") -> Any:
    providers = provider_list(options)
    first = providers[0]
    name, opts = (first, {}) if isinstance(first, str) else (first[0], dict(first[1]))
    if search:
        opts["cudnn_conv_algo_search"] = search
    with capture_native_stderr():
        return ort.InferenceSession(str(model_path), _quiet_options(ort), providers=[(name, opts), CPU])


def measure_provider_choice(ort: Any, model_path: Path, convolutions: bool, arrays: dict[str, np.ndarray],
                            options: CheckOptions, active: list[str]) -> ProviderChoice:
    """The measurement where the check's session runs on CUDA; else why not (``skipped``). ``convolutions``: the
    session runs a Conv or ConvTranspose on CUDA (where cuDNN searches algorithms)."""
    if not active or active[0] != CUDA:
        return ProviderChoice(skipped="the session does not run on CUDA: there is no device provider to weigh")
    threads = f"ORT's default session options (its intra-op threads: one per physical core; {os.cpu_count()} CPUs here)"
    try:
        cuda = _cuda_session(ort, model_path, options)
        with capture_native_stderr():
            cpu = ort.InferenceSession(str(model_path), _quiet_options(ort), providers=[CPU])
        order = [i.name for i in cuda.get_inputs()]
        comparison = compare_providers(cuda, cpu, arrays, shape=shape_text(arrays, order), program_calls=0)
    except Exception as exc:  # noqa: BLE001 - an extra: the check stands without it
        return ProviderChoice(skipped=f"the CPU provider could not be compared: {type(exc).__name__}: "
                                      f"{str(exc).splitlines()[0] if str(exc) else ''}"[:300])
    search: list[SearchTiming] = []
    skipped = ""
    if convolutions:
        try:
            search = [first_and_steady(_cuda_session(ort, model_path, options, option), arrays, option)
                      for option in SEARCHES]
        except Exception as exc:  # noqa: BLE001
            skipped = f"the convolution search options could not be measured: {type(exc).__name__}"
    return ProviderChoice(cpu=comparison, cpu_threads=threads, search=search, skipped=skipped)


__all__ = ["SEARCHES", "measure_provider_choice"]

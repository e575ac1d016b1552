"""The memory a check plans for (ortcopy_doctor.collect.budget): the budget, and the profiled runs that fit in it."""

from __future__ import annotations

import subprocess
import sys

import pytest

from ortcopy_doctor.collect.budget import (
    BUDGET_ENV,
    Budget,
    memory_budget,
    parse_size,
    profiled_runs_that_fit,
    runs_lowered,
)
from ortcopy_doctor.model.errors import UsageError
from render_helpers import child_env

LARGE = Budget(bytes=1 << 50, source="a test's")


@pytest.mark.parametrize("text, size", [("2000000000", 2_000_000_000), ("2GB", 2_000_000_000), ("512MB", 512_000_000),
                                        ("1.5 MB", 1_500_000), ("4GiB", 4 << 30), ("10mib", 10 << 20),
                                        ("1TB", 10**12)])
def test_budget_sizes_take_the_units_of_max_transfer_bytes(text, size):
    assert parse_size(text) == size


@pytest.mark.parametrize("text", ["lots", "4G", "-1GB", "", "1e9", "2 GB GB"])
def test_a_budget_that_is_no_byte_count_is_refused(text):
    with pytest.raises(UsageError, match=f"^{BUDGET_ENV}=.* is not a byte count: give e.g. 2000000000"):
        parse_size(text)


def test_the_environment_variable_sets_the_budget():
    assert memory_budget({BUDGET_ENV: " 512MB "}) == Budget(bytes=512_000_000, source=f"{BUDGET_ENV}=512MB")


def test_without_the_variable_the_budget_is_half_of_what_is_available():
    budget = memory_budget({})
    assert budget.source.startswith("half of the ")
    assert budget.source.endswith(f"; {BUDGET_ENV} sets it")


def test_runs_that_fit_are_kept():
    assert profiled_runs_that_fit(1000, 2, 3, LARGE, threads=2).runs == 3
    assert profiled_runs_that_fit(1000, 2, 3, LARGE, threads=2).note == ""


def test_runs_past_onnxruntimes_million_events_are_lowered():
    # onnxruntime 1.31.1 dropped every event past the 1,000,000th: 102 runs of 10,000 Relus kept 99 model_run events
    plan = profiled_runs_that_fit(10_000, 2, 1000, LARGE, threads=2, model="relu.onnx")
    assert plan.runs == 97
    assert plan.note == ("--runs 1000 lowered to 97: 1000 profiled runs after 2 warm-up runs would record 10,022,012 "
                         "events: each run of relu.onnx's 10,000 nodes records 10,002 profile events (about 73.0 MB "
                         "of memory), and onnxruntime records at most 1,000,000 events per session and drops the rest")
    assert runs_lowered(["another note", plan.note]) == plan.note


def test_runs_past_the_budget_are_lowered_by_what_the_inputs_left():
    budget = Budget(bytes=250_000_000, source="a test's")
    # 7,296 bytes an event (2 threads): 34,265 events, 3 runs of 10,000 nodes
    assert profiled_runs_that_fit(10_000, 0, 50, budget, threads=2).runs == 3
    plan = profiled_runs_that_fit(10_000, 0, 50, budget, input_bytes=150_000_000, threads=2)
    assert plan.runs == 1
    assert plan.note.endswith("and the memory budget of 250.0 MB (a test's) holds 13,706 events after the inputs' "
                              "150.0 MB")


def test_one_run_past_onnxruntimes_limit_is_refused_with_static():
    with pytest.raises(UsageError) as error:
        profiled_runs_that_fit(2_000_000, 0, 1, LARGE, threads=2)
    assert error.value.message == (
        "profiling 1 profiled run would record 2,000,010 events: each run of the model's 2,000,000 nodes records "
        "2,000,002 profile events (about 14.6 GB of memory), and onnxruntime records at most 1,000,000 events per "
        "session and drops the rest: use --static (it predicts the copies without running the model)")


def test_one_run_past_the_budget_is_refused_with_the_variable():
    with pytest.raises(UsageError, match=f"holds 137 events: set {BUDGET_ENV} higher where the machine has the "
                                         "memory, or use --static$"):
        profiled_runs_that_fit(1000, 0, 1, Budget(bytes=1_000_000, source="a test's"), threads=2)


_HEADROOM = """
import resource
from ortcopy_doctor.collect.budget import _address_space_headroom, _meminfo
from pathlib import Path
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
headroom = _address_space_headroom()
mapped = _meminfo(Path("/proc/self/status"))["VmSize"]  # as much as a moment later (a few pages may come or go)
print(abs(headroom - ((3 << 30) - mapped)) < 1 << 24, 0 < mapped < 3 << 30)
"""


def test_the_address_space_limit_leaves_what_the_process_does_not_map():
    result = subprocess.run([sys.executable, "-c", _HEADROOM], env=child_env(), capture_output=True, text=True,
                            timeout=120, check=False)
    assert (result.stdout, result.returncode) == ("True True\n", 0), result.stderr

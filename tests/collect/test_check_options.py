"""`check()` from Python takes what `check` on the command line takes: every option is checked the same way, a
bad one is a `UsageError` naming the field, and provider names are resolved as on the command line."""

from __future__ import annotations

import math

import onnx
import pytest

import models
from ortcopy_doctor import check
from ortcopy_doctor.collect.session import CheckOptions, validated
from ortcopy_doctor.model.errors import UsageError


@pytest.mark.parametrize(("field", "value", "message"), [
    ("timed_runs", -1, "CheckOptions.timed_runs='-1': give an integer from 1 to 1,000,000"),
    ("profiled_runs", 0, "CheckOptions.profiled_runs='0': give an integer from 1 to 1,000"),
    ("warmup_runs", -5, "CheckOptions.warmup_runs='-5': give an integer from 0 to 10,000"),
    ("measure_runs", 0, "CheckOptions.measure_runs='0': give an integer from 1 to 1,000,000"),
    ("device_id", -1, "CheckOptions.device_id='-1': give an integer from 0 to 1,023"),
    ("timed_runs", True, "CheckOptions.timed_runs='True': give an integer from 1 to 1,000,000"),
    ("measure_budget_s", math.nan, "CheckOptions.measure_budget_s='nan': give a number of seconds from 0 to 3600"),
    ("seed", "x", "CheckOptions.seed='x': give a non-negative integer"),
    ("dims", {"batch": -3}, "CheckOptions.dims=\"{'batch': -3}\": give each symbol a size from 0 to "
                            "1,099,511,627,776"),
    ("dims", {"batch": "8"}, "CheckOptions.dims=\"{'batch': '8'}\": give each symbol a size from 0 to "
                             "1,099,511,627,776"),
    ("shapes", {"x": [-1, 4]}, "CheckOptions.shapes=\"{'x': [-1, 4]}\": give each input a list of sizes from 0 to "
                               "1,099,511,627,776"),
    ("providers", "CPUExecutionProvider", "CheckOptions.providers='CPUExecutionProvider': give a list of provider "
                                          "names, e.g. ['cuda', 'cpu'] or ['CUDAExecutionProvider', "
                                          "'CPUExecutionProvider']"),
    ("providers", ["NopeExecutionProvider"], "CheckOptions.providers='NopeExecutionProvider': unknown provider: "
                                             "use one of "),
])
def test_an_option_the_command_line_refuses_is_a_usage_error(field, value, message):
    with pytest.raises(UsageError) as refused:
        validated(CheckOptions(**{field: value}))
    assert str(refused.value).startswith(message)


def test_short_provider_names_are_resolved():
    assert validated(CheckOptions(providers=["cuda", "cpu"])).providers == ["CUDAExecutionProvider",
                                                                            "CPUExecutionProvider"]


def test_a_gpu_id_with_the_cpu_provider_first_is_refused():
    with pytest.raises(UsageError, match=r"^CheckOptions.device_id='2': it picks a GPU, and the first provider is "
                                         r"the CPU"):
        validated(CheckOptions(providers=["cpu"], device_id=2))


def test_check_refuses_a_bad_option_before_it_reads_the_model(tmp_path):
    with pytest.raises(UsageError, match=r"^CheckOptions.timed_runs="):
        check(tmp_path / "not-even-there.onnx", timed_runs=0)


def test_check_runs_with_short_provider_names(tmp_path):
    path = tmp_path / "conv.onnx"
    onnx.save(models.conv_net(), str(path))
    report = check(path, providers=["cpu"], dims={"batch": 1}, warmup_runs=0, profiled_runs=1, timed_runs=1)
    assert report.evidence.session.requested_providers == ["CPUExecutionProvider"]


def test_the_ranges_are_the_command_lines():
    """RUN_RANGES restates check's option ranges for the API: they must not drift apart. measure_runs is the one
    difference on purpose: the API takes 1-4 as 5 (binding_ab), the command line refuses them."""
    import typer

    from ortcopy_doctor.cli.app import app
    from ortcopy_doctor.collect.session import MAX_MEASURE_BUDGET_S, RUN_RANGES

    params = {p.name: p for p in typer.main.get_command(app).commands["check"].params}
    flags = {"warmup_runs": "warmup", "profiled_runs": "runs", "timed_runs": "timed_runs",
             "measure_runs": "measure_runs", "device_id": "device_id"}
    cli = {field: (params[flag].type.min, params[flag].type.max) for field, flag in flags.items()}
    assert cli == {**RUN_RANGES, "measure_runs": (5, RUN_RANGES["measure_runs"][1])}
    assert params["measure_budget"].type.max == MAX_MEASURE_BUDGET_S

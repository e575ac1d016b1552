"""The published JSON Schema of the sweep document (ortcopy_doctor/model/schema/sweep.schema.json, issue 34): generated
from the types, and the recorded H200 sweeps and a CPU sweep written by `check` valid against it."""

from __future__ import annotations

import gzip
import json

import pytest

from ortcopy_doctor.model.schema import SWEEP_SCHEMA_FILE, load_schema, validation_errors
from ortcopy_doctor.model.sweep import SWEEP_FORMAT_VERSION
from ortcopy_doctor.report.sweep import sweep_schema
from render_helpers import REPO, TESTS


def test_shipped_sweep_schema_is_the_one_generated_from_the_types():
    shipped = (REPO / "ortcopy_doctor" / "model" / "schema" / SWEEP_SCHEMA_FILE).read_text(encoding="utf-8")
    assert shipped == json.dumps(sweep_schema(), indent=1, ensure_ascii=False) + "\n", \
        "the sweep's types changed: run python tools/gen_schema.py"


def test_the_sweep_schema_names_its_format_version():
    schema = load_schema(SWEEP_SCHEMA_FILE)
    assert (schema["$id"], schema["properties"]["format_version"]["default"]) == ("urn:ortcopy-doctor:sweep:1",
                                                                                  SWEEP_FORMAT_VERSION)


@pytest.mark.parametrize("name", ["silero_vad_batches", "resnet18_batches", "ppocr_det_sizes"])
def test_a_recorded_sweep_is_valid(name):
    with gzip.open(TESTS / "fixtures" / "sweeps" / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        document = json.load(f)["sweep"]
    assert validation_errors(document, SWEEP_SCHEMA_FILE) == []


def test_a_wrong_type_is_caught():
    with gzip.open(TESTS / "fixtures" / "sweeps" / "ppocr_det_sizes.json.gz", "rt", encoding="utf-8") as f:
        document = json.load(f)["sweep"]
    document["switch"]["options"][0]["median_ms"] = "fast"
    (error,) = validation_errors(document, SWEEP_SCHEMA_FILE)  # an optional field: anyOf [ShapeSwitch, null]
    assert error.startswith("switch: {'shapes': ") and error.endswith("is not valid under any of the given schemas")


def test_each_shape_s_report_is_checked_against_the_report_schema_it_refers_to():
    # sweep.schema.json refers to report.schema.json (by its $id) rather than writing the report's types again
    schema = load_schema(SWEEP_SCHEMA_FILE)
    assert "ReportDocument" not in schema["$defs"]
    with gzip.open(TESTS / "fixtures" / "sweeps" / "silero_vad_batches.json.gz", "rt", encoding="utf-8") as f:
        document = json.load(f)["sweep"]
    document["shapes"][1]["report"]["summary"]["copies_per_run"] = "many"
    assert validation_errors(document, SWEEP_SCHEMA_FILE) == ["shapes/1/report/summary/copies_per_run: 'many' is not "
                                                              "of type 'integer'"]

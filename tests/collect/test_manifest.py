"""An audit's manifest (collect/manifest.py, issue 37): TOML, JSON and YAML read into rows with the check flags they
give, configurations as rows of their own, model files and folders with shared flags, and one line for a bad one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ortcopy_doctor.collect.manifest import read_targets
from ortcopy_doctor.model.errors import UsageError

TOML = """
[defaults]
providers = ["cuda"]
runs = 5

[[model]]
path = "zoo/resnet.onnx"
name = "resnet18"
dims = { batch = 8 }
shapes = { image = [8, 3, 224, 224] }
values = { sr = "16000" }
provider_options = { cudnn_conv_algo_search = "HEURISTIC" }
allow = ["OCD004"]
timeout = 120
configs = [{ label = "batch=1", dims = { batch = 1 } }, { label = "batch=64", dims = { batch = 64 }, static = true }]

[[model]]
path = "vad.onnx"
custom_op_library = ["libops.so"]
args = ["--no-measure-binding"]
"""


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def test_each_config_is_a_row_with_its_label_in_the_id(tmp_path):
    rows = read_targets([str(_write(tmp_path, "zoo.toml", TOML))])
    assert [(r.id, r.config, r.measure, r.timeout_s) for r in rows] == [
        ("resnet18[batch=1]", "batch=1", True, 120.0), ("resnet18[batch=64]", "batch=64", False, 120.0),
        ("vad", "", True, 900.0)]


def test_a_row_s_flags_are_check_s_with_paths_from_the_manifest_s_folder(tmp_path):
    rows = read_targets([str(_write(tmp_path, "zoo.toml", TOML))], shared=["-q"])
    assert rows[0].model == str(tmp_path / "zoo/resnet.onnx")
    assert rows[0].args == ["--dim", "batch=1", "--shape", "image=8x3x224x224", "--value", "sr=16000", "--provider",
                            "cuda", "--provider-option", "cudnn_conv_algo_search=HEURISTIC", "--allow", "OCD004",
                            "--runs", "5", "-q"]
    assert rows[1].args[-2:] == ["--static", "-q"]
    assert rows[2].args == ["--provider", "cuda", "--custom-op-library", str(tmp_path / "libops.so"), "--runs", "5",
                            "--no-measure-binding", "-q"]


def test_json_and_yaml_read_as_toml_does(tmp_path):
    document = {"model": [{"path": "a.onnx", "dims": {"batch": 2}}]}
    from_json = read_targets([str(_write(tmp_path, "zoo.json", json.dumps(document)))])
    yaml = pytest.importorskip("yaml")
    from_yaml = read_targets([str(_write(tmp_path, "zoo.yaml", yaml.safe_dump(document)))])
    assert from_json == from_yaml
    assert (from_json[0].id, from_json[0].args) == ("a", ["--dim", "batch=2"])


@pytest.mark.parametrize(("text", "message"), [
    ("[[model]]\nname = 'x'\n", "manifest: model 1: give its path (path = \"model.onnx\")"),
    ("[[model]]\npath = 'a.onnx'\ndims = { batch = 'eight' }\n",
     "manifest: model 1 (a): dims.batch must be a whole number, got 'eight'"),
    ("[[model]]\npath = 'a.onnx'\ncolour = 'red'\n", "manifest: model 1 (a): unknown key 'colour' (keys: allow, args, "
     "configs, custom_op_library, dims, inputs, label, name, path, provider_options, providers, runs, shapes, static, "
     "timed_runs, timeout, values, warmup)"),
    ("[[model]]\npath = 'a.onnx'\n[[model]]\npath = 'b/a.onnx'\n",
     "manifest: two rows are called 'a': give one model a name (name = \"...\") or its configs other labels"),
    ("[[model]]\npath = 'a.onnx'\nconfigs = [{ dims = { b = 1 } }, { dims = { b = 2 } }]\n",
     "manifest: model 1 (a): each of several configs needs a label"),
    ("title = 'zoo'\n", "manifest: give a list of models under the key 'model' (TOML: [[model]] tables)"),
])
def test_a_bad_manifest_is_one_line_naming_the_entry(tmp_path, text, message):
    with pytest.raises(UsageError) as caught:
        read_targets([str(_write(tmp_path, "zoo.toml", text))])
    assert caught.value.message == message


def test_invalid_toml_names_the_file_and_the_parser_s_words(tmp_path):
    path = _write(tmp_path, "zoo.toml", "[[model]\n")
    with pytest.raises(UsageError) as caught:
        read_targets([str(path)])
    assert caught.value.message.startswith(f"manifest {path} is not valid TOML: ")


def test_a_folder_gives_every_model_under_it_with_the_shared_flags(tmp_path):
    for name in ("b.onnx", "sub/a.onnx"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"")
    rows = read_targets([str(tmp_path)], shared=["--static"], timeout_s=30.0)
    assert [(r.id, r.args, r.measure, r.timeout_s) for r in rows] == [("b", ["--static"], False, 30.0),
                                                                     ("a", ["--static"], False, 30.0)]


def test_a_target_that_is_nothing_is_refused(tmp_path):
    with pytest.raises(UsageError) as caught:
        read_targets([str(tmp_path / "missing.onnx")])
    assert caught.value.message == (f"{tmp_path / 'missing.onnx'} is not a manifest, a model file or a folder: pass one "
                                    "of them")


def test_a_glob_gives_the_models_it_matches(tmp_path):
    for name in ("a.onnx", "b.onnx", "notes.txt"):
        (tmp_path / name).write_bytes(b"")
    assert [r.id for r in read_targets([str(tmp_path / "*.onnx")])] == ["a", "b"]

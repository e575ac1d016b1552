"""tools/export_corpus.py and tools/record_corpus.py on CPU: the onnx.helper part of the corpus, recorded end to end.

The torch part needs torch (the GPU machine); the CUPTI parts need CUDA: here they are null, and the generated
binding code runs on CPU OrtValues.
"""

from __future__ import annotations

import gzip
import importlib.util
import json
import tarfile
from pathlib import Path

import pytest

from render_helpers import REPO

TOOLS = REPO / "tools"


def _tool(name: str):
    spec = importlib.util.spec_from_file_location(name, TOOLS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    export = _tool("export_corpus")
    out = tmp_path_factory.mktemp("corpus")
    entries = {e.name: e for e in export.corpus()}
    sides = [export.export_one(entries[n], out) for n in ("ml_tree_matmul", "ml_linear_zipmap")]
    (out / "corpus.json").write_text(json.dumps({"models": sides + [{"name": "broken", "failed": "boom"}]}))
    return out


def test_export_writes_model_and_sidecar(corpus):
    side = json.loads((corpus / "ml_tree_matmul.json").read_text())
    assert side["exporter"] == "onnx.helper" and "failed" not in side
    assert side["ops"] == ["MatMul", "TreeEnsembleRegressor"] and side["dims"] == {"N": 5}
    assert (corpus / "ml_tree_matmul.onnx").exists()


def test_every_torch_entry_has_a_unique_name_and_the_corpus_is_large_enough():
    names = [e.name for e in _tool("export_corpus").corpus()]
    assert len(names) == len(set(names)) and len(names) >= 32


@pytest.mark.no_cuda
def test_record_packs_one_result_per_model(corpus, tmp_path):
    record = _tool("record_corpus")
    assert record.main([str(corpus), str(tmp_path), "--timeout", "120", "--runs", "3", "--pack"]) == 0
    tars = sorted(tmp_path.glob("corpus-*.tar.gz"))
    assert [t.name for t in tars] == ["corpus-1.tar.gz"] and not (tmp_path / "models").exists()
    with tarfile.open(tars[0]) as t:
        names = sorted(t.getnames())
        results = {Path(n).name.split(".")[0]: json.loads(gzip.decompress(t.extractfile(n).read()))
                   for n in names if n.endswith(".json.gz") and "corpus" not in n}
    assert "models/corpus.json.gz" in names and "models/logs.tar.gz" in names
    assert sorted(results) == ["broken", "ml_linear_zipmap", "ml_tree_matmul"]
    assert results["broken"]["error"] == "export failed: boom"
    tree = results["ml_tree_matmul"]
    assert tree["format"] == "ortcopy-doctor-corpus" and tree["ort_version"]
    assert tree["report"]["evidence"]["model"]["path"].endswith("ml_tree_matmul.onnx")
    assert tree["code_runs"]["onnxruntime"]["ran"] and tree["code_runs"]["onnxruntime"]["outputs_match_plain"]
    assert tree["census_plain_run"] is None  # no CUDA here
    assert results["ml_linear_zipmap"]["code_runs"]["onnxruntime"]["ran"]


def test_fp16_post_step_makes_a_mixed_half_model_loadable():
    """bert_tiny_fp16 on the H200: the TorchScript export of a .half() BERT upcasts (Cast to float) and ORT rejected
    it ("Type parameter (T) ... bound to different types"). The post step keeps it fp16; ORT loads and runs it."""
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper, numpy_helper

    export = _tool("export_corpus")
    scale = numpy_helper.from_array(np.ones(4, np.float16), "scale")
    graph = helper.make_graph(
        [helper.make_node("Cast", ["x"], ["x32"], to=TensorProto.FLOAT),
         helper.make_node("LayerNormalization", ["x32", "scale", "scale"], ["y"])], "g",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [2, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 4])], [scale])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=9)
    with pytest.raises(Exception, match="bound to different types"):
        ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    notes = export._fp16_types_agree(model)
    assert notes == ["1 Cast(to=float) of the exporter retargeted to fp16"]
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    (y,) = session.run(None, {"x": np.arange(8, dtype=np.float16).reshape(2, 4)})
    assert y.dtype == np.float16 and y.shape == (2, 4)


def test_a_recorded_check_keeps_its_json_exit_code_and_onnxruntime_version(tmp_path):
    # tools/recording.py, shared by record_sweeps.py and record_provider_choice.py: run on CPU with a check at two shapes
    import onnx
    import onnxruntime

    import models

    recording = _tool("recording")
    model = tmp_path / "conv_net.onnx"
    onnx.save(models.conv_net(), str(model))
    entry = recording.record_check("conv", str(model), ["--provider", "cpu", "--dim", "batch=1,2"], tmp_path,
                                   fixture_format="test-fixture", key="sweep", timeout=300)
    with gzip.open(tmp_path / "conv.json.gz", "rt", encoding="utf-8") as f:
        assert json.load(f) == entry
    assert (entry["format"], entry["ort_version"], entry["model"], entry["returncode"]) == (
        "test-fixture", onnxruntime.__version__, "conv_net.onnx", 0)
    assert [row["label"] for row in entry["sweep"]["shapes"]] == ["batch=1", "batch=2"]
    assert not (tmp_path / "conv.tmp.json").exists()

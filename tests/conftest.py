import functools
import sys
from pathlib import Path

import pytest

# Test helpers (models.py, transfer_checks.py) live beside the tests.
sys.path.insert(0, str(Path(__file__).resolve().parent))


@functools.lru_cache(maxsize=None)
def _cuda_session_works() -> bool:
    """Whether a session on the CUDA provider really runs here (the onnxruntime-gpu wheel lists the provider on
    machines without a GPU too): made once, and only where a ``no_cuda`` test is collected."""
    try:
        import onnx
        import onnxruntime as ort
        from onnx import TensorProto, helper

        if "CUDAExecutionProvider" not in ort.get_available_providers():
            return False
        graph = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "probe",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.ir_version = 8
        options = ort.SessionOptions()
        options.log_severity_level = 4  # the failed load of the CUDA libraries is expected without a GPU
        session = ort.InferenceSession(model.SerializeToString(), options,
                                       providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
        return "CUDAExecutionProvider" in session.get_providers()
    except Exception:  # noqa: BLE001 - no CUDA session, whatever the reason
        return False


def pytest_collection_modifyitems(config, items):
    marked = [item for item in items if item.get_closest_marker("no_cuda")]
    if marked and _cuda_session_works():
        skip = pytest.mark.skip(reason="a CUDA session runs here: this test is for machines without one")
        for item in marked:
            item.add_marker(skip)

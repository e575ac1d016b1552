"""The watch on the OrtValue of onnxruntime 1.20, which has no ``tensor_size_in_bytes`` (1.27 has it): a real OrtValue
of this onnxruntime with that method hidden, as 1.20's Python class has it."""

from __future__ import annotations

import importlib

import numpy as np
import onnxruntime as ort
import pytest

recorder = importlib.import_module("ortcopy_doctor.watch.recorder")


class _OrtValue120(ort.OrtValue):
    """onnxruntime 1.20's OrtValue API: no tensor_size_in_bytes (element_type() gives the ONNX type number in both)."""

    def __getattribute__(self, name):
        if name == "tensor_size_in_bytes":
            raise AttributeError(name)
        return super().__getattribute__(name)


@pytest.mark.parametrize("dtype, nbytes", [(np.float32, 4 * 256 * 4), (np.int64, 4 * 256 * 8)])
def test_the_bytes_of_an_ortvalue_without_tensor_size_in_bytes_are_its_elements_times_their_size(dtype, nbytes):
    value = _OrtValue120(ort.OrtValue.ortvalue_from_numpy(np.ones((4, 256), dtype))._ortvalue)
    assert not hasattr(value, "tensor_size_in_bytes")
    assert recorder._ortvalue_nbytes(value) == nbytes


def test_an_ortvalue_without_tensor_size_in_bytes_is_recorded_with_its_device_and_bytes():
    value = _OrtValue120(ort.OrtValue.ortvalue_from_numpy(np.ones((4, 256), np.float32))._ortvalue)
    use = recorder._use_of_value("y", "output", value, "bind_output")
    assert (use.via, use.device, use.bytes, use.shape) == ("ortvalue", "cpu", 4096, [4, 256])

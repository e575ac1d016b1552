"""A streaming loop with state (a GRU-like cell, as in VAD or streaming ASR): the state ping-pongs via the host.

    ortcopy-doctor run -- python examples/streaming_state.py [--iterations 20]

Each step returns `h_out` as numpy and feeds it back as `h_in` of the next step: a device->host and a
host->device copy of the state per step. streaming_state_fixed.py keeps it on the device (two OrtValues, swapped).
"""

import numpy as np
import onnxruntime as ort

import _common

providers = _common.providers()
steps = _common.iterations(20)
cell = ort.InferenceSession(_common.model_path("cell"), providers=providers)

rng = np.random.default_rng(0)
h = np.zeros((_common.STREAMS, _common.STATE), np.float32)
outputs = []
for _ in _common.loop(steps):
    x = rng.standard_normal((_common.STREAMS, _common.STEP_IN)).astype(np.float32)
    y, h = cell.run(None, {"x": x, "h_in": h})
    outputs.append(float(y.mean()))
print(f"{steps} steps, last output mean {outputs[-1]:.4f}")

"""streaming_state.py following the report's advice: the state stays on the device between steps.

    ortcopy-doctor run -- python examples/streaming_state_fixed.py [--iterations 20]
"""

import numpy as np
import onnxruntime as ort

import _common

providers = _common.providers()
steps = _common.iterations(20)
cell = ort.InferenceSession(_common.model_path("cell"), providers=providers)
device = _common.device_of(cell)

initial = np.zeros((_common.STREAMS, _common.STATE), np.float32)
state = [ort.OrtValue.ortvalue_from_numpy(initial, device, 0),  # copied to the device once
         ort.OrtValue.ortvalue_from_numpy(initial, device, 0)]
# Two bindings made once, one per direction of the ping-pong (state[0] -> state[1], then back): a step only
# binds its new input, so the per-step host work is one bind and one run.
bindings = []
for src, dst in ((state[0], state[1]), (state[1], state[0])):
    b = cell.io_binding()
    b.bind_output("y", "cpu")  # only what the host needs
    b.bind_ortvalue_input("h_in", src)
    b.bind_ortvalue_output("h_out", dst)
    bindings.append(b)
rng = np.random.default_rng(0)
outputs = []
for step in range(steps):
    x = rng.standard_normal((_common.STREAMS, _common.STEP_IN)).astype(np.float32)
    binding = bindings[step % 2]
    binding.bind_cpu_input("x", x)
    cell.run_with_iobinding(binding)
    y = binding.get_outputs()[0].numpy()  # y was bound first: a host OrtValue, no device copy here
    outputs.append(float(y.mean()))
print(f"{steps} steps, last output mean {outputs[-1]:.4f}")

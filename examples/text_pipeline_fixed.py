"""text_pipeline.py following the report's advice: the encoder's hidden states stay on the device.

    ortcopy-doctor run -- python examples/text_pipeline_fixed.py
"""

import onnxruntime as ort

import _common

providers = _common.providers()
batches = _common.iterations()
encoder = ort.InferenceSession(_common.model_path("encoder"), providers=providers)
head = ort.InferenceSession(_common.model_path("head"), providers=providers)
device = _common.device_of(encoder)
encoder_binding = encoder.io_binding()
head_binding = head.io_binding()

texts = [f"request {i} about item {i % 7} and order {i * 3}" for i in range(_common.BATCH)]
predictions = []
for _ in _common.loop(batches):
    input_ids = _common.tokenize(texts)
    encoder_binding.bind_cpu_input("input_ids", input_ids)
    encoder_binding.bind_output("hidden", device)
    encoder.run_with_iobinding(encoder_binding)
    (hidden,) = encoder_binding.get_outputs()  # an OrtValue on the device
    head_binding.bind_ortvalue_input("hidden_states", hidden)
    head_binding.bind_output("logits", "cpu")
    head.run_with_iobinding(head_binding)
    (logits,) = head_binding.copy_outputs_to_cpu()
    predictions = _common.softmax(logits).argmax(axis=-1)
print(f"{batches} batches, predictions of the last: {predictions.tolist()}")

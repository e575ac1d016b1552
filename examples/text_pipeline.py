"""A two-stage text pipeline: encoder -> classification head, with numpy in between.

    ortcopy-doctor run -- python examples/text_pipeline.py

The encoder's `hidden` states (2 MB per batch) come back as numpy, are copied (`astype`), and go back to the device
as the head's `hidden_states`: a round trip the report finds by equal bytes. text_pipeline_fixed.py hands the
OrtValue over.
"""

import numpy as np
import onnxruntime as ort

import _common

providers = _common.providers()
batches = _common.iterations()
encoder = ort.InferenceSession(_common.model_path("encoder"), providers=providers)
head = ort.InferenceSession(_common.model_path("head"), providers=providers)

texts = [f"request {i} about item {i % 7} and order {i * 3}" for i in range(_common.BATCH)]
predictions = []
for _ in _common.loop(batches):
    input_ids = _common.tokenize(texts)
    (hidden,) = encoder.run(None, {"input_ids": input_ids})
    hidden_states = hidden.astype(np.float32)  # a copy: the same bytes in a new array
    (logits,) = head.run(None, {"hidden_states": hidden_states})
    predictions = _common.softmax(logits).argmax(axis=-1)
print(f"{batches} batches, predictions of the last: {predictions.tolist()}")

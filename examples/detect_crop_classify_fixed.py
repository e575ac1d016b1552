"""detect_crop_classify.py following the report's advice: the detector's outputs stay on the device.

    ortcopy-doctor run -- python examples/detect_crop_classify_fixed.py

`features` and `boxes` are bound on the session's device and handed to the classifier as OrtValues; only what the
host needs (scores, logits) is copied to host memory.
"""

import numpy as np
import onnxruntime as ort

import _common

providers = _common.providers()
frames = _common.iterations()
det = ort.InferenceSession(_common.model_path("det"), providers=providers)
cls = ort.InferenceSession(_common.model_path("cls"), providers=providers)
device = _common.device_of(det)

det_binding = det.io_binding()
cls_binding = cls.io_binding()
batch_indices = ort.OrtValue.ortvalue_from_numpy(np.zeros(_common.BOXES, np.int64), device, 0)  # once

rng = np.random.default_rng(0)
labels = []
for _ in _common.loop(frames):
    image = _common.preprocess(_common.image(rng))
    det_binding.bind_cpu_input("image", image)
    det_binding.bind_output("features", device)
    det_binding.bind_output("boxes", device)
    det_binding.bind_output("scores", "cpu")  # the host needs the scores
    det.run_with_iobinding(det_binding)
    features, boxes, scores = det_binding.get_outputs()  # in bind order; features and boxes stay on the device
    cls_binding.bind_ortvalue_input("features", features)
    cls_binding.bind_ortvalue_input("rois", boxes)
    cls_binding.bind_ortvalue_input("batch_indices", batch_indices)
    cls_binding.bind_output("logits", "cpu")
    cls.run_with_iobinding(cls_binding)
    (logits,) = cls_binding.copy_outputs_to_cpu()
    keep = scores.numpy() > 0.0
    labels.append(_common.softmax(logits)[keep].argmax(axis=-1).tolist())
print(f"{frames} frames, labels of the last: {labels[-1]}")

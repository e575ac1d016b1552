"""Detector -> crop -> classifier, as serving code often writes it: every output comes back as numpy.

    ortcopy-doctor run -- python examples/detect_crop_classify.py [--providers cuda,cpu] [--iterations 8]

The detector's `features` (2 MB) and `boxes` go device->host after each frame and straight back host->device
into the classifier (which crops the boxes out of the features with RoiAlign). detect_crop_classify_fixed.py
hands them over as OrtValues on the device.
"""

import numpy as np
import onnxruntime as ort

import _common

providers = _common.providers()
frames = _common.iterations()
det = ort.InferenceSession(_common.model_path("det"), providers=providers)
cls = ort.InferenceSession(_common.model_path("cls"), providers=providers)

rng = np.random.default_rng(0)
labels = []
for _ in _common.loop(frames):
    image = _common.preprocess(_common.image(rng))
    features, boxes, scores = det.run(None, {"image": image})
    rois = boxes.reshape(-1, 4)  # "post-processing": a view of the same numpy array
    batch_indices = np.zeros(len(rois), np.int64)
    (logits,) = cls.run(None, {"features": features, "rois": rois, "batch_indices": batch_indices})
    keep = scores > 0.0
    labels.append(_common.softmax(logits)[keep].argmax(axis=-1).tolist())
print(f"{frames} frames, labels of the last: {labels[-1]}")

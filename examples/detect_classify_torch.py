"""Detector -> crop -> classifier on torchvision networks, with torch for pre- and post-processing.

    ortcopy-doctor run -- python examples/detect_classify_torch.py [--providers cuda,cpu] [--iterations 8]

Needs torch and torchvision (the networks are exported to ONNX at start-up, random weights). Pre-processing runs in
torch on the GPU where there is one, and the image goes to ORT as numpy (`.cpu().numpy()`); the detector's outputs
come back as numpy and go straight back into the classifier; the logits go back into torch for the softmax.
detect_classify_torch_fixed.py hands everything over on the device (DLPack, OrtValues, IO binding).
"""

import sys

try:
    import torch
    import torchvision  # noqa: F401
except ImportError:
    print("skipped: this example needs torch and torchvision (pip install torch torchvision)", file=sys.stderr)
    sys.exit(0)

import numpy as np
import onnxruntime as ort

import _common
import _torch_models

providers = _common.providers()
frames = _common.iterations()
det_path, cls_path = _torch_models.model_paths()
det = ort.InferenceSession(det_path, providers=providers)
cls = ort.InferenceSession(cls_path, providers=providers)
device = "cuda" if _common.device_of(det) == "cuda" and torch.cuda.is_available() else "cpu"
mean = torch.tensor([0.485, 0.456, 0.406], device=device).view(1, 3, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225], device=device).view(1, 3, 1, 1)

rng = np.random.default_rng(0)
labels = []
for _ in _common.loop(frames):
    frame = torch.from_numpy(rng.integers(0, 256, (_torch_models.IMAGE, _torch_models.IMAGE, 3), dtype=np.uint8))
    x = (frame.to(device).permute(2, 0, 1)[None].float() / 255.0 - mean) / std  # torch pre-processing
    features, boxes, scores = det.run(None, {"image": x.cpu().numpy()})
    (logits,) = cls.run(None, {"features": features, "rois": boxes})
    probs = torch.from_numpy(logits).to(device).softmax(dim=-1)  # torch post-processing
    labels.append(probs.argmax(dim=-1).cpu().tolist())
print(f"{frames} frames, labels of the last: {labels[-1]}")

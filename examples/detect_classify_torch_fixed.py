"""detect_classify_torch.py following the report's advice: torch and ORT hand tensors over on the device.

    ortcopy-doctor run -- python examples/detect_classify_torch_fixed.py

torch -> ORT: ort.OrtValue.from_dlpack(tensor) (no copy); ORT -> ORT: OrtValues bound on the device;
ORT -> torch: torch.from_dlpack(ortvalue) (no copy). Only the labels are copied to the host.
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
ort_device = _common.device_of(det)
device = "cuda" if ort_device == "cuda" and torch.cuda.is_available() else "cpu"
mean = torch.tensor([0.485, 0.456, 0.406], device=device).view(1, 3, 1, 1)
std = torch.tensor([0.229, 0.224, 0.225], device=device).view(1, 3, 1, 1)
det_binding, cls_binding = det.io_binding(), cls.io_binding()

rng = np.random.default_rng(0)
labels = []
for _ in _common.loop(frames):
    frame = torch.from_numpy(rng.integers(0, 256, (_torch_models.IMAGE, _torch_models.IMAGE, 3), dtype=np.uint8))
    x = ((frame.to(device).permute(2, 0, 1)[None].float() / 255.0 - mean) / std).contiguous()
    det_binding.bind_ortvalue_input("image", ort.OrtValue.from_dlpack(x))  # torch -> ORT, no copy
    det_binding.bind_output("features", ort_device)
    det_binding.bind_output("boxes", ort_device)
    det_binding.bind_output("scores", ort_device)
    det.run_with_iobinding(det_binding)
    features, boxes, scores = det_binding.get_outputs()
    cls_binding.bind_ortvalue_input("features", features)
    cls_binding.bind_ortvalue_input("rois", boxes)
    cls_binding.bind_output("logits", ort_device)
    cls.run_with_iobinding(cls_binding)
    (logits,) = cls_binding.get_outputs()
    probs = torch.from_dlpack(logits).softmax(dim=-1)  # ORT -> torch, no copy
    labels.append(probs.argmax(dim=-1).cpu().tolist())
print(f"{frames} frames, labels of the last: {labels[-1]}")

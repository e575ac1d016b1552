"""torchvision networks for the torch examples, exported to ONNX at start-up into the example cache folder.

Detector: ResNet-18 trunk (conv1 .. layer2) -> features [1,128,32,32] and a box head -> boxes [4,4], scores [4].
Classifier: torchvision.ops.roi_align on the features (exported as ONNX RoiAlign) -> ResNet-18 layer3 -> logits.
Random weights (weights=None): nothing is downloaded; placement and copies do not depend on the weights.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import _common

IMAGE = 256
BOXES = 4
CLASSES = 10


def _export(module, args, path: Path, input_names, output_names) -> None:
    import torch

    fd, tmp = tempfile.mkstemp(dir=path.parent, suffix=".tmp.onnx")
    os.close(fd)
    module.eval()
    with torch.no_grad():
        try:
            torch.onnx.export(module, args, tmp, opset_version=17, input_names=input_names, output_names=output_names,
                              dynamo=False)
        except TypeError:  # a torch without the dynamo argument
            torch.onnx.export(module, args, tmp, opset_version=17, input_names=input_names, output_names=output_names)
    os.replace(tmp, path)


def model_paths() -> tuple[str, str]:
    import torch
    import torchvision

    folder = _common.cache_dir()
    det_path, cls_path = folder / "torch_det.onnx", folder / "torch_cls.onnx"
    if det_path.is_file() and cls_path.is_file():
        return str(det_path), str(cls_path)
    torch.manual_seed(0)
    resnet = torchvision.models.resnet18(weights=None)

    class Detector(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.trunk = torch.nn.Sequential(resnet.conv1, resnet.bn1, resnet.relu, resnet.maxpool, resnet.layer1,
                                             resnet.layer2)
            self.box = torch.nn.Linear(128, BOXES * 4)
            self.score = torch.nn.Linear(128, BOXES)

        def forward(self, image):
            features = self.trunk(image)
            pooled = features.mean(dim=(2, 3))
            rel = torch.sigmoid(self.box(pooled)).reshape(BOXES, 4) * (IMAGE / 2)
            boxes = torch.cat([rel[:, :2], rel[:, :2] + rel[:, 2:] + 16], dim=1)
            return features, boxes, torch.sigmoid(self.score(pooled)).reshape(BOXES)

    class Classifier(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layer3 = resnet.layer3
            self.fc = torch.nn.Linear(256, CLASSES)

        def forward(self, features, rois):
            index = torch.zeros(rois.shape[0], 1, dtype=rois.dtype)
            crops = torchvision.ops.roi_align(features, torch.cat([index, rois], dim=1), output_size=(7, 7),
                                              spatial_scale=1 / 8, sampling_ratio=2)
            return self.fc(self.layer3(crops).mean(dim=(2, 3)))

    detector, classifier = Detector().eval(), Classifier().eval()
    image = torch.randn(1, 3, IMAGE, IMAGE)
    with torch.no_grad():
        features, boxes, _ = detector(image)
    _export(detector, (image,), det_path, ["image"], ["features", "boxes", "scores"])
    _export(classifier, (features, boxes), cls_path, ["features", "rois"], ["logits"])
    return str(det_path), str(cls_path)

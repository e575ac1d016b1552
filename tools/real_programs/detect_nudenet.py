"""Image moderation with nudenet 3.4.2 (notAI-tech; a YOLOv8 detector at 320x320).

`NudeDetector(providers=[...]).detect(image)` as the README shows it. The package takes a `providers` argument and
does not pass it to onnxruntime (the line is commented out in nudenet.py), so its session gets ORT's default.
Usage: python detect_nudenet.py [--images N]
"""

import argparse

import onnxruntime
from nudenet import NudeDetector

from _inputs import photo

parser = argparse.ArgumentParser()
parser.add_argument("--images", type=int, default=20)
args = parser.parse_args()

detector = NudeDetector(providers=["CUDAExecutionProvider", "CPUExecutionProvider"])
found = 0
for index in range(args.images):
    found += len(detector.detect(photo(index, 640, 480)))
print(f"{args.images} images, {found} detections, session providers {detector.onnx_session.get_providers()}")

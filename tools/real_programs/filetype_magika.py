"""File-type detection with magika 1.0.3 (Google; a small deep-learning content classifier).

`Magika().identify_bytes(...)` over a set of files' contents, as its README shows it. The package creates its
session with `providers=["CPUExecutionProvider"]` and offers no option for another. Usage:
    python filetype_magika.py [--files N]
"""

import argparse
import json

import numpy as np
from magika import Magika

parser = argparse.ArgumentParser()
parser.add_argument("--files", type=int, default=24)
args = parser.parse_args()

rng = np.random.default_rng(7)
samples = [
    b"import numpy as np\n\ndef mean(x):\n    return np.mean(x)\n" * 8,
    json.dumps({"model": "det.onnx", "shape": [1, 3, 640, 640], "providers": ["cuda"]}, indent=2).encode() * 6,
    b"<!DOCTYPE html><html><head><title>report</title></head><body><p>copies</p></body></html>\n" * 8,
    b"name,bytes,direction\nfeed,1228800,h2d\nfetch,4096,d2h\n" * 20,
    b"#!/bin/sh\nset -e\nmake test\n" * 10,
    bytes(rng.integers(0, 256, 4096, dtype=np.uint8)),
]
magika = Magika()
labels = {}
for index in range(args.files):
    result = magika.identify_bytes(samples[index % len(samples)])
    labels[str(result.output.label)] = labels.get(str(result.output.label), 0) + 1
print(f"{args.files} files: {labels}")

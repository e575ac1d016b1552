"""Streaming voice activity detection with silero-vad 6.2.3 (snakers4), its ONNX model, CUDA allowed.

The package's streaming API: `VADIterator` over 512-sample chunks, the model's state carried between calls by the
package. `OnnxWrapper(path, force_onnx_cpu=False)` is the package's way to let onnxruntime choose the device
(`load_silero_vad(onnx=True)` forces the CPU). Usage: python vad_silero.py [--seconds S]
"""

import argparse
from importlib import resources

import torch
from silero_vad import VADIterator
from silero_vad.utils_vad import OnnxWrapper

from _inputs import speech_like

parser = argparse.ArgumentParser()
parser.add_argument("--seconds", type=float, default=4.0)
args = parser.parse_args()

path = str(resources.files("silero_vad.data").joinpath("silero_vad.onnx"))
model = OnnxWrapper(path, force_onnx_cpu=False)
vad = VADIterator(model, sampling_rate=16000)
audio = torch.from_numpy(speech_like(args.seconds))
events = []
for start in range(0, len(audio) - 511, 512):
    event = vad(audio[start:start + 512], return_seconds=True)
    if event:
        events.append(event)
vad.reset_states()
print(f"{len(audio) // 512} chunks, {len(events)} speech events, session providers {model.session.get_providers()}")

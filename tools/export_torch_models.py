"""Export a few real networks from torchvision / torch.nn to ONNX, for the static-prediction accuracy corpus.

Run where torch and torchvision are installed (the GPU machine): ``python tools/export_torch_models.py OUT_DIR``.
Weights are random (``weights=None``): placement does not depend on them and nothing is downloaded.
"""

from __future__ import annotations

import sys
import traceback
from pathlib import Path

import onnx


def _models():
    import torch
    import torchvision

    class Encoder(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            layer = torch.nn.TransformerEncoderLayer(d_model=64, nhead=4, dim_feedforward=128, batch_first=True)
            self.encoder = torch.nn.TransformerEncoder(layer, num_layers=2)
            self.head = torch.nn.Linear(64, 10)

        def forward(self, x):
            return self.head(self.encoder(x).mean(dim=1))

    class TopK(torch.nn.Module):
        """Scores -> top-k indices and a boolean mask -> nonzero: data-dependent ops."""

        def forward(self, x):
            scores = torch.softmax(x, dim=-1)
            values, indices = torch.topk(scores, k=5, dim=-1)
            return values, indices, torch.nonzero(scores > 0.01)

    image = torch.randn(1, 3, 224, 224)
    yield "resnet18", torchvision.models.resnet18(weights=None), (image,)
    yield "mobilenet_v3_small", torchvision.models.mobilenet_v3_small(weights=None), (image,)
    yield "squeezenet1_1", torchvision.models.squeezenet1_1(weights=None), (image,)
    yield "efficientnet_b0", torchvision.models.efficientnet_b0(weights=None), (image,)
    yield "vit_b_16_32px", torchvision.models.vit_b_16(weights=None, image_size=32), (torch.randn(1, 3, 32, 32),)
    yield "transformer_encoder", Encoder(), (torch.randn(2, 16, 64),)
    yield "topk_nonzero", TopK(), (torch.randn(4, 100),)


def main() -> int:
    import torch

    out = Path(sys.argv[1] if len(sys.argv) > 1 else "torch-models")
    out.mkdir(parents=True, exist_ok=True)
    failed = 0
    for name, module, args in _models():
        path = out / f"{name}.onnx"
        module.eval()
        try:
            with torch.no_grad():
                try:
                    torch.onnx.export(module, args, str(path), opset_version=17, dynamo=False)
                except TypeError:  # an exporter without the dynamo switch
                    torch.onnx.export(module, args, str(path), opset_version=17)
            model = onnx.load(str(path))
            if model.ir_version > 10:  # ORT 1.31 loads IR <= 13; keep the exported graph loadable everywhere
                model.ir_version = 10
                onnx.save(model, str(path))
            print(name, "exported", len(model.graph.node), "nodes", flush=True)
        except Exception:  # noqa: BLE001 - report and go on
            failed += 1
            print(name, "FAILED", traceback.format_exc()[-600:], flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

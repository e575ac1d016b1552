"""Record `check` over several batch sizes on a GPU machine (issue 34: shapes as users have them, and the GPU-or-CPU
break-even): `python3 tools/record_sweeps.py OUT_DIR`. The models: silero-vad's model (from its staged wheel) at
batch 1, 8 and 64, and torchvision's ResNet-18 (random weights, exported there with a dynamic batch) at 1, 8, 64.
`python3 tools/record_sweeps.py OUT_DIR ppocr_det_sizes`: rapidocr's PP-OCRv4 detector at three page sizes, where
the sweep also serves the shapes in turn under each convolution search option, padded and on the CPU.

Writes OUT_DIR/<name>.json.gz (tools/recording.py): {format, ort_version, model, flags, returncode, stdout_head,
stderr_tail, sweep (the `check --json` sweep document)}. tests/report/test_sweep_fixtures.py replays them.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from recording import record_check  # tools/recording.py: the check run and the fixture written

FORMAT = "ortcopy-doctor-sweep-fixture"
BATCHES = (1, 8, 64)
DET_SIZES = ("1x3x736x992", "1x3x960x544", "1x3x736x1312")


def _resnet(folder: Path) -> Path:
    import torch
    import torchvision

    path = folder / "resnet18_dynamic.onnx"
    net = torchvision.models.resnet18(weights=None).eval()
    x = torch.randn(2, 3, 224, 224)
    try:
        torch.onnx.export(net, (x,), str(path), input_names=["image"], output_names=["logits"],
                          dynamic_shapes={"x": {0: torch.export.Dim("batch", min=1, max=1024)}}, dynamo=True)
    except Exception as exc:  # noqa: BLE001 - the TorchScript exporter, where the dynamo one fails
        print(f"dynamo export failed ({type(exc).__name__}: {exc}); TorchScript exporter", flush=True)
        torch.onnx.export(net, (x,), str(path), input_names=["image"], output_names=["logits"],
                          dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}}, dynamo=False)
    return path


def _record(name: str, model: str, flags: list[str], out: Path) -> bool:
    entry = record_check(name, model, flags, out, fixture_format=FORMAT, key="sweep", timeout=400)
    print(f"{name}: exit {entry['returncode']}\n{entry['stdout_head'][:1500]}\n"
          f"{entry['stderr_tail'][-800:] if 'sweep' not in entry else ''}", flush=True)
    return "sweep" in entry


def _ppocr_det() -> str:
    import rapidocr_onnxruntime

    return str(Path(rapidocr_onnxruntime.__file__).parent / "models" / "ch_PP-OCRv4_det_infer.onnx")


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    only = set(sys.argv[2:])
    folder = Path(tempfile.mkdtemp(prefix="ortcopy-sweeps-"))
    if only == {"ppocr_det_sizes"}:  # the OCR detector at three page sizes: the shapes in turn (issue 34)
        return 0 if _record("ppocr_det_sizes", _ppocr_det(), ["--shape", "x=" + ",".join(DET_SIZES)], out) else 1
    from importlib import resources

    silero = str(resources.files("silero_vad.data").joinpath("silero_vad.onnx"))
    shapes = folder / "silero_shapes.txt"
    shapes.write_text("# silero-vad at three batch sizes: 512 samples (32 ms at 16 kHz) and its state\n"
                      + "".join(f"input={b}x512 state=2x{b}x128\n" for b in BATCHES))
    ok = [_record("silero_vad_batches", silero, ["--shapes", str(shapes), "--value", "sr=16000"], out)]
    try:
        resnet = _resnet(folder)
        ok.append(_record("resnet18_batches", str(resnet),
                          ["--shape", "image=" + ",".join(f"{b}x3x224x224" for b in BATCHES)], out))
    except Exception as exc:  # noqa: BLE001
        print(f"resnet18 not recorded: {type(exc).__name__}: {exc}", flush=True)
        ok.append(False)
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())

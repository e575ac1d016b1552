"""Record `check` weighing CUDA against the CPU provider and the cuDNN search options on real models, on a GPU
machine: `python3 tools/record_provider_choice.py OUT_DIR [NAME ...]` (issue 34; a scikit-learn pipeline exported
there with skl2onnx, staged as a wheel; the models come from the staged wheels of
docs/pipelines.md "Real programs", and torchvision's ResNet-18 is exported there with random weights).

Writes OUT_DIR/<name>.json.gz (tools/recording.py): {format, ort_version, model, flags, returncode, stdout_head,
stderr_tail, report (the `check --json` report)}. tests/report/test_provider_choice_fixtures.py replays them with `report`.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from recording import record_check  # tools/recording.py: the check run and the fixture written

FORMAT = "ortcopy-doctor-provider-choice-fixture"


def _models(folder: Path) -> dict[str, tuple[str, list[str]]]:
    """name -> (model path, check's flags)."""
    import rapidocr_onnxruntime
    import nudenet
    from importlib import resources

    det = str(Path(rapidocr_onnxruntime.__file__).parent / "models" / "ch_PP-OCRv4_det_infer.onnx")
    models = {
        "silero_vad": (str(resources.files("silero_vad.data").joinpath("silero_vad.onnx")), []),
        "nudenet_320n": (str(Path(nudenet.__file__).parent / "320n.onnx"), []),
    }
    for h, w in ((736, 1312), (736, 992), (960, 544)):
        models[f"ppocr_det_{h}x{w}"] = (det, ["--shape", f"x=1x3x{h}x{w}"])
    try:  # a scikit-learn pipeline (ai.onnx.ml ops: no device kernel in any onnxruntime build)
        import numpy as np
        from sklearn.linear_model import LogisticRegression
        from sklearn.pipeline import make_pipeline
        from sklearn.preprocessing import StandardScaler
        from skl2onnx import to_onnx

        rng = np.random.default_rng(0)
        features = rng.standard_normal((256, 32)).astype(np.float32)
        pipeline = make_pipeline(StandardScaler(), LogisticRegression()).fit(features, features[:, 0] > 0)
        path = folder / "sklearn_scaler_logreg.onnx"
        path.write_bytes(to_onnx(pipeline, features[:1], options={"zipmap": False}).SerializeToString())
        symbol = to_onnx(pipeline, features[:1]).graph.input[0].type.tensor_type.shape.dim[0].dim_param
        models["sklearn_pipeline"] = (str(path), ["--dim", f"{symbol or 'N'}=64"])
    except Exception as exc:  # noqa: BLE001 - recorded as missing, the others go on
        print(f"sklearn pipeline not exported: {type(exc).__name__}: {exc}", flush=True)
    try:
        import torch
        import torchvision

        path = folder / "resnet18.onnx"
        net = torchvision.models.resnet18(weights=None).eval()
        torch.onnx.export(net, (torch.randn(8, 3, 224, 224),), str(path), input_names=["image"],
                          output_names=["logits"])
        models["resnet18_batch8"] = (str(path), [])
    except Exception as exc:  # noqa: BLE001 - recorded as missing, the others go on
        print(f"resnet18 not exported: {type(exc).__name__}: {exc}", flush=True)
    return models


def record(name: str, model: str, flags: list[str], out: Path) -> bool:
    entry = record_check(name, model, flags, out, fixture_format=FORMAT, key="report", timeout=300)
    findings = [f["rule"] for f in entry.get("report", {}).get("findings", [])]
    choice = (entry.get("report") or {}).get("evidence", {}).get("provider_choice") or {}
    cpu = choice.get("cpu") or {}
    print(f"{name}: exit {entry['returncode']}; findings {findings}; CUDA {cpu.get('used', {}).get('median_ms')} ms, "
          f"CPU {cpu.get('other', {}).get('median_ms')} ms, ratio {cpu.get('ratio')} [{cpu.get('ratio_low')}, "
          f"{cpu.get('ratio_high')}]; search {[(s['option'], s['first_ms'], s['median_ms']) for s in choice.get('search', [])]}"
          f"; {choice.get('skipped', '')}", flush=True)
    if "report" not in entry:
        print(entry["stderr_tail"][-1500:], flush=True)
    return "report" in entry


def main() -> int:
    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix="ortcopy-choice-"))
    only = set(sys.argv[2:])  # names to record (default: all)
    ok = [record(name, model, flags, out) for name, (model, flags) in _models(folder).items()
          if not only or name in only]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    sys.exit(main())

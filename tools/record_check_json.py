"""Record the `check --json` files that tests replay byte for byte (tests/fixtures/check_json, tests/fixtures/scale),
on a CUDA GPU, with the commands their READMEs name:

    python tools/record_check_json.py OUT_DIR

writes OUT_DIR/demo.json.gz (`check demo.onnx --dim batch=32`), OUT_DIR/conv16_cudart.json.gz (`check conv16.onnx`,
benchmarks/synth.py's conv_net(channels=16, blocks=4)) and OUT_DIR/fallback_chain1000.json.gz (`check chain1000.onnx
--dim batch=8`, synth.fallback_chain_model(1000)), each with `--no-html --json`, through the command line as a user
runs it. Each file is the JSON as `check` wrote it, gzipped; a failed check leaves its stderr in OUT_DIR/NAME.err.
"""

from __future__ import annotations

import gzip
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def main() -> int:
    import onnx

    import synth
    from ortcopy_doctor.collect.demo_model import build_demo_model

    out = Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="check-json-"))
    models = {"demo": (build_demo_model(), ["--dim", "batch=32"]),
              "conv16_cudart": (synth.conv_net(channels=16, blocks=4), []),
              "fallback_chain1000": (synth.fallback_chain_model(1000), ["--dim", "batch=8"])}
    failed = 0
    for name, (model, flags) in models.items():
        path = work / f"{name.split('_')[0] if name != 'fallback_chain1000' else 'chain1000'}.onnx"
        onnx.save(model, str(path))
        target = work / f"{name}.json"
        result = subprocess.run([sys.executable, "-m", "ortcopy_doctor", "check", str(path), *flags, "--no-html",
                                 "--json", str(target)], capture_output=True, text=True, cwd=work)
        print(f"{name}: exit {result.returncode}")
        if not target.is_file():
            (out / f"{name}.err").write_text(result.stderr, encoding="utf-8")
            failed += 1
            continue
        (out / f"{name}.json.gz").write_bytes(gzip.compress(target.read_bytes(), mtime=0))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())

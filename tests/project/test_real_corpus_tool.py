"""tools/real_corpus.py: `check` with no flags over a folder of models, one table row each (docs/real-models.md
holds its result on the real models of issue 36)."""

from __future__ import annotations

import importlib.util

from render_helpers import REPO
from sizing_models import audio_model, never_model


def _tool():
    spec = importlib.util.spec_from_file_location("real_corpus", REPO / "tools" / "real_corpus.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_table_has_a_row_per_model_with_what_was_chosen_and_written(tmp_path, capsys):
    models = tmp_path / "models" / "tiny"
    models.mkdir(parents=True)
    audio_model(models)
    never_model(models)
    assert _tool().main([str(tmp_path / "models"), "--out", str(tmp_path / "out"), "--timeout", "300"]) == 0
    rows = {line.split(" | ")[0].lstrip("| "): line.split(" | ") for line in capsys.readouterr().out.splitlines()
            if line.startswith("| tiny/")}
    audio, never = rows["tiny/audio.onnx"], rows["tiny/never.onnx"]
    assert audio[1] in ("0", "1")  # 1 where CUDA is asked for and does not load (OCD001)
    assert audio[2:4] == ["JSON + HTML", "samples=512: feeds Pad 'stft_pad' in reflect mode (an STFT's padding): "
                                         "audio; 512 samples, a 32 ms chunk at 16 kHz"]
    assert never[1:3] == ["2", "JSON + HTML"]  # nothing ran, the static prediction was written
    assert never[3].startswith("samples=256 (after 1, 32, 64, 128): a run at 128 failed in Reshape 'to_three'")
    assert never[4].startswith("error: the model failed to run on the given inputs")
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == [
        "tiny_audio.html", "tiny_audio.json", "tiny_audio.txt", "tiny_never.html", "tiny_never.json",
        "tiny_never.txt"]

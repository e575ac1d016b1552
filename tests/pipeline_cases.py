"""Run reports for the tests of the run rules, run SARIF, the run gate, and report/diff of run reports: the
observations `run` recorded on the H200 (tests/fixtures/pipelines, tests/fixtures/providers), and observations of
state built here."""

from __future__ import annotations

CUDA, CPU = "CUDAExecutionProvider", "CPUExecutionProvider"


def pipeline_observations(name: str):
    """The observations of tests/fixtures/<name>.json.gz, a `run --json` report recorded on the H200 (alone, or as
    the "report" of a recording with its CUPTI counts)."""
    import gzip
    import json

    from ortcopy_doctor.model.pipeline import load_pipeline_observations
    from render_helpers import TESTS

    with gzip.open(TESTS / "fixtures" / f"{name}.json.gz", "rt", encoding="utf-8") as f:
        data = json.load(f)
    return load_pipeline_observations(data.get("report", data)["observations"])


def state_observations(how: str, site: str = "/w/prog.py:main:12"):
    """Three calls of one session a.onnx (x -> y, 4 KB, both on CUDA) made at ``site``, each `x` linked to the
    previous call's `y` by ``how`` (hash: a possible round trip; object: a round trip)."""
    from ortcopy_doctor.model.pipeline import PipelineCall, PipelineObservations, SessionRecord, ValueInfo, ValueLink
    from ortcopy_doctor.model.watch import CallObservation, Placement, TensorUse, WatchObservations

    placement = Placement(source="session", provider=CUDA, inputs_on_device={"x": "Relu 'r' (CUDA)"},
                          outputs_on_device={"y": "Relu 'r' (CUDA)"})
    watch_calls, calls = [], []
    for seq in range(3):
        watch_calls.append(CallObservation(index=seq, method="run",
                                           inputs=[TensorUse("x", "input", "numpy", "cpu", 4096)],
                                           outputs=[TensorUse("y", "output", "returned", "cpu", 4096)]))
        link = ValueLink(seq - 1, "y", how) if seq else None
        calls.append(PipelineCall(seq=seq, session=0, call=seq, method="run", wrap_start_ns=seq * 100,
                                  wrap_end_ns=seq * 100 + 10, start_ns=seq * 100 + 1, end_ns=seq * 100 + 9,
                                  inputs=[ValueInfo("x", "input", "numpy", "cpu", 4096, link)],
                                  outputs=[ValueInfo("y", "output", "numpy", "cpu", 4096)], site=site))
    record = SessionRecord(label="a.onnx", model="a.onnx", created_at="/w/prog.py:main:3",
                           observations=WatchObservations(active_providers=[CUDA, CPU], placement=placement,
                                                          calls=watch_calls))
    return PipelineObservations(program=["python", "/w/prog.py"], sessions=[record], calls=calls)


def replay(session: str, used: str, other: str, used_ms: float, other_ms: float, low: float, high: float):
    """A replay of ``session`` after the program on ``used`` (the provider it ran on) and ``other``, at one input
    signature: ``used_ms`` and ``other_ms`` per call, the ratio's 95% interval ``low``..``high``."""
    from ortcopy_doctor.model.replay import ProviderTiming, SessionReplay, ShapeComparison

    def timing(provider: str, ms: float) -> ProviderTiming:
        return ProviderTiming(provider=provider, first_ms=ms * 3, median_ms=ms, samples_ms=[ms])

    return SessionReplay(session=session, used=used, other=other, threads="the program's session options",
                         shapes=[ShapeComparison(shape="64x256, 64x1024", program_calls=5, used=timing(used, used_ms),
                                                 other=timing(other, other_ms), ratio=used_ms / other_ms,
                                                 ratio_low=low, ratio_high=high)])

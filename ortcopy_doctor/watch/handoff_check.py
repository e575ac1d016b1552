"""Every block of hand-off code `ortcopy-doctor run` offers, run as printed next to plain ``run()`` after the program.

The blocks are fragments of the program (report/pipeline.py): they use the program's sessions and arrays by name
(``HandoffCode.sessions``, ``.given``). Here each is given what it names: a session of its model made anew with the
providers the program's session got, and arrays of the shapes and dtypes the program fed (floats standard normal,
integers zero, a valid index anywhere). Then:

* a block between two sessions is run three times, with other inputs each time; each time the consumer's outputs
  (and the producer's host outputs) it leaves are compared with plain ``run()`` of the producer, its handed-over
  outputs fed to the consumer as the program fed them;
* a block of state is run over four steps, with other per-step inputs each step; the state it leaves and the last
  step's host outputs are compared with plain ``run()`` carrying the state from one step to the next.

Outputs are compared as ``check`` compares its own code (collect/code_check.py). Where the sessions ran on a CUDA EP
the block runs as printed; elsewhere with ``device = 'cpu'`` (CPU OrtValues: its logic, not the device). The parts
"with torch" / "with cupy" that follow a block are examples of working on the handed-over tensor, not run here. The
result is a ``CodeCheck`` per block in ``PipelineObservations.code_checks``; a block that raised or gave other
outputs is not offered (``pipeline.code_offered``).
"""

from __future__ import annotations

import re
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np

from ortcopy_doctor.collect.code_check import TOLERANCE_TEXT, code_sha256, quiet, same
from ortcopy_doctor.knowledge.providers import CPU, CUDA
from ortcopy_doctor.model.evidence import CodeCheck
from ortcopy_doctor.model.vocabulary import CodeCheckStatus
from ortcopy_doctor.model.pipeline import (
    POSSIBLE_ROUND_TRIP,
    ROUND_TRIP,
    HandoffCode,
    PipelineObservations,
    PipelineReport,
)
from ortcopy_doctor.report.pipeline import _io_names, _records, handoff_block, pipeline_blocks

BETWEEN_CALLS = 3
STATE_STEPS = 4
_TAIL = re.compile(r"\n\n# with (?:torch|cupy) ")


def blocks_of(report: PipelineReport, obs: PipelineObservations) -> list[HandoffCode]:
    """Every block the report offers, once each: the pipelines' and each round trip's own."""
    found: dict[str, HandoffCode] = {}
    for pipeline in report.pipelines:
        for block in pipeline_blocks(pipeline, obs):
            found.setdefault(block.code, block)
        for h in [*pipeline.round_trips, *pipeline.state]:
            if h.kind in (ROUND_TRIP, POSSIBLE_ROUND_TRIP):
                block = handoff_block(h, libraries=obs.libraries, producer_io=_io_names(obs, h.producer),
                                      consumer_io=_io_names(obs, h.consumer), records=_records(obs))
                found.setdefault(block.code, block)
    return list(found.values())


def check_handoffs(report: PipelineReport, obs: PipelineObservations) -> list[CodeCheck]:
    """A ``CodeCheck`` for every block of hand-off code the report offers (module doc); never raises."""
    checks = []
    for block in blocks_of(report, obs):
        try:
            with quiet():
                checks.append(_check(block, obs))
        except Exception as exc:  # noqa: BLE001 - the check is an extra: the report stands without it
            checks.append(_record(block, CodeCheckStatus.NOT_RUN, "", 0, f"could not be checked here: {_error(exc)}"))
    return checks


def _record(block: HandoffCode, status: CodeCheckStatus, device: str, calls: int, detail: str) -> CodeCheck:
    return CodeCheck(block=block.block, status=status, device=device, calls=calls, detail=detail,
                     tolerance=TOLERANCE_TEXT, code_sha256=code_sha256(block.code))


def _error(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:300]}" if text else type(exc).__name__


class _Unavailable(Exception):
    """What the block needs cannot be had here (the model file is gone, an input cannot be synthesized)."""


def _check(block: HandoffCode, obs: PipelineObservations) -> CodeCheck:
    from ortcopy_doctor.collect.ortlog import import_onnxruntime

    ort = import_onnxruntime()  # the first import under run --subprocess: what ORT logs as it loads is captured

    sessions: dict[str, Any] = {}
    devices = set()
    try:
        for label in block.sessions:
            record = next(s for s in obs.sessions if s.label == label)
            if not Path(record.model).is_file():
                raise _Unavailable(f"the model file {record.model} is gone")
            providers = list(record.observations.active_providers) or [CPU]
            sessions[label] = ort.InferenceSession(record.model, providers=providers)
            devices.add("cuda" if providers[0] == CUDA else "cpu")
        inputs = {label: _input_specs(obs, label) for label in block.sessions}
    except _Unavailable as exc:
        return _record(block, CodeCheckStatus.NOT_RUN, "", 0, str(exc))
    device = "cuda" if devices == {"cuda"} else "cpu"
    code = _TAIL.split(block.code, maxsplit=1)[0]  # the torch / cupy examples after it are not run
    if device == "cpu":
        code = code.replace("device = 'cuda'", "device = 'cpu'")
    run = _state if block.kind == "state" else _between
    return run(block, code, sessions, inputs, device)


def _input_specs(obs: PipelineObservations, label: str) -> dict[str, tuple[list[int], str]]:
    """Each input of the session of ``label``: the shape and dtype of the program's first call that has them."""
    record = next(s for s in obs.sessions if s.label == label)
    specs: dict[str, tuple[list[int], str]] = {}
    for call in record.observations.calls:
        for t in call.inputs:
            if t.name not in specs and t.shape is not None and t.dtype:
                specs[t.name] = (list(t.shape), t.dtype)
    return specs


def _array(spec: tuple[list[int], str] | None, name: str, rng: np.random.Generator) -> np.ndarray:
    if spec is None:
        raise _Unavailable(f"the program's calls recorded no shape and dtype of input '{name}'")
    shape, dtype = spec
    if dtype.startswith("float") or dtype == "bfloat16":
        return rng.standard_normal(shape).astype(dtype)
    if dtype == "bool" or dtype.startswith(("int", "uint")):
        return np.zeros(shape, dtype=dtype)  # zero: a valid index, length or id wherever the program's was
    raise _Unavailable(f"input '{name}' is a {dtype} tensor, which is not synthesized here")


def _place(namespace: dict[str, Any], expression: str, session: Any) -> None:
    """Give the block's name for a session its session: a variable (``det``), or ``self.det``, an attribute of an
    object that stands for the program's ``self`` (one for every session it holds)."""
    owner, _, attribute = expression.rpartition(".")
    if not owner:
        namespace[expression] = session
        return
    holder = namespace.get(owner)
    if not isinstance(holder, SimpleNamespace):
        holder = namespace[owner] = SimpleNamespace()
    setattr(holder, attribute, session)


def _host(value: Any) -> Any:
    return value.numpy() if hasattr(value, "device_name") and hasattr(value, "numpy") else value


def _between(block: HandoffCode, code: str, sessions: dict[str, Any], inputs: dict[str, dict[str, Any]],
             device: str) -> CodeCheck:
    producer, consumer = sessions[block.producer], sessions[block.consumer]
    fed = {i: o for o, i in block.pairs}
    p_names = [o.name for o in producer.get_outputs()]
    c_names = [o.name for o in consumer.get_outputs()]
    for call in range(BETWEEN_CALLS):
        rng = np.random.default_rng(call)
        namespace: dict[str, Any] = {"__name__": "ortcopy_doctor_handoff"}
        _place(namespace, block.sessions[block.producer], producer)
        _place(namespace, block.sessions[block.consumer], consumer)
        p_feeds: dict[str, Any] = {}
        c_feeds: dict[str, Any] = {}
        try:
            for key, var in block.given.items():
                label, _, name = key.split("|", 2)
                array = _array(inputs[label].get(name), name, rng)
                namespace[var] = np.array(array, copy=True)  # the code's own: an OrtValue on the CPU shares it
                (p_feeds if label == block.producer else c_feeds)[name] = array
        except _Unavailable as exc:
            return _record(block, CodeCheckStatus.NOT_RUN, device, 0, str(exc))
        expected_p = dict(zip(p_names, producer.run(None, p_feeds)))
        for i, o in fed.items():
            c_feeds[i] = expected_p[o]
        try:
            expected_c = dict(zip(c_names, consumer.run(None, c_feeds)))
        except Exception as exc:  # noqa: BLE001 - plain run() itself refuses these inputs: nothing to compare
            return _record(block, CodeCheckStatus.NOT_RUN, device, 0,
                           f"plain run() of {block.consumer} refused the inputs synthesized here: {_error(exc)}")
        try:
            exec(compile(code, f"<hand-off {block.block}>", "exec"), namespace)  # noqa: S102 - our generated code
        except Exception as exc:  # noqa: BLE001 - the block's failure is the result
            return _record(block, CodeCheckStatus.FAILED, device, call + 1, f"call {call + 1} raised {_error(exc)}")
        for key, var in block.results.items():  # the handed-over OrtValues too (read back here to compare)
            label, _, name = key.split("|", 2)
            want = (expected_p if label == block.producer else expected_c).get(name)
            difference = same(_host(namespace.get(var)), want) if want is not None else ""
            if difference:
                return _record(block, CodeCheckStatus.DIFFERS, device, call + 1,
                               f"call {call + 1}: output '{name}' of {label}: {difference}")
        namespace.clear()
    return _record(block, CodeCheckStatus.MATCHED, device, BETWEEN_CALLS, "")


def _state(block: HandoffCode, code: str, sessions: dict[str, Any], inputs: dict[str, dict[str, Any]],
           device: str) -> CodeCheck:
    session = sessions[block.producer]
    specs = inputs[block.producer]
    names = [o.name for o in session.get_outputs()]
    carried = {i for i, _ in block.pairs}
    try:
        initial = {i: _array(specs.get(i), i, np.random.default_rng(100)) for i, _ in block.pairs}
        stream = [{n: _array(spec, n, np.random.default_rng(step)) for n, spec in specs.items() if n not in carried}
                  for step in range(STATE_STEPS)]
    except _Unavailable as exc:
        return _record(block, CodeCheckStatus.NOT_RUN, device, 0, str(exc))
    namespace: dict[str, Any] = {"__name__": "ortcopy_doctor_handoff"}
    _place(namespace, block.sessions[block.producer], session)
    for key, var in block.given.items():
        # a copy: on the CPU an OrtValue made from an array shares its memory, which the state's steps write into
        namespace[var] = np.array(initial[key.split("|", 2)[2]], copy=True)
    if block.stream:
        namespace["stream"] = [{n: np.array(a, copy=True) for n, a in feeds.items()} for feeds in stream]
    else:
        namespace["steps"] = STATE_STEPS
    try:
        exec(compile(code, f"<hand-off {block.block}>", "exec"), namespace)  # noqa: S102 - our generated code
    except Exception as exc:  # noqa: BLE001 - the block's failure is the result
        return _record(block, CodeCheckStatus.FAILED, device, STATE_STEPS, f"raised {_error(exc)}")
    state = dict(initial)
    expected: dict[str, Any] = {}
    for step in range(STATE_STEPS):
        feeds = {**(stream[step] if block.stream else {}), **state}
        expected = dict(zip(names, session.run(None, feeds)))
        state = {i: expected[o] for i, o in block.pairs}
    buffers = namespace.get("state", {})
    for i, o in block.pairs:
        pair = buffers.get(i)
        if not pair:
            continue
        got = _host(pair[STATE_STEPS % 2])
        difference = same(got, expected[o])
        if difference:
            return _record(block, CodeCheckStatus.DIFFERS, device, STATE_STEPS,
                           f"after {STATE_STEPS} steps: state '{i}' (from '{o}'): {difference}")
    for name, value in (namespace.get("host") or {}).items():
        difference = same(_host(value), expected.get(name))
        if difference:
            return _record(block, CodeCheckStatus.DIFFERS, device, STATE_STEPS,
                           f"step {STATE_STEPS}: output '{name}': {difference}")
    namespace.clear()
    return _record(block, CodeCheckStatus.MATCHED, device, STATE_STEPS, "")


__all__ = ["BETWEEN_CALLS", "STATE_STEPS", "blocks_of", "check_handoffs"]

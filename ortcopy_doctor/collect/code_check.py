"""Every generated code block run as printed, next to plain ``run()``, before a report offers it.

A block (the plan's code in each flavor, everything bound on the device, the CUDA graph) is executed as printed:
its setup, then ``infer()``'s definition and first call. Then two more calls, each with other inputs (synthesized
inputs drawn again with another seed; ``--value`` and ``--inputs`` stay as given), written into the block's own
device buffers the way its comments tell a user to (``update_inplace``, ``copy_``, ``bind_cpu_input``), and a
last call of ``infer()`` with nothing written, as code pasted as is is called (a state guessed wrongly shows there:
a one-node Sigmoid's code that fed its output back returned sigmoid(sigmoid(x)) on that call).
State the block carries (``BindingPlan.state_pairs``) is left to the block; plain ``run()`` is given the previous
call's output for it. Every output of every call is compared with plain ``run()``'s: integers, booleans and strings
exactly, floats within ``TOLERANCE``. An output that differs between two plain runs on the same inputs (a random op)
is compared by dtype and shape only, and named.

Where no CUDA EP is active here (a CPU machine checking the CUDA prediction), the plan's code runs with ``'cpu'``
for ``'cuda'`` (CPU OrtValues): that checks its logic (what it feeds, the state it carries, the outputs it returns)
but not the device; ``CodeCheck.device`` says which.

The result is a ``CodeCheck`` per block in the evidence; the report offers a block only where its check matched
for the very code it shows (``code_sha256``).
"""

from __future__ import annotations

import msgspec
import contextlib
import io
import time
from collections.abc import Callable, Iterator
from msgspec import field
from msgspec.structs import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ortcopy_doctor.analysis.binding import (
    DEVICE,
    HOST,
    UNBOUND,
    all_device_plan,
    code_names,
    code_sha256,
    make_plan,
    render_code,
    render_cuda_graph_code,
)
from ortcopy_doctor.analysis.copies import find_copies
from ortcopy_doctor.analysis.node_names import with_profiler_names
from ortcopy_doctor.collect import ortlog
from ortcopy_doctor.collect.feeds import synthesize
from ortcopy_doctor.collect.session import provider_list, session_options
from ortcopy_doctor.knowledge.providers import CUDA
from ortcopy_doctor.model.binding import BindingPlan
from ortcopy_doctor.model.evidence import CodeCheck, Evidence
from ortcopy_doctor.model.vocabulary import CODE_BLOCK_LABELS as BLOCK_LABELS, CodeCheckStatus
from ortcopy_doctor.report.variants import cuda_graph_blockers

if TYPE_CHECKING:
    from ortcopy_doctor.collect.session import CheckOptions

CALLS = 4  # the first, two with other inputs, one with nothing written
# float16/bfloat16 keep ~3 significant digits; a state carried over calls and another session's kernels (the CUDA
# graph's) may differ in the last bits of float32.
# Two float32 sessions' sums differed by up to ~2e-4 on the H200 host's Xeon (tests/collect/test_measure.py); a
# state not carried, or a wrong input, is off by the size of the values.
TOLERANCE = {"float16": (1e-2, 1e-2), "bfloat16": (2e-2, 2e-2)}
DEFAULT_TOLERANCE = (1e-3, 1e-4)  # rtol, atol: float32, float64
TOLERANCE_TEXT = ("integers, booleans and strings exactly; float32/float64 within rtol 1e-3, atol 1e-4; "
                  "float16 within 1e-2")

# The blocks, as CodeCheck.block names them, and their flavor of code.
BLOCK_FLAVORS = {"plan": "onnxruntime", "plan_torch": "torch", "plan_cupy": "cupy", "all_device": "onnxruntime",
                 "cuda_graph": "cuda_graph"}


@contextlib.contextmanager
def quiet() -> Iterator[None]:
    """ORT's native log (fd 2) and the generated code's prints (stdout) stay out of the user's terminal."""
    with ortlog.capture_native_stderr(), contextlib.redirect_stdout(io.StringIO()):
        yield


def split_code(code: str) -> tuple[str, str]:
    """The generated code as (setup, rest): rest starts at ``def infer():`` and ends with its first call."""
    marker = "\ndef infer():"
    head, sep, tail = code.partition(marker)
    if not sep:
        return code, ""
    return head + "\n", marker.lstrip("\n") + tail


class Block(msgspec.Struct):
    """One block executed: its namespace (the session, binding, buffers and ``infer``), the inputs its first call
    read, and the setup and first-call times (ms)."""

    name: str
    code: str  # as printed
    plan: BindingPlan  # the plan the code was rendered from (device_type "cpu" in a dry run)
    flavor: str
    namespace: dict[str, Any] = field(default_factory=dict)
    first_inputs: dict[str, Any] = field(default_factory=dict)
    setup_ms: float = 0.0
    first_ms: float = 0.0


def execute(name: str, code: str, plan: BindingPlan, inputs_file: Path | None) -> Block:
    """Run ``code`` as printed (its setup, then ``infer()``'s definition and first call); raises what it raises."""
    if inputs_file is not None:
        code = code.replace("INPUTS_FILE = 'inputs.npz'", f"INPUTS_FILE = {str(inputs_file)!r}")
    setup, rest = split_code(code)
    block = Block(name, code, plan, BLOCK_FLAVORS.get(name, "onnxruntime"),
                  namespace={"__name__": f"ortcopy_doctor_generated_{name}"})
    try:
        start = time.perf_counter_ns()
        exec(compile(setup, f"<{name} code: setup>", "exec"), block.namespace)  # noqa: S102 - our generated code
        block.setup_ms = (time.perf_counter_ns() - start) / 1e6
        block.first_inputs = _inputs_of(block)
        start = time.perf_counter_ns()
        exec(compile(rest, f"<{name} code: infer>", "exec"), block.namespace)  # noqa: S102
        block.first_ms = (time.perf_counter_ns() - start) / 1e6
    except BaseException:
        block.namespace.clear()  # infer() and its globals form a cycle that holds the session: broken here
        raise
    return block


def run_generated(code: str, label: str, inputs_file: Path | None) -> tuple[dict[str, Any], float, float]:
    """Execute generated code as printed (``execute``, for code of no plan at hand); return its namespace, the
    setup time and the first ``infer()`` time (ms)."""
    block = execute(label, code, BindingPlan(), inputs_file)
    return block.namespace, block.setup_ms, block.first_ms


def _inputs_of(block: Block) -> dict[str, Any]:
    """Copies of the arrays the block's setup made for each input (its first call reads them). On the CPU an
    OrtValue made from an array shares its memory, which a swapped state is later written into: hence copies."""
    names = code_names(block.plan)
    result: dict[str, Any] = {}
    for entry in block.plan.inputs:
        var = names.inputs[entry.name]
        value = block.namespace.get(f"{var}_host", block.namespace.get(var))
        result[entry.name] = np.array(value, copy=True) if isinstance(value, np.ndarray) else value
    return result


def _contiguous(array: np.ndarray) -> np.ndarray:
    """``array`` in C order, its shape kept: ``np.ascontiguousarray`` makes a 0-d array 1-d (a scalar input of shape
    [] became [1], and torch's ``copy_`` refused it: "output with shape [] doesn't match the broadcast shape [1]",
    Silero VAD's sr on the H200)."""
    return array if array.flags.c_contiguous else np.ascontiguousarray(array).reshape(array.shape)


def give_inputs(block: Block, arrays: dict[str, np.ndarray], carried: frozenset[str] = frozenset()) -> None:
    """Write ``arrays`` into the block's inputs as its comments tell a user to: into the bound device buffers in
    place (``update_inplace``, torch's ``copy_``, cupy's slice assignment), a host input bound again
    (``bind_cpu_input``); ``carried`` inputs (the state the block carries) are left alone."""
    names = code_names(block.plan)
    ns = block.namespace
    binding = ns.get("binding")
    for entry in block.plan.inputs:
        if entry.name in carried or entry.name not in arrays:
            continue
        var = names.inputs[entry.name]
        new = arrays[entry.name]
        if block.flavor in ("torch", "cupy") and entry.place == DEVICE and entry.dtype != "str":
            tensor = ns[var]
            if block.flavor == "torch":
                import torch  # here: an optional dependency; a torch block exists only where its code imported torch

                tensor.copy_(torch.from_numpy(_contiguous(new)).to(tensor.device))
            else:
                import cupy  # here: an optional dependency; a cupy block exists only where its code imported cupy

                tensor[...] = cupy.asarray(new)
            ns[f"{var}_host"] = new
            continue
        on_device = ns.get(f"{var}_on_device")
        if on_device is not None:
            on_device.update_inplace(_contiguous(new))
        elif binding is not None and entry.place == HOST:
            binding.bind_cpu_input(entry.name, new)
        ns[var] = new


def outputs_of(block: Block, result: Any, output_names: list[str]) -> dict[str, Any]:
    """What a call of the block returned, as numpy (or the Python object of a sequence or map), by output name."""
    if isinstance(result, dict):
        items = list(result.items())
    else:
        values = list(result)
        bound = [e.name for e in block.plan.outputs if e.place != UNBOUND]
        names = output_names if len(values) == len(output_names) else bound
        items = list(zip(names, values))
    return {name: _host(value) for name, value in items}


def _host(value: Any) -> Any:
    if hasattr(value, "device_name") and hasattr(value, "numpy"):  # an OrtValue
        return value.numpy()
    if type(value).__module__.startswith("torch"):
        return value.detach().cpu().numpy()
    if type(value).__module__.startswith("cupy"):
        return value.get()
    return value


def same(got: Any, want: Any, floats: Callable[[np.ndarray, np.ndarray], str] | None = None) -> str:
    """"" where ``got`` equals ``want`` (floats within TOLERANCE), else what differs. ``floats``: judges two float
    arrays (or float scalars, as 0-d arrays) of the same shape and dtype instead of TOLERANCE, in arrays, sequences
    and maps alike (the CPU-provider code against CUDA's outputs: collect/provider_choice.py)."""
    if isinstance(want, np.ndarray):
        got = np.asarray(got)
        if got.shape != want.shape:
            return f"shape {list(got.shape)} where plain run() gives {list(want.shape)}"
        if got.dtype != want.dtype:
            return f"dtype {got.dtype} where plain run() gives {want.dtype}"
        if want.dtype.kind == "f":
            if floats is not None:
                return floats(got, want)
            rtol, atol = TOLERANCE.get(str(want.dtype), DEFAULT_TOLERANCE)
            if np.allclose(got, want, rtol=rtol, atol=atol, equal_nan=True):
                return ""
            return f"values differ (largest difference {largest_difference(got, want):.3g})"
        return "" if np.array_equal(got, want) else "values differ"
    if isinstance(want, (list, tuple)):
        if not isinstance(got, (list, tuple)) or len(got) != len(want):
            return "a sequence of another length"
        return next((f"item {i}: {d}" for i, (g, w) in enumerate(zip(got, want)) if (d := same(g, w, floats))), "")
    if isinstance(want, dict):
        if not isinstance(got, dict) or set(got) != set(want):
            return "a map with other keys"
        return next((f"key {k!r}: {d}" for k in want if (d := same(got[k], want[k], floats))), "")
    if floats is not None and isinstance(want, float) and isinstance(got, float):
        return floats(np.asarray(got), np.asarray(want))
    return "" if got == want else "values differ"


def largest_difference(got: np.ndarray, want: np.ndarray) -> float:
    """The largest absolute difference of two float arrays of one shape (NaNs where both are NaN left out)."""
    with np.errstate(invalid="ignore"):
        diff = np.abs(got.astype(np.float64) - want.astype(np.float64))
        return float(np.nanmax(diff)) if want.size and not np.all(np.isnan(diff)) else 0.0


def _changed(a: Any, b: Any) -> bool:
    """Whether two plain runs on the same inputs disagree (exactly: a random op)."""
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return a.shape != b.shape or not np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    return bool(same(a, b))


class Reference(msgspec.Struct, frozen=True):
    """Plain ``run()`` on a session of its own (the providers the check asked for): what every block must match."""

    session: Any
    output_names: list[str]

    def run(self, feeds: dict[str, Any]) -> dict[str, Any]:
        """Plain run() of ``feeds``, by output name."""
        return dict(zip(self.output_names, self.session.run(None, feeds)))


def call_inputs(evidence: Evidence, arrays: dict[str, np.ndarray], calls: int = CALLS,
                seed: int = 0) -> list[dict[str, np.ndarray] | None]:
    """The inputs of each call after the first: synthesized inputs drawn again (seed + k), the same shapes; what
    --value and --inputs gave stays as given; None for the last call: nothing written, infer() called again."""
    declared = {v.name: v for v in evidence.model.inputs}
    result: list[dict[str, np.ndarray] | None] = []
    for k in range(1, calls - 1):
        rng = np.random.default_rng(seed + 1000 + k)
        feeds = dict(arrays)
        for feed in evidence.feeds:
            value = declared.get(feed.name)
            if feed.source == "synthesized" and value is not None and feed.name in arrays:
                feeds[feed.name] = synthesize(value, list(feed.shape), rng, feed.high or 4)
        result.append(feeds)
    return result + [None]


def reference_options(ort: Any, options: CheckOptions) -> Any:
    """The options of plain run()'s session: the check's, and its intra-op threads do not spin. Spinning, a
    session's idle threads keep polling for work after each run, and take the CPUs from the block's session, which
    runs next (a mid-sized conv net on 2 CPUs: its code check 0.76 s with spinning, 0.55 s without; no time is
    taken from this session)."""
    so = session_options(ort, options, verbose=False, profile_prefix=None, optimized_path=None)
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return so


def check_block(block: Block, reference: Reference, later: list[dict[str, np.ndarray] | None],
                device: str) -> CodeCheck:
    """Compare the block's first call (already made) and one call per entry of ``later`` (the inputs to write, or
    None: write nothing) with plain run()."""
    pairs = block.plan.state_pairs
    carried = frozenset(i for i, _ in pairs)
    feeds = dict(block.first_inputs)
    base = CodeCheck(block=block.name, status=CodeCheckStatus.MATCHED, device=device, calls=1 + len(later),
                     tolerance=TOLERANCE_TEXT, code_sha256=code_sha256(block.code))
    fed = later[0] if later and later[0] is not None else {}
    for name, array in feeds.items():  # the code feeds what the check fed: the same shapes and dtypes
        want = fed.get(name)
        if isinstance(array, np.ndarray) and isinstance(want, np.ndarray) and (
                array.shape != want.shape or array.dtype != want.dtype):
            return replace(base, status=CodeCheckStatus.DIFFERS, calls=1, detail=(
                f"the code feeds '{name}' as {array.dtype}{list(array.shape)} where the check fed "
                f"{want.dtype}{list(want.shape)}"))
    expected = reference.run(feeds)
    again = reference.run(feeds)
    random = [name for name in expected if _changed(expected[name], again[name])]
    base = replace(base, nondeterministic=random)
    got = outputs_of(block, block.namespace["outputs"], reference.output_names)
    for call in range(1 + len(later)):
        if call:
            for i, o in pairs:
                feeds[i] = expected[o]
            written = later[call - 1]
            try:
                if written is not None:
                    for name, array in written.items():
                        if name not in carried:
                            feeds[name] = array
                    give_inputs(block, feeds, carried)  # as the code's comments tell a user to
                got = outputs_of(block, block.namespace["infer"](), reference.output_names)
            except Exception as exc:  # noqa: BLE001 - the block's failure is the result
                return replace(base, status=CodeCheckStatus.FAILED, calls=call + 1,
                               detail=f"call {call + 1} raised {_error(exc)}")
            expected = reference.run(feeds)
        missing = [name for name in got if name not in expected]
        if missing:
            return replace(base, status=CodeCheckStatus.DIFFERS, detail=f"call {call + 1} returned '{missing[0]}', "
                                                                        "which plain run() does not")
        for name, value in got.items():
            if name in random:
                want = expected[name]
                if np.asarray(value).dtype != np.asarray(want).dtype or np.shape(value) != np.shape(want):
                    return replace(base, status=CodeCheckStatus.DIFFERS, detail=f"call {call + 1}: output '{name}' "
                                   "has another dtype or shape than plain run()'s")
                continue
            difference = same(value, expected[name])
            if difference:
                return replace(base, status=CodeCheckStatus.DIFFERS,
                               detail=f"call {call + 1}: output '{name}': {difference}")
    return base


def _error(exc: BaseException) -> str:
    text = str(exc).strip()
    return f"{type(exc).__name__}: {text.splitlines()[0][:300]}" if text else type(exc).__name__


def not_run(name: str, why: str, code: str = "") -> CodeCheck:
    """The record of a block that could not run here."""
    return CodeCheck(block=name, status=CodeCheckStatus.NOT_RUN, detail=why, code_sha256=code_sha256(code) if code else "")


def blocks_to_check(evidence: Evidence, plan: BindingPlan) -> dict[str, tuple[str, BindingPlan] | str]:
    """Each block the report of ``evidence`` shows, as (its code, the plan it was rendered from), or why there is
    none (a string)."""
    blocks: dict[str, tuple[str, BindingPlan] | str] = {"plan": (plan.code, plan)}
    for name, flavor in (("plan_torch", "torch"), ("plan_cupy", "cupy")):
        blocks[name] = (render_code(evidence, plan, flavor), plan)
    everything = all_device_plan(evidence, plan)
    blocks["all_device"] = everything if isinstance(everything, str) else (everything.code, everything)
    blockers = cuda_graph_blockers(evidence, plan, find_copies(evidence))
    blocks["cuda_graph"] = (f"{len(blockers)} blocker(s) keep this model from a CUDA graph" if blockers
                            else (render_cuda_graph_code(evidence, plan), plan))
    return blocks


def _dry_run_code(evidence: Evidence, name: str, plan: BindingPlan) -> tuple[str, BindingPlan]:
    """The block's code with 'cpu' for 'cuda': the same program on CPU OrtValues."""
    dry = replace(plan, device_type="cpu")
    if name == "all_device":
        everything = all_device_plan(evidence, dry)
        assert not isinstance(everything, str)
        return everything.code, everything
    return render_code(evidence, dry), dry


def check_code(evidence: Evidence, model_path: Path | str, arrays: dict[str, np.ndarray], options: CheckOptions,
               progress: Callable[[str], None] | None = None, *, dry_run: bool = False
               ) -> tuple[list[CodeCheck], dict[str, Block]]:
    """Run every code block the report of ``evidence`` will show next to plain run(); return the checks and the
    blocks that matched (the binding A/B times those namespaces instead of making sessions of its own).

    Where the session ran on the CUDA EP: every block there. Where CUDA was requested and is not active but
    predicted (``evidence.predicted``): the predicted plan's code, on CPU OrtValues. Otherwise nothing (no code is
    shown). ``dry_run``: the plan and everything-bound code of a CUDA session's evidence on CPU OrtValues (tests of
    the machinery on a machine without a GPU)."""
    say = progress or (lambda _step: None)
    # the plan as the report makes it (report.core.analyse): unnamed nodes as ORT's profiler names them, since the
    # code's comments name them and the report offers only the code that was checked
    evidence = with_profiler_names(evidence)
    if evidence.predicted is not None:
        evidence = replace(evidence, predicted=with_profiler_names(evidence.predicted))
    active = evidence.session.active_providers
    on_device = bool(active) and active[0] == CUDA and not dry_run
    if on_device or dry_run:
        plan, device = make_plan(evidence), "cuda" if on_device else "cpu"
    elif evidence.predicted is not None:
        plan, device = make_plan(evidence.predicted), "cpu"
    else:
        return [], {}
    if not plan.applicable:
        return [], {}
    say("running the generated code next to plain run()")
    import onnxruntime as ort  # here, not a lazy_import: whether onnxruntime is loaded is asked of sys.modules (ortlog)

    checks: list[CodeCheck] = []
    ran: dict[str, Block] = {}
    later = call_inputs(evidence, arrays, seed=options.seed)
    with quiet():
        session = ort.InferenceSession(str(model_path), reference_options(ort, options),
                                       providers=provider_list(options))
        reference = Reference(session, [o.name for o in session.get_outputs()])
        if on_device:
            targets = blocks_to_check(evidence, plan)
        elif dry_run:
            everything = all_device_plan(evidence, plan)
            targets = {"plan": (plan.code, plan),
                       "all_device": everything if isinstance(everything, str) else (everything.code, everything)}
        else:
            targets = {"plan": (plan.code, plan)}
        for name, target in targets.items():
            if isinstance(target, str):
                checks.append(not_run(name, target))
                continue
            code, block_plan = target
            why = _unavailable(name) if on_device else ""
            if why:
                checks.append(not_run(name, why, code))
                continue
            run_code, run_plan = (code, block_plan) if on_device else _dry_run_code(evidence.predicted or evidence,
                                                                                    name, block_plan)
            try:
                block = execute(name, run_code, run_plan, options.inputs_file)
            except Exception as exc:  # noqa: BLE001 - the block's failure is the result
                checks.append(replace(not_run(name, "", code), status=CodeCheckStatus.FAILED, device=device, calls=1,
                                      detail=f"call 1 raised {_error(exc)}", tolerance=TOLERANCE_TEXT))
                continue
            block.code = code  # the digest is of the code as printed
            result = check_block(block, reference, later, device)
            checks.append(result)
            if result.status == CodeCheckStatus.MATCHED and (on_device or dry_run):
                give_inputs(block, arrays, frozenset(i for i, _ in block.plan.state_pairs))
                ran[name] = block
            else:
                block.namespace.clear()
        del session, reference
    return checks, ran


def _unavailable(name: str) -> str:
    """Why a flavor's library is not usable here ("" where it is)."""
    if name == "plan_torch":
        try:
            import torch  # here: an optional dependency, maybe absent or broken (the except below)
        except Exception as exc:  # noqa: BLE001
            return f"torch is not importable here ({type(exc).__name__}): the torch code was not run"
        if not torch.cuda.is_available():
            return "torch sees no CUDA device here: the torch code was not run"
    if name == "plan_cupy":
        try:
            import cupy  # here: an optional dependency, maybe absent or broken (the except below)
        except Exception as exc:  # noqa: BLE001
            return f"cupy is not importable here ({type(exc).__name__}): the cupy code was not run"
        try:
            cupy.cuda.runtime.getDeviceCount()
        except Exception:  # noqa: BLE001
            return "cupy sees no CUDA device here: the cupy code was not run"
    return ""


__all__ = ["BLOCK_LABELS", "CALLS", "TOLERANCE_TEXT", "Block", "check_code", "code_sha256", "execute", "give_inputs",
           "outputs_of", "quiet", "reference_options", "run_generated", "same", "split_code"]

"""The watch report: each call's inputs and outputs, the transfers they made, and their text and JSON forms."""

from __future__ import annotations

import msgspec
from collections.abc import Sequence
from msgspec import field
from typing import Any, Optional

from ortcopy_doctor.model import codec
from ortcopy_doctor.knowledge.providers import is_device, short
from ortcopy_doctor.render.terminal import safe
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.vocabulary import CopyKind, Direction
from ortcopy_doctor.watch.observations import (
    DEVICE_TO_HOST,
    FEED,
    FETCH,
    HOST_TO_DEVICE,
    PLACEMENT_PREDICTED,
    USER_KINDS,
    WATCH_FORMAT,
    WATCH_FORMAT_VERSION,
    Basis,
    PlacementSource,
    WatchObservations,
    _is_host,
)


class Transfer(msgspec.Struct, frozen=True):
    """One host<->device transfer of one watched call."""

    call: int
    kind: CopyKind  # feed, fetch (the user's code); memcpy_node, in_kernel, unexplained (the model's / ORT's)
    direction: Direction  # host_to_device, device_to_host
    tensor: str
    bytes: Optional[int]
    basis: Basis  # census, placement, prediction
    phase: str = "run"  # run, or bind (copied inside a bind_* call of the binding)
    node: str = ""
    src_kind: str = ""  # census only: pageable, pinned, device
    dst_kind: str = ""
    cause: str = ""
    fix: str = ""

    @property
    def user(self) -> bool:
        """Whether the calling code causes it (and can remove it)."""
        return self.kind in USER_KINDS

    def describe(self) -> str:
        """One line: call, kind, direction, tensor or node, size, phase (when not run) and basis."""
        size = "? B" if self.bytes is None else fmt_bytes(self.bytes)
        arrow = "H2D" if self.direction == HOST_TO_DEVICE else "D2H"
        where = f" in {self.phase}" if self.phase != "run" else ""
        return f"call {self.call}: {self.kind} {arrow} '{self.tensor or self.node}' {size}{where} [{self.basis}]"


class TensorReport(msgspec.Struct, frozen=True):
    """One input or output of one call: how it was given, where it lives and is needed, the copy implied."""

    name: str
    role: str  # input, output
    via: str
    device: str  # where the user's value lives / the output was delivered
    needed_on: str  # device, host, unknown: where the session reads (input) or writes (output) it
    transfer: str = ""  # host_to_device, device_to_host, or "" (none implied)
    bytes: Optional[int] = None


class CallReport(msgspec.Struct, frozen=True):
    """One watched call: its inputs and outputs, its transfers, its census totals, discrepancies and fixes."""

    index: int
    method: str
    inputs: list[TensorReport]
    outputs: list[TensorReport]
    transfers: list[Transfer]
    # direction -> [count, bytes] of every memcpy CUPTI saw in this call (bind_* included); None without a census.
    census: Optional[dict[str, list[int]]] = None
    discrepancies: list[str] = field(default_factory=list)
    fixes: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def inputs_from_host(self) -> list[str]:
        """Inputs given in host memory that the session reads on the device (each one is copied)."""
        return [t.name for t in self.inputs if t.transfer == HOST_TO_DEVICE]

    @property
    def outputs_to_host(self) -> list[str]:
        """Outputs produced on the device and delivered to host memory (each one is copied)."""
        return [t.name for t in self.outputs if t.transfer == DEVICE_TO_HOST]

    @property
    def on_device(self) -> list[str]:
        """Inputs and outputs the code gave or received in device memory."""
        return [t.name for t in self.inputs + self.outputs if t.device and not _is_host(t.device)]

    @property
    def user_transfers(self) -> list[Transfer]:
        """The transfers of the calling code (feed and fetch copies)."""
        return [t for t in self.transfers if t.user]

    @property
    def model_transfers(self) -> list[Transfer]:
        """The transfers of the model itself (Memcpy nodes, in-kernel, unexplained)."""
        return [t for t in self.transfers if not t.user]


class WatchReport(msgspec.Struct, frozen=True):
    """What the watched calls moved between host and device, and what to change in the calling code."""

    calls: list[CallReport]
    providers: list[str]
    placement_source: PlacementSource  # session, predicted, host_only, unknown
    placement_detail: str
    observed: list[str]  # what was observed in this process
    not_observed: list[str]  # what could not be observed, and why
    notes: list[str]
    predicted: Optional[WatchReport] = None  # the same calls on a requested device provider that is not active
    observations: Optional[WatchObservations] = None

    # queries -----------------------------------------------------------------------------------------------------

    def transfers(self) -> list[Transfer]:
        """Every transfer of every call, in call order."""
        return [t for c in self.calls for t in c.transfers]

    def host_transfers(self, except_inputs: Sequence[str] = (), except_outputs: Sequence[str] = ()) -> list[Transfer]:
        """Feed and fetch copies of the user's calls, less the excepted tensors."""
        skip_in, skip_out = set(except_inputs), set(except_outputs)
        result = []
        for t in self.transfers():
            if not t.user:
                continue
            if t.kind == FEED and t.tensor in skip_in or t.kind == FETCH and t.tensor in skip_out:
                continue
            result.append(t)
        return result

    def model_transfers(self) -> list[Transfer]:
        """Transfers of the model itself (Memcpy nodes, in-kernel, unexplained): not the calling code's."""
        return [t for t in self.transfers() if not t.user]

    def assert_no_host_transfers(self, except_inputs: Sequence[str] = (), except_outputs: Sequence[str] = (), *,
                                 predicted: bool = False) -> None:
        """Raise ``AssertionError`` listing each feed/fetch copy of the watched calls (call, tensor, direction,
        bytes) and its fix. Memcpy-node and in-kernel transfers are the model's and do not count.

        ``predicted=True`` also fails on the copies predicted for a requested device provider that is not active
        (e.g. a CUDA session that fell back to CPU on a machine without a GPU).
        """
        if not self.calls:
            raise AssertionError("ortcopy-doctor watch recorded no session call: run the session inside the "
                                 "`with watch(session)` block (run, run_with_iobinding or run_with_ort_values)")
        if predicted and self.predicted is None and not any(is_device(p) for p in self.providers):
            # no device provider is active and nothing was predicted: passing would say nothing about the device
            why = next((n for n in self.notes if n.startswith("no prediction for")), "")
            raise AssertionError(
                "ortcopy-doctor watch: assert_no_host_transfers(predicted=True), but there is no prediction for a "
                "device" + (f" ({why})" if why else "") + ": pass watch(..., predict_for='CUDAExecutionProvider') "
                "(or 'cuda'), or drop predicted=True")
        offending = self.host_transfers(except_inputs, except_outputs)
        label = ""
        if predicted and self.predicted is not None:
            extra = self.predicted.host_transfers(except_inputs, except_outputs)
            if extra and not offending:
                label = f" (predicted for {short(self.predicted.providers[0]) if self.predicted.providers else 'the device'})"
            offending = offending + extra
        if not offending:
            return
        lines = [f"{len(offending)} host<->device transfer(s) in the watched calls{label}:"]
        for t in offending:
            lines.append(f"  - {t.describe()}: {t.cause}")
            if t.fix:
                lines.append(f"    fix: {t.fix}")
        model = self.model_transfers() + (self.predicted.model_transfers() if predicted and self.predicted else [])
        if model:
            lines.append(f"(not counted: {len(model)} transfer(s) of the model itself, e.g. Memcpy nodes: "
                         "only a model or placement change removes those)")
        if self.placement_source == PLACEMENT_PREDICTED:
            lines.append("(placement is predicted from the model: create the session with "
                         "ortcopy_doctor.instrumented_session to use the session's own placement)")
        raise AssertionError("\n".join(safe(line) for line in lines))  # pytest prints it to the CI log as it is

    # output ------------------------------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """JSON-able: the fields, each call with its ``inputs_from_host``/``outputs_to_host``/``on_device``."""
        data = {k: codec.to_builtins(getattr(self, k)) for k in ("providers", "placement_source", "placement_detail",
                                                           "observed", "not_observed", "notes")}
        calls = []
        for call in self.calls:
            entry = codec.to_builtins(call)
            entry.update(inputs_from_host=call.inputs_from_host, outputs_to_host=call.outputs_to_host,
                         on_device=call.on_device)
            calls.append(entry)
        return {"format": WATCH_FORMAT + "-report", "format_version": WATCH_FORMAT_VERSION, **data, "calls": calls,
                "predicted": None if self.predicted is None else self.predicted.to_dict(),
                "observations": None if self.observations is None else codec.to_builtins(self.observations)}

    def to_json(self) -> str:
        """``to_dict`` as indented JSON."""
        return codec.to_json(self.to_dict())

    def to_text(self) -> str:
        """Plain text: placement, what was (not) observed, each call's census, transfers, discrepancies and fixes."""
        lines = [f"ortcopy-doctor watch: {len(self.calls)} call(s) on {', '.join(short(p) for p in self.providers)}; "
                 f"placement: {self.placement_source}" + (f" ({self.placement_detail})" if self.placement_detail else "")]
        lines += [f"  observed: {o}" for o in self.observed]
        lines += [f"  not observed: {o}" for o in self.not_observed]
        for call in self.calls:
            lines.append(f"call {call.index}: {call.method}" + (f" (raised: {call.error})" if call.error else ""))
            if call.census is not None:
                parts = [f"{d} {c}x {fmt_bytes(b)}" for d, (c, b) in sorted(call.census.items())]
                lines.append("  census: " + (", ".join(parts) if parts else "no memcpy"))
            lines.append(f"  inputs from host: {call.inputs_from_host or '-'}; outputs to host: {call.outputs_to_host or '-'}; "
                         f"on device: {call.on_device or '-'}")
            for t in call.transfers:
                owner = "" if t.user else " (model)"
                lines.append(f"  {t.describe()}{owner}: {t.cause}")
            for d in call.discrepancies:
                lines.append(f"  ! {d}")
            for f in call.fixes:
                lines.append(f"  fix: {f}")
        lines += [f"note: {n}" for n in self.notes]
        lines = [safe(line) for line in lines]  # names from the model: no escape sequence reaches a terminal
        if self.predicted is not None:
            lines.append("")
            lines.append("predicted " + self.predicted.to_text())
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.to_text()

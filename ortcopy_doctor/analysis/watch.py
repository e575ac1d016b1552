"""From observations to the report (pure; no onnxruntime): what each call copied, named from the census where
there is one, else implied by placement and the devices of the values."""

from __future__ import annotations

from msgspec.structs import replace
from typing import Optional

from ortcopy_doctor.knowledge.providers import CPU, short
from ortcopy_doctor.model.census import TransferRecord
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.vocabulary import (
    DEVICE_TO_HOST,
    FEED,
    FETCH,
    HOST_TO_DEVICE,
    IN_KERNEL,
    MEMCPY_NODE,
    UNEXPLAINED,
    Direction,
)
from ortcopy_doctor.model.watch import (
    BASIS_CENSUS,
    BASIS_PLACEMENT,
    BASIS_PREDICTION,
    PLACEMENT_HOST_ONLY,
    PLACEMENT_PREDICTED,
    PLACEMENT_SESSION,
    PLACEMENT_UNKNOWN,
    Basis,
    CallObservation,
    CallReport,
    Placement,
    TensorReport,
    TensorUse,
    Transfer,
    WatchObservations,
    WatchReport,
    is_host,
)


def analyse_watch(obs: WatchObservations) -> WatchReport:
    """The report of recorded observations; the predicted section where a device provider was requested."""
    report = _analyse(obs, obs.placement, census=True)
    if obs.predicted_placement is not None:
        predicted = replace(
            _analyse(obs, obs.predicted_placement, census=False),
            providers=list(dict.fromkeys([obs.predicted_placement.provider, CPU])), observed=[],
            not_observed=[f"{obs.predicted_placement.provider} is not active in this session: every transfer here "
                          "is predicted from the model for the same calls"])
        report = replace(report, predicted=predicted)
    return report


def _analyse(obs: WatchObservations, placement: Placement, *, census: bool) -> WatchReport:
    observed: list[str] = []
    not_observed: list[str] = []
    if obs.calls:
        observed.append("how each call passed its inputs and received its outputs (numpy, OrtValue devices, bind_* calls)")
    basis = BASIS_PLACEMENT
    if placement.source == PLACEMENT_HOST_ONLY:
        observed.append(f"the session runs on {', '.join(short(p) for p in obs.active_providers) or 'CPU'} only: "
                        "no host<->device transfer can happen")
    elif placement.source == PLACEMENT_SESSION:
        observed.append(f"placement: the session's own EP assignment ({placement.detail})" if placement.detail
                        else "placement: the session's own EP assignment")
    elif placement.source == PLACEMENT_PREDICTED:
        basis = BASIS_PREDICTION
        if census:
            not_observed.append("the session's placement (it was not created with session config "
                                "session.record_ep_graph_assignment_info=1): placement is predicted from the model; "
                                "ortcopy_doctor.instrumented_session records it")
    else:
        not_observed.append(f"placement: {placement.detail or 'unknown'}")
    use_census = census and placement.source != PLACEMENT_HOST_ONLY
    if use_census:
        if obs.census_backend and any(c.traced for c in obs.calls):
            observed.append(f"the transfer census of each call ({obs.census_backend}): every memcpy the driver did")
        elif obs.census_note:
            not_observed.append(f"the transfer census: {obs.census_note}")
    if obs.profile_note and census:
        not_observed.append(f"the ORT profile: {obs.profile_note}")
    calls = [_analyse_call(c, placement, basis, use_census) for c in obs.calls]
    return WatchReport(calls=calls, providers=list(obs.active_providers), placement_source=placement.source,
                       placement_detail=placement.detail, observed=observed, not_observed=not_observed,
                       notes=list(obs.notes), observations=obs)


def _where(placement: Placement, use: TensorUse) -> str:
    if placement.source == PLACEMENT_HOST_ONLY:
        return "host"
    if use.role == "input":
        if use.name in placement.inputs_on_device:
            return "device"
        return "host" if use.name in placement.inputs_on_host else "unknown"
    if use.name in placement.outputs_on_device:
        return "device"
    return "host" if use.name in placement.outputs_on_host else "unknown"


def _fix(use: TensorUse, method: str, placement: Placement, direction: str) -> tuple[str, str]:
    """(cause, fix) of the copy a tensor given/delivered this way implies."""
    dev = placement.device_type
    on = short(placement.provider) or "the device"
    name = use.name
    if use.role == "input":
        reader = placement.inputs_on_device.get(name) or placement.inputs_on_host.get(name, "")
        if direction == HOST_TO_DEVICE:
            given = {"numpy": "as numpy (host memory)", "ortvalue": f"as an OrtValue on {use.device}",
                     "bind_cpu_input": "with bind_cpu_input (host memory)",
                     "bind_input": f"with bind_input(device_type={use.device!r})",
                     "bind_ortvalue_input": f"with bind_ortvalue_input of an OrtValue on {use.device}"}.get(use.via, f"in host memory ({use.via})")
            cause = f"input '{name}' arrives {given} and is read on {on} by {reader}"
            if method == "run_with_iobinding":
                fix = (f"keep '{name}' on the device: binding.bind_ortvalue_input({name!r}, value_on_{dev}) with an OrtValue "
                       f"that lives on {dev} (e.g. an output of the previous run bound with bind_output, or "
                       f"ort.OrtValue.ortvalue_from_numpy(arr, {dev!r}, 0) created once and updated with update_inplace)")
            else:
                fix = (f"pass '{name}' as an OrtValue on {dev} (ort.OrtValue.ortvalue_from_numpy(arr, {dev!r}, 0), created "
                       f"once and reused) or bind it with binding.bind_ortvalue_input({name!r}, value_on_{dev})")
        else:
            cause = f"input '{name}' is given on {use.device} but read in host memory ({reader})"
            fix = (f"give '{name}' in host memory: binding.bind_cpu_input({name!r}, array) or a numpy array; "
                   f"binding it on {dev} adds a copy")
        return cause, fix
    writer = placement.outputs_on_device.get(name) or placement.outputs_on_host.get(name, "")
    if direction == DEVICE_TO_HOST:
        if method == "run":
            cause = f"output '{name}' is produced on {on} by {writer} and returned as numpy"
            fix = (f"use IO binding and keep '{name}' on the device: binding.bind_output({name!r}, {dev!r}) "
                   f"(or bind_ortvalue_output with a pre-allocated OrtValue on {dev}); copy to host only what you need")
        elif method == "run_with_ort_values":
            cause = f"output '{name}' is produced on {on} by {writer} and run_with_ort_values returns it in host memory"
            fix = f"use run_with_iobinding with binding.bind_output({name!r}, {dev!r}) to keep it on the device"
        else:
            how = "bind_output(name) (cpu)" if use.via == "bind_output" else f"an OrtValue on {use.device}"
            cause = f"output '{name}' is bound to host memory ({how}) but produced on {on} by {writer}"
            fix = f"binding.bind_output({name!r}, {dev!r}) (or bind_ortvalue_output with an OrtValue on {dev})"
    else:
        cause = f"output '{name}' is produced in host memory ({writer}) but bound on {use.device}"
        fix = f"binding.bind_output({name!r}) (cpu): binding it on the device adds a copy"
    return cause, fix


def _copy_direction(use: TensorUse, needed: str, output: bool) -> str:
    """Which way ORT copies ``use`` where the model needs it ``needed`` ("host", "device"): a host input needed on
    the device goes host→device, an output there comes back device→host; "" where nothing is copied or it is not
    known (no tensor, no device, an empty one)."""
    if not (use.is_tensor and use.device and needed != "unknown") or use.bytes == 0:
        return ""
    host = is_host(use.device)
    if host and needed == "device":
        return DEVICE_TO_HOST if output else HOST_TO_DEVICE
    if not host and needed == "host":
        return HOST_TO_DEVICE if output else DEVICE_TO_HOST
    return ""


def _analyse_call(call: CallObservation, placement: Placement, basis: Basis, use_census: bool) -> CallReport:
    inputs: list[TensorReport] = []
    outputs: list[TensorReport] = []
    expected: list[tuple[TensorUse, Direction, str]] = []  # (use, direction, phase)
    for use in call.inputs:
        needed = _where(placement, use)
        # an input copied when it was bound for an earlier call is not copied again
        direction = _copy_direction(use, needed, output=False) if use.fresh else ""
        inputs.append(TensorReport(use.name, "input", use.via, use.device, needed, direction, use.bytes))
        if direction:
            phase = "bind" if call.method == "run_with_iobinding" and use.via.startswith("bind_") else "run"
            expected.append((use, Direction(direction), phase))
    for use in call.outputs:
        needed = _where(placement, use)
        direction = _copy_direction(use, needed, output=True)
        outputs.append(TensorReport(use.name, "output", use.via, use.device, needed, direction, use.bytes))
        if direction:
            expected.append((use, Direction(direction), "run"))

    report = CallReport(index=call.index, method=call.method, inputs=inputs, outputs=outputs, transfers=[],
                        error=call.error)
    if any(t.via == "bound_before_watch" and not t.device for t in call.inputs):
        names = [t.name for t in call.inputs if t.via == "bound_before_watch" and not t.device]
        report.discrepancies.append(f"input(s) {names} were bound before the watch started, in host memory or by "
                                    "pointer: where they live is not known; bind them inside the watch")
    have_census = use_census and call.traced
    if call.error and not have_census:
        # ORT refuses a bad feed (a dtype, a shape, a name) before it copies anything, and how far a call that
        # failed later got is not known without a census: nothing is counted for it
        report.discrepancies.append("the call raised: no transfer is counted for it (what it copied before it "
                                    "failed is not known without a census)")
    elif not have_census:
        for use, direction, phase in expected:
            cause, fix = _fix(use, call.method, placement, direction)
            report.transfers.append(Transfer(call=call.index, kind=FEED if use.role == "input" else FETCH,
                                             direction=direction, tensor=use.name, bytes=use.bytes, basis=basis,
                                             phase=phase, cause=cause, fix=fix))
        if placement.source not in (PLACEMENT_HOST_ONLY, PLACEMENT_UNKNOWN):
            fed = {u.name: u.bytes for u in call.inputs}
            for site in placement.model_sites:
                nbytes = None
                if call.profile is not None:
                    hit = [m for m in call.profile.memcpy_nodes if m.name == site.node]
                    nbytes = sum(m.bytes for m in hit) if hit else None
                if nbytes is None and site.kind == MEMCPY_NODE and site.direction == HOST_TO_DEVICE:
                    nbytes = fed.get(site.tensor)  # a graph input copied by a MemcpyFromHost: the array given
                report.transfers.append(Transfer(call=call.index, kind=site.kind, direction=site.direction,
                                                 tensor=site.tensor, bytes=nbytes, basis=basis, node=site.node,
                                                 cause=site.cause, fix=_MODEL_FIX))
    else:
        report = replace(report, census=_match_census(call, placement, expected, report))
    return replace(report, fixes=list(dict.fromkeys(t.fix for t in report.transfers if t.user and t.fix)))


_MODEL_FIX = ("the model's own transfer: IO binding cannot remove it; only a model or placement change does "
              "(see `ortcopy-doctor check`)")


def _match_census(call: CallObservation, placement: Placement, expected: list[tuple[TensorUse, Direction, str]],
                  report: CallReport) -> dict[str, list[int]]:
    """Name every host<->device memcpy CUPTI saw in this call; returns the call's census totals (direction ->
    [count, bytes]).

    Feed copies happen before the first node runs (or inside bind_*), fetch copies after the last: expected feeds
    take the earliest record of their direction and size, expected fetches the latest. What remains is the
    model's: Memcpy nodes in ORT's order (sizes from the profile where there is one), then in-kernel transfers;
    anything else is unexplained. Expected copies the census does not show are discrepancies.
    """
    pool: list[tuple[str, TransferRecord]] = []
    totals: dict[str, list[int]] = {}
    for bound in call.bind_records:
        for r in bound.records:
            pool.append(("bind", r))
    for r in sorted(call.records, key=lambda r: (r.api_start_ns or r.start_ns, r.start_ns)):
        pool.append(("run", r))
    for _, r in pool:
        entry = totals.setdefault(r.direction, [0, 0])
        entry[0] += 1
        entry[1] += r.bytes
    host_device = [i for i, (_, r) in enumerate(pool) if r.direction in (HOST_TO_DEVICE, DEVICE_TO_HOST)]
    used: set[int] = set()

    def take(direction: str, nbytes: Optional[int], phase: str, latest: bool) -> Optional[int]:
        order = list(reversed(host_device)) if latest else host_device
        for exact in (True, False):
            for want_phase in (phase, None):
                for i in order:
                    ph, r = pool[i]
                    if i in used or r.direction != direction:
                        continue
                    if want_phase is not None and ph != want_phase:
                        continue
                    if exact and nbytes is not None and r.bytes != nbytes:
                        continue
                    if not exact and nbytes is not None:
                        continue  # a known size matches only exactly
                    return i
        return None

    for use, direction, phase in sorted(expected, key=lambda e: e[0].role != "input"):
        i = take(direction, use.bytes, phase, latest=use.role == "output")
        cause, fix = _fix(use, call.method, placement, direction)
        if i is None:
            size = "?" if use.bytes is None else fmt_bytes(use.bytes)
            report.discrepancies.append(f"expected a {direction} copy of {use.role} '{use.name}' ({size}) "
                                        "but the census shows none")
            continue
        used.add(i)
        ph, r = pool[i]
        report.transfers.append(Transfer(call=call.index, kind=FEED if use.role == "input" else FETCH,
                                         direction=direction, tensor=use.name, bytes=r.bytes, basis=BASIS_CENSUS,
                                         phase=ph, src_kind=r.src_kind, dst_kind=r.dst_kind, duration_ns=r.end_ns - r.start_ns, cause=cause, fix=fix))
    # The model's transfers, in ORT's order per direction.
    sites = {d: [s for s in placement.model_sites if s.direction == d and s.kind == MEMCPY_NODE]
             for d in (HOST_TO_DEVICE, DEVICE_TO_HOST)}
    kernels = [s for s in placement.model_sites if s.kind == IN_KERNEL]
    kernels_free = list(kernels)  # each kernel's transfer once a call before any twice
    profile_bytes = {m.name: m.bytes for m in (call.profile.memcpy_nodes if call.profile else [])}
    remaining = [i for i in host_device if i not in used]
    for direction in (HOST_TO_DEVICE, DEVICE_TO_HOST):
        free = list(sites[direction])
        for i in [i for i in remaining if pool[i][1].direction == direction]:
            ph, r = pool[i]
            site = next((s for s in free if profile_bytes.get(s.node) == r.bytes), None)
            if site is None and free:
                site = free[0]  # ORT's order; the profile's sizes, where there is one, matched first
            if site is None:  # a kernel's own transfer in this direction (NonZero's count, an RNN's lengths)
                site = next((s for s in kernels_free if s.direction == direction), None) or next(
                    (s for s in kernels if s.direction == direction), None)
                if site in kernels_free:
                    kernels_free.remove(site)
            if site is not None:
                if site in free:
                    free.remove(site)
                report.transfers.append(Transfer(call=call.index, kind=site.kind, direction=direction,
                                                 tensor=site.tensor, bytes=r.bytes, basis=BASIS_CENSUS, phase=ph,
                                                 node=site.node, src_kind=r.src_kind, dst_kind=r.dst_kind, duration_ns=r.end_ns - r.start_ns,
                                                 cause=site.cause, fix=_MODEL_FIX))
            else:
                report.transfers.append(Transfer(
                    call=call.index, kind=UNEXPLAINED, direction=direction, tensor="", bytes=r.bytes,
                    basis=BASIS_CENSUS, phase=ph, src_kind=r.src_kind, dst_kind=r.dst_kind, duration_ns=r.end_ns - r.start_ns,
                    cause="a memcpy of this call that neither the inputs/outputs nor a known Memcpy node or kernel explains"
                          + (f" (issued in {ph})" if ph != "run" else ""),
                    fix="run `ortcopy-doctor check` on the model with a census to attribute it"))
    return totals

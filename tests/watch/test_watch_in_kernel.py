"""A kernel's own transfers under watch, from the LSTM model the H200 ran (tests/fixtures/dynamo, lstm_state): each
LSTM on CUDA uploads its sequence lengths (8 B host-to-device for batch 2, every run). The watch's placement gives
every in-kernel site the direction of its kernel's rule, and a traced upload is named after its kernel, not left
unexplained."""

from __future__ import annotations

import json
import tarfile

from ortcopy_doctor.model.census import TransferRecord
from ortcopy_doctor.model.evidence import RuntimeNode
from ortcopy_doctor.model.vocabulary import FEED, FETCH, IN_KERNEL
from ortcopy_doctor.analysis.watch import analyse_watch
from ortcopy_doctor.watch.observations import (PLACEMENT_SESSION, CallObservation, TensorUse,
                                               WatchObservations)
from ortcopy_doctor.watch.placement import placement_from_nodes
from render_helpers import TESTS

CUDA = "CUDAExecutionProvider"


def _evidence() -> dict:
    with tarfile.open(TESTS / "fixtures" / "dynamo" / "reports.tar.gz") as tar:
        data = json.loads(tar.extractfile("lstm_state.cuda.json").read())
    evidence = data["evidence"]
    assert evidence["environment"]["ort_version"] == "1.31.1"
    return evidence


def _placement(evidence: dict):
    nodes = [RuntimeNode(**n) for n in evidence["nodes"]]
    return placement_from_nodes(nodes, [i["name"] for i in evidence["model"]["inputs"]],
                                [o["name"] for o in evidence["model"]["outputs"]], evidence["model"]["opsets"],
                                source=PLACEMENT_SESSION, provider=CUDA)


def test_the_lstm_sites_upload_and_name_no_tensor():
    """The LSTMs of this model have no sequence_lens input: the kernel makes the lengths up, so no tensor of the
    graph is copied (the site once named the LSTM's first output, and said device-to-host)."""
    sites = [(s.node, s.direction, s.tensor) for s in _placement(_evidence()).model_sites]
    assert sites == [("node_LSTM_55", "host_to_device", ""), ("node_LSTM_116", "host_to_device", "")]


def test_a_traced_run_s_uploads_are_the_lstm_kernels_own():
    evidence = _evidence()
    records = sorted((TransferRecord(**r) for r in evidence["census"]["records"]), key=lambda r: r.start_ns)
    one_run = records[:10]  # 3 traced runs of 10 records each: 3 feeds, 2 uploads, 2 device copies, 3 fetches
    assert sorted((r.direction, r.bytes) for r in one_run if r.bytes == 8) == [("host_to_device", 8)] * 2
    feeds = {f["name"]: f["bytes"] for f in evidence["feeds"]}
    inputs = [TensorUse(name, "input", "numpy", "cpu", feeds[name]) for name in ("x", "h0", "c0")]
    outputs = [TensorUse(name, "output", "returned", "cpu", None) for name in ("y", "hn", "cn")]
    call = CallObservation(index=0, method="run", inputs=inputs, outputs=outputs, traced=True, records=one_run)
    report = analyse_watch(WatchObservations(active_providers=[CUDA, "CPUExecutionProvider"],
                                             placement=_placement(evidence), census_backend="cupti-python",
                                             calls=[call]))
    transfers = report.calls[0].transfers
    assert sorted((t.kind, t.direction, t.node, t.bytes) for t in transfers if t.kind == IN_KERNEL) == [
        (IN_KERNEL, "host_to_device", "node_LSTM_116", 8), (IN_KERNEL, "host_to_device", "node_LSTM_55", 8)]
    assert sorted(t.kind for t in transfers) == [FEED] * 3 + [FETCH] * 3 + [IN_KERNEL] * 2

"""Only what happens is counted: copies of If branches (and loop bodies) that did not run, or that a prediction's
other branch would make, are listed apart from the copies per run (analysis/branches.py).

The measured cases are a real onnxruntime CPU check of models.if_branch_transfers (its profile says which branch
ran) with the nodes placed as the CUDA EP places them (every op there has a CUDA kernel but Celu): no GPU here, and
no recorded GPU evidence runs an If branch with copies of its own (tests/fixtures: the NonMaxSuppression of the
detection models' untaken branches transfers only depending on the data, which the table never predicts).
"""

from __future__ import annotations

import msgspec
import json

import onnx

import models
from ortcopy_doctor import check
from ortcopy_doctor.analysis.branches import heaviest_branches, split_conditional
from ortcopy_doctor.model.copies import Copy
from ortcopy_doctor.model.evidence import CensusEvidence, Evidence, RuntimeNode
from ortcopy_doctor.model.vocabulary import EvidenceMode
from ortcopy_doctor.render.html import render_html
from ortcopy_doctor.render.text import render_text
from ortcopy_doctor.report.core import analyse
from schema_helpers import assert_valid_report

CUDA, CPU = "CUDAExecutionProvider", "CPUExecutionProvider"
THEN = "branch.then_branch"
ELSE = "branch.else_branch"


def _cpu_run(tmp_path, cond: str) -> Evidence:
    onnx.save(models.if_branch_transfers(), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", providers=["cpu"], values={"cond": cond}, warmup_runs=1, profiled_runs=2,
                   timed_runs=1)
    return report.evidence


def _placed_on_cuda(evidence: Evidence) -> Evidence:
    """The CPU run's evidence with the placement the CUDA EP gives these nodes (Celu has no CUDA kernel)."""
    nodes = [msgspec.structs.replace(n, provider=CPU if n.op_type == "Celu" else CUDA) for n in evidence.nodes]
    session = msgspec.structs.replace(evidence.session, requested_providers=[CUDA, CPU], active_providers=[CUDA, CPU])
    return msgspec.structs.replace(evidence, nodes=nodes, session=session, predicted=None)


def _rows(copies):
    return [(c.kind, c.direction, c.tensor, c.node, c.branch, c.count_per_run, c.bytes_per_run) for c in copies]


def test_a_measured_table_leaves_out_the_copies_of_the_branch_that_did_not_run(tmp_path):
    report = analyse(_placed_on_cuda(_cpu_run(tmp_path, "0")))  # else_branch ran: its Celu, no NonZero
    assert [(c.kind, c.tensor) for c in report.copies] == [("feed", "x"), ("fetch", "y")]
    assert _rows(report.conditional_copies) == [
        ("in_kernel", "device_to_host", "idx1", "then_nonzero1", THEN, 1, 4),
        ("in_kernel", "device_to_host", "idx2", "then_nonzero2", THEN, 1, 4),
        ("in_kernel", "device_to_host", "then_out", "then_nonzero3", THEN, 1, 4),
    ]
    s = report.summary
    assert (s.copies_per_run, s.in_kernel_transfers, s.bytes_per_run) == (2, 0, 16 + 32)  # y: 4 int64
    assert not [f for f in report.findings if f.rule == "OCD009"]  # no gate fails on what did not happen
    assert report.verdict.startswith("2 host↔device copies per run (48 B): 1 feed, 1 fetch; ")
    assert report.verdict.endswith("; 3 copies of If branches or loop bodies that did not run not counted "
                                   "(listed apart).")


def test_a_census_never_sees_the_branch_that_did_not_run(tmp_path):
    # With a census the table equals what was traced, and a predicted row no traced run shows stayed in it with a
    # count of 0 ("unknown size" in the table): so did the untaken branch's. The census here traced nothing at all
    # (no records): the feed and the fetch keep their rows at 0 per run, as before; the branch's are apart.
    evidence = _placed_on_cuda(_cpu_run(tmp_path, "0"))
    runs = sorted({e.run for e in evidence.run_events if not e.warmup})
    census = CensusEvidence(backend="cupti-python", backend_version="13.4.0", traced_runs=runs, clock_pairs=[[0, 0]])
    report = analyse(msgspec.structs.replace(evidence, census=census))
    assert [(c.kind, c.count_per_run) for c in report.copies] == [("feed", 0), ("fetch", 0)]
    assert [c.node for c in report.conditional_copies] == ["then_nonzero1", "then_nonzero2", "then_nonzero3"]
    assert not any("then_nonzero" in note for note in report.census.notes)


def test_a_measured_table_counts_the_branch_that_ran(tmp_path):
    report = analyse(_placed_on_cuda(_cpu_run(tmp_path, "1")))  # then_branch ran: three NonZero
    assert _rows(c for c in report.copies if c.kind == "in_kernel") == [
        ("in_kernel", "device_to_host", "idx1", "then_nonzero1", THEN, 1, 4),
        ("in_kernel", "device_to_host", "idx2", "then_nonzero2", THEN, 1, 4),
        ("in_kernel", "device_to_host", "then_out", "then_nonzero3", THEN, 1, 4),
    ]
    assert report.conditional_copies == []
    assert report.summary.in_kernel_transfers == 3


def test_the_untaken_branch_is_listed_apart_in_text_html_and_json(tmp_path):
    report = analyse(_placed_on_cuda(_cpu_run(tmp_path, "0")))
    text = render_text(report, width=200)
    assert ("May happen when another branch runs (did not run in the profiled runs; not counted):\n"
            "  - in-kernel device→host of 'idx1' by then_nonzero1 in branch.then_branch (4 B when it runs)\n") in text
    html = render_html(report)
    assert ('<ul id="conditional-copies"><li>in-kernel device→host of &#39;idx1&#39; by then_nonzero1 in '
            'branch.then_branch (4 B when it runs)</li>') in html
    data = json.loads(report.to_json())
    assert [(c["node"], c["branch"]) for c in data["conditional_copies"]] == [
        ("then_nonzero1", THEN), ("then_nonzero2", THEN), ("then_nonzero3", THEN)]
    assert list(data).index("conditional_copies") == list(data).index("copies") + 1
    assert [c["branch"] for c in data["copies"]] == [""] * len(data["copies"])  # counted copies belong to no branch
    assert_valid_report(data)


def test_a_prediction_counts_each_if_by_its_branch_with_the_most_copies(tmp_path):
    onnx.save(models.if_branch_transfers(), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", static=True)
    # then_branch: 3 NonZero of 4 B; else_branch: 2 Memcpy nodes of 16 B around its Celu. Not 7 copies per run.
    assert [(c.kind, c.node, c.branch) for c in report.copies] == [
        ("feed", "", ""), ("fetch", "", ""), ("in_kernel", "then_nonzero1", THEN), ("in_kernel", "then_nonzero2", THEN),
        ("in_kernel", "then_nonzero3", THEN)]
    assert _rows(report.conditional_copies) == [
        ("memcpy_node", "device_to_host", "negated", "MemcpyToHost", ELSE, 1, 16),
        ("memcpy_node", "host_to_device", "activated", "MemcpyFromHost", ELSE, 1, 16)]
    s = report.summary
    assert (s.copies_per_run, s.in_kernel_transfers, s.memcpy_nodes) == (5, 3, 0)
    assert s.bytes_per_run == 16 + 32  # the bytes of the heaviest branch (else: 32 B), not those counted (12 B)
    assert report.verdict == (
        "5 host↔device copies per run (predicted) (48 B + 1 of unknown size, each If by its branch of the most bytes): "
        "1 feed, 1 fetch, 3 in-kernel; 1 node(s) fall back to CPU; IO binding removes 2; each If counted by its "
        "branch with the most copies (2 copies of other branches listed apart).")
    assert "May happen instead, when another branch runs" in render_text(report, width=200)


def test_the_prediction_of_a_cpu_machine_counts_alternatives_too(tmp_path):
    onnx.save(models.if_branch_transfers(), str(tmp_path / "m.onnx"))
    report = check(tmp_path / "m.onnx", values={"cond": "1"}, warmup_runs=0, profiled_runs=1, timed_runs=1)
    assert report.prediction is not None
    assert report.prediction.summary.copies_per_run == 5
    assert [c.node for c in report.prediction.conditional_copies] == ["MemcpyToHost", "MemcpyFromHost"]
    data = json.loads(report.to_json())
    assert [c["tensor"] for c in data["prediction"]["conditional_copies"]] == ["negated", "activated"]
    assert data["conditional_copies"] == []  # the CPU session itself has no copies
    assert_valid_report(data)


def _node(name: str, graph: str, op_type: str = "NonZero") -> RuntimeNode:
    return RuntimeNode(name=name, op_type=op_type, domain="", provider=CUDA, graph=graph)


def _copy(node: str, branch: str, nbytes: int) -> Copy:
    return Copy(kind="in_kernel", direction="device_to_host", tensor="", bytes_per_run=nbytes, node=node,
                branch=branch)


def test_nested_ifs_whose_node_names_hold_slashes(tmp_path):
    # As silero_vad.onnx names them: an If inside a branch, its own branches under names with "/"
    evidence = analyse(_placed_on_cuda(_cpu_run(tmp_path, "1"))).evidence
    outer_then, outer_else = "If_0.then_branch", "If_0.else_branch"
    inner = "If_0.then_branch/If_0_then/decoder/If_1"
    nodes = [_node("If_0", "", "If"), _node("If_0_then/decoder/If_1", outer_then, "If"),
             _node("a", f"{inner}.then_branch"), _node("b", f"{inner}.else_branch"), _node("c", f"{inner}.else_branch"),
             _node("d", outer_else), _node("e", "Loop_2.body")]
    static = msgspec.structs.replace(evidence, nodes=nodes, mode=EvidenceMode.STATIC)
    copies = [_copy("a", f"{inner}.then_branch", 100), _copy("b", f"{inner}.else_branch", 1),
              _copy("c", f"{inner}.else_branch", 1), _copy("d", outer_else, 1), _copy("e", "Loop_2.body", 1)]
    counted, apart = split_conditional(static, copies)
    assert [c.node for c in counted] == ["b", "c", "e"]  # the inner If's else (2 copies) inside the outer then
    assert [c.node for c in apart] == ["a", "d"]
    assert [c.node for c in heaviest_branches(static, counted, apart)] == ["e", "a"]  # 100 B against 2 B and 1 B

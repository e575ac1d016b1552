"""The sweep across shapes (``check --dim batch=1,8,64``): one row of numbers per shape from its report, the verdict
across them, and the batch size from which CUDA beats the CPU provider. Pure: no session, no ORT."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ortcopy_doctor.analysis.stats import median_ci
from ortcopy_doctor.model.format import fmt_bytes
from ortcopy_doctor.model.providers import short
from ortcopy_doctor.model.report import Report, ReportDocument
from ortcopy_doctor.model.schema import SCHEMA_ID as REPORT_SCHEMA_ID, generated
from ortcopy_doctor.model.vocabulary import FasterSide
from ortcopy_doctor.report.core import analyse
from ortcopy_doctor.model.sweep import (SWEEP_FORMAT, SWEEP_FORMAT_VERSION, ShapeResult, ShapeSet, ShapeSweep,
                                        ShapeSwitch)


def shape_result(shape: ShapeSet, report: Report) -> ShapeResult:
    """The row of one shape: its report's timings (first run apart, steady-state median with its 95% interval),
    copies and bytes per run, and the provider choice where it was measured."""
    timings = report.evidence.timings
    first = timings.first_run_ms if timings is not None and timings.first_run_ms > 0 else None
    median = low = high = None
    if timings is not None and timings.run_ms:
        median, low, high = median_ci(timings.run_ms)
    cuda = cpu = None
    faster = FasterSide.NONE
    choice = report.evidence.provider_choice
    if choice is not None and choice.cpu is not None:
        cuda, cpu = choice.cpu.used.median_ms, choice.cpu.other.median_ms
        faster = FasterSide(short(choice.cpu.faster)) if choice.cpu.faster else FasterSide.NONE
    return ShapeResult(label=shape.label, batch=shape.batch, first_ms=first, median_ms=median, ci_low_ms=low,
                       ci_high_ms=high, copies_per_run=report.summary.copies_per_run,
                       bytes_per_run=report.summary.bytes_per_run, cuda_ms=cuda, cpu_ms=cpu, faster=faster,
                       findings=len(report.findings), worst_severity=report.worst_severity() or "",
                       report=report.to_document())


def copy_share(row: ShapeResult) -> float:
    """The share of a run the copies' memcpy nodes take (0 where either time is unknown)."""
    memcpy_ms = row.report.summary.memcpy_node_time_us_per_run / 1000.0
    return memcpy_ms / row.median_ms if row.median_ms else 0.0


def break_even(rows: Sequence[ShapeResult]) -> str:
    """Where the provider choice was measured at two or more batch sizes: "CUDA wins from batch N" (the CPU
    provider faster or even below N, CUDA faster from N on), "keep the CPU provider at batch ≤ N" (CUDA never
    measured faster from some batch on, and the CPU provider faster at one), or "" (fewer than two measured batch
    sizes, CUDA faster at every one, or nothing measured apart)."""
    measured = sorted((r for r in rows if r.batch is not None and r.cuda_ms is not None and r.cpu_ms is not None),
                      key=lambda r: r.batch or 0)
    if len(measured) < 2:
        return ""
    cuda_from = None
    for index, row in enumerate(measured):
        if all(r.faster == FasterSide.CUDA for r in measured[index:]):
            cuda_from = row.batch
            break
    cpu_wins = [r.batch for r in measured if r.faster == FasterSide.CPU and r.batch is not None]
    if cuda_from is not None and cuda_from != measured[0].batch:
        return f"CUDA wins from batch {cuda_from}"
    if cpu_wins and cuda_from is None:
        return f"keep the CPU provider at batch ≤ {max(cpu_wins)}"
    return ""


def verdict(rows: Sequence[ShapeResult], even: str, switch: str = "") -> str:
    """One line across the shapes: the shape where the copies weigh most (largest share of a run in memcpy nodes,
    else most bytes), the shapes with error findings, the shapes where the CPU provider wins, the break-even, and
    what serving the shapes in turn recommends (``switch``, where something beats ORT's default)."""
    parts = [f"{len(rows)} shapes"]
    if not any(r.copies_per_run for r in rows):
        parts.append("no host<->device copy at any shape")
    else:
        worst = max(rows, key=lambda r: (copy_share(r), r.bytes_per_run))
        share = copy_share(worst)
        weight = f"{share:.0%} of the run in memcpy nodes" if share else fmt_bytes(worst.bytes_per_run)
        parts.append(f"copies weigh most at {worst.label} ({worst.copies_per_run} copies per run, {weight})")
    errors = [r.label for r in rows if r.worst_severity == "error"]
    if errors:  # e.g. CUDA requested and not active: said before any number is trusted
        parts.append(f"error findings at {', '.join(errors)} (see each shape's report)")
    cpu = [r.label for r in rows if r.faster == FasterSide.CPU]
    if cpu:
        parts.append(f"the CPU provider wins at {', '.join(cpu)} (launches and synchronisation outweigh the work there)")
    if even:
        parts.append(even)
    if switch:
        parts.append(switch)
    return ": ".join(parts[:2]) + "".join(f"; {p}" for p in parts[2:])


SWITCH_WORDS = {"EXHAUSTIVE": "EXHAUSTIVE (ORT's default)", "HEURISTIC": "HEURISTIC", "CPU": "the CPU provider"}
SWITCH_CODE = {
    "HEURISTIC": ("create the session with providers=[('CUDAExecutionProvider', {'cudnn_conv_algo_search': "
                  "'HEURISTIC'}), 'CPUExecutionProvider']"),
    "CPU": "create the session with providers=['CPUExecutionProvider']",
}


def _switch_label(option: str, switch: ShapeSwitch) -> str:
    return SWITCH_WORDS.get(option, switch.name(option))


def switch_advice(switch: ShapeSwitch | None) -> tuple[str, str]:
    """What the shapes served in turn recommend: the measured option fastest per call whose interval against ORT's
    default (EXHAUSTIVE) lies above 1, and the words with every option's time; ("", words) where none beats the
    default, ("", "") where nothing was measured."""
    if switch is None or not switch.options:
        return "", ""
    times = ", ".join(f"{_switch_label(o.option, switch)} {o.median_ms:.3g} ms" for o in switch.options)
    head = (f"with the shape changing at every call ({len(switch.shapes)} shapes in turn, {switch.rounds} rounds), "
            f"a call takes {times}")
    better = [o for o in switch.options if o.option != "EXHAUSTIVE" and o.ratio_low > 1.0]
    if not better:
        return "", f"{head}: nothing measured beats ORT's default"
    best = max(better, key=lambda o: o.ratio)
    gain = f"{best.ratio:.2f}x faster than ORT's default (95% CI {best.ratio_low:.2f}–{best.ratio_high:.2f})"
    if best.option == "padded":
        fix = (f"pad every input to {switch.padded_to} (zeros; crop the outputs) so that the shape repeats and "
               "cuDNN searches once")
    else:
        fix = SWITCH_CODE.get(best.option, best.option)
    return best.option, f"{head}: {fix}: {gain}"


SWEEP_SCHEMA_ID = "urn:ortcopy-doctor:sweep:1"


def sweep_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the sweep document (``check --dim batch=1,8 --json``), generated from
    ``ShapeSweep`` and the types it holds, each shape's report document included (``model/schema/sweep.schema.json``
    is this, written by tools/gen_schema.py; a test keeps it current)."""
    schema = generated(
        ShapeSweep, SWEEP_SCHEMA_ID, "ortcopy-doctor sweep",
        f"The JSON written by `ortcopy-doctor check --json` at several shapes (--dim batch=1,8, --shape x=A,B, --shapes "
        f"FILE) and by `report SWEEP.json --json` (format {SWEEP_FORMAT}, version {SWEEP_FORMAT_VERSION}); each "
        "shape's report is a report document (report.schema.json). Readers should ignore keys they do not know.")
    # each shape's report document is report.schema.json's, referred to by its $id rather than written again
    schema = _refer(schema, f"#/$defs/{ReportDocument.__name__}", REPORT_SCHEMA_ID)
    definitions = schema.pop("$defs")
    return {**schema, "$defs": {name: definitions[name] for name in sorted(_reached(schema, definitions))}}


def _refer(schema: Any, ref: str, target: str) -> Any:
    """``schema`` with every ``{"$ref": ref}`` made ``{"$ref": target}``."""
    if isinstance(schema, dict):
        return {k: (target if k == "$ref" and v == ref else _refer(v, ref, target)) for k, v in schema.items()}
    if isinstance(schema, list):
        return [_refer(v, ref, target) for v in schema]
    return schema


def _reached(schema: Any, definitions: dict[str, Any]) -> set[str]:
    """The names of ``definitions`` that ``schema`` refers to (``#/$defs/NAME``), directly or through them."""
    found: set[str] = set()
    pending = [schema]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#/$defs/") and ref[8:] not in found:
                found.add(ref[8:])
                pending.append(definitions[ref[8:]])
            pending.extend(v for k, v in node.items() if k != "$ref")
        elif isinstance(node, list):
            pending.extend(node)
    return found


def reanalysed(document: ShapeSweep) -> tuple[ShapeSweep, list[Report]]:
    """A sweep as written (``check --dim ... --json``) made again by this code: each shape's report re-analysed from
    its evidence under the current rules, the rows, the verdict and the shapes-in-turn advice recomputed (``report
    SWEEP.json``)."""
    reports = [analyse(row.report.evidence) for row in document.shapes]
    shapes = [ShapeSet(label=row.label, batch=row.batch) for row in document.shapes]
    return sweep(shapes, reports, document.switch), reports


def sweep(shapes: Sequence[ShapeSet], reports: Sequence[Report], switch: ShapeSwitch | None = None) -> ShapeSweep:
    """The sweep document of ``reports``, one per shape set in ``shapes`` (same order), with ``switch`` (the shapes
    served in turn, where measured) and what it recommends."""
    rows = [shape_result(s, r) for s, r in zip(shapes, reports)]
    even = break_even(rows)
    recommended, advice = switch_advice(switch)
    return ShapeSweep(verdict=verdict(rows, even, advice if recommended else ""), break_even=even, shapes=rows,
                      switch=switch, switch_advice=advice, switch_recommended=recommended)


__all__ = ["break_even", "copy_share", "reanalysed", "shape_result", "sweep", "sweep_schema", "switch_advice", "verdict"]

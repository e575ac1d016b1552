"""What the run rules (OCD1xx) share: where in the program's code a hand-off, an upload or a download is made (the
call sites and creation sites the observations record), its bytes per iteration of its loop, and the finding.

A run finding's ``location`` is the program's code, ``file:function:line`` as recorded (the whole path; the text
report shortens it), or the session's label where the observations record no site (those of earlier versions);
``details["site"]`` holds the site alone ("" where none), ``details["subject"]`` what the finding is about in
words that do not move when the program's lines do (diff matches findings by it), and ``bytes_per_run`` the bytes
per iteration of the pipeline's loop where they are known.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Optional

from ortcopy_doctor.model.findings import Finding
from ortcopy_doctor.model.providers import is_device
from ortcopy_doctor.rules.registry import Rule, finding

if TYPE_CHECKING:
    from ortcopy_doctor.model.pipeline import HandOff, Pipeline, PipelineCall, PipelineObservations, PipelineReport


def _common(sites: Iterable[str]) -> str:
    """The site most calls were made from ("" where none was recorded); the first of equals, in the calls' order."""
    counts = Counter(s for s in sites if s)
    return counts.most_common(1)[0][0] if counts else ""


def _index(obs: PipelineObservations, label: str) -> int:
    return next((i for i, s in enumerate(obs.sessions) if s.label == label), -1)


def session_site(obs: PipelineObservations, label: str) -> str:
    """The site the program called the session of ``label`` from most often."""
    index = _index(obs, label)
    return _common(c.site for c in sorted(obs.calls, key=lambda c: c.seq) if c.session == index)


def created_site(obs: PipelineObservations, label: str) -> str:
    """Where the program created the session of ``label`` ("" where not recorded)."""
    index = _index(obs, label)
    return obs.sessions[index].created_at if index >= 0 else ""


def hand_off_sites(obs: PipelineObservations, h: HandOff) -> tuple[str, str]:
    """(the consumer's call site, the producer's call site) of the calls that made the hand-off ``h``: where the
    value goes back to the device, and where it left it."""
    producer, consumer = _index(obs, h.producer), _index(obs, h.consumer)
    by_seq: dict[int, PipelineCall] = {c.seq: c for c in obs.calls}
    consuming: list[str] = []
    producing: list[str] = []
    for call in sorted(obs.calls, key=lambda c: c.seq):
        if call.session != consumer:
            continue
        for value in call.inputs:
            link = value.link
            source = by_seq.get(link.seq) if link is not None else None
            if (value.name == h.input and link is not None and source is not None and source.session == producer
                    and link.output == h.output):
                consuming.append(call.site)
                producing.append(source.site)
    return _common(consuming), _common(producing)


def kept_on_cpu(report: PipelineReport) -> set[str]:
    """The sessions on the CPU that the replay after the program measured faster there (its fix: keep them)."""
    return {f.session for f in report.providers if f.faster and not is_device(f.faster) and not f.on_device}


def copies_apply(report: PipelineReport, p: Pipeline) -> bool:
    """Whether the copies the report counts for pipeline ``p`` are the program's to remove: not where they are
    predicted for the device and every session of it stays on the CPU, which the replay measured faster (the
    verdict says they do not apply)."""
    return not (p.bytes_predicted and p.sessions and set(p.sessions) <= kept_on_cpu(report))


def per_iteration(bytes_per_call: Optional[int], calls: int, iterations: int) -> Optional[int]:
    """Bytes per iteration of a loop of ``iterations`` of something that moved ``bytes_per_call`` on ``calls``
    calls; None where the size is unknown."""
    if bytes_per_call is None:
        return None
    return round(bytes_per_call * calls / max(1, iterations))


def hand_off_bytes_per_iteration(h: HandOff, iterations: int) -> Optional[int]:
    """A hand-off's bytes per iteration both ways (device->host and back), over ``iterations``; None where neither
    direction's size is known."""
    if h.d2h_bytes_per_call is None and h.h2d_bytes_per_call is None:
        return None
    return per_iteration((h.d2h_bytes_per_call or 0) + (h.h2d_bytes_per_call or 0), h.calls, iterations)


def run_finding(rule: Rule, message: str, fix: str, *, site: str, fallback: str, subject: str,
                bytes_per_iteration: Optional[int] = None, predicted: bool = False, **details: object) -> Finding:
    """A finding of run rule ``rule`` located at ``site`` (``fallback``, the session's label, where none is
    recorded); ``predicted``: its bytes are predicted for the device (no device provider was active)."""
    return finding(rule, message, fix, location=site or fallback, bytes_per_run=bytes_per_iteration,
                   predicted=predicted, site=site, subject=subject, **details)


__all__ = ["copies_apply", "created_site", "hand_off_sites", "kept_on_cpu", "per_iteration", "run_finding",
           "session_site"]

"""How copy kinds and directions read in the terminal and the HTML report (no rich here: the HTML report and
``check -q`` load no terminal renderer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ortcopy_doctor.model.format import fmt_bytes

if TYPE_CHECKING:
    from ortcopy_doctor.model.copies import Copy

KIND_LABEL = {"feed": "feed copy", "fetch": "fetch copy", "memcpy_node": "Memcpy node", "in_kernel": "in-kernel",
              "unexplained": "unexplained"}
DIRECTION_LABEL = {"host_to_device": "host→device", "device_to_host": "device→host"}



def conditional_title(static: bool) -> str:
    """The heading of a report's conditional copies (``Report.conditional_copies``): a prediction's other If
    branches, or the branches and loop bodies a measured run did not take."""
    if static:
        return ("May happen instead, when another branch runs (not counted: an If runs one branch, and each If is "
                "counted by its branch with the most copies):")
    return "May happen when another branch runs (did not run in the profiled runs; not counted):"


def conditional_line(copy: Copy) -> str:
    """One conditional copy: what kind, which way, of which tensor, by which node, in which branch, and its size."""
    tensor = f" of '{copy.tensor}'" if copy.tensor else ""
    size = "unknown size" if copy.bytes_per_run is None else f"{fmt_bytes(copy.bytes_per_run)} when it runs"
    return (f"{KIND_LABEL.get(copy.kind, copy.kind)} {DIRECTION_LABEL.get(copy.direction, copy.direction)}{tensor} "
            f"by {copy.node or '?'} in {copy.branch or 'the main graph'} ({size})")


__all__ = ["DIRECTION_LABEL", "KIND_LABEL", "StatedOnce", "conditional_line", "conditional_title"]


class StatedOnce:
    """ORT's reason why the requested provider is not active (a 220-character library error on a machine without
    CUDA) as the first line that holds it says it; every later line that would repeat it refers back instead."""

    def __init__(self, reason: str | None) -> None:
        self.reason = (reason or "").strip().splitlines()[0] if reason and reason.strip() else ""
        self.stated = False

    def __call__(self, text: str) -> str:
        reason = self.reason
        if not reason or reason not in text:
            return text
        if not self.stated:
            self.stated = True
            return text
        return text.replace(f" ({reason})", " (reason above)").replace(f": {reason}", " (reason above)").replace(
            reason, "(reason above)")

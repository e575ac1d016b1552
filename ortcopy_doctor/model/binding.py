"""The binding plan as data: where each input and output should live for IO binding, the state carried between runs,
and the code that binds them (``analysis.binding.make_plan`` computes it; the report JSON holds it as ``binding``)."""

from __future__ import annotations

import msgspec
from msgspec import field
from typing import Optional

from ortcopy_doctor.model.evidence import Dim
from ortcopy_doctor.model.vocabulary import BindingPlace, Role, StateBasis


class BindingEntry(msgspec.Struct, frozen=True):
    """Where one input or output should live for IO binding, and why."""

    name: str
    role: Role  # input, output
    place: BindingPlace  # device, host, unbound
    dtype: str | None
    shape: list[Dim] | None
    preallocate: bool = False
    reason: str = ""
    # State carried between runs: on an input, the output of the previous run it takes; on an output, the input
    # of the next run it becomes.
    state_pair: Optional[str] = None
    # Why the state pair is taken as one (StateBasis: given, recurrent_node, convention); "" without a pair.
    state_basis: str = ""
    # A device input that a CPU node reads too: ORT copies it to host when it is bound, so the code binds it again
    # before each run (new data written in place would not reach the CPU node).
    rebind: bool = False


class StateCandidate(msgspec.Struct, frozen=True):
    """An input and an output that may be the same state carried from one run to the next, and on what basis."""

    input: str
    output: str
    basis: StateBasis
    detail: str = ""


class BindingPlan(msgspec.Struct, frozen=True):
    """The binding of every input and output of the model, and the code that binds them (``applicable`` is False,
    with the ``reason``, where no device provider is active)."""

    entries: list[BindingEntry] = field(default_factory=list)
    device_type: str = "cuda"
    device_id: int = 0
    applicable: bool = True
    reason: str = ""
    code: str = ""
    # Inputs and outputs alike in name and shape only (StateBasis.GUESS): said, not carried by the code; --state
    # IN=OUT carries one.
    possible_state: list[StateCandidate] = field(default_factory=list)
    # What running ``code`` next to plain run() showed (``analysis.binding.code_verdict``); where it failed, ``code``
    # is "".
    code_check: str = ""

    @property
    def inputs(self) -> list[BindingEntry]:
        """The entries of the model's inputs, in the model's order."""
        return [e for e in self.entries if e.role == "input"]

    @property
    def outputs(self) -> list[BindingEntry]:
        """The entries of the model's outputs, in the model's order."""
        return [e for e in self.entries if e.role == "output"]

    def entry(self, name: str, role: str) -> BindingEntry | None:
        """The entry of input or output (``role``) ``name``; None where there is none."""
        return next((e for e in self.entries if e.name == name and e.role == role), None)

    @property
    def state_pairs(self) -> list[tuple[str, str]]:
        """(input, output) pairs of state carried from one run to the next."""
        return [(e.name, e.state_pair) for e in self.inputs if e.state_pair]


__all__ = ["BindingEntry", "BindingPlace", "BindingPlan", "StateCandidate"]

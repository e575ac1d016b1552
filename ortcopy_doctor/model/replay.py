"""A session's calls replayed on two execution providers, timed in turn: which one is faster for the model at the
program's own inputs (``run``'s providers audit; ``collect/ep_compare.py`` measures, ``watch/replay.py`` replays).

Plain data: each provider's times per input signature, the ratio of their medians with its bootstrap interval
(``analysis/stats.ratio_ci``, computed where measured), and the words the report prints.
"""

from __future__ import annotations

import msgspec
from msgspec import field
from typing import Optional

from ortcopy_doctor.model.providers import short


class ProviderTiming(msgspec.Struct, frozen=True):
    """One provider's calls at one input signature: the first call (the session's warm-up at that shape: memory
    allocation, cuDNN's algorithm search) apart, then the median of the timed calls, with the raw samples (ms)."""

    provider: str  # the first provider of the session (CUDAExecutionProvider, CPUExecutionProvider)
    first_ms: float
    median_ms: float
    samples_ms: list[float] = field(default_factory=list)


class ShapeComparison(msgspec.Struct, frozen=True):
    """Both providers at one input signature of the program, timed in turn (one call of each per round, the
    order alternating), numpy in and numpy out: the copies the program's own calls make are included."""

    shape: str  # each input's shape in the call's order (1x3x736x1312, 2x1x128)
    program_calls: int  # the program's calls with this signature
    used: ProviderTiming  # the provider the program's session ran on
    other: ProviderTiming  # the other one
    # median(used) / median(other) with its 95% interval: above 1 means ``other`` is faster
    ratio: float = 0.0
    ratio_low: float = 0.0
    ratio_high: float = 0.0

    @property
    def faster(self) -> str:
        """The provider the interval shows faster, or "" where it includes 1 (within noise)."""
        if self.ratio_low > 1.0:
            return self.other.provider
        if self.ratio_high < 1.0:
            return self.used.provider
        return ""

    def line(self) -> str:
        """``at 1x3x320x320 (20 calls): CPU 8.2 ms, CUDA 1.9 ms per call: CUDA 4.31x faster (95% CI 4.1–4.5)``."""
        used, other = short(self.used.provider), short(self.other.provider)
        times = f"{used} {self.used.median_ms:.3g} ms, {other} {self.other.median_ms:.3g} ms per call"
        if self.faster == self.other.provider:
            words = f"{other} {self.ratio:.2f}x faster (95% CI {self.ratio_low:.2f}–{self.ratio_high:.2f})"
        elif self.faster == self.used.provider:
            words = (f"{used} {1 / self.ratio:.2f}x faster (95% CI {1 / self.ratio_high:.2f}–"
                     f"{1 / self.ratio_low:.2f})")
        else:
            words = f"no measurable difference ({self.ratio:.2f}x, 95% CI {self.ratio_low:.2f}–{self.ratio_high:.2f})"
        return f"at {self.shape} ({self.program_calls} call(s) in the program): {times}: {words}"


class SwitchTiming(msgspec.Struct, frozen=True):
    """The session's calls when the input shape changes at every call (the program's signatures in turn, each run
    once before), on a fresh session of the device provider with one ``cudnn_conv_algo_search`` value."""

    option: str  # EXHAUSTIVE (ORT's default), HEURISTIC
    median_ms: float
    samples_ms: list[float] = field(default_factory=list)


class SessionReplay(msgspec.Struct, frozen=True):
    """One session of the program replayed after it ended on the provider it ran on and on the other one, with the
    program's own inputs (the first call at each of its first input signatures) and thread settings."""

    session: str  # the session's label
    used: str  # the provider the program's session ran on
    other: str  # the one it is compared with
    threads: str  # the session options both sessions were made with, in words
    shapes: list[ShapeComparison] = field(default_factory=list)
    error: str = ""  # why it could not be replayed ("" where it was)
    # A CUDA session of a model with convolutions, called at two or more signatures: its calls when the shape changes
    # at every call, under each cudnn_conv_algo_search value (ORT's default first)
    switch: list[SwitchTiming] = field(default_factory=list)

    def steady_ms(self) -> Optional[float]:
        """The median, over the signatures, of the used provider's calls when the shape repeats."""
        values = sorted(s.used.median_ms for s in self.shapes)
        return values[len(values) // 2] if values else None

    @property
    def verdict(self) -> Optional[str]:
        """The provider faster at every signature measured, or None where they disagree or none is faster."""
        winners = {s.faster for s in self.shapes}
        return winners.pop() if len(winners) == 1 and "" not in winners else None

    def summary(self) -> str:
        """One line: which provider is faster for this session at the program's inputs, and by how much."""
        if self.error:
            return f"session {self.session}: not replayed on {short(self.other)}: {self.error}"
        if not self.shapes:
            return f"session {self.session}: not replayed on {short(self.other)}: no call with numpy inputs was kept"
        lines = "; ".join(s.line() for s in self.shapes)
        return (f"session {self.session} (ran on {short(self.used)}) replayed on {short(self.used)} and "
                f"{short(self.other)} with the program's inputs, {self.threads}: {lines}")


class SearchTiming(msgspec.Struct, frozen=True):
    """A fresh CUDA session of the model with one ``cudnn_conv_algo_search`` value: its first run (at a shape it has
    not run: the algorithm search, where there is one, happens here) and the median of its runs after."""

    option: str  # EXHAUSTIVE (ORT's default), HEURISTIC, DEFAULT
    first_ms: float
    median_ms: float
    samples_ms: list[float] = field(default_factory=list)
    # cudnn_conv_use_max_workspace where the measurement set it ("0", "1"); "" where the session had its default
    # (``ProviderChoice.max_workspace_default``)
    max_workspace: str = ""

    @property
    def label(self) -> str:
        """``HEURISTIC``, or ``EXHAUSTIVE with cudnn_conv_use_max_workspace=0`` where the workspace was set."""
        return f"{self.option} with cudnn_conv_use_max_workspace={self.max_workspace}" if self.max_workspace \
            else self.option


class ProviderChoice(msgspec.Struct, frozen=True):
    """``check``'s measurement of whether the device provider is the right one for this model at these inputs, and
    with which convolution search (collect/provider_choice.py): the CUDA session against the CPU provider, timed in
    turn (copies included), and each ``cudnn_conv_algo_search`` value where the model has convolutions."""

    cpu: Optional[ShapeComparison] = None  # used: CUDA (the check's provider), other: the CPU provider
    cpu_threads: str = ""  # the CPU session's thread settings, in words
    search: list[SearchTiming] = field(default_factory=list)
    skipped: str = ""  # why nothing (or part) was measured
    # cudnn_conv_use_max_workspace as the CUDA provider reported it for the check's session (its default, or the
    # --provider-option given); "" where not read
    max_workspace_default: str = ""

    @property
    def cpu_faster(self) -> bool:
        """Whether the CPU provider measured faster than CUDA at these inputs (the interval excludes 1)."""
        return self.cpu is not None and self.cpu.faster == self.cpu.other.provider


__all__ = ["ProviderChoice", "ProviderTiming", "SearchTiming", "SessionReplay", "ShapeComparison", "SwitchTiming"]

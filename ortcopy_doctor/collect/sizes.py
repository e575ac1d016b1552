"""Sizes for dynamic dims, and values for control inputs, that no flag gives: chosen for a model of its kind.

A dynamic dim no ``--dim``/``--shape`` sizes is 1 (Polygraphy's and trtexec's convention), which suits a batch
but not every axis: a 1-sample audio chunk fails an STFT's reflect padding, a 1x1 image fails a detector's
upsample-and-concat and gives a text recogniser nothing to read (issue 36: 5 of 14 real models failed, 3 ran on a
1x3x1x1 image). So ``check`` chooses, in two steps, and records each choice with its reason (``AssumedDim.reason``,
``Feed.chosen``) where the terminal, the HTML and the JSON show it:

1. Up front, from the model alone (``choose``): an input that looks like an image (rank 4, 1, 3 or 4 channels
   fixed on axis 1 or 3, height and width dynamic) gets a real image size: 48x320 where an output reads like a
   text recogniser's per-step scores, 224x224 where an output is a class vector, 640x640 otherwise (a detector's).
   A (batch, samples) float input that feeds a reflect Pad or an STFT/DFT (audio framing), or is named like audio,
   gets 512 samples (32 ms at 16 kHz, a voice-activity chunk). A scalar input named like a sample rate (``sr``,
   ``sample_rate``) gets 16000. Every other dim stays 1.
2. Where a run at those sizes still fails (``next_sizing``), ORT's error names the failing node and why: the dims
   of the inputs that feed that node grow, to what the error asks where it says (a reflect Pad's pad + 1, the
   element count a Reshape's requested shape needs), else to the next of ``LADDER`` (powers of two from 32: what a
   stride of 2**k divides). Each retry is one run on the CPU EP, at most ``MAX_PROBE_RUNS`` of them, before the
   evidence session is made again with the sizes that ran.

``--strict-shapes`` chooses nothing; sizes and values given by ``--dim``/``--shape``/``--value``/``--inputs``
always win. Choices go through the same path as those flags (``build_feeds``: ``chosen`` dims recorded as
``AssumedDim`` with the chosen value, ``chosen_values`` fed as a ``--value`` is, ``FeedSource.VALUE``), so what
reads the feeds (the generated code) sees them as it sees the flags.
"""

from __future__ import annotations

import msgspec
import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from msgspec import field
from msgspec.structs import replace
from typing import Any

from ortcopy_doctor.collect.feeds import ChosenDim, ChosenValue
from ortcopy_doctor.knowledge.model_file import subgraphs, walk_nodes
from ortcopy_doctor.model.evidence import AssumedDim, ValueInfo

# Sizes a dim grows through after a failed run where the error says nothing more precise: powers of two from 32,
# so a stride of up to 32 (a detector's five halvings) divides each one.
LADDER = (32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384)
# Runs on the CPU EP that look for sizes after the first run failed, at most.
MAX_PROBE_RUNS = 4
# Elements of one input a probe may synthesize, at most (a dim stops growing there: 64 MB of float32).
MAX_PROBE_ELEMENTS = 1 << 24

SAMPLE_RATE = 16000
AUDIO_CHUNK = 512  # 32 ms at 16 kHz: Silero VAD's chunk, and enough for any STFT frame of 25-32 ms
DETECTOR_SIZE = (640, 640)  # YOLO's and PP-OCR's detection size; a multiple of 32, the stride of their heads
CLASSIFIER_SIZE = (224, 224)  # ImageNet classifiers' size
TEXT_LINE_SIZE = (48, 320)  # PaddleOCR's recogniser input (rec_image_shape 3,48,320)

_SAMPLE_RATE_NAMES = frozenset({"sr", "sample_rate", "samplerate", "sampling_rate", "sample_rate_hz", "fs",
                                "sampling_rate_hz"})
_AUDIO_WORDS = ("audio", "wav", "waveform", "pcm", "speech", "samples", "signal")
_CHANNELS = (1, 3, 4)
_INTEGER_OR_FLOAT = ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16", "float32",
                     "float64")
# Ops an audio input passes through before its framing (reshaped, cast, sliced, padded with a constant).
_PASS_THROUGH = frozenset({"Unsqueeze", "Squeeze", "Reshape", "Cast", "Identity", "Slice", "Concat", "Mul", "Div",
                           "Add", "Sub", "Pad"})
_FRAMING = frozenset({"STFT", "DFT", "MelWeightMatrix"})
# Ops that read an image as one (what makes a rank-4 input with 1, 3 or 4 channels an image), and those an image
# passes through before (normalized, transposed from NHWC, cast).
_SPATIAL = frozenset({"Conv", "ConvTranspose", "ConvInteger", "QLinearConv", "MaxPool", "AveragePool", "Resize",
                      "DepthToSpace", "SpaceToDepth", "GridSample"})
_IMAGE_PASS_THROUGH = frozenset({"Transpose", "Cast", "Mul", "Div", "Add", "Sub", "Identity", "Pad", "Slice",
                                 "Concat", "BatchNormalization", "Clip", "Relu", "QuantizeLinear", "DequantizeLinear"})
_IMAGE_WORDS = ("image", "img", "pixel", "picture", "photo")


class Sizing(msgspec.Struct, frozen=True):
    """What check chose: a size per (input, axis) and a value per scalar input (``ChosenDim``, ``ChosenValue``)."""

    dims: dict[tuple[str, int], ChosenDim] = field(default_factory=dict)
    values: dict[str, ChosenValue] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.dims or self.values)


def _open(dim: object, dims: Mapping[str, int]) -> bool:
    """A dim nothing sizes: no fixed size, and not a symbol --dim sizes."""
    if isinstance(dim, int) and dim >= 0:
        return False
    return not (isinstance(dim, str) and dim in dims)


def _fixed(dim: object) -> int | None:
    return dim if isinstance(dim, int) and dim >= 0 else None


def choose(model: Any, inputs: Sequence[ValueInfo], outputs: Sequence[ValueInfo], dims: Mapping[str, int],
           shapes: Mapping[str, object], values: Mapping[str, str]) -> Sizing:
    """Step 1 (module doc): sizes and values chosen from the model alone, for inputs no flag sizes or gives.
    ``dims``/``shapes``/``values``: the --dim/--shape/--value flags, which win."""
    sizing = Sizing()
    built: list[ModelGraph] = []

    def graph() -> ModelGraph:  # made where an input needs it: most models' inputs are neither images nor audio
        if not built:
            built.append(ModelGraph(model))
        return built[0]

    for value in inputs:
        if value.kind != "tensor" or value.shape is None or value.name in shapes:
            continue
        if value.name in values:
            continue
        if _is_sample_rate(value):
            sizing.values[value.name] = ChosenValue(
                str(SAMPLE_RATE), "named like a sample rate: 16 kHz, the rate speech models take")
            continue
        image = _image_axes(value, dims)
        if image is not None:
            reads = _image_evidence(value, image, graph())
            if reads:
                _choose_image(sizing, value, image, reads, outputs, dims)
                continue
        audio = _audio_reason(value, dims, graph)
        if audio:
            sizing.dims[(value.name, 1)] = ChosenDim(AUDIO_CHUNK, audio)
    return _shared(sizing, inputs)


def _is_sample_rate(value: ValueInfo) -> bool:
    shape = value.shape or []
    one_element = len(shape) <= 1 and all(_fixed(d) in (1, None) for d in shape)
    return (one_element and value.elem_type in _INTEGER_OR_FLOAT
            and value.name.strip().lower().replace("-", "_") in _SAMPLE_RATE_NAMES)


def _image_axes(value: ValueInfo, dims: Mapping[str, int]) -> tuple[int, int, int] | None:
    """(channel, height, width) axes of an input that looks like an image with its height or width open."""
    shape = value.shape or []
    if len(shape) != 4 or value.elem_type not in _INTEGER_OR_FLOAT:
        return None
    for channel, height, width in ((1, 2, 3), (3, 1, 2)):
        if _fixed(shape[channel]) in _CHANNELS and (_open(shape[height], dims) or _open(shape[width], dims)) \
                and all(_open(shape[a], dims) or (_fixed(shape[a]) or 0) > 4 for a in (height, width)):
            return channel, height, width
    return None


def _image_evidence(value: ValueInfo, axes: tuple[int, int, int], graph: ModelGraph) -> str:
    """Why ``value`` is an image: the spatial op it feeds ("feeds Conv 'c'"), or its name; "" where neither."""
    spatial = graph.spatial_op_of(value.name)
    if spatial:
        return f"feeds {spatial}"
    names = [value.name.lower()] + [str(value.shape[a]).lower() for a in axes[1:] if value.shape]
    word = next((w for w in (*_IMAGE_WORDS, "height", "width") if any(w in n for n in names)), "")
    return f"named like an image ('{word}')" if word else ""


def _choose_image(sizing: Sizing, value: ValueInfo, axes: tuple[int, int, int], reads: str,
                  outputs: Sequence[ValueInfo], dims: Mapping[str, int]) -> None:
    shape = value.shape or []
    channel, height, width = axes
    kind = f"an image ({shape[channel]} channels, {reads})"
    recogniser = next((o for o in outputs if _per_step_scores(o)), None)
    classifier = next((o for o in outputs if _class_vector(o)), None)
    if recogniser is not None:
        size = TEXT_LINE_SIZE
        why = (f"{kind}, and output '{recogniser.name}' gives scores per step, as a text recogniser does: a text line "
               f"of {size[0]}x{size[1]}, PaddleOCR's recogniser input")
    elif classifier is not None:
        size = CLASSIFIER_SIZE
        why = f"{kind}, and output '{classifier.name}' is a class vector: a classifier's {size[0]}x{size[1]}"
    else:
        size = DETECTOR_SIZE
        why = (f"{kind}, and no output is a class vector: a detector's {size[0]}x{size[1]} (a multiple of 32, the "
               "stride of its head)")
    for axis, wanted in ((height, size[0]), (width, size[1])):
        if _open(shape[axis], dims):
            sizing.dims[(value.name, axis)] = ChosenDim(wanted, why)


def _per_step_scores(output: ValueInfo) -> bool:
    """[batch, steps, classes] with the steps dynamic and the classes fixed: a CTC text recogniser's output."""
    shape = output.shape or []
    return len(shape) == 3 and _fixed(shape[1]) is None and (_fixed(shape[2]) or 0) > 1


def _class_vector(output: ValueInfo) -> bool:
    shape = output.shape or []
    return len(shape) == 2 and (_fixed(shape[1]) or 0) > 1


def _audio_reason(value: ValueInfo, dims: Mapping[str, int], graph: Callable[[], ModelGraph]) -> str:
    """Why ``value`` is a (batch, samples) audio input, or ""."""
    shape = value.shape or []
    if len(shape) != 2 or not (value.elem_type or "").startswith("float") or not _open(shape[1], dims):
        return ""
    framing = graph().framing_of(value.name)
    if framing:
        return f"{framing}: audio; {AUDIO_CHUNK} samples, a 32 ms chunk at 16 kHz"
    name = value.name.lower()
    word = next((w for w in _AUDIO_WORDS if w in name), "")
    if word:
        return f"named like audio ('{word}'): {AUDIO_CHUNK} samples, a 32 ms chunk at 16 kHz"
    return ""


def _shared(sizing: Sizing, inputs: Sequence[ValueInfo]) -> Sizing:
    """A size chosen for a named symbol given to every dim of that symbol (the first choice wins), so one symbol
    keeps one size; a dim ``?`` or with no name is its own."""
    by_symbol: dict[str, ChosenDim] = {}
    for value in inputs:
        for axis, dim in enumerate(value.shape or []):
            pick = sizing.dims.get((value.name, axis))
            if pick is not None and _named(dim):
                by_symbol.setdefault(str(dim), pick)
    for value in inputs:
        for axis, dim in enumerate(value.shape or []):
            if _named(dim) and str(dim) in by_symbol:
                sizing.dims[(value.name, axis)] = by_symbol[str(dim)]
    return sizing


def _named(dim: object) -> bool:
    return isinstance(dim, str) and dim not in ("", "?")


class ModelGraph:
    """The model's nodes, subgraphs included, by the tensors they read and write."""

    def __init__(self, model: Any) -> None:
        self.consumers: dict[str, list[Any]] = {}
        self.producer: dict[str, Any] = {}
        self.by_name: dict[str, Any] = {}
        self.inner_reads: dict[int, set[str]] = {}  # id(node) -> names read inside its subgraphs
        for _, node in walk_nodes(model.graph):
            for name in node.input:
                if name:
                    self.consumers.setdefault(name, []).append(node)
            for name in node.output:
                if name:
                    self.producer[name] = node
            if node.name:
                self.by_name.setdefault(node.name, node)
            if subgraphs(node):
                reads: set[str] = set()
                for _, sub in subgraphs(node):
                    for _, inner in walk_nodes(sub):
                        reads.update(n for n in inner.input if n)
                self.inner_reads[id(node)] = reads

    def _reaches(self, name: str, found: Callable[[Any], str], passing: frozenset[str], depth: int) -> str:
        """What ``found`` says of the first node (breadth first) that ``name`` reaches through at most ``depth``
        nodes of the ``passing`` op types, or ""."""
        frontier, seen = [name], {name}
        for _ in range(depth):
            following: list[str] = []
            for tensor in frontier:
                for node in self.consumers.get(tensor, []):
                    said = found(node)
                    if said:
                        return said
                    if node.op_type in passing:
                        following.extend(o for o in node.output if o and o not in seen)
                        seen.update(node.output)
            frontier = following
        return ""

    def framing_of(self, name: str, depth: int = 4) -> str:
        """How ``name`` reaches an audio framing op within ``depth`` nodes: "feeds Pad 'p' in reflect mode (an
        STFT's padding)", "feeds STFT 's'", or ""."""
        def framing(node: Any) -> str:
            if node.op_type == "Pad" and _attribute(node, "mode") == "reflect":
                return f"feeds Pad '{node.name}' in reflect mode (an STFT's padding)"
            return f"feeds {node.op_type} '{node.name}'" if node.op_type in _FRAMING else ""

        return self._reaches(name, framing, _PASS_THROUGH, depth)

    def spatial_op_of(self, name: str, depth: int = 4) -> str:
        """The first spatial op (Conv, a pooling, Resize) ``name`` reaches within ``depth`` nodes, as "Conv 'c'",
        or ""."""
        return self._reaches(name, lambda node: f"{node.op_type} '{node.name}'" if node.op_type in _SPATIAL else "",
                             _IMAGE_PASS_THROUGH, depth)

    def inputs_feeding(self, node_name: str, inputs: Iterable[str]) -> set[str] | None:
        """The graph inputs among ``inputs`` that the node named ``node_name`` depends on (through the tensors it
        reads, and those its subgraphs read from outside); None where no node has that name."""
        node = self.by_name.get(node_name)
        if node is None:
            return None
        wanted = set(inputs)
        found: set[str] = set()
        stack = list(node.input) + list(self.inner_reads.get(id(node), ()))
        seen: set[str] = set()
        while stack:
            tensor = stack.pop()
            if not tensor or tensor in seen:
                continue
            seen.add(tensor)
            if tensor in wanted:
                found.add(tensor)
            producer = self.producer.get(tensor)
            if producer is not None:
                stack.extend(producer.input)
                stack.extend(self.inner_reads.get(id(producer), ()))
        return found


def _attribute(node: Any, name: str) -> str:
    for attr in node.attribute:
        if attr.name == name:
            raw = attr.s
            return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    return ""


# --- step 2: after a failed run ---------------------------------------------------------------------------------

_NODE_RE = re.compile(r"running (\w+) node\. Name:'([^']*)'")
_PAD_RE = re.compile(r"(?:pre|post)-pad \((\d+)\) exceeds maximum allowed")
_AXIS_LENGTH_RE = re.compile(r"requires axis length >= (\d+)")
_RESHAPE_RE = re.compile(r"Input shape:\{([\d,]*)\}, requested shape:\{([-\d,]*)\}")


class RunFailure(msgspec.Struct, frozen=True):
    """What ORT's error says about a failed run: the innermost node named (op type, name) and its message."""

    op_type: str
    node: str
    message: str

    @classmethod
    def parse(cls, text: str) -> RunFailure:
        """The innermost ``running <Op> node. Name:'<name>'`` of ORT's error and the message after it."""
        found = _NODE_RE.findall(text)
        op_type, node = found[-1] if found else ("", "")
        message = text.rsplit("Status Message:", 1)[-1] if "Status Message:" in text else text
        message = re.sub(r"/\S+\.(?:h|cc|cpp|cu|cuh):\d+ (?:[^()]*\([^)]*\)\s*)?", "", message)
        message = re.sub(r"^\s*\w+\.h:\d+ \w+ ", "", message)  # "concatbase.h:133 PrepareForComputeImpl "
        message = re.sub(r"^[^.]* was false\.\s*", "", message.strip())  # the C++ assertion before the reason
        message = " ".join(message.split())
        return cls(op_type, node, message)

    def where(self) -> str:
        """"Pad 'stft_pad'" (or "the model" where ORT named no node)."""
        return f"{self.op_type} '{self.node}'" if self.node else "the model"

    def short(self) -> str:
        """The message, at most 160 characters."""
        text = self.message.rstrip(".")
        return text if len(text) <= 160 else text[:157] + "..."


def _need(failure: RunFailure, current: int, count: int) -> tuple[int | None, str]:
    """The size a dim at ``current`` (its input holding ``count`` elements in all) needs by what the error says,
    with the words that say why; (None, "") where the error says nothing precise."""
    pad = _PAD_RE.search(failure.message)
    if pad:
        return int(pad.group(1)) + 1, f"more than its pad of {pad.group(1)}"
    length = _AXIS_LENGTH_RE.search(failure.message)
    if length:
        return max(int(length.group(1)), current + 1), f"an axis length of at least {length.group(1)}"
    reshape = _RESHAPE_RE.search(failure.message)
    if reshape:
        seen = [int(d) for d in reshape.group(1).split(",") if d]
        requested = [int(d) for d in reshape.group(2).split(",") if d]
        if 0 in requested:
            return None, ""
        elements = math.prod(seen) if seen else count
        fixed = math.prod(d for d in requested if d > 0)
        if elements <= 0 or fixed <= 0:
            return None, ""
        shown = "{" + ",".join(str(d) for d in requested) + "}"
        if -1 in requested:
            factor = fixed // math.gcd(elements, fixed)
            return current * factor, f"a multiple of {fixed} elements for its requested shape {shown}"
        if fixed % elements == 0:
            return current * (fixed // elements), f"{fixed} elements for its requested shape {shown}"
    return None, ""


def next_sizing(inputs: Sequence[ValueInfo], graph: ModelGraph, sizing: Sizing, assumed: Sequence[AssumedDim],
                failure: RunFailure, probe: int) -> Sizing | None:
    """Step 2 (module doc): the sizing for the next run after ``failure`` at the sizes ``assumed`` records (the
    dims no flag sized, as they were run), or None where no dim can grow. ``probe``: the number of the run it is
    for (1 to ``MAX_PROBE_RUNS``), said in the reason."""
    shapes = {v.name: v.shape or [] for v in inputs}
    counts: dict[str, int] = {}
    for a in assumed:
        counts.setdefault(a.input, 1)
    for name in counts:
        sized = [a.value for a in assumed if a.input == name]
        fixed = [d for d in shapes.get(name, []) if isinstance(d, int) and d > 0]
        counts[name] = math.prod(sized) * math.prod(fixed)
    feeding = graph.inputs_feeding(failure.node, counts) if failure.node else None
    batches = {str(v.shape[0]) for v in inputs if v.shape and len(v.shape) > 1 and _named(v.shape[0])}
    # a batch (axis 0 of an input of rank 2 or more, or a dim of its symbol) stays 1: a run seldom fails for it
    open_dims = [a for a in assumed if not (a.axis == 0 and len(shapes.get(a.input, [])) > 1)
                 and not (_named(a.declared) and a.declared in batches)]
    grow = [a for a in open_dims if feeding is None or a.input in feeding] or open_dims
    if not grow:
        return None
    dims = dict(sizing.dims)
    changed = False
    done: set[str] = set()
    for a in grow:
        key = a.declared if _named(a.declared) else f"{a.input}:{a.axis}"
        if key in done:
            continue
        need, words = _need(failure, a.value, counts.get(a.input, a.value))
        if need is not None and need > a.value:
            size = need if "requested shape" in words else next((s for s in LADDER if s >= need), need)
        else:
            size = next((s for s in LADDER if s > a.value), 0)
            words = ""
        if not size or counts.get(a.input, 1) // max(a.value, 1) * size > MAX_PROBE_ELEMENTS:
            continue
        done.add(key)
        because = f"{words}: " if words else ""
        reason = (f"a run at {a.value} failed in {failure.where()} ({failure.short()}); {because}took {size} at "
                  f"probe run {probe} of at most {MAX_PROBE_RUNS}, on the CPU EP")
        pick = ChosenDim(size, reason, tuple(a.tried) + (a.value,))
        for other in inputs:
            for axis, dim in enumerate(other.shape or []):
                if (other.name, axis) == (a.input, a.axis) or (_named(a.declared) and dim == a.declared):
                    dims[(other.name, axis)] = pick
        changed = True
        if "requested shape" in words:
            break  # one dim makes a Reshape's count right; two would overshoot it
    return replace(sizing, dims=dims) if changed else None


def suggestion(inputs: Sequence[ValueInfo], graph: ModelGraph, failure: RunFailure, dims: Mapping[str, int]) -> str:
    """Where the failing node depends on a --dim the user gave and the error says what it needs, the flag that
    would get past it: "--dim samples=N with N >= 33 gets past Pad 'stft_pad'"; "" otherwise."""
    feeding = graph.inputs_feeding(failure.node, [v.name for v in inputs]) if failure.node else None
    for value in inputs:
        if feeding is not None and value.name not in feeding:
            continue
        shape = value.shape or []
        for axis, dim in enumerate(shape):
            if not (isinstance(dim, str) and dim in dims) or (axis == 0 and len(shape) > 1):
                continue
            current = dims[dim]
            count = math.prod(dims.get(d, 1) if isinstance(d, str) else (d if isinstance(d, int) and d > 0 else 1)
                              for d in shape)
            need, words = _need(failure, current, count)
            if need is None or need <= current:
                continue
            if "requested shape" in words:
                return f"--dim {dim}={need} would give {failure.where()} {words}"
            return f"--dim {dim}=N with N >= {need} would give {failure.where()} {words}"
    return ""


ProbeRun = Callable[[Sizing], "tuple[str | None, list[AssumedDim]]"]


def find_sizes(inputs: Sequence[ValueInfo], graph: ModelGraph, sizing: Sizing, assumed: Sequence[AssumedDim],
               failure_text: str, run: ProbeRun) -> tuple[Sizing | None, list[AssumedDim], str]:
    """Probe runs (``run``: the error text of a run at a sizing, None where it ran, and the dims as run) until one
    runs: (that sizing, its dims, ""), or (None, the dims of the last run, its error text) after
    ``MAX_PROBE_RUNS`` runs, where no dim can grow, or where a run fails as the one before did (sizes are not
    the problem)."""
    text = failure_text
    for probe in range(1, MAX_PROBE_RUNS + 1):
        step = next_sizing(inputs, graph, sizing, assumed, RunFailure.parse(text), probe)
        if step is None:
            return None, list(assumed), text
        error, ran = run(step)
        if error is None:
            return step, ran, ""
        if error == text:  # the sizes changed, ORT's error did not: they are not what it is about
            return None, ran, error
        sizing, assumed, text = step, ran, error
    return None, list(assumed), text


__all__ = ["AUDIO_CHUNK", "CLASSIFIER_SIZE", "DETECTOR_SIZE", "LADDER", "MAX_PROBE_ELEMENTS", "MAX_PROBE_RUNS",
           "ModelGraph", "RunFailure", "SAMPLE_RATE", "Sizing", "TEXT_LINE_SIZE", "choose", "find_sizes", "next_sizing",
           "suggestion"]

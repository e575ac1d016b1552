"""Parser of ORT's JSON profile (chrome trace format).

Events are sorted by ``ts``: ORT 1.31 writes them in end-time order. Node events are the
``*_kernel_time`` ones (``*_fence_before``/``*_fence_after`` exist only up to ORT 1.20 and are
skipped). Each ``model_run`` session event opens a run; node events are assigned to the run whose
time span holds them. Old profiles lack ``provider`` or ``op_name`` on some events: those fields
fall back to "" and the node name.

Every layout is read as a stream, never loaded whole: ORT (1.31.1 here, and every version read so far) writes one
event per line in a JSON array (``[``, then ``{...},`` lines, then ``]``), which a fast reader takes line by line;
any other layout (one line, pretty-printed, ``{"traceEvents": [...]}``, names of onnxruntime up to 1.30 written
unescaped) goes through ``iter_events``, which decodes one event at a time from chunks of the file. Memory grows
with the node events kept (``_Reducer``), not with the file.
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, Any

from ortcopy_doctor.model.errors import ModelError
from ortcopy_doctor.model.evidence import NodeEvent, RunEvent
from ortcopy_doctor.knowledge.model_file import dtype_itemsize
from ortcopy_doctor.knowledge.ort_versions import profile_names_escaped

_KERNEL_SUFFIX = "_kernel_time"

_PROFILE_TYPES = {
    "float": "float32", "double": "float64", "float16": "float16", "bfloat16": "bfloat16",
    "int8": "int8", "uint8": "uint8", "int16": "int16", "uint16": "uint16", "int32": "int32",
    "uint32": "uint32", "int64": "int64", "uint64": "uint64", "bool": "bool",
}


def load_events(path: Path, raw_names: bool = False) -> list[dict[str, Any]]:
    """The events of the ORT profile at ``path`` (a list, or the ``traceEvents`` of an object).

    ``raw_names``: the profile was written by an onnxruntime that writes event names unescaped (up to 1.30,
    ``knowledge.ort_versions``): each ``"name"`` value is taken as it stands, up to the ``"args"`` field ORT writes
    after it, and escaped before the file is parsed. Control characters inside strings are read either way.

    Raises ``ModelError`` where the file is not readable JSON or holds no list of events.
    """
    try:
        with Path(path).open("rb") as f:
            text = f.read().decode("utf-8", errors="replace")
        if raw_names:
            text = _RAW_NAME.sub(_escaped_name, text)
        data = json.loads(text, strict=False)
    except (OSError, ValueError) as exc:
        raise ModelError(f"profile {path} is not readable JSON ({exc})") from None
    if isinstance(data, dict):  # {"traceEvents": [...]} form
        data = data.get("traceEvents", [])
    if not isinstance(data, list):
        raise ModelError(f"profile {path} is not an ORT profile (expected a list of events)")
    return data


# A name as onnxruntime up to 1.30 writes it, unescaped (quotes, backslashes, newlines as they are): everything up to
# the "args" field that follows it in every event ORT writes.
_RAW_NAME = re.compile(r'"name" :"(.*?)","args" :', re.DOTALL)


def _escaped_name(match: re.Match[str]) -> str:
    return f'"name" :{json.dumps(match.group(1), ensure_ascii=False)},"args" :'


_ESCAPED_IN_JSON = re.compile(r'["\\\x00-\x1f]')


def profile_names_raw(ort_version: str, node_names: Iterable[str] | None) -> bool:
    """Whether to read the profile's node names as written (``parse_profile(raw_names=)``): onnxruntime up to 1.30
    writes them unescaped (``knowledge.ort_versions``), which matters only where a name of the graph ORT ran holds a
    character JSON escapes; ORT's own names (Memcpy nodes, fused nodes named after their first node) add none.
    ``node_names`` None (the graph is not known): by the version alone."""
    if profile_names_escaped(ort_version):
        return False
    return node_names is None or any(_ESCAPED_IN_JSON.search(name) for name in node_names)


def tensor_bytes(shape_entry: Any) -> int:
    """Bytes of one ``{"float": [2, 4]}`` entry of ``input_type_shape``; 0 where unknown."""
    if not isinstance(shape_entry, dict) or len(shape_entry) != 1:
        return 0
    ((type_name, dims),) = shape_entry.items()
    size = dtype_itemsize(_PROFILE_TYPES.get(type_name, ""))
    if not size or not isinstance(dims, list):
        return 0
    count = 1
    for d in dims:
        count *= int(d)
    return count * size


def parse_events(events: Iterable[dict[str, Any]], warmup_runs: int = 0) -> tuple[list[RunEvent], list[NodeEvent]]:
    """Runs and node events; the first ``warmup_runs`` runs are marked warm-up."""
    reducer = _Reducer()
    for event in events:
        reducer.add_event(event)
    return reducer.result(warmup_runs)


class _Reducer:
    """Keeps only what the report needs of each event, as it arrives: a profile of a million events is
    never held as a million dicts. Equal strings and shape lists are shared between events."""

    def __init__(self) -> None:
        self.runs: list[tuple[int, int, int]] = []  # (ts, seq, dur)
        self.nodes: list[tuple[Any, ...]] = []  # (ts, seq, name, op_type, provider, dur, inputs, outputs, bytes)
        self._strings: dict[str, str] = {}
        self._shapes: dict[str, list[Any]] = {}  # JSON text of a shape list -> the list (fast path)
        self._last_shapes: dict[tuple[str, int], list[Any]] = {}  # (node name, 0/1) -> last list seen (dict path)

    def _str(self, text: str) -> str:
        return self._strings.setdefault(text, text)

    def _share(self, name: str, which: int, shapes: list[Any]) -> list[Any]:
        key = (name, which)
        last = self._last_shapes.get(key)
        if last is not None and last == shapes:
            return last
        self._last_shapes[key] = shapes
        return shapes

    def add_event(self, event: Any) -> None:
        if not isinstance(event, dict) or "ts" not in event:
            return
        cat = event.get("cat")
        name = str(event.get("name", ""))
        if cat == "Session" and name == "model_run":
            self.runs.append((int(event["ts"]), len(self.runs) + len(self.nodes), int(event.get("dur", 0))))
        elif cat == "Node" and name.endswith(_KERNEL_SUFFIX):
            args = event.get("args") or {}
            node = self._str(name[: -len(_KERNEL_SUFFIX)])
            inputs = self._share(node, 0, list(args.get("input_type_shape") or []))
            outputs = self._share(node, 1, list(args.get("output_type_shape") or []))
            self._add_node(int(event["ts"]), node, args.get("op_name"), args.get("provider"), int(event.get("dur", 0)),
                           inputs, outputs, args.get("output_size"))

    def _add_node(self, ts: int, node: str, op_name: Any, provider: Any, dur: int, inputs: list[Any],
                  outputs: list[Any], output_size: Any) -> None:
        output_bytes = int(output_size) if output_size not in (None, "") else sum(tensor_bytes(o) for o in outputs)
        self.nodes.append((ts, len(self.runs) + len(self.nodes), node,
                           self._str(str(op_name)) if op_name is not None else node,
                           self._str(str(provider)) if provider is not None else "", dur, inputs, outputs,
                           output_bytes))

    def add_line(self, line: str) -> bool:
        """One line of ORT's one-event-per-line profile; False where the fast path cannot read it."""
        if "_kernel_time" not in line and "model_run" not in line:
            return True  # neither a kernel event nor a run: nothing to keep (fence, session and other events)
        head = _HEAD.match(line)  # ORT's own field order: one match instead of four look-ups
        if head:
            cat, dur, ts, name = head.groups()
        else:
            cat = _field(line, '"cat"', _STR_VALUE)
            name = _field(line, '"name"', _STR_VALUE)
            ts = _field(line, '"ts"', _INT_VALUE)
            if cat is None or name is None or ts is None or "\\" in cat:
                return False
            dur = _field(line, '"dur"', _INT_VALUE)
        name = _unescape(name)
        if cat == "Session" and name == "model_run":
            self.runs.append((int(ts), len(self.runs) + len(self.nodes), int(dur) if dur else 0))
            return True
        if cat != "Node" or not name.endswith(_KERNEL_SUFFIX):
            return True
        inputs = self._shapes_of(line, '"input_type_shape"')
        outputs = self._shapes_of(line, '"output_type_shape"')
        if inputs is None or outputs is None:
            return False
        op_name = _field(line, '"op_name"', _STR_VALUE)
        provider = _field(line, '"provider"', _STR_VALUE)
        self._add_node(int(ts), self._str(name[: -len(_KERNEL_SUFFIX)]),
                       _unescape(op_name) if op_name is not None else None,
                       _unescape(provider) if provider is not None else None,
                       int(dur) if dur else 0, inputs, outputs, _field(line, '"output_size"', _STR_VALUE))
        return True

    def _shapes_of(self, line: str, key: str) -> list[Any] | None:
        """The shape list under ``key`` ([] when absent); None when present in a form not read here."""
        text = _field(line, key, _SHAPES_VALUE)
        if text is None:
            return None if key in line else []
        cached = self._shapes.get(text)
        if cached is None:
            try:
                cached = self._shapes[text] = json.loads(text)
            except ValueError:
                return None
        return cached

    def result(self, warmup_runs: int) -> tuple[list[RunEvent], list[NodeEvent]]:
        # (ts, seq) lead every tuple and seq is unique: a plain sort is by time, ties in file order
        self.runs.sort()
        self.nodes.sort()
        runs = [RunEvent(run=i, ts_us=ts, dur_us=dur, warmup=i < warmup_runs) for i, (ts, _, dur) in enumerate(self.runs)]
        starts = [run.ts_us for run in runs]
        bisect_right = bisect.bisect_right
        node_events = [
            NodeEvent(run=bisect_right(starts, ts) - 1, name=name, op_type=op, provider=provider, ts_us=ts, dur_us=dur,
                      input_shapes=inputs, output_shapes=outputs, output_bytes=nbytes)
            for ts, _, name, op, provider, dur, inputs, outputs, nbytes in self.nodes
        ]
        return runs, node_events


# ORT 1.31 writes one event per line, e.g.
#   {"cat" : "Node","pid" :651,...,"ts" :15511,"ph" : "X","name" :"matmul1_kernel_time","args" : {...}},
# The fast path reads the few fields it needs with these; a line it cannot read goes through json.
# a JSON string (unrolled: fast in re), ending where a value ends: a name holding an unescaped quote (onnxruntime up
# to 1.30) is then not read as a shorter name, its line goes through json instead
_STR_VALUE = re.compile(r'\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"(?=\s*[,}\]])')
_INT_VALUE = re.compile(r'\s*:\s*(-?\d+)(?=[,}\s])')
_HEAD = re.compile(r'\{\s*"cat"\s*:\s*"(\w+)"\s*,\s*"pid"\s*:\s*-?\d+\s*,\s*"tid"\s*:\s*-?\d+\s*,\s*"dur"\s*:\s*(-?\d+)\s*,'
                   r'\s*"ts"\s*:\s*(-?\d+)\s*,\s*"ph"\s*:\s*"\w*"\s*,\s*"name"\s*:\s*"([^"\\]*(?:\\.[^"\\]*)*)"'
                   r'(?=\s*[,}])')
_SHAPES_VALUE = re.compile(r'\s*:\s*(\[\s*(?:\{[^{}]*\}(?:\s*,\s*\{[^{}]*\})*)?\s*\])')


def _field(line: str, key: str, value: re.Pattern[str]) -> str | None:
    """The value after the first ``key`` (a quoted JSON key) in ``line``; None if absent or not in ``value``'s form.
    A key inside a JSON string value cannot match: its quotes would be escaped there."""
    at = line.find(key)
    if at < 0:
        return None
    m = value.match(line, at + len(key))
    return m.group(1) if m else None


def _unescape(text: str) -> str:
    return json.loads(f'"{text}"') if "\\" in text else text


def _run_of(starts: list[int], ts: int) -> int:
    """Index of the last run that started at or before ``ts`` (-1 before the first run)."""
    return bisect.bisect_right(starts, ts) - 1


def parse_profile(path: Path, warmup_runs: int = 0, raw_names: bool = False) -> tuple[list[RunEvent], list[NodeEvent]]:
    """Runs and node events of the profile at ``path``.

    Streams ORT's one-event-per-line layout, reading only the fields the report uses, so that a
    profile of 1,000,000 events parses in seconds and in bounded memory; any other JSON layout (one
    line, pretty-printed, ``{"traceEvents": [...]}``) is streamed by ``iter_events``, event by event, and gives the
    same result as the whole file loaded (``load_events``).
    ``raw_names`` (a profile of onnxruntime up to 1.30 with a node name that JSON must escape): each name read as
    written (``iter_events``).
    """
    if raw_names:
        return parse_events(iter_events(path, raw_names=True), warmup_runs)
    reducer = _Reducer()
    try:
        with Path(path).open("r", encoding="utf-8", errors="replace") as f:
            head = f.readline(_HEAD_CHARS)  # a bounded read: a profile on one line is never read as a line
            streamable = head.strip() == "["
            while streamable:
                line = f.readline(_MAX_EVENT_CHARS)
                if not line:
                    break
                text = line.strip()
                if text in ("]", ""):
                    continue
                if len(line) == _MAX_EVENT_CHARS or not text.startswith("{") or not reducer.add_line(text):
                    streamable = False
    except OSError as exc:
        raise ModelError(f"profile {path} is not readable ({exc})") from None
    if not streamable:
        del reducer  # what the fast reader kept goes before the file is read again
        return parse_events(iter_events(path), warmup_runs)
    return reducer.result(warmup_runs)


def iter_events(path: Path, raw_names: bool = False) -> Iterator[Any]:
    """The events of the profile at ``path`` one at a time, as ``load_events`` gives them all: the items of a
    top-level list, or of the ``traceEvents`` list of a top-level object. The file is read in chunks and each
    event decoded on its own, so memory holds one event (and one chunk), not the file.

    ``raw_names`` (onnxruntime up to 1.30, ``load_events``): one event per line, as those versions write it; a name
    holding a newline joins the lines that follow until the event reads.

    Raises ``ModelError`` where the file is not readable JSON or holds no list of events (as ``load_events``)."""
    try:
        with Path(path).open("r", encoding="utf-8", errors="replace") as f:
            if raw_names:
                yield from _raw_lines(f, path)
            else:
                yield from _JsonStream(f, path).events()
    except OSError as exc:
        raise ModelError(f"profile {path} is not readable JSON ({exc})") from None


def _raw_lines(f: IO[str], path: Path) -> Iterator[Any]:
    pending = ""
    for line in f:
        pending += line
        text = pending.strip().rstrip(",").strip()
        if text in ("[", "]", ""):
            pending = ""
            continue
        try:
            event = json.loads(_RAW_NAME.sub(_escaped_name, text), strict=False)
        except ValueError as exc:
            if len(pending) > _MAX_EVENT_CHARS:
                raise ModelError(f"profile {path} is not readable JSON ({exc})") from None
            continue  # a name holding a newline: its event goes on in the next line
        pending = ""
        yield event
    if pending.strip():
        raise ModelError(f"profile {path} is not readable JSON (it ends inside an event)")


# An event of ORT's is a few KB (1.5 KB with 16 intra-op threads on the H200): far beyond this, a line that does not
# read is not an event whose name spans lines.
_MAX_EVENT_CHARS = 1 << 24
_HEAD_CHARS = 64
_CHUNK_CHARS = 1 << 18
_SPACE = " \t\n\r"


class _JsonStream:
    """A top-level JSON list (or an object's ``traceEvents`` list) read item by item from a text stream."""

    def __init__(self, f: IO[str], path: Path) -> None:
        self._f = f
        self._path = path
        self._buf = ""
        self._pos = 0
        self._eof = False
        self._decoder = json.JSONDecoder(strict=False)

    def _error(self, why: str) -> ModelError:
        return ModelError(f"profile {self._path} is not readable JSON ({why})")

    def _more(self, want: int = _CHUNK_CHARS) -> bool:
        """Read on; False at the end of the file."""
        if self._eof:
            return False
        chunk = self._f.read(max(want, _CHUNK_CHARS))
        if not chunk:
            self._eof = True
            return False
        self._buf = self._buf[self._pos:] + chunk
        self._pos = 0
        return True

    def _peek(self) -> str:
        """The next character that is not white space ("" at the end), not consumed."""
        while True:
            while self._pos < len(self._buf) and self._buf[self._pos] in _SPACE:
                self._pos += 1
            if self._pos < len(self._buf):
                return self._buf[self._pos]
            if not self._more():
                return ""

    def _expect(self, chars: str) -> str:
        char = self._peek()
        if not char or char not in chars:
            raise self._error(f"expected one of {chars!r} at character {self._pos}, found {char or 'the end'!r}")
        self._pos += 1
        return char

    def _value(self) -> Any:
        """The next JSON value, read whole; one that may go on past the buffer (a number) only once more follows."""
        self._peek()
        want = _CHUNK_CHARS
        while True:
            try:
                value, end = self._decoder.raw_decode(self._buf, self._pos)
            except ValueError as exc:
                if self._more(want):
                    want *= 2  # a value longer than a chunk: read twice as much before decoding it again
                    continue
                raise self._error(str(exc)) from None
            if end < len(self._buf) or not self._more(want):
                self._pos = end
                return value

    def _items(self) -> Iterator[Any]:
        """The items of the list whose ``[`` was just read, up to its ``]``."""
        if self._peek() == "]":
            self._pos += 1
            return
        while True:
            yield self._value()
            if self._expect(",]") == "]":
                return

    def events(self) -> Iterator[Any]:
        """The events, then a check that nothing but white space follows the top-level value."""
        top = self._peek()
        if top == "[":
            self._pos += 1
            yield from self._items()
        elif top == "{":
            self._pos += 1
            yield from self._trace_events()
        elif top == "":
            raise self._error("the file is empty")
        else:
            value = self._value()  # valid JSON that is no list of events, or not JSON at all (the decoder says)
            raise ModelError(f"profile {self._path} is not an ORT profile (expected a list of events, found "
                             f"{type(value).__name__})")
        if self._peek():
            raise self._error(f"extra data at character {self._pos}")

    def _trace_events(self) -> Iterator[Any]:
        """The items of the ``traceEvents`` list of the object whose ``{`` was just read (none where it has none);
        the object's other members are read and dropped."""
        if self._peek() == "}":
            self._pos += 1
            return
        while True:
            key = self._value()
            if not isinstance(key, str):
                raise self._error(f"an object key is not a string at character {self._pos}")
            self._expect(":")
            if key == "traceEvents" and self._peek() == "[":
                self._pos += 1
                yield from self._items()
            elif key == "traceEvents":
                raise ModelError(f"profile {self._path} is not an ORT profile (expected a list of events)")
            else:
                self._value()
            if self._expect(",}") == "}":
                return

"""Model inspection: inputs, outputs, opsets, nodes, subgraphs, initializers, external data.

The model is loaded without its external data, so inspecting a model of many GB never holds a
second copy of its weights in Python. It is read by onnx's public API (``onnx.load``), imported where a model is
read: loading a report JSON needs no onnx.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from ortcopy_doctor.model.errors import ModelError
from ortcopy_doctor.model.evidence import ModelInfo, NodeInfo, SubgraphInfo, ValueInfo
from ortcopy_doctor.model.vocabulary import ValueKind

if TYPE_CHECKING:
    import onnx

# ONNX's numbers, fixed by its specification (onnx.proto: TensorProto.DataType, AttributeProto.AttributeType,
# TensorProto.DataLocation); tests/knowledge/test_model_file_onnx.py compares each with onnx's enums.
FLOAT, UINT8, INT8, UINT16, INT16, INT32, INT64, STRING, BOOL, FLOAT16 = range(1, 11)
DOUBLE, UINT32, UINT64, COMPLEX64, COMPLEX128, BFLOAT16 = range(11, 17)
ATTRIBUTE_TENSOR, ATTRIBUTE_GRAPH, ATTRIBUTE_GRAPHS = 4, 5, 10
LOCATION_EXTERNAL = 1

_ELEM_DTYPE: dict[int, str] = {
    FLOAT: "float32",
    UINT8: "uint8",
    INT8: "int8",
    UINT16: "uint16",
    INT16: "int16",
    INT32: "int32",
    INT64: "int64",
    STRING: "str",
    BOOL: "bool",
    FLOAT16: "float16",
    DOUBLE: "float64",
    UINT32: "uint32",
    UINT64: "uint64",
    COMPLEX64: "complex64",
    COMPLEX128: "complex128",
    BFLOAT16: "bfloat16",
}

_ORT_TYPE = {
    "float32": "float",
    "float64": "double",
    "float16": "float16",
    "bfloat16": "bfloat16",
    "str": "string",
}


def elem_dtype(elem_type: int) -> str:
    """numpy-style dtype name of an ONNX element type (ONNX's own name where numpy has none)."""
    if elem_type in _ELEM_DTYPE:
        return _ELEM_DTYPE[elem_type]
    import onnx  # here: an element type numpy has no name for: onnx's own name (a report loads no onnx otherwise)

    data_type = onnx.TensorProto.DataType
    return str(data_type.Name(elem_type)).lower() if elem_type in data_type.values() else "undefined"


_ITEMSIZES = {"bool": 1, "uint8": 1, "int8": 1, "uint16": 2, "int16": 2, "float16": 2, "bfloat16": 2,
              "uint32": 4, "int32": 4, "float32": 4, "uint64": 8, "int64": 8, "float64": 8,
              "complex64": 8, "complex128": 16}


def dtype_itemsize(dtype: str) -> int:
    """Bytes per element of numpy-style ``dtype``; 0 where it has no fixed size (``str``) or is unknown."""
    return _ITEMSIZES.get(dtype, 0)


def _type_string(tp: onnx.TypeProto) -> str:
    which = tp.WhichOneof("value")
    if which == "tensor_type":
        return f"tensor({_ORT_TYPE.get(elem_dtype(tp.tensor_type.elem_type), elem_dtype(tp.tensor_type.elem_type))})"
    if which == "sequence_type":
        return f"seq({_type_string(tp.sequence_type.elem_type)})"
    if which == "map_type":
        key = elem_dtype(tp.map_type.key_type)
        return f"map({_ORT_TYPE.get(key, key)},{_type_string(tp.map_type.value_type)})"
    if which == "optional_type":
        return f"optional({_type_string(tp.optional_type.elem_type)})"
    if which == "sparse_tensor_type":
        return f"sparse_tensor({elem_dtype(tp.sparse_tensor_type.elem_type)})"
    return "unknown"


def value_info(vi: onnx.ValueInfoProto) -> ValueInfo:
    """The project's ``ValueInfo`` of an ONNX value: its kind, element type, shape and ORT's type string."""
    tp = vi.type
    which = tp.WhichOneof("value")
    kind = {
        "tensor_type": ValueKind.TENSOR,
        "sequence_type": ValueKind.SEQUENCE,
        "map_type": ValueKind.MAP,
        "optional_type": ValueKind.OPTIONAL,
        "sparse_tensor_type": ValueKind.SPARSE_TENSOR,
    }.get(which or "", ValueKind.UNKNOWN)
    elem: str | None = None
    shape: list[int | str | None] | None = None
    if kind == "tensor":
        elem = elem_dtype(tp.tensor_type.elem_type)
        if tp.tensor_type.HasField("shape"):
            shape = []
            for d in tp.tensor_type.shape.dim:
                if d.HasField("dim_value"):
                    shape.append(int(d.dim_value))
                elif d.HasField("dim_param") and d.dim_param:
                    shape.append(d.dim_param)
                else:
                    shape.append(None)
    elif kind != "unknown":
        elem = _type_string(tp)
    return ValueInfo(name=vi.name, kind=kind, elem_type=elem, shape=shape, type_string=_type_string(tp))


def subgraphs(node: onnx.NodeProto) -> list[tuple[str, onnx.GraphProto]]:
    """(attribute name, graph) of each subgraph a node holds (If branches, Loop/Scan bodies). A list, not a
    generator: static prediction asks this ~10 times per node, nearly always of a node with none."""
    found: list[tuple[str, onnx.GraphProto]] = []
    for attr in node.attribute:
        kind = attr.type
        if kind == ATTRIBUTE_GRAPH:
            found.append((attr.name, attr.g))
        elif kind == ATTRIBUTE_GRAPHS:
            found.extend((f"{attr.name}[{i}]", g) for i, g in enumerate(attr.graphs))
    return found


def walk_nodes(graph: onnx.GraphProto, path: str = "") -> Iterator[tuple[str, onnx.NodeProto]]:
    """Every node of ``graph`` and of its subgraphs, depth first, with the path of its graph."""
    for node in graph.node:
        yield path, node
        for attr_name, sub in subgraphs(node):
            sub_path = f"{path}/{node.name or node.op_type}.{attr_name}".lstrip("/")
            yield from walk_nodes(sub, sub_path)


def inferred_values(model: onnx.ModelProto) -> list[ValueInfo]:
    """The shapes shape inference wrote into ``model``: the main graph's values and outputs, then those of every
    subgraph (If branches, Loop/Scan bodies: the sizes of copies made there), depth first."""
    graph = model.graph
    values = [value_info(v) for v in list(graph.value_info) + list(graph.output)]
    for _, node in walk_nodes(graph):
        for _, sub in subgraphs(node):
            values.extend(value_info(v) for v in list(sub.value_info) + list(sub.output))
    return values


def _tensor_bytes(t: onnx.TensorProto) -> int:
    count = 1
    for d in t.dims:
        count *= d
    size = dtype_itemsize(elem_dtype(t.data_type))
    if size:
        return count * size
    return len(t.raw_data)


def _external_offset(t: onnx.TensorProto) -> int:
    for entry in t.external_data:
        if entry.key == "offset":
            try:
                return max(0, int(entry.value))
            except ValueError:
                return 0
    return 0


_TYPED_FIELDS = ("float_data", "int32_data", "string_data", "int64_data", "double_data", "uint64_data")


def _inside(location: str) -> bool:
    """Whether an external data ``location`` names a file in the model's folder or below it: relative, and no
    ``..`` that climbs out (read as written: a symbolic link in the folder, as in a Hugging Face snapshot, is taken)."""
    if not location or os.path.isabs(location):
        return False
    norm = os.path.normpath(location)
    return norm != ".." and not norm.startswith(".." + os.sep)


def check_initializer_size(t: onnx.TensorProto, path: Path) -> int:
    """Refuse a tensor whose dims declare more data than it stores, before shape inference or ORT allocate what
    the dims say (4 stored bytes declaring 2**26 elements drove shape inference to 24 GB). Returns the bytes a
    ``raw_data`` tensor declares, which ``inspect_model`` bounds by the file size, all tensors together.

    Cheap, and never copies the data: values in typed fields are counted (``len`` of a repeated field); the
    length of ``raw_data`` cannot be read without copying it, so raw tensors are bounded by the file instead."""
    count = 1
    for d in t.dims:
        if d < 0:
            raise ModelError(f"tensor '{t.name}' of {path.name} has a negative dim ({list(t.dims)}): "
                             "the model is corrupt; re-export it")
        count *= d
    if count == 0:
        return 0
    itemsize = dtype_itemsize(elem_dtype(t.data_type))
    if t.HasField("raw_data"):
        # 4-bit and 2-bit types pack several elements per byte (an unknown type may too): a quarter byte each
        return count * itemsize if itemsize else (count + 3) // 4
    stored = sum(len(getattr(t, name)) for name in _TYPED_FIELDS)
    needed = 2 * count if t.data_type in (COMPLEX64, COMPLEX128) else (
        count if itemsize or t.data_type == STRING else (count + 3) // 4)
    if stored < needed:
        raise ModelError(
            f"tensor '{t.name}' of {path.name} declares shape {list(t.dims)} ({count} elements) but stores "
            f"{stored} values: the model is corrupt or truncated; re-export it"
        )
    return 0


def _external_location(t: onnx.TensorProto) -> str | None:
    if t.data_location != LOCATION_EXTERNAL:
        return None
    for entry in t.external_data:
        if entry.key == "location":
            location: str = entry.value  # a string field; protobuf's containers are untyped without types-protobuf
            return location
    return None


def _all_initializers(graph: onnx.GraphProto) -> Iterator[onnx.TensorProto]:
    yield from graph.initializer
    for _, node in walk_nodes(graph):
        for _, sub in subgraphs(node):
            yield from sub.initializer
        for attr in node.attribute:
            if attr.type == ATTRIBUTE_TENSOR:
                yield attr.t


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def display_path(path: Path | str) -> str:
    """``path`` as text that UTF-8 holds, for the report: a byte of the name that the file system encoding does not
    decode (Python keeps it as a surrogate escape, which no UTF-8 file or JSON can hold) is written ``\\xff``."""
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace")
    return text


def check_model_path(path: Path) -> None:
    """Refuse paths that are not a readable, non-empty regular file, with a message that says what to do.

    Only regular files: a device (/dev/zero) would be read without end and a FIFO would block."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        raise ModelError(f"model file not found: {path}: check the path") from None
    except OSError as exc:
        raise ModelError(f"cannot read {path}: {exc.strerror}: check the path and its permissions") from None
    if stat.S_ISDIR(st.st_mode):
        raise ModelError(f"{path} is a directory: pass the path of an .onnx file")
    if not stat.S_ISREG(st.st_mode):
        raise ModelError(f"{path} is not a regular file (a device, FIFO or socket): pass the path of an .onnx file")
    try:
        with path.open("rb") as f:
            head = f.read(1)
    except OSError as exc:
        raise ModelError(f"cannot read {path}: {exc.strerror}: check its permissions") from None
    if not head:
        raise ModelError(f"{path} is empty: pass a complete .onnx model file")


def read_model(path: Path | str) -> onnx.ModelProto:
    """``onnx.load(path, load_external_data=False)``: the graph without its external weights."""
    return model_reader(path)()


def model_reader(path: Path | str) -> Callable[[], onnx.ModelProto]:
    """``read_model(path)`` as a function to call, with onnx imported now: a broken onnx or protobuf install raises
    here, with its own error, so that a caller can tell it apart from a file that is not a model (which raises when
    the function is called)."""
    import onnx  # here, as the docstring says (and a report, which reads no model, loads no onnx)

    name = str(path)
    return lambda: onnx.load(name, load_external_data=False)


def load_model(path: Path) -> onnx.ModelProto:
    """Load the graph (not the external weights) or raise a ``ModelError`` that says why."""
    check_model_path(path)
    read = model_reader(path)  # a broken onnx or protobuf install fails here, as itself, not as a bad model
    try:
        model = read()
    except Exception as exc:  # protobuf DecodeError, and others for random bytes
        raise ModelError(
            f"{path} is not a readable ONNX model ({type(exc).__name__}): the file is truncated or not ONNX; "
            "re-export or re-download it"
        ) from None
    if not model.HasField("graph") or (not model.graph.node and not model.graph.output):
        raise ModelError(f"{path} holds no ONNX graph: it is not an ONNX model or it is truncated; re-export it")
    return model


def external_data_files(path: Path) -> list[Path]:
    """The external data files the model at ``path`` names (each a path beside it, as ORT reads them); none where
    the file cannot be read as a model (whoever loaded it read it; this only lists what must not be written over)."""
    try:
        model = read_model(path)
    except Exception:  # noqa: BLE001 - not readable now: nothing to list
        return []
    locations = {loc for t in _all_initializers(model.graph) if (loc := _external_location(t)) is not None}
    return [path.parent / loc for loc in sorted(locations)]


def node_infos(graph: onnx.GraphProto) -> list[NodeInfo]:
    """Every node of ``graph`` and of its subgraphs (``walk_nodes``' order), as the evidence records them."""
    return [NodeInfo(name=node.name, op_type=node.op_type, domain=node.domain, inputs=list(node.input),
                     outputs=list(node.output), graph=graph_path) for graph_path, node in walk_nodes(graph)]


def inspect_model(path: Path, model: onnx.ModelProto | None = None) -> ModelInfo:
    """Facts about the model at ``path``; raises ``ModelError`` for missing external data."""
    path = Path(path)
    if model is None:
        model = load_model(path)
    graph = model.graph
    initializer_names = {t.name for t in graph.initializer}
    nodes = node_infos(graph)
    subgraph_infos = [
        SubgraphInfo(node=node.name, op_type=node.op_type, attribute=attr_name, node_count=sum(1 for _ in walk_nodes(sub)))
        for _, node in walk_nodes(graph)
        for attr_name, sub in subgraphs(node)
    ]
    init_bytes = 0
    init_count = 0
    raw_declared = 0  # bytes the raw_data tensors declare: the file must hold at least that much
    largest: tuple[int, onnx.TensorProto | None] = (0, None)
    external: dict[str, int] = {}
    external_end: dict[str, tuple[int, str]] = {}  # location -> (end of the furthest tensor, its name)
    for t in _all_initializers(graph):
        init_count += 1
        nbytes = _tensor_bytes(t)
        init_bytes += nbytes
        location = _external_location(t)
        if location is not None:
            external[location] = external.get(location, 0) + nbytes
            end = _external_offset(t) + nbytes
            if end > external_end.get(location, (0, ""))[0]:
                external_end[location] = (end, t.name)
        else:
            declared = check_initializer_size(t, path)
            raw_declared += declared
            if declared > largest[0]:
                largest = (declared, t)
    file_bytes = os.path.getsize(path)
    if raw_declared > file_bytes and largest[1] is not None:
        t = largest[1]
        raise ModelError(
            f"the tensors of {path.name} declare {raw_declared} bytes of data but the file has {file_bytes} bytes "
            f"(tensor '{t.name}' alone declares shape {list(t.dims)}, {largest[0]} bytes): the model is corrupt or "
            "truncated; re-export it")
    base = path.parent
    for location in external:
        data_path = base / location
        if not _inside(location):
            # never looked at: its size (or existence) is not the model's to tell
            raise ModelError(f"external data file '{location}' of {path.name} points outside the model's folder "
                             f"({base}): keep the weights file in the model's folder and name it by a relative path")
        if not data_path.is_file():
            what = ("is not a regular file (a directory)" if data_path.is_dir() else "is not a regular file"
                    if data_path.exists() else f"is missing (looked in {base})")
            raise ModelError(f"external data file '{location}' of {path.name} {what}: keep the weights file next to "
                             "the model")
        end, name = external_end.get(location, (0, ""))
        size = os.path.getsize(data_path)
        if end > size:
            raise ModelError(
                f"initializer '{name}' of {path.name} needs {end} bytes of external data file '{location}', which "
                f"has {size}: the weights file is truncated or belongs to another model; re-export the model"
            )
    return ModelInfo(
        path=display_path(path),
        file_bytes=file_bytes,
        sha256=_sha256(path),
        ir_version=int(model.ir_version),
        producer=" ".join(p for p in (model.producer_name, model.producer_version) if p),
        opsets={(o.domain or "ai.onnx"): int(o.version) for o in model.opset_import},
        inputs=[value_info(vi) for vi in graph.input if vi.name not in initializer_names],
        outputs=[value_info(vi) for vi in graph.output],
        nodes=nodes,
        subgraphs=subgraph_infos,
        initializer_count=init_count,
        initializer_bytes=init_bytes,
        external_data_files=sorted(external),
        external_data_bytes=sum(external.values()),
    )

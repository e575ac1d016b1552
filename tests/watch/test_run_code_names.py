"""The code `ortcopy-doctor run` writes (``pipelines[].code``, each hand-off's ``code``, the state code) for models
whose tensor names are hostile to Python source: quotes, a newline, a backslash, triple quotes, ``#``. Every code
string parses; each name is a literal of exactly the model's name; the between-stage and the state code, completed
with the program's sessions and data, run on the CPU EP and give what plain ``session.run`` gives.

The programs run in this process (``run_program``), without a device provider: round trips are predicted for CUDA
from each model, and the generated code is run with its ``device`` set to ``'cpu'``.
"""

from __future__ import annotations

import ast
import builtins
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper

from ortcopy_doctor.render.pipeline import render_pipeline_text
from ortcopy_doctor.report.pipeline import HandOff, handoff_code
from ortcopy_doctor.watch.program import run_program

CPU = ["CPUExecutionProvider"]
SHAPE = [2, 3]

HOSTILE = ['feat"q', "line\nbreak", "feat\\n", "mid\\'''out", "a # not a comment", 'tri"""ple', "back\\"]
# the other inputs and outputs of the models, hostile too
AUX_OUT = "aux#out\n"
OTHER_IN = "other\"in'"
LOGITS = "logits\\'"
STEP_IN = "x'''in"
STEP_OUT = 'y"""out'

BIND_INPUTS = ("bind_cpu_input", "bind_ortvalue_input", "bind_input")
BIND_OUTPUTS = ("bind_output", "bind_ortvalue_output")


def _save(path: Path, nodes: list, inputs: list[str], outputs: list[str]) -> str:
    graph = helper.make_graph(nodes, path.stem,
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, SHAPE) for n in inputs],
                              [helper.make_tensor_value_info(n, TensorProto.FLOAT, SHAPE) for n in outputs])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.save(model, str(path))
    return str(path)


def _models(tmp_path: Path, name: str) -> dict[str, str]:
    """det.onnx: image -> (``name`` = Relu(image), AUX_OUT = Neg(image)); cls.onnx: (``name``, OTHER_IN) -> LOGITS;
    cell.onnx, state ``name`` -> ``name + "~"``: (STEP_IN, ``name``) -> (STEP_OUT = x + h, ``name~`` = Sigmoid of
    it)."""
    det = [helper.make_node("Relu", ["image"], [name]), helper.make_node("Neg", ["image"], [AUX_OUT])]
    return {
        "det": _save(tmp_path / "det.onnx", det, ["image"], [name, AUX_OUT]),
        "cls": _save(tmp_path / "cls.onnx", [helper.make_node("Add", [name, OTHER_IN], [LOGITS])], [name, OTHER_IN],
                     [LOGITS]),
        "cell": _save(tmp_path / "cell.onnx", [helper.make_node("Add", [STEP_IN, name], [STEP_OUT]),
                                               helper.make_node("Sigmoid", [STEP_OUT], [name + "~"])],
                      [STEP_IN, name], [STEP_OUT, name + "~"]),
    }


_PROGRAM = """
import numpy as np
import onnxruntime as ort
det = ort.InferenceSession({det!r}, providers=["CPUExecutionProvider"])
cls = ort.InferenceSession({cls!r}, providers=["CPUExecutionProvider"])
cell = ort.InferenceSession({cell!r}, providers=["CPUExecutionProvider"])
rng = np.random.default_rng(0)
for _ in range(3):
    feat, aux = det.run(None, {{"image": rng.standard_normal((2, 3)).astype(np.float32)}})
    cls.run(None, {{{name!r}: feat, {other!r}: aux * 2}})
h = np.full((2, 3), 0.5, np.float32)
for i in range(4):
    y, h = cell.run(None, {{{step!r}: np.full((2, 3), i + 1.0, np.float32), {name!r}: h}})
"""


def _report(tmp_path: Path, name: str) -> tuple[dict, dict[str, str]]:
    models = _models(tmp_path, name)
    script = tmp_path / "prog.py"
    script.write_text(_PROGRAM.format(name=name, other=OTHER_IN, step=STEP_IN, **models))
    report, code = run_program(["python", str(script)])
    assert code == 0
    return report.to_dict(), models


def _codes(data: object, path: str = "") -> dict[str, str]:
    """Every ``code`` string of the report, by its JSON path."""
    found: dict[str, str] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            if key == "code" and isinstance(value, str):
                found[f"{path}/{key}"] = value
            elif key != "observations":
                found.update(_codes(value, f"{path}/{key}"))
    elif isinstance(data, list):
        for i, value in enumerate(data):
            found.update(_codes(value, f"{path}[{i}]"))
    return found


def _bound(tree: ast.AST) -> tuple[set[str], set[str]]:
    """The names the code binds as inputs and as outputs; each must be a plain string literal."""
    inputs: set[str] = set()
    outputs: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                node.func.attr in BIND_INPUTS + BIND_OUTPUTS:
            first = node.args[0]
            assert isinstance(first, ast.Constant) and isinstance(first.value, str), ast.unparse(node)
            (inputs if node.func.attr in BIND_INPUTS else outputs).add(first.value)
    return inputs, outputs


def _free_names(tree: ast.AST) -> set[str]:
    """Names the code reads but never assigns (nor imports): what the program around it has to provide."""
    stored = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and not isinstance(n.ctx, ast.Load)}
    stored |= {(a.asname or a.name).split(".")[0] for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))
               for a in n.names}
    loaded = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return loaded - stored - set(dir(builtins))


def _arrays_by_variable(tree: ast.AST) -> dict[str, str]:
    """variable -> the ONNX input it holds: ``bind_cpu_input(<name>, <variable>)``, and the initial state
    ``state[<name>] = [ort.OrtValue.ortvalue_from_numpy(<variable>, ...), ...]``."""
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "bind_cpu_input" \
                and isinstance(node.args[1], ast.Name):
            found[node.args[1].id] = node.args[0].value
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript) and \
                isinstance(node.value, ast.List):
            first = node.value.elts[0]
            assert isinstance(first, ast.Call) and isinstance(first.args[0], ast.Name)
            found[first.args[0].id] = node.targets[0].slice.value
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Subscript) and \
                isinstance(node.value, ast.Call) and isinstance(node.value.args[0], ast.Name):
            # first[<name>] = ort.OrtValue.ortvalue_from_numpy(<variable>, ...): a state input sharing another's
            # buffers, its initial value
            found[node.value.args[0].id] = node.targets[0].slice.value
    return found


def _runnable(code: str) -> str:
    """The code up to its torch (and cupy) part, on this machine's CPU."""
    head = code[:code.index("# with torch")]
    assert "device = 'cuda'" in head
    return head.replace("device = 'cuda'", "device = 'cpu'")


@pytest.fixture(scope="module", params=HOSTILE, ids=[ascii(n) for n in HOSTILE])
def hostile(request, tmp_path_factory):
    """(name, the run report as JSON, the model paths) for one hostile name."""
    tmp_path = tmp_path_factory.mktemp("names")
    data, models = _report(tmp_path, request.param)
    return request.param, data, models


def test_every_code_string_parses_and_binds_only_the_models_names(hostile):
    name, data, _ = hostile
    codes = _codes(data)
    assert {"/pipelines[0]/code", "/pipelines[1]/code", "/round_trips[0]/code", "/round_trips[1]/code"} <= set(codes)
    model_inputs = {"image", name, OTHER_IN, STEP_IN}
    model_outputs = {name, AUX_OUT, LOGITS, STEP_OUT, name + "~"}
    for where, code in codes.items():
        if not code:
            continue
        tree = ast.parse(code)  # a SyntaxError here is the bug
        inputs, outputs = _bound(tree)
        assert inputs and inputs <= model_inputs, (where, inputs)
        assert outputs and outputs <= model_outputs, (where, outputs)
        compile(code, where, "exec")


def test_names_are_bound_as_the_models_name_them(hostile):
    name, data, _ = hostile
    between, state = data["pipelines"][0], data["pipelines"][1]
    assert [(h["output"], h["input"]) for h in between["round_trips"]] == [(name, name)]
    assert [(h["output"], h["input"], h["kind"]) for h in state["state"]] == [(name + "~", name, "round_trip")]
    assert _bound(ast.parse(between["code"])) == ({"image", name, OTHER_IN}, {name, AUX_OUT, LOGITS})
    assert _bound(ast.parse(state["code"])) == ({STEP_IN, name}, {STEP_OUT, name + "~"})


def test_between_stage_code_runs_and_gives_what_run_gives(hostile):
    """The detector -> classifier code, its sessions and host arrays taken from the program, runs on the CPU EP and
    gives the classifier's output of plain run()."""
    name, data, models = hostile
    det = ort.InferenceSession(models["det"], providers=CPU)
    cls = ort.InferenceSession(models["cls"], providers=CPU)
    image = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    other = np.full(SHAPE, 0.25, np.float32)
    arrays = {"image": image, OTHER_IN: other}
    feat, _ = det.run(None, {"image": image})
    (expected,) = cls.run(None, {name: feat, OTHER_IN: other})
    for code in (data["pipelines"][0]["code"], data["pipelines"][0]["round_trips"][0]["code"]):
        source = _runnable(code)
        tree = ast.parse(source)
        variables = _arrays_by_variable(tree)
        namespace: dict = {"det": det, "cls": cls}  # the program's own names
        for free in _free_names(tree) - set(namespace):
            namespace[free] = arrays[variables[free]]
        exec(compile(source, "<between code>", "exec"), namespace)  # noqa: S102 - generated code under test
        (result_var,) = [t.elts[0].id for n in ast.walk(tree) if isinstance(n, ast.Assign) for t in n.targets
                         if isinstance(t, ast.Tuple) and "copy_outputs_to_cpu" in ast.unparse(n.value)]
        assert np.array_equal(namespace[result_var], expected)


def test_state_code_runs_and_gives_what_run_gives(hostile):
    """The state code (the pipeline's, and the hand-off's own), with the initial state and each step's feeds, runs on
    the CPU EP: the state it carries and the host output of the last step are plain run()'s."""
    name, data, models = hostile
    cell = ort.InferenceSession(models["cell"], providers=CPU)
    initial = np.full(SHAPE, 0.5, np.float32)
    stream = [{STEP_IN: np.full(SHAPE, i + 1.0, np.float32)} for i in range(5)]
    h = initial
    for feeds in stream:
        y, h = cell.run(None, {**feeds, name: h})
    state = data["pipelines"][1]
    for code in (state["code"], state["state"][0]["code"]):
        source = _runnable(code)
        tree = ast.parse(source)
        variables = _arrays_by_variable(tree)
        namespace: dict = {"cell": cell, "stream": stream}  # the program's own name
        for free in _free_names(tree) - set(namespace):
            assert variables[free] == name  # the initial state is the only other value the code needs
            namespace[free] = initial.copy()  # on the CPU the OrtValue is this array's buffer, and written to
        exec(compile(source, "<state code>", "exec"), namespace)  # noqa: S102 - generated code under test
        assert np.array_equal(namespace["state"][name][len(stream) % 2].numpy(), h)
        assert list(namespace["host"]) == [STEP_OUT]
        assert np.array_equal(namespace["host"][STEP_OUT], y)


def test_state_code_without_other_inputs_counts_steps():
    """A state that is the session's only input: the loop counts ``steps``; and the names are literals."""
    hand = HandOff(producer="rnn.onnx", output='h"out', consumer="rnn.onnx", input="h\nin", calls=3, how="object",
                   state=True, kind="round_trip")
    code = handoff_code(hand, producer_io=(["h\nin"], ['h"out']))
    tree = ast.parse(code)
    assert _bound(tree) == ({"h\nin"}, {'h"out'})
    assert "for step in range(steps):" in code


def test_session_variables_are_identifiers_and_distinct():
    """Two sessions of models whose file names differ only in characters an identifier cannot hold, each with an
    input `x` of its own: every variable distinct."""
    hand = HandOff(producer="a-b.onnx", output="y", consumer="a_b.onnx", input="h", calls=3, how="object",
                   state=False, kind="round_trip")
    code = handoff_code(hand, producer_io=(["x"], ["y"]), consumer_io=(["h", "x"], ["z"]))
    tree = ast.parse(code)
    assert {"sess_a_b", "sess_a_b_2"} <= _free_names(tree)
    assert sorted(_arrays_by_variable(tree).items()) == [("x", "x"), ("x_2", "x")]


def test_a_name_cannot_end_a_comment_and_become_code():
    """A label or name with a newline and code after it stays inside the comment it is written in."""
    evil = "x\nimport os; os.system('echo pwned')  #"
    hand = HandOff(producer=f"{evil}.onnx", output=evil, consumer="b.onnx", input=evil, calls=3, how="object",
                   state=False, kind="round_trip")
    code = handoff_code(hand, producer_io=([], [evil]), consumer_io=([evil], ["out"]))
    tree = ast.parse(code)
    assert not any(isinstance(n, (ast.Import, ast.ImportFrom)) and any(a.name == "os" for a in n.names)
                   for n in ast.walk(tree))
    assert "os.system" not in ast.unparse(tree).replace(repr(evil), "")


def test_two_states_of_one_session_are_kept_on_the_device_by_one_block(tmp_path):
    """An LSTM-like cell with two states (`h`, `c`, hostile names): the pipeline's code carries both in one block,
    and runs on the CPU EP as plain run() does."""
    h_in, h_out, c_in, c_out = 'h"in', "h\nout", "c'''in", "c\\out"
    cell = _save(tmp_path / "lstm.onnx", [helper.make_node("Add", ["x", h_in], ["y"]),
                                          helper.make_node("Sigmoid", ["y"], [h_out]),
                                          helper.make_node("Add", [c_in, "y"], ["c_raw"]),
                                          helper.make_node("Tanh", ["c_raw"], [c_out])],
                 ["x", h_in, c_in], ["y", h_out, c_out])
    script = tmp_path / "prog.py"
    script.write_text("import numpy as np\nimport onnxruntime as ort\n"
                      f"s = ort.InferenceSession({cell!r}, providers=['CPUExecutionProvider'])\n"
                      "h = np.full((2, 3), 0.5, np.float32)\nc = np.full((2, 3), 0.25, np.float32)\n"
                      "for i in range(4):\n"
                      "    x = np.full((2, 3), i + 1.0, np.float32)\n"
                      f"    y, h, c = s.run(None, {{'x': x, {h_in!r}: h, {c_in!r}: c}})\n")
    report, code = run_program(["python", str(script)])
    assert code == 0
    (pipeline,) = report.pipelines
    assert sorted((h.output, h.input, h.kind) for h in pipeline.state) == [(c_out, c_in, "round_trip"),
                                                                           (h_out, h_in, "round_trip")]
    source = _runnable(pipeline.code)
    tree = ast.parse(source)
    assert _bound(tree) == ({"x", h_in, c_in}, {"y", h_out, c_out})
    session = ort.InferenceSession(cell, providers=CPU)
    initial = {h_in: np.full(SHAPE, 0.5, np.float32), c_in: np.full(SHAPE, 0.25, np.float32)}
    stream = [{"x": np.full(SHAPE, i + 1.0, np.float32)} for i in range(3)]
    variables = _arrays_by_variable(tree)
    namespace: dict = {"s": session, "stream": stream}  # the program's own name
    for free in _free_names(tree) - set(namespace):
        namespace[free] = initial[variables[free]].copy()
    exec(compile(source, "<state code>", "exec"), namespace)  # noqa: S102 - generated code under test
    h, c = initial[h_in], initial[c_in]
    for feeds in stream:
        y, h, c = session.run(None, {**feeds, h_in: h, c_in: c})
    assert np.array_equal(namespace["state"][h_in][len(stream) % 2].numpy(), h)
    assert np.array_equal(namespace["state"][c_in][len(stream) % 2].numpy(), c)
    assert np.array_equal(namespace["host"]["y"], y)


def _bind_calls(tree: ast.AST) -> list[tuple[str, str]]:
    """(method, name) of every bind_* call the code makes, in order."""
    return [(node.func.attr, node.args[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr in BIND_INPUTS + BIND_OUTPUTS and isinstance(node.args[0], ast.Constant)]


def _run_state_code(code: str, session: ort.InferenceSession, initial: dict[str, np.ndarray],
                    stream: list[dict[str, np.ndarray]], variable: str) -> dict:
    """Run the state code (on the CPU) with the initial state of each state input and each step's feeds."""
    source = _runnable(code)
    tree = ast.parse(source)
    variables = _arrays_by_variable(tree)
    namespace: dict = {variable: session, "stream": stream}
    for free in _free_names(tree) - set(namespace):
        namespace[free] = initial[variables[free]].copy()
    exec(compile(source, "<state code>", "exec"), namespace)  # noqa: S102 - generated code under test
    return namespace


def test_a_possible_round_trip_sharing_the_real_states_output_is_left_out_of_the_pipeline_code(tmp_path):
    """The finding: h_out = h_in + x with x = 0, 1, 2, 3, 4. At the third step h_out (3) equals the next x (3) by
    chance: a possible round trip h_out -> x beside the real state h_out -> h_in. The pipeline's code bound `h_out`
    twice (the second binding replaced the first, and the state read memory nothing wrote); it carries the real
    state alone, binds each name once, and gives what run() gives."""
    model = _save(tmp_path / "cell2.onnx", [helper.make_node("Add", ["h_in", "x"], ["h_out"]),
                                            helper.make_node("Relu", ["h_out"], ["y"])],
                  ["h_in", "x"], ["y", "h_out"])
    script = tmp_path / "prog.py"
    script.write_text("import numpy as np\nimport onnxruntime as ort\n"
                      f"s = ort.InferenceSession({model!r}, providers=['CPUExecutionProvider'])\n"
                      "h = np.zeros((2, 3), np.float32)\n"
                      "for i in range(5):\n"
                      "    y, h = s.run(None, {'h_in': h, 'x': np.full((2, 3), i, np.float32)})\n")
    report, code = run_program(["python", str(script)])
    assert code == 0
    (pipeline,) = report.pipelines
    assert [(h.output, h.input, h.kind) for h in pipeline.state] == [("h_out", "h_in", "round_trip"),
                                                                     ("h_out", "x", "possible_round_trip")]
    binds = _bind_calls(ast.parse(_runnable(pipeline.code)))
    assert sorted(binds) == sorted(set(binds))  # each name bound once
    assert [n for m, n in binds if m in BIND_OUTPUTS].count("h_out") == 1
    assert ("bind_cpu_input", "x") in binds  # the per-step input, uploaded each step
    assert "only if the program does feed" not in pipeline.code
    session = ort.InferenceSession(model, providers=CPU)
    stream = [{"x": np.full(SHAPE, i, np.float32)} for i in range(5)]
    initial = {"h_in": np.zeros(SHAPE, np.float32)}
    namespace = _run_state_code(pipeline.code, session, initial, stream, "s")
    h = initial["h_in"]
    for feeds in stream:
        y, h = session.run(None, {**feeds, "h_in": h})
    assert np.array_equal(namespace["state"]["h_in"][len(stream) % 2].numpy(), h)
    assert np.array_equal(namespace["host"]["y"], y)


def test_one_output_fed_back_as_two_inputs_is_bound_once(tmp_path):
    """`out` fed back as both `a` and `b` (two state round trips of one output, each input with its own initial
    value): the output is bound once, `b` reads `a`'s buffers from the second step on, and the code gives what run()
    gives."""
    model = _save(tmp_path / "twin.onnx", [helper.make_node("Add", ["a", "b"], ["ab"]),
                                           helper.make_node("Add", ["ab", "x"], ["out"]),
                                           helper.make_node("Neg", ["out"], ["y"])],
                  ["a", "b", "x"], ["y", "out"])
    script = tmp_path / "prog.py"
    script.write_text("import numpy as np\nimport onnxruntime as ort\n"
                      f"s = ort.InferenceSession({model!r}, providers=['CPUExecutionProvider'])\n"
                      "a = np.full((2, 3), 1.0, np.float32)\nb = np.full((2, 3), 2.0, np.float32)\n"
                      "for i in range(4):\n"
                      "    y, out = s.run(None, {'a': a, 'b': b, 'x': np.full((2, 3), i + 0.5, np.float32)})\n"
                      "    a = b = out\n")
    report, code = run_program(["python", str(script)])
    assert code == 0
    (pipeline,) = report.pipelines
    assert sorted((h.output, h.input, h.kind) for h in pipeline.state) == [("out", "a", "round_trip"),
                                                                           ("out", "b", "round_trip")]
    binds = _bind_calls(ast.parse(_runnable(pipeline.code)))
    assert sorted(n for m, n in binds if m in BIND_OUTPUTS) == ["out", "y"]  # `out` bound once
    session = ort.InferenceSession(model, providers=CPU)
    initial = {"a": np.full(SHAPE, 1.0, np.float32), "b": np.full(SHAPE, 2.0, np.float32)}
    for steps in (1, 2, 3, 5):
        stream = [{"x": np.full(SHAPE, i + 0.5, np.float32)} for i in range(steps)]
        namespace = _run_state_code(pipeline.code, session, initial, stream, "s")
        a, b = initial["a"], initial["b"]
        for feeds in stream:
            y, a = session.run(None, {**feeds, "a": a, "b": b})
            b = a
        for name in ("a", "b"):
            assert np.array_equal(namespace["state"][name][steps % 2].numpy(), a), (steps, name)
        assert np.array_equal(namespace["host"]["y"], y), steps


def test_an_input_paired_with_two_outputs_takes_the_first():
    """State code given two outputs for one input binds the input once, with the first; the other output goes to
    the host."""
    from ortcopy_doctor.report.pipeline import _state_code

    code = _state_code("m.onnx", [("h", "h1"), ("h", "h2")], (["h", "x"], ["h1", "h2"]), ()).code
    binds = _bind_calls(ast.parse(_runnable(code)))
    assert sorted(binds) == sorted(set(binds))
    assert ("bind_ortvalue_output", "h1") in binds and ("bind_output", "h2") in binds
    assert [n for m, n in binds if m in BIND_INPUTS].count("h") == 1


ESCAPES = "feat\x1b[2J\x1b[31mFORGED\nerror: fake line\u202e"


def test_the_terminal_text_escapes_names_that_would_clear_the_screen_or_forge_a_line(tmp_path):
    models = _models(tmp_path, ESCAPES)
    script = tmp_path / "prog.py"
    script.write_text(_PROGRAM.format(name=ESCAPES, other=OTHER_IN, step=STEP_IN, **models))
    report, code = run_program(["python", str(script)])
    assert code == 0
    text = render_pipeline_text(report)
    assert all(line.isprintable() for line in text.splitlines())
    assert not any(line.startswith("error: fake line") for line in text.splitlines())
    assert "feat\\x1b[2J\\x1b[31mFORGED\\nerror: fake line\\u202e" in text


def test_no_generated_code_carries_a_character_that_does_not_print(tmp_path):
    """An escape sequence or a bidi override in a comment ("Trojan Source") is written as its escape."""
    data, _ = _report(tmp_path, ESCAPES)
    for where, code in _codes(data).items():
        assert all(line.isprintable() for line in code.splitlines()), where

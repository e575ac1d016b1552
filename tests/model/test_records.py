"""``@frozen`` and ``@mutable`` (model/records.py) behave as ``@dataclass(frozen=True)`` and ``@dataclass``: each
behaviour is checked against the same class made by ``dataclasses``."""

from __future__ import annotations

import copy
import dataclasses
import pickle
import subprocess
import sys
from dataclasses import field
from typing import Generic, TypeVar

import pytest

from ortcopy_doctor.model.records import frozen, mutable
from render_helpers import REPO

T = TypeVar("T")


def _pair(body: dict[str, object], annotations: dict[str, str], frozen_: bool = True) -> tuple[type, type]:
    """The same class made by ``@frozen``/``@mutable`` and by ``@dataclass``: (ours, reference)."""
    def make(name: str) -> type:
        namespace = {"__doc__": "A test class.", **body, "__annotations__": dict(annotations),
                     "__module__": __name__, "__qualname__": name}
        return type(name, (), namespace)

    ours = (frozen if frozen_ else mutable)(make("Point"))
    reference = dataclasses.dataclass(frozen=frozen_)(make("Point"))
    return ours, reference


POINT = ({"z": 0, "tags": field(default_factory=list), "note": field(default="", compare=False, repr=False)},
         {"x": "int", "y": "str", "z": "int", "tags": "list[str]", "note": "str"})


@pytest.mark.parametrize("frozen_", [True, False], ids=["frozen", "mutable"])
def test_init_takes_the_same_arguments_as_dataclass(frozen_):
    ours, ref = _pair(*POINT, frozen_=frozen_)
    for args, kwargs in [((1, "a"), {}), ((1,), {"y": "b", "z": 3}), ((), {"x": 1, "y": "a", "tags": ["t"]}),
                         ((1, "a", 2, ["t"], "n"), {})]:
        assert vars(ours(*args, **kwargs)) == vars(ref(*args, **kwargs))


@pytest.mark.parametrize("frozen_", [True, False], ids=["frozen", "mutable"])
def test_init_fields_are_in_field_order(frozen_):
    ours, _ = _pair(*POINT, frozen_=frozen_)
    assert list(vars(ours(1, "a"))) == ["x", "y", "z", "tags", "note"]


def test_a_default_factory_gives_each_object_its_own_value():
    ours, _ = _pair(*POINT)
    first, second = ours(1, "a"), ours(1, "a")
    assert first.tags == [] and first.tags is not second.tags


@pytest.mark.parametrize("args, kwargs", [((), {}), ((1,), {}), ((1, "a", 2, [], "n", 5), {}),
                                          ((1, "a"), {"w": 1}), ((1,), {"x": 1})])
def test_wrong_arguments_raise_the_same_type_error_as_dataclass(args, kwargs):
    ours, ref = _pair(*POINT)
    with pytest.raises(TypeError) as got:
        ours(*args, **kwargs)
    with pytest.raises(TypeError) as expected:
        ref(*args, **kwargs)
    assert str(got.value) == str(expected.value)


def test_keyword_only_fields_come_after_a_star():
    ours, ref = _pair({"b": field(default=2, kw_only=True)}, {"b": "int", "a": "int"})
    assert vars(ours(1, b=3)) == vars(ref(1, b=3)) == {"b": 3, "a": 1}
    with pytest.raises(TypeError):
        ours(1, 3)


def test_a_field_outside_init_takes_its_factory_or_its_class_default():
    ours, ref = _pair({"cache": field(init=False, default_factory=dict), "level": field(init=False, default=7)},
                      {"a": "int", "cache": "dict[str, int]", "level": "int"})
    assert vars(ours(1)) == vars(ref(1)) == {"a": 1, "cache": {}}
    assert ours(1).level == ref(1).level == 7


def test_post_init_runs_after_the_fields_are_set():
    seen = []
    ours, _ = _pair({"__post_init__": lambda self: seen.append(self.a)}, {"a": "int"})
    ours(5)
    assert seen == [5]


@pytest.mark.parametrize("frozen_", [True, False], ids=["frozen", "mutable"])
def test_equality_compares_the_compared_fields_of_the_same_class(frozen_):
    ours, ref = _pair(*POINT, frozen_=frozen_)
    for cls in (ours, ref):
        assert cls(1, "a", note="x") == cls(1, "a", note="y")  # compare=False
        assert cls(1, "a") != cls(1, "b")
        assert cls(1, "a") != ref(1, "a") if cls is ours else cls(1, "a") != ours(1, "a")
        assert cls(1, "a").__eq__((1, "a", 0, [])) is NotImplemented


def test_a_frozen_object_hashes_its_hashed_fields():
    ours, ref = _pair({"z": field(default=0, hash=False)}, {"x": "int", "y": "str", "z": "int"})
    assert hash(ours(1, "a", 1)) == hash(ours(1, "a", 2)) == hash(ref(1, "a", 3)) == hash((1, "a"))
    assert {ours(1, "a"), ours(1, "a")} == {ours(1, "a")}


def test_a_frozen_object_with_one_field_or_none_hashes_a_tuple():
    one, _ = _pair({}, {"x": "int"})
    none, ref = _pair({}, {})
    assert hash(one(4)) == hash((4,))
    assert hash(none()) == hash(ref()) == hash(())
    assert none() == none()


def test_a_mutable_object_is_unhashable():
    ours, _ = _pair(*POINT, frozen_=False)
    with pytest.raises(TypeError, match="unhashable"):
        hash(ours(1, "a"))


@pytest.mark.parametrize("frozen_", [True, False], ids=["frozen", "mutable"])
def test_repr_is_the_same_as_dataclass(frozen_):
    ours, ref = _pair(*POINT, frozen_=frozen_)
    assert repr(ours(1, "a'b", tags=["t"], note="hidden")) == repr(ref(1, "a'b", tags=["t"], note="hidden")) \
        == "Point(x=1, y=\"a'b\", z=0, tags=['t'])"


def test_a_recursive_repr_shows_dots():
    ours, ref = _pair({}, {"child": "object"}, frozen_=False)
    node, other = ours(None), ref(None)
    node.child, other.child = node, other
    assert repr(node) == repr(other) == "Point(child=...)"


@pytest.mark.parametrize("action", ["assign a field", "assign a new name", "delete a field"])
def test_a_frozen_object_refuses_changes_as_dataclass_does(action):
    ours, ref = _pair(*POINT)
    for obj in (ours(1, "a"), ref(1, "a")):
        with pytest.raises(dataclasses.FrozenInstanceError) as raised:
            if action == "assign a field":
                obj.x = 2
            elif action == "assign a new name":
                obj.other = 2
            else:
                del obj.x
        assert "cannot" in str(raised.value)
    assert ours(1, "a").x == 1


def test_a_mutable_object_takes_changes():
    ours, _ = _pair(*POINT, frozen_=False)
    obj = ours(1, "a")
    obj.x = 2
    assert obj.x == 2


@pytest.mark.parametrize("frozen_", [True, False], ids=["frozen", "mutable"])
def test_the_dataclasses_functions_work_as_on_a_dataclass(frozen_):
    ours, ref = _pair(*POINT, frozen_=frozen_)
    assert dataclasses.is_dataclass(ours)
    assert [f.name for f in dataclasses.fields(ours)] == [f.name for f in dataclasses.fields(ref)]
    assert dataclasses.asdict(ours(1, "a")) == dataclasses.asdict(ref(1, "a"))
    assert dataclasses.astuple(ours(1, "a")) == (1, "a", 0, [], "")
    changed = dataclasses.replace(ours(1, "a", tags=["t"]), y="b")
    assert vars(changed) == {"x": 1, "y": "b", "z": 0, "tags": ["t"], "note": ""}
    assert ours.__match_args__ == ref.__match_args__
    params = ours.__dataclass_params__
    assert (params.init, params.repr, params.eq, params.frozen) == (True, True, True, frozen_)


@pytest.mark.parametrize("frozen_", [True, False], ids=["frozen", "mutable"])
def test_copy_and_pickle_give_equal_objects(frozen_):
    obj = (_Frozen if frozen_ else _Mutable)(1, ["t"])
    assert copy.copy(obj) == copy.deepcopy(obj) == pickle.loads(pickle.dumps(obj)) == obj


def test_a_generic_class_works():
    box = _Box[int](3)
    assert box == _Box(3) and repr(box) == "_Box(value=3)" and hash(box) == hash((3,))


def test_a_class_defining_a_made_method_itself_is_refused():
    class Own:
        """A test class."""

        a: int

        def __eq__(self, other):
            return True

    with pytest.raises(TypeError, match=r"Own defines __eq__ itself: the decorator makes it"):
        frozen(Own)


def test_an_initvar_field_is_refused():
    with pytest.raises(TypeError, match=r"InitVar fields \(seed\)"):
        frozen(type("Seeded", (), {"__annotations__": {"seed": "dataclasses.InitVar[int]"}}))


def test_init_is_named_for_its_class():
    assert _Frozen.__init__.__qualname__ == "_Frozen.__init__"
    assert _Frozen.__init__.__module__ == __name__


@frozen
class _Frozen:
    """A module-level frozen class (pickle finds it by name)."""

    a: int
    tags: list[str] = field(default_factory=list)


@mutable
class _Mutable:
    """A module-level mutable class."""

    a: int
    tags: list[str] = field(default_factory=list)


@frozen
class _Box(Generic[T]):
    """A generic frozen class."""

    value: T


def test_a_class_without_a_docstring_gets_its_signature_as_dataclass_gives_it():
    ours, ref = _pair({"__doc__": None, "z": 0}, {"x": "int", "z": "int"})
    assert ours.__doc__ == ref.__doc__ == "Point(x: 'int', z: 'int' = 0)"


def test_making_an_undocumented_class_does_not_parse_a_builtin_signature(monkeypatch):
    """dataclasses would read ``object.__init__``'s text signature here (tokenize's regular expressions: ~12 ms,
    once a process); the docstring comes from the compiled ``__init__`` instead."""
    import tokenize

    def refuse(*_args):
        raise AssertionError("tokenize ran")

    monkeypatch.setattr(tokenize, "_compile", refuse)
    made = frozen(type("Bare", (), {"__annotations__": {"a": "int"}, "__module__": __name__}))
    assert made.__doc__ == "Bare(a: 'int')"


def test_fields_named_like_the_inits_own_names_work():
    ours, ref = _pair({}, {"self": "int", "_d": "int", "_HAS_FACTORY": "int"})
    assert vars(ours(1, 2, 3)) == vars(ref(1, 2, 3)) == {"self": 1, "_d": 2, "_HAS_FACTORY": 3}
    assert vars(ours(_d=2, self=1, _HAS_FACTORY=3)) == {"self": 1, "_d": 2, "_HAS_FACTORY": 3}


def test_a_field_named_with_the_inits_prefix_is_refused():
    with pytest.raises(TypeError, match="may not start with __ortcopy_"):
        frozen(type("Clash", (), {"__annotations__": {"__ortcopy_dict": "int"}, "__module__": __name__}))


# --- __init__s compiled ahead of time (model/_inits.py, tools/gen_inits.py) --------------------------------------


def test_the_compiled_inits_module_is_what_the_tool_writes_for_the_classes_now():
    # a fresh interpreter imports every module of the package and compares: a class changed without running
    # tools/gen_inits.py fails here (its __init__ would still work, compiled as the class is made)
    result = subprocess.run([sys.executable, str(REPO / "tools" / "gen_inits.py"), "--check"], capture_output=True,
                            text=True, timeout=300, check=False)
    assert (result.returncode, result.stderr) == (0, "")


def test_a_package_class_gets_its_init_from_the_compiled_module():
    from ortcopy_doctor.model.evidence import Timings

    assert Timings.__init__.__code__.co_filename.endswith("_inits.py")
    assert Timings.__init__.__qualname__ == "Timings.__init__"
    assert Timings.__init__.__module__ == "ortcopy_doctor.model.evidence"


def test_a_class_unlike_any_of_the_package_gets_its_init_compiled_when_made():
    @frozen
    class Unlike:
        an_unusual_field_name: int

    assert Unlike.__init__.__code__.co_filename == "<string>"
    assert Unlike(3).an_unusual_field_name == 3


def test_a_compiled_init_takes_the_defaults_of_the_class_that_uses_it():
    # the same fields as Timings, so the same __init__ source, with defaults of its own
    from ortcopy_doctor.model.evidence import Timings

    @frozen
    class Same:
        warmup_runs: int
        profiled_runs: int
        run_ms: list[float]
        session_create_ms: float = 5.0
        first_run_ms: float = 7.0

    assert Same.__init__ is not Timings.__init__  # a function of its own (sharing its code)...
    assert Same.__init__.__code__.co_filename.endswith("_inits.py")  # ...from the compiled module
    assert (Same(1, 2, []).session_create_ms, Same(1, 2, []).first_run_ms) == (5.0, 7.0)
    assert (Timings(1, 2, []).session_create_ms, Timings(1, 2, []).first_run_ms) == (0.0, 0.0)


def test_a_compiled_init_calls_the_factories_of_the_class_that_uses_it():
    # the same fields as RuntimeNode (two list factories), with factories of its own
    from ortcopy_doctor.model.evidence import RuntimeNode

    @frozen
    class Same:
        name: str
        op_type: str
        domain: str
        provider: str
        inputs: list[str] = field(default_factory=lambda: ["x"])
        outputs: list[str] = field(default_factory=lambda: ["y"])
        graph: str = "g"
        fallback_reason: str | None = "r"
        fallback_detail: str = "d"

    assert Same.__init__.__code__.co_filename.endswith("_inits.py")
    one, two = Same("n", "Add", "", "cpu"), Same("n", "Add", "", "cpu")
    assert (one.inputs, one.outputs, one.graph, one.fallback_reason) == (["x"], ["y"], "g", "r")
    assert one.inputs is not two.inputs  # each object its own list
    assert (RuntimeNode("n", "Add", "", "cpu").inputs, RuntimeNode("n", "Add", "", "cpu").graph) == ([], "")

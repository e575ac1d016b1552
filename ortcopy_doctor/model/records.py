"""``@frozen`` and ``@mutable``: the project's dataclasses, made in a quarter of the time ``@dataclass`` takes.

On Python 3.11 ``@dataclass(frozen=True)`` compiles six methods from source for every class (``__init__``,
``__repr__``, ``__eq__``, ``__hash__``, ``__setattr__``, ``__delattr__``): 1.1-1.8 ms a class on the 2-CPU
machine of docs/benchmarks.md, and a ``check`` defines 66 of them before it reads the model (~90 ms of every run,
a quarter of what ortcopy-doctor's own imports cost; issue 15, goal c). These decorators let ``dataclasses`` read
the fields (so ``fields``, ``replace``, ``asdict`` and ``is_dataclass`` work as before) and compile only
``__init__``; equality, hashing, ``repr`` and the frozen ``__setattr__``/``__delattr__`` are shared functions that
read the class's field names (0.25-0.45 ms a class). The package's own ``__init__`` sources are compiled ahead
of time, in model/_inits.py (tools/gen_inits.py writes it; a test keeps it current): a class whose source text is
there gets that function, bound to its own defaults and factories, instead of compiling the text as it is made
(12-20 ms of every ``check`` for the 61 classes it loads; any other class is compiled as before).

What a class gets is what ``@dataclass(frozen=True)`` (``@frozen``) or ``@dataclass`` (``@mutable``) gives it:

* ``__init__(self, <fields in order>)`` with the fields' defaults and default factories, keyword-only fields
  after ``*``, ``__post_init__`` called at the end; a field with ``init=False`` is set from its factory or left
  to its class default. It writes the instance's ``__dict__`` directly (what ``@dataclass(frozen=True)`` does
  through ``object.__setattr__``, half as fast);
* ``__eq__``: the same class and equal fields (``compare=True``), else ``NotImplemented``;
* ``__hash__``: a frozen class hashes its fields (``hash``, else ``compare``); a mutable one is unhashable;
* ``__repr__``: ``Name(field=value, ...)`` over the fields with ``repr=True``;
* frozen: assigning or deleting any attribute raises ``dataclasses.FrozenInstanceError``.

Not supported (``TypeError`` when the class is made): ``InitVar`` fields and a class defining one of the methods
above itself; the decorators take no options (no ``order``, ``slots``), and a dataclass cannot subclass a
``@frozen`` class. The tests compare each behaviour with ``@dataclass``'s
(tests/model/test_records.py).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import operator
import reprlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:
    from typing_extensions import dataclass_transform
else:
    def dataclass_transform(**_: object) -> Callable[[Any], Any]:
        """Typing only (PEP 681): tells the type checker these decorators make dataclasses."""
        return lambda decorator: decorator

T = TypeVar("T")

_MISSING = dataclasses.MISSING
_OWN_METHODS = ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__")
_OWN_PREFIX = "__ortcopy_"  # the names of the compiled __init__ itself


class _Factory:
    """The default of an ``__init__`` parameter whose field has a default factory (``@dataclass`` does the same)."""

    def __repr__(self) -> str:
        return "<factory>"


_HAS_FACTORY = _Factory()
_MADE: list[tuple[str, str, str, tuple[str, ...]]] = []  # made_inits()


@dataclass_transform(frozen_default=True, field_specifiers=(dataclasses.field, dataclasses.Field))
def frozen(cls: type[T]) -> type[T]:
    """``@dataclass(frozen=True)``, made faster (module docstring)."""
    return _make(cls, frozen=True)


@dataclass_transform(field_specifiers=(dataclasses.field, dataclasses.Field))
def mutable(cls: type[T]) -> type[T]:
    """``@dataclass``, made faster (module docstring)."""
    return _make(cls, frozen=False)


def _make(cls: type[T], *, frozen: bool) -> type[T]:
    # (a class defining __eq__ gets __hash__ = None from Python itself: that one is not the class's own)
    own = [name for name in _OWN_METHODS if cls.__dict__.get(name, _MISSING) not in (_MISSING, None)]
    if own:
        raise TypeError(f"{cls.__qualname__} defines {', '.join(own)} itself: the decorator makes it")
    # Fields only: with init, repr and eq off and not frozen, dataclasses compiles nothing. A class without a
    # docstring gets its signature as one, below: dataclasses would read it from object.__init__ here, parsing
    # a builtin's signature text with tokenize's regular expressions (~12 ms, once a process).
    undocumented = not cls.__doc__
    if undocumented:
        cls.__doc__ = "-"  # (dataclasses writes one where the docstring is empty or None)
    made: Any = dataclasses.dataclass(cls, init=False, repr=False, eq=False)
    fields = dataclasses.fields(made)
    pseudo = [f.name for name, f in made.__dict__["__dataclass_fields__"].items() if f not in fields
              and "InitVar" in str(f.type)]
    if pseudo:
        raise TypeError(f"{cls.__qualname__}: InitVar fields ({', '.join(pseudo)}) are not supported here")
    made.__init__ = _init(made, fields)
    if undocumented:
        made.__doc__ = made.__name__ + str(inspect.signature(made)).replace(" -> None", "")
    compared = tuple(f.name for f in fields if f.compare)
    values = _getter(compared)
    made.__eq__ = _eq(values)
    if frozen:
        hashed = tuple(f.name for f in fields if (f.compare if f.hash is None else f.hash))
        made.__hash__ = _hash(_getter(hashed))
        made.__setattr__ = _frozen_setattr
        made.__delattr__ = _frozen_delattr
    else:
        made.__hash__ = None
    made.__repr__ = _repr(tuple(f.name for f in fields if f.repr))
    params = made.__dict__["__dataclass_params__"]
    params.init = params.repr = params.eq = True
    params.frozen = frozen
    result: type[T] = made
    return result


def _init(cls: type, fields: tuple[dataclasses.Field[Any], ...]) -> Callable[..., None]:
    """``cls.__init__``: compiled from the field names (the one method that is: it runs for every object).

    Its own names (the instance, its ``__dict__``, the defaults and factories) start with ``__ortcopy_``, which
    no field name may (``TypeError``), so that a field called ``self`` or ``_d`` takes nothing's place."""
    clashes = [f.name for f in fields if f.name.startswith(_OWN_PREFIX)]
    if clashes:
        raise TypeError(f"{cls.__qualname__}: field names may not start with {_OWN_PREFIX} ({', '.join(clashes)})")
    me, values = f"{_OWN_PREFIX}self", f"{_OWN_PREFIX}dict"
    no_value = f"{_OWN_PREFIX}has_factory"
    namespace: dict[str, Any] = {no_value: _HAS_FACTORY}
    positional: list[str] = []
    keyword: list[str] = []
    body = [f"    {values} = {me}.__dict__"]
    for i, f in enumerate(fields):
        name = f.name
        factory, default = f"{_OWN_PREFIX}factory{i}", f"{_OWN_PREFIX}default{i}"
        if f.default_factory is not _MISSING:
            namespace[factory] = f.default_factory
        if not f.init:
            if f.default_factory is not _MISSING:
                body.append(f"    {values}[{name!r}] = {factory}()")
            continue
        if f.default_factory is not _MISSING:
            param = f"{name}={no_value}"
            body.append(f"    {values}[{name!r}] = {factory}() if {name} is {no_value} else {name}")
        else:
            if f.default is not _MISSING:
                namespace[default] = f.default
                param = f"{name}={default}"
            else:
                param = name
            body.append(f"    {values}[{name!r}] = {name}")
        (keyword if f.kw_only is True else positional).append(param)
    params = [me, *positional] + (["*", *keyword] if keyword else [])
    if hasattr(cls, "__post_init__"):
        body.append(f"    {me}.__post_init__()")
    source = f"def __init__({', '.join(params)}) -> None:\n" + "\n".join(body) + "\n"
    names = tuple(sorted(namespace))
    _MADE.append((cls.__module__, cls.__qualname__, source, names))
    made = _precompiled().get(source)
    init: Callable[..., None]
    if made is not None and made[1] == names:  # compiled ahead (model/_inits.py): bound to this class's values
        init = made[0](*[namespace[name] for name in names])
    else:
        exec(source, namespace)  # noqa: S102 - code made here from the dataclass's own field names
        init = namespace["__init__"]
    init.__annotations__ = {f.name: f.type for f in fields if f.init} | {"return": None}
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    return init


@functools.lru_cache(maxsize=1)
def _precompiled() -> dict[str, tuple[Callable[..., Callable[..., None]], tuple[str, ...]]]:
    """The ``__init__`` sources compiled ahead of time (model/_inits.py, written by tools/gen_inits.py), each with
    the function that makes it over a class's defaults and factories (the names of ``__init__``'s namespace, in
    order). Empty where that module is missing: every ``__init__`` is then compiled as the class is made."""
    try:
        from ortcopy_doctor.model import _inits
    except ImportError:  # pragma: no cover - removed from an installed copy
        return {}
    return cast("dict[str, tuple[Callable[..., Callable[..., None]], tuple[str, ...]]]", _inits.INITS)


def made_inits() -> list[tuple[str, str, str, tuple[str, ...]]]:
    """Every ``__init__`` made so far in this process: (module, class qualname, source, namespace names), in the
    order the classes were made. tools/gen_inits.py writes model/_inits.py from the package's."""
    return list(_MADE)


def _getter(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The tuple of an object's ``names`` (what ``@dataclass`` compares and hashes)."""
    if len(names) > 1:
        return operator.attrgetter(*names)
    if names:
        single = operator.attrgetter(names[0])
        return lambda obj: (single(obj),)
    return lambda obj: ()


def _eq(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any, object], Any]:
    def __eq__(self: Any, other: object) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented

    return __eq__


def _hash(values: Callable[[Any], tuple[Any, ...]]) -> Callable[[Any], int]:
    def __hash__(self: Any) -> int:
        return hash(values(self))

    return __hash__


def _repr(names: tuple[str, ...]) -> Callable[[Any], str]:
    @reprlib.recursive_repr()
    def __repr__(self: Any) -> str:
        inner = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({inner})"

    return __repr__


def _frozen_setattr(self: Any, name: str, value: object) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: Any, name: str) -> None:
    raise dataclasses.FrozenInstanceError(f"cannot delete field {name!r}")


__all__ = ["frozen", "mutable"]

"""Write ortcopy_doctor/model/_inits.py: the ``__init__`` of every ``@frozen``/``@mutable`` class of the package,
compiled ahead of time (model/records.py).

    python tools/gen_inits.py           # rewrite the module from the classes as they are now
    python tools/gen_inits.py --check   # exit 1 if the module is not what this would write (the tests run this)

The decorators make each ``__init__`` from its class's fields as source text. Compiling that text as every
``check`` starts cost 12-20 ms on the 2-CPU machine of docs/benchmarks.md (issue 15, goal c); a module of the
package is compiled once, to bytecode, like the rest. Each ``__init__`` is kept inside a function whose
parameters are the names the text reads (defaults, factories): the decorator calls it with the class's own
values, and uses it only where the text it would compile is this module's key, character for character. A class
changed without running this tool gets its ``__init__`` compiled as before, and tests/model/test_records.py fails
until the module is written again.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
TARGET = REPO / "ortcopy_doctor" / "model" / "_inits.py"

HEADER = '''\
# Written by tools/gen_inits.py from the package's @frozen/@mutable classes: do not edit, run that tool again.
# mypy: ignore-errors
"""The ``__init__`` of every ``@frozen``/``@mutable`` class of the package, compiled ahead of time
(model/records.py, tools/gen_inits.py). ``INITS`` maps the source text the decorator would compile to the function
that makes that ``__init__`` over a class's defaults and factories, with the names of those parameters."""

'''


def package_inits() -> list[tuple[str, list[str], tuple[str, ...]]]:
    """(source, the classes that use it, namespace names) for every ``__init__`` the package's modules make,
    each source once, in the order of the first class (module, qualname) that uses it."""
    sys.path.insert(0, str(REPO))
    import ortcopy_doctor
    from ortcopy_doctor.model import records

    for info in sorted(pkgutil.walk_packages(ortcopy_doctor.__path__, "ortcopy_doctor."), key=lambda i: i.name):
        if info.name.startswith("ortcopy_doctor._bootstrap") or info.name.endswith(("__main__", "._inits")):
            continue
        importlib.import_module(info.name)
    by_source: dict[str, tuple[list[str], tuple[str, ...]]] = {}
    for module, qualname, source, names in records.made_inits():
        if not module.startswith("ortcopy_doctor."):
            continue
        users, known = by_source.setdefault(source, ([], names))
        assert known == names, (qualname, known, names)
        users.append(f"{module}.{qualname}")
    return sorted(((source, sorted(users), names) for source, (users, names) in by_source.items()),
                  key=lambda item: item[1][0])


def module_text() -> str:
    """The text of model/_inits.py for the classes as they are now."""
    parts = [HEADER]
    entries = []
    for i, (source, users, names) in enumerate(package_inits()):
        parts.append("\n")
        parts.extend(f"# {user}\n" for user in users)
        parts.append(f"def _make_{i}({', '.join(names)}):\n")
        parts.extend(f"    {line}\n" if line else "\n" for line in source.splitlines())
        parts.append("    return __init__\n\n")
        entries.append(f"    {source!r}: (_make_{i}, {names!r}),\n")
    parts.append("\nINITS = {\n" + "".join(entries) + "}\n")
    return "".join(parts)


def main() -> int:
    """Write the module, or with ``--check`` say whether it is current."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the module differs from what would be written")
    args = parser.parse_args()
    text = module_text()
    if args.check:
        current = TARGET.read_text(encoding="utf-8") if TARGET.is_file() else ""
        if current != text:
            print(f"{TARGET.relative_to(REPO)} is out of date: run python tools/gen_inits.py", file=sys.stderr)
            return 1
        return 0
    TARGET.write_text(text, encoding="utf-8")
    print(f"wrote {TARGET.relative_to(REPO)} ({text.count('def _make_')} __init__ sources)")
    return 0


if __name__ == "__main__":
    sys.exit(main())

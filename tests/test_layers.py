"""The house's layers (docs/architecture.md), read from every import in the source, the
ones inside functions too: a module imports only from its own layer or the ones below,
and no two files import each other, however indirectly."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from .conftest import REPO

#: bottom to top; a package in the middle floor may use the floor below and itself only
FLOORS: tuple[tuple[str, ...], ...] = (
    ("difftest.core",),
    ("generators", "oracles", "targets"),
    ("difftest.campaign",),
    ("difftest.app", "difftest.__main__", "difftest"),
    ("benchmarks",),
)
PACKAGES = ("difftest", "generators", "oracles", "targets", "benchmarks")


def _module(path: Path) -> str:
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, Path]:
    return {_module(p): p for pkg in PACKAGES for p in sorted((REPO / pkg).rglob("*.py"))}


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """The project modules `name` imports (a `from X import y` names X.y when that is a
    module of its own)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")
                up = up[:len(up) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{a.name}" for a in node.names)
    return {m for m in found if m in known and m != name}


def _floor(module: str) -> tuple[int, str]:
    best: tuple[int, str] = (-1, "")
    for level, owners in enumerate(FLOORS):
        for owner in owners:
            if (module == owner or module.startswith(owner + ".")) and len(owner) > len(best[1]):
                best = (level, owner)
    assert best[0] >= 0, f"{module} is on no floor"
    return best


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(name, path, known) for name, path in modules.items()}


def test_no_module_imports_from_a_floor_above_its_own() -> None:
    wrong = []
    for name, deps in _graph().items():
        level, owner = _floor(name)
        for dep in deps:
            dep_level, dep_owner = _floor(dep)
            if dep_level > level or (dep_level == level == 1 and dep_owner != owner):
                wrong.append(f"{name} -> {dep}")
    assert not wrong, "imports against the layers:\n" + "\n".join(sorted(wrong))


def test_no_two_files_import_each_other() -> None:
    """No cycle in the file graph (a package's __init__ importing its own modules is
    the package, not a cycle)."""
    graph = {n: {d for d in deps if not n.startswith(d + ".") and not d.startswith(n + ".")}
             for n, deps in _graph().items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    assert not cycles, f"files that import each other: {cycles}"


@pytest.mark.parametrize("module, floor", [("difftest.core.verdict", 0),
                                           ("targets.numba_simt.device.machine", 1),
                                           ("difftest.campaign.fuzz", 2),
                                           ("difftest.app.cli", 3)])
def test_the_floors_are_read_as_documented(module: str, floor: int) -> None:
    assert _floor(module)[0] == floor


#: inside numba-simt, bottom to top: the ISA and the mutants' table, then the compiler and
#: the machine (neither knows the other), then the runtime that launches compiled code on
#: the machine, then the target that wires them
NUMBA_SIMT = {"isa": 0, "mutants": 0, "compiler": 1, "device": 1, "runtime": 2, "target": 3}


def test_numba_simt_is_built_compiler_and_device_then_runtime() -> None:
    prefix = "targets.numba_simt."

    def part(module: str) -> str:
        return module[len(prefix):].split(".")[0]

    wrong = []
    for name, deps in _graph().items():
        if not name.startswith(prefix):
            continue
        for dep in deps:
            if not dep.startswith(prefix) or part(dep) == part(name):
                continue
            if NUMBA_SIMT[part(dep)] >= NUMBA_SIMT[part(name)]:
                wrong.append(f"{name} -> {dep}")
    assert not wrong, "numba-simt imports against its parts:\n" + "\n".join(sorted(wrong))

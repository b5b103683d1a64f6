"""One way to visit and to rewrite IR trees.

Every node is a frozen dataclass whose children are nodes or tuples of nodes (see
`nodes`), so one table of child fields per class serves every walk: `walk(node)` yields a
tree's nodes in evaluation order (pre-order, fields in declaration order, which is the
language's left-to-right order), and `rewrite(node, fn)` rebuilds a tree bottom-up with
`fn` applied to each rebuilt node. Passes that need the structure (the checker, the
oracle, the compilers) dispatch on node classes themselves; this module is for the many
that only need "every node" or "this node, replaced".
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from . import nodes as n

_T = TypeVar("_T")

#: the IR's node classes, and per class the names of the fields that hold children
NODE_CLASSES: frozenset[type] = frozenset(
    c for c in vars(n).values() if isinstance(c, type) and dataclasses.is_dataclass(c))
_SKIP = frozenset({"line", "ty", "declared", "to", "returns"})
CHILD_FIELDS: dict[type, tuple[str, ...]] = {
    c: tuple(f.name for f in dataclasses.fields(c) if f.name not in _SKIP)
    for c in NODE_CLASSES}
#: per class, the fields that hold a block of statements (declared `tuple[Stmt, ...]`)
BLOCK_FIELDS: dict[type, tuple[str, ...]] = {
    c: tuple(f.name for f in dataclasses.fields(c) if f.type == "tuple[Stmt, ...]")
    for c in NODE_CLASSES}
#: where a node sits below another: field names and tuple indices, outermost first
Path = tuple["int | str", ...]


def children(node: Any) -> Iterator[Any]:
    """The direct child nodes of `node` (tuples flattened), in field order."""
    return iter(_children(node))


def _children(node: Any) -> list[Any]:
    """`children(node)` as a list (what `walk` extends its stack with)."""
    out = []
    for name in CHILD_FIELDS.get(node.__class__, ()):
        value = getattr(node, name)
        if value.__class__ is tuple:
            out += [x for x in value if x.__class__ in NODE_CLASSES]
        elif value.__class__ in NODE_CLASSES:
            out.append(value)
    return out


#: `walk`'s answers while their nodes live: id -> (the node, its nodes in pre-order);
#: emptied when it holds more than `_FLAT_LIMIT` nodes in all
_FLAT: dict[int, tuple[Any, tuple[Any, ...]]] = {}
_FLAT_LIMIT = 1 << 18
_flat_held = 0


def walk(node: Any) -> Iterator[Any]:
    """`node` (a node, or a tuple of nodes) and everything below it, pre-order. The nodes
    are immutable, so each tree's list is made once and kept while it lives: a generated
    kernel is walked a dozen times over (which functions a launch reaches, the kinds of
    node it meets, the coverage and pair passes)."""
    global _flat_held
    hit = _FLAT.get(id(node))
    if hit is not None and hit[0] is node:
        return iter(hit[1])
    out: list[Any] = []
    stack = list(reversed(node)) if node.__class__ is tuple else [node]
    while stack:
        cur = stack.pop()
        if cur.__class__ is tuple:
            stack += reversed(cur)
            continue
        if cur.__class__ not in NODE_CLASSES:
            continue
        out.append(cur)
        below = _children(cur)
        below.reverse()
        stack += below
    flat = tuple(out)
    if _flat_held > _FLAT_LIMIT:
        _FLAT.clear()
        _flat_held = 0
    _FLAT[id(node)] = (node, flat)
    _flat_held += len(flat) + 1
    return iter(flat)


def rewrite(node: _T, fn: Callable[[Any], Any]) -> _T:
    """A copy of `node` with every node replaced bottom-up by `fn(rebuilt node)`. `fn`
    returns its argument to keep a node; unchanged subtrees are shared, not copied. The
    result is unchecked if `fn` changed anything: run `check` on a rewritten program."""
    if node.__class__ is tuple:
        items = tuple(rewrite(x, fn) for x in node)  # type: ignore[attr-defined]
        same = all(a is b for a, b in zip(items, node))  # type: ignore[call-overload]
        return node if same else items  # type: ignore[return-value]
    if node.__class__ not in NODE_CLASSES:
        return node
    changes = {}
    for name in CHILD_FIELDS[node.__class__]:
        old = getattr(node, name)
        new = rewrite(old, fn)
        if new is not old:
            changes[name] = new
    rebuilt = n.replace(node, **changes) if changes else node
    return fn(rebuilt)  # type: ignore[no-any-return]


def substitute(node: _T, fn: Callable[[Any], Any]) -> _T:
    """A copy of `node` where each node for which `fn(node)` returns a replacement (not
    None) is replaced, top-down: `fn` sees the original nodes (so it may key on their
    identity), and the replacement's own children are substituted in turn."""
    if node.__class__ is tuple:
        items = tuple(substitute(x, fn) for x in node)  # type: ignore[attr-defined]
        same = all(a is b for a, b in zip(items, node))  # type: ignore[call-overload]
        return node if same else items  # type: ignore[return-value]
    if node.__class__ not in NODE_CLASSES:
        return node
    new = fn(node)
    if new is not None:
        node = new
    changes = {}
    for name in CHILD_FIELDS[node.__class__]:
        old = getattr(node, name)
        sub = substitute(old, fn)
        if sub is not old:
            changes[name] = sub
    return n.replace(node, **changes) if changes else node


def sites(node: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    """(path, node) for `node` and every node below it, pre-order, each path relative to
    the `node` given (`at` and `replace_at` follow them)."""
    if node.__class__ is tuple:
        for i, x in enumerate(node):
            yield from sites(x, path + (i,))
        return
    if node.__class__ not in NODE_CLASSES:
        return
    yield path, node
    for name in CHILD_FIELDS[node.__class__]:
        yield from sites(getattr(node, name), path + (name,))


def blocks(body: tuple[n.Stmt, ...], path: Path = ()
           ) -> Iterator[tuple[Path, tuple[n.Stmt, ...]]]:
    """(path, block) for a statement block and every block nested in its statements
    (empty ones too), depth first: a block, then each of its statements' blocks with
    theirs, in order."""
    yield path, body
    for i, s in enumerate(body):
        for name in BLOCK_FIELDS.get(s.__class__, ()):
            yield from blocks(getattr(s, name), path + (i, name))


def at(node: Any, path: Path) -> Any:
    """What `path` leads to from `node`."""
    for step in path:
        node = node[step] if step.__class__ is int else getattr(node, step)  # type: ignore[index,arg-type]
    return node


def replace_at(node: _T, path: Path, new: Any) -> _T:
    """A copy of `node` with what `path` leads to replaced by `new` (unchecked)."""
    if not path:
        return new  # type: ignore[no-any-return]
    step, rest = path[0], path[1:]
    if step.__class__ is int:
        i: int = step  # type: ignore[assignment]
        seq: tuple[Any, ...] = node  # type: ignore[assignment]
        return seq[:i] + (replace_at(seq[i], rest, new),) + seq[i + 1:]  # type: ignore[return-value]
    return n.replace(node, **{step: replace_at(getattr(node, step), rest, new)})  # type: ignore[arg-type]


def calls(node: Any) -> Iterator[n.Call]:
    """The helper calls in `node`, in evaluation order."""
    return (x for x in walk(node) if x.__class__ is n.Call)


def reachable(program: n.Program, entry: str) -> list[n.Function]:
    """The functions `entry` can reach through calls, each after every function it calls
    (callees first: the order C-like languages declare them in)."""
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        for c in calls(program.function(name).body):
            visit(c.func)
        order.append(name)

    visit(entry)
    return [program.function(name) for name in order]


def float_use(program: n.Program, entry: str, ty: Any) -> str | None:
    """Where a launch of `entry` first takes, declares or computes a value of float type
    `ty` (None: it never does): what a target without that type names, and what makes a
    translation say how floats are computed."""
    if any(p.ty is ty or p.ty.is_buffer and p.ty.element is ty
           for p in program.function(entry).params):
        return f"a parameter of type {ty} or Buffer[{ty}]"
    for fn in reachable(program, entry):
        for node in walk(fn.body):
            if getattr(node, "ty", None) is ty or getattr(node, "element", None) is ty:
                return f"line {node.line}"
    return None


def f32_use(program: n.Program, entry: str) -> str | None:
    """Where a launch of `entry` first takes or computes an f32 (None: never)."""
    from .types import F32

    return float_use(program, entry, F32)


def f64_use(program: n.Program, entry: str) -> str | None:
    """Where a launch of `entry` first takes or computes an f64 (None: never)."""
    from .types import F64

    return float_use(program, entry, F64)


_INT_TYPES: dict[tuple[int, str], tuple[n.Program, dict[Any, str]]] = {}


def int_types_used(program: n.Program, entry: str) -> dict[Any, str]:
    """The integer types a launch of `entry` holds or computes with (its parameters'
    types and buffers' elements, every typed expression, declaration, conversion and
    workgroup array), each with where it is first met: what a target that runs only
    some integer types names. Once per program (cached while the program lives: the
    fuzz loop asks for every case of a kernel)."""
    key = (id(program), entry)
    hit = _INT_TYPES.get(key)
    if hit is not None and hit[0] is program:
        return hit[1]
    found: dict[Any, str] = {}
    for fn in reachable(program, entry):
        for p in fn.params:
            ty = p.ty.element if p.ty.is_buffer else p.ty
            if ty.is_int:
                found.setdefault(ty, f"parameter '{p.name}' of '{fn.name}'")
        for node in walk(fn.body):
            for t in (getattr(node, "ty", None), getattr(node, "declared", None),
                      getattr(node, "to", None), getattr(node, "element", None)):
                if t is not None and t.is_int:
                    found.setdefault(t, f"line {node.line}")
    if len(_INT_TYPES) >= 64:
        _INT_TYPES.clear()
    _INT_TYPES[key] = (program, found)
    return found


_NAMES: dict[int, tuple[Any, frozenset[str]]] = {}


def names_read(node: Any) -> frozenset[str]:
    """The variables `node` (a node, or a tuple of them) reads: the ids of the `Name`s
    below it. Cached per node while it lives (the coverage passes ask it of the same
    statements for every variable and every later loop)."""
    if node.__class__ is tuple:
        return frozenset().union(*(names_read(x) for x in node))
    hit = _NAMES.get(id(node))
    if hit is not None and hit[0] is node:
        return hit[1]
    names = frozenset(x.id for x in walk(node) if x.__class__ is n.Name)
    if len(_NAMES) >= 1 << 16:
        _NAMES.clear()
    _NAMES[id(node)] = (node, names)
    return names


_KINDS: dict[tuple[int, str], tuple[n.Program, frozenset[type]]] = {}


def kinds_reached(program: n.Program, entry: str) -> frozenset[type]:
    """The node classes a launch of `entry` can meet. Once per program (cached while the
    program lives): the oracle, the checker and the targets each ask it of every run."""
    key = (id(program), entry)
    hit = _KINDS.get(key)
    if hit is not None and hit[0] is program:
        return hit[1]
    kinds = frozenset(node.__class__ for fn in reachable(program, entry)
                      for node in walk(fn.body))
    if len(_KINDS) >= 64:
        _KINDS.clear()
    _KINDS[key] = (program, kinds)
    return kinds


def has_barriers(program: n.Program, entry: str) -> bool:
    """Whether a launch of `entry` can meet a barrier: its workgroups synchronise."""
    return n.Barrier in kinds_reached(program, entry)


def has_ordered_atomics(program: n.Program, entry: str) -> bool:
    """Whether a launch of `entry` can meet an atomic that returns: then its atomics are
    ordered, and a target reports the values they returned (docs/semantics.md, "Atomics
    that return")."""
    return n.AtomicOp in kinds_reached(program, entry)


def wide_atomics(program: n.Program, entry: str) -> bool:
    """Whether a launch of `entry` can meet an atomic on elements wider than 32 bits: a
    target then reports its atomics' returned values in 64-bit log slots, else in 32-bit
    ones (docs/semantics.md, "What a target reports"; WGSL has no i64)."""
    for fn in reachable(program, entry):
        # the element type of each name a buffer or an array goes by in the function
        elements = {p.name: p.ty.element for p in fn.params if p.ty.is_buffer}
        for node in walk(fn.body):
            if isinstance(node, n.LocalArray):
                elements[node.name] = node.element
            elif isinstance(node, n.Assign) and node.value.ty is not None \
                    and node.value.ty.is_buffer:
                elements[node.target] = node.value.ty.element
        for node in walk(fn.body):
            if isinstance(node, (n.AtomicOp, n.AtomicAdd)):
                ty = elements.get(node.buffer)
                if ty is None or ty.bits > 32:
                    return True
    return False

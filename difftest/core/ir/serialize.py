"""Versioned JSON form of the IR: every node a dict tagged with its class as `kind`.

Shape: `{"format": "difftest-ir", "version": 1, "functions": [Function, ...]}`; each node
is `{"kind": ..., <its fields>, "line": ...}` with types as their source spelling
("i32", "Buffer[i64]") and child tuples as lists. An expression's `ty` is never stored:
it is the checker's to derive.

`from_json` is strict, because this is an input format: an unknown or misplaced kind, a
missing or extra field, a field of the wrong JSON type, a name that is not an identifier,
an unknown operator, type spelling, format or version all raise `KernelError` whose
`where` is the node path (`functions[0].body[2].value.left`). It then runs `check()`, so
what comes back is typed and valid (the checker's errors carry the node's line). Plain
data only: nothing is evaluated, imported or unpickled.
"""

from __future__ import annotations

import dataclasses
import keyword
from typing import Any
from collections.abc import Callable

from ..errors import KernelError
from . import nodes as n
from .check import check
from .types import F64, Type

FORMAT = "difftest-ir"
#: version 2 added workgroups (LocalArray, Barrier, and the work ids local_id, group_id,
#: group_size); version 3 the integer types beyond i32 and i64, the integer functions and
#: private arrays (PrivateArray); version 4 f64 (an f64 literal is a Cast to f64 of a float
#: Const); version 5 the bitwise, clustered (a reduction's cluster is its second argument,
#: a Const) and quad wave operations and wave_all_equal; version 6 the atomics that return
#: (AtomicOp); an older document is a newer one without them (an If's `switch`, a `match`
#: statement's chain, is written only when true)
FORMAT_VERSION = 6


def to_json(program: n.Program) -> dict[str, Any]:
    """A JSON-ready dict (plain dicts, lists, strings, ints, bools and None)."""
    return {"format": FORMAT, "version": FORMAT_VERSION,
            "functions": [_to_json(f) for f in program.functions]}


def _to_json(node: Any) -> Any:
    if isinstance(node, tuple):
        return [_to_json(x) for x in node]
    if isinstance(node, Type):
        return node.value
    if not dataclasses.is_dataclass(node):
        return node  # a str, an int or bool, or None
    if isinstance(node, n.Const) and node.ty is F64:  # `f64(0.1)`, as the source spells it
        return {"kind": "Cast", "to": "f64",
                "operand": {"kind": "Const", "value": node.value, "line": node.line},
                "line": node.line}
    kind = type(node).__name__
    out: dict[str, Any] = {"kind": kind}
    for name in _SHAPES[kind]:
        value = getattr(node, name)
        if _OPTIONAL.get(kind, {}).get(name, object()) == value:
            continue  # a default an older reader knows without it
        out[name] = _to_json(value)
    out["line"] = node.line  # type: ignore[union-attr]
    return out


def from_json(obj: Any) -> n.Program:
    """The checked program `obj` describes; raises `KernelError` naming what and where."""
    if not isinstance(obj, dict):
        raise KernelError(f"expected a JSON object, got {_json_type(obj)}", where="ir")
    if obj.get("format") != FORMAT:
        raise KernelError(f"expected {FORMAT!r}, got {obj.get('format')!r}",
                          where="format")
    version = obj.get("version")
    if type(version) is not int or not 1 <= version <= FORMAT_VERSION:
        raise KernelError(
            f"unsupported version {version!r} (this reader knows versions 1 to "
            f"{FORMAT_VERSION})",
            where="version",
        )
    extra = sorted(set(obj) - {"format", "version", "functions"}, key=str)
    if extra:
        raise KernelError(f"unknown field {extra[0]!r}", where="ir")
    funcs = obj.get("functions")
    if not isinstance(funcs, list) or not funcs:
        raise KernelError("expected a non-empty list of functions", where="functions")
    try:
        return check(n.Program(tuple(_node(f, f"functions[{i}]", _FUNCTION)
                                     for i, f in enumerate(funcs))))
    except RecursionError:  # reading or checking a pathologically deep tree
        raise KernelError("the IR is nested too deeply", where="functions") from None


# ------------------------------------------------------------------ reading fields
# A reader takes (JSON value, path) and returns the field's value or raises.
_Reader = Callable[[Any, str], Any]

#: the types a document names (a workgroup array's type is no value's: it is written as
#: its element type and length)
_TYPES = {t.value: t for t in Type if not (t.is_local or t.is_private)}
_SCALARS = ", ".join(t.value for t in Type if t.is_number or t is Type.BOOL)


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "an object"}.get(type(v), type(v).__name__)


def _node(obj: Any, path: str, allowed: frozenset[str]) -> Any:
    if not isinstance(obj, dict):
        raise KernelError(f"expected a node object, got {_json_type(obj)}", where=path)
    kind = obj.get("kind")
    if not isinstance(kind, str) or kind not in _SHAPES:
        raise KernelError(f"unknown node kind {kind!r}", where=path)
    if kind not in allowed:
        raise KernelError(f"a {kind} node is not allowed here", where=path)
    shape = _SHAPES[kind]
    optional = _OPTIONAL.get(kind, {})
    missing = [f for f in (*shape, "line") if f not in obj and f not in optional]
    if missing:
        raise KernelError(f"{kind} is missing field {missing[0]!r}", where=path)
    extra = sorted(set(obj) - {"kind", "line", *shape}, key=str)
    if extra:
        raise KernelError(f"{kind} has unknown field {extra[0]!r}", where=path)
    line = obj["line"]
    if type(line) is not int or line < 0:
        raise KernelError(f"line must be a non-negative integer, got {line!r}",
                          where=f"{path}.line")
    fields = {name: read(obj[name], f"{path}.{name}") for name, read in shape.items()
              if name in obj}
    return _CLASSES[kind](**fields, line=line)


def _nodes(allowed: frozenset[str]) -> _Reader:
    return lambda v, path: _node(v, path, allowed)


def _optional(read: _Reader) -> _Reader:
    return lambda v, path: None if v is None else read(v, path)


def _list(read: _Reader) -> _Reader:
    def reader(v: Any, path: str) -> tuple[Any, ...]:
        if not isinstance(v, list):
            raise KernelError(f"expected a list, got {_json_type(v)}", where=path)
        return tuple(read(x, f"{path}[{i}]") for i, x in enumerate(v))
    return reader


def _ident(v: Any, path: str) -> str:
    # Names are printed back as source: anything else would not re-parse.
    if not isinstance(v, str):
        raise KernelError(f"expected a name (a string), got {_json_type(v)}", where=path)
    if not v.isidentifier() or keyword.iskeyword(v):
        raise KernelError(f"{v!r} is not a valid name", where=path)
    return v


def _one_of(choices: tuple[str, ...] | dict[str, int]) -> _Reader:
    def reader(v: Any, path: str) -> str:
        if not isinstance(v, str) or v not in choices:
            raise KernelError(f"unknown {path.rsplit('.', 1)[-1]} {v!r} (expected one of "
                              f"{', '.join(choices)})", where=path)
        return v
    return reader


def _type(v: Any, path: str) -> Type:
    if not isinstance(v, str) or v not in _TYPES:
        raise KernelError(f"unknown type {v!r} (expected one of {_SCALARS}, or Buffer[T] "
                          "of a number type T)", where=path)
    return _TYPES[v]


def _value(v: Any, path: str) -> int | bool | float:
    if isinstance(v, float):  # a float constant: f32 unless a Cast to f64 holds it
        return v
    if not isinstance(v, int):  # bool is an int
        raise KernelError(f"a constant must be an integer, a number or a boolean, got {v!r}",
                          where=path)
    return v


def _flag(v: Any, path: str) -> bool:
    if type(v) is not bool:
        raise KernelError(f"expected true or false, got {v!r}", where=path)
    return v


def _length(v: Any, path: str) -> int:
    if type(v) is not int or not 1 <= v <= n.LOCAL_MAX:
        raise KernelError(f"a workgroup array's length is an integer in 1..{n.LOCAL_MAX}, "
                          f"got {v!r}", where=path)
    return v


_EXPRS = frozenset(c.__name__ for c in n.EXPR_NODES)
_STMTS = frozenset(c.__name__ for c in n.STMT_NODES)
_FUNCTION = frozenset({"Function"})
_expr, _stmts = _nodes(_EXPRS), _list(_nodes(_STMTS))

# Each node kind's stored fields, in declaration order, with how to read each.
_SHAPES: dict[str, dict[str, _Reader]] = {
    "Const": {"value": _value},
    "Name": {"id": _ident},
    "WorkId": {"which": _one_of(n.WORK_IDS)},
    "Unary": {"op": _one_of(n.UNARY_OPS), "operand": _expr},
    "Binary": {"op": _one_of(n.ARITH_OPS), "left": _expr, "right": _expr},
    "Compare": {"op": _one_of(n.COMPARE_OPS), "left": _expr, "right": _expr},
    "Logic": {"op": _one_of(n.LOGIC_OPS), "left": _expr, "right": _expr},
    "Select": {"cond": _expr, "then": _expr, "orelse": _expr},
    "Load": {"buffer": _ident, "index": _expr},
    "Len": {"buffer": _ident},
    "Alloc": {"size": _expr},
    "Cast": {"to": _type, "operand": _expr},
    "MathOp": {"op": _one_of(n.MATH_OPS), "args": _list(_expr)},
    "Call": {"func": _ident, "args": _list(_expr)},
    "WaveOp": {"op": _one_of(n.WAVE_OPS), "args": _list(_expr)},
    "AtomicOp": {"op": _one_of(n.ATOMIC_OPS), "buffer": _ident, "args": _list(_expr)},
    "Assign": {"target": _ident, "value": _expr, "declared": _optional(_type)},
    "Store": {"buffer": _ident, "index": _expr, "value": _expr},
    "AtomicAdd": {"buffer": _ident, "index": _expr, "value": _expr},
    "If": {"cond": _expr, "then": _stmts, "orelse": _stmts, "switch": _flag},
    "For": {"var": _ident, "start": _expr, "stop": _expr, "body": _stmts},
    "While": {"body": _stmts},
    "Break": {},
    "Continue": {},
    "Return": {"value": _optional(_expr)},
    "Fail": {"code": _expr},
    "CallStmt": {"call": _nodes(frozenset({"Call"}))},
    "LocalArray": {"name": _ident, "element": _type, "length": _length},
    "PrivateArray": {"name": _ident, "element": _type, "length": _length},
    "Barrier": {},
    "Param": {"name": _ident, "ty": _type},
    "Function": {"name": _ident, "params": _list(_nodes(frozenset({"Param"}))),
                 "returns": _optional(_type), "body": _stmts},
}
#: fields a document may leave out, with their values then (written only when not these)
_OPTIONAL: dict[str, dict[str, Any]] = {"If": {"switch": False}}
_CLASSES: dict[str, type] = {c.__name__: c for c in (*n.EXPR_NODES, *n.STMT_NODES,
                                                      n.Param, n.Function)}
assert set(_SHAPES) == set(_CLASSES), "every node class needs a JSON shape"
assert all(
    list(_SHAPES[k]) == [f.name for f in dataclasses.fields(c)
                         if f.name != "line" and not (f.name == "ty" and c in n.EXPR_NODES)]
    for k, c in _CLASSES.items()
), "a JSON shape is out of step with its node class"

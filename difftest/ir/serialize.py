"""Versioned JSON form of the IR: every node a dict tagged with its `kind`.

`to_json` stores every field and the source `line`, never the derived `ty`; `from_json`
builds nodes strictly (unknown kind, missing or extra field, wrong field type, wrong
format or version: a `KernelError` naming the node path, e.g.
`functions[0].body[2].value.left`) and then runs the checker, so what comes back is typed
and valid. Plain JSON only: nothing is ever evaluated or unpickled.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ..errors import KernelError
from . import nodes as n
from .check import check
from .types import Type

FORMAT = "difftest-ir"
FORMAT_VERSION = 1

_NODES: dict[str, type] = {cls.__name__: cls for cls in (*n.EXPR_NODES, *n.STMT_NODES)}
_NODES.update({"Param": n.Param, "Function": n.Function})
_TYPES = {t.value: t for t in Type}


def _fields(cls: type) -> list[dataclasses.Field[Any]]:
    derived = cls in n.EXPR_NODES  # an expression's `ty` is the checker's, not stored
    return [f for f in dataclasses.fields(cls) if not (derived and f.name == "ty")]


def _node_json(node: Any) -> Any:
    if isinstance(node, tuple):
        return [_node_json(x) for x in node]
    if isinstance(node, Type):
        return node.value
    if not dataclasses.is_dataclass(node):
        return node
    out: dict[str, Any] = {"kind": type(node).__name__}
    for f in _fields(type(node)):
        out[f.name] = _node_json(getattr(node, f.name))
    return out


def to_json(program: n.Program) -> dict[str, Any]:
    return {"format": FORMAT, "version": FORMAT_VERSION,
            "functions": [_node_json(f) for f in program.functions]}


# Field shapes: how to read each field of each node class.
_EXPR, _EXPRS, _OPT_EXPR, _STMTS, _STR, _INT, _TYPE, _OPT_TYPE, _VALUE, _PARAMS, _CALL = range(11)
_SHAPES: dict[str, dict[str, int]] = {
    "Const": {"value": _VALUE},
    "Name": {"id": _STR},
    "WorkId": {"which": _STR},
    "Unary": {"op": _STR, "operand": _EXPR},
    "Binary": {"op": _STR, "left": _EXPR, "right": _EXPR},
    "Compare": {"op": _STR, "left": _EXPR, "right": _EXPR},
    "Logic": {"op": _STR, "left": _EXPR, "right": _EXPR},
    "Select": {"cond": _EXPR, "then": _EXPR, "orelse": _EXPR},
    "Load": {"buffer": _STR, "index": _EXPR},
    "Len": {"buffer": _STR},
    "Cast": {"to": _TYPE, "operand": _EXPR},
    "Call": {"func": _STR, "args": _EXPRS},
    "WaveOp": {"op": _STR, "args": _EXPRS},
    "Assign": {"target": _STR, "value": _EXPR, "declared": _OPT_TYPE},
    "Store": {"buffer": _STR, "index": _EXPR, "value": _EXPR},
    "AtomicAdd": {"buffer": _STR, "index": _EXPR, "value": _EXPR},
    "If": {"cond": _EXPR, "then": _STMTS, "orelse": _STMTS},
    "For": {"var": _STR, "start": _EXPR, "stop": _EXPR, "body": _STMTS},
    "Break": {},
    "Continue": {},
    "Return": {"value": _OPT_EXPR},
    "Fail": {"code": _EXPR},
    "CallStmt": {"call": _CALL},
    "Param": {"name": _STR, "ty": _TYPE},
    "Function": {"name": _STR, "params": _PARAMS, "returns": _OPT_TYPE, "body": _STMTS},
}
assert set(_SHAPES) == set(_NODES), "every node class needs a JSON shape"

_EXPR_KINDS = {c.__name__ for c in n.EXPR_NODES}
_STMT_KINDS = {c.__name__ for c in n.STMT_NODES}


def from_json(obj: Any) -> n.Program:
    if not isinstance(obj, dict):
        raise KernelError("expected a JSON object", where="ir")
    if obj.get("format") != FORMAT:
        raise KernelError(f"format must be {FORMAT!r}, got {obj.get('format')!r}", where="ir")
    if obj.get("version") != FORMAT_VERSION:
        raise KernelError(
            f"unsupported version {obj.get('version')!r} (this is version {FORMAT_VERSION})",
            where="ir",
        )
    extra = set(obj) - {"format", "version", "functions"}
    if extra:
        raise KernelError(f"unknown field '{sorted(extra)[0]}'", where="ir")
    funcs = obj.get("functions")
    if not isinstance(funcs, list) or not funcs:
        raise KernelError("'functions' must be a non-empty list", where="ir.functions")
    program = n.Program(tuple(_node(f, f"functions[{i}]", {"Function"})
                              for i, f in enumerate(funcs)))
    return check(program)


def _node(obj: Any, path: str, allowed: set[str]) -> Any:
    if not isinstance(obj, dict):
        raise KernelError(f"expected a node object, got {type(obj).__name__}", where=path)
    kind = obj.get("kind")
    if kind not in _NODES:
        raise KernelError(f"unknown node kind {kind!r}", where=path)
    if kind not in allowed:
        raise KernelError(f"a {kind} node is not allowed here", where=path)
    shape = _SHAPES[kind]
    keys = set(obj) - {"kind", "line"}
    missing = set(shape) - keys
    if missing:
        raise KernelError(f"{kind} is missing field '{sorted(missing)[0]}'", where=path)
    extra = keys - set(shape)
    if extra:
        raise KernelError(f"{kind} has unknown field '{sorted(extra)[0]}'", where=path)
    line = obj.get("line", 0)
    if not isinstance(line, int) or isinstance(line, bool) or line < 0:
        raise KernelError("'line' must be a non-negative integer", where=path)
    args = {name: _field(obj[name], role, f"{path}.{name}") for name, role in shape.items()}
    return _NODES[kind](**args, line=line)


def _field(v: Any, role: int, path: str) -> Any:
    if role == _EXPR:
        return _node(v, path, _EXPR_KINDS)
    if role == _OPT_EXPR:
        return None if v is None else _node(v, path, _EXPR_KINDS)
    if role == _CALL:
        return _node(v, path, {"Call"})
    if role in (_EXPRS, _STMTS, _PARAMS):
        if not isinstance(v, list):
            raise KernelError("expected a list", where=path)
        kinds = {_EXPRS: _EXPR_KINDS, _STMTS: _STMT_KINDS, _PARAMS: {"Param"}}[role]
        return tuple(_node(x, f"{path}[{i}]", kinds) for i, x in enumerate(v))
    if role == _STR:
        if not isinstance(v, str):
            raise KernelError(f"expected a string, got {v!r}", where=path)
        return v
    if role in (_TYPE, _OPT_TYPE):
        if v is None and role == _OPT_TYPE:
            return None
        if v not in _TYPES:
            raise KernelError(f"unknown type {v!r} (expected one of {', '.join(_TYPES)})",
                              where=path)
        return _TYPES[v]
    assert role == _VALUE
    if not isinstance(v, int):
        raise KernelError(f"a constant must be an integer or a boolean, got {v!r}", where=path)
    return v

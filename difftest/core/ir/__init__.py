"""The kernel language: IR nodes, types, parser, checker, JSON form and printer.

Public surface: `parse`, `check`, `to_json`/`from_json`, `to_source`, the node classes
(in `difftest.core.ir.nodes`) and the types (in `difftest.core.ir.types`).
"""

from .check import check
from .parse import parse
from .printer import to_source
from .serialize import FORMAT_VERSION, from_json, to_json

__all__ = ["FORMAT_VERSION", "check", "from_json", "parse", "to_json", "to_source"]

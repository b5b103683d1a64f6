"""`match` (docs/semantics.md, "Multi-way branches"): parsed as the chain of `if`s it
means, marked so the printer and the translations read it back; the checker's and the
parser's refusals; a chain a reduction changed prints as the plain `if` chain."""

from __future__ import annotations

import json

import pytest

from difftest.core.errors import KernelError
from difftest.core.ir import nodes as n
from difftest.core.ir.parse import parse
from difftest.core.ir.printer import to_source
from difftest.core.ir.serialize import from_json, to_json

SOURCE = """def k(out: Buffer[i32], a: Buffer[i32]):
    g = gid()
    v = a[g] % 4
    match v:
        case 0:
            out[g] = wave_sum(1)
        case 1 | -2:
            out[g] = 5
        case _:
            out[g] = 7
"""


def test_match_is_the_if_chain_it_means() -> None:
    program = parse(SOURCE)
    plain = parse(SOURCE.replace("    match v:\n        case 0:", "    if v == 0:")
                  .replace("        case 1 | -2:", "    elif v == 1 or v == -2:")
                  .replace("        case _:", "    else:")
                  .replace("\n            out", "\n        out"))
    chain = program.functions[0].body[2]
    assert isinstance(chain, n.If) and chain.switch
    unmarked = n.replace(chain, switch=False, orelse=(n.replace(chain.orelse[0],
                                                                switch=False),))
    assert unmarked == plain.functions[0].body[2]
    assert n.switch_cases(chain) == ("v", [((0,), chain.then),
                                           ((1, -2), chain.orelse[0].then),
                                           ((), chain.orelse[0].orelse)])


def test_match_prints_parses_and_round_trips_through_json() -> None:
    program = parse(SOURCE)
    assert to_source(program) == SOURCE
    doc = json.loads(json.dumps(to_json(program)))
    assert from_json(doc) == program
    assert doc["functions"][0]["body"][2]["switch"] is True
    assert "switch" not in doc["functions"][0]["body"][0]  # an older reader's document


def test_a_changed_condition_prints_as_the_plain_chain() -> None:
    program = parse(SOURCE)
    chain = program.functions[0].body[2]
    assert isinstance(chain, n.If)
    changed = n.replace(chain, cond=n.Const(True))
    assert n.switch_cases(changed) is None
    assert "match" not in to_source(n.replace(program, functions=(n.replace(
        program.functions[0], body=program.functions[0].body[:2] + (changed,)),)))


@pytest.mark.parametrize("text, message", [
    ("    match a[g]:\n        case 0:\n            pass\n", "match takes a variable"),
    ("    match v:\n        case 0 if g > 1:\n            pass\n", "guard"),
    ("    match v:\n        case _:\n            pass\n        case 1:\n            pass\n",
     "must be the last case"),
    ("    match v:\n        case x:\n            pass\n", "integer literals"),
    ("    match v:\n        case 1.5:\n            pass\n", "integer literals"),
    ("    match v:\n        case 1 | _:\n            pass\n", "cannot be one alternative"),
    ("    match v:\n        case _:\n            pass\n", "needs a case with values"),
    # the checker's: a float or a bool is no integer a case can name
    ("    f = f32(v)\n    match f:\n        case 1:\n            pass\n",
     "match takes an integer variable; 'f' is f32"),
    ("    b = v > 1\n    match b:\n        case 1 | 0:\n            pass\n",
     "match takes an integer variable; 'b' is bool"),
])
def test_the_parser_refuses(text: str, message: str) -> None:
    head = "def k(out: Buffer[i32], a: Buffer[i32]):\n    g = gid()\n    v = g % 4\n"
    with pytest.raises(KernelError, match=message):
        parse(head + text)


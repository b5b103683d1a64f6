"""The kernel validator (difftest.core.ir.parse: syntax + static checks) and case loading reject
malformed input with one clear error naming the line (kernels) or the field (cases).

Line numbers are 1-based in the kernel text; each source below starts at line 1 (the
`def` line) and the expected line is the one marked `# <-` in the text.
"""

from __future__ import annotations

import copy
import textwrap
from typing import Any

import pytest

from difftest.core.case import case_from_json
from difftest.core.errors import CaseError, KernelError
from difftest.core.ir import parse


def K(src: str) -> str:
    return textwrap.dedent(src).lstrip("\n")


def marked_line(src: str) -> int:
    """The line carrying the `# <-` marker (the line the error must name)."""
    hits = [i for i, line in enumerate(K(src).splitlines(), 1) if "# <-" in line]
    assert len(hits) == 1, hits
    return hits[0]


# (id, kernel source, expected message substring); the error line is the `# <-` line.
BAD_KERNELS: list[tuple[str, str, str]] = [
    ("syntax_error", """
        def k(out: Buffer[i32]):
            x = = 1  # <-
        """, "syntax error"),
    ("while_loop", """
        def k(out: Buffer[i32]):
            x = 0
            while x < 3:  # <-
                x = x + 1
        """, "only `while True:` loops are supported"),
    ("while_without_exit", """
        def k(out: Buffer[i32]):
            x = 0
            while True:  # <-
                for j in range(0, 3):
                    break
                x = x + 1
        """, "a `while True:` loop needs a `break`, `return` or `fail` in its body"),
    ("while_else", """
        def k(out: Buffer[i32]):
            while True:  # <-
                break
            else:
                pass
        """, "`while ... else` is not supported"),
    ("assigned_only_in_while", """
        def k(out: Buffer[i32]):
            while True:
                y = 1
                break
            out[0] = y  # <-
        """, "variable 'y' may be used before it is assigned"),
    ("helper_while_without_break_must_return", """
        def h(x: i32) -> i32:  # <-
            while True:
                if x > 3:
                    break
                return x
        def k(out: Buffer[i32]):
            out[0] = h(1)
        """, "must return an i32 value on every path"),
    ("while_top_level", """
        while True:  # <-
            pass
        """, "unsupported top-level statement 'while'"),
    ("import_top_level", """
        import os  # <-
        def k(out: Buffer[i32]):
            pass
        """, "unsupported top-level statement 'import'"),
    ("import_in_function", """
        def k(out: Buffer[i32]):
            from os import path  # <-
        """, "unsupported statement 'import'"),
    ("nested_function", """
        def k(out: Buffer[i32]):
            def inner():  # <-
                pass
        """, "unsupported statement 'def (a function inside a function)'"),
    ("loop_variable_named_like_the_kernel", """
        def k(out: Buffer[i32]):
            for k in range(0, 2):  # <-
                out[0] = k
        """, "'k' cannot be a loop variable: it names the function 'k'"),
    ("assignment_to_a_builtin", """
        def k(out: Buffer[i32]):
            gid = 1  # <-
        """, "cannot assign to 'gid': it is a builtin"),
    ("with_statement", """
        def k(out: Buffer[i32]):
            with out:  # <-
                pass
        """, "unsupported statement 'with'"),
    ("try_statement", """
        def k(out: Buffer[i32]):
            x = 0
            try:  # <-
                x = 1
            except Exception:
                x = 2
        """, "unsupported statement 'try'"),
    ("class_top_level", """
        def k(out: Buffer[i32]):
            pass
        class C:  # <-
            pass
        """, "unsupported top-level statement 'class'"),
    ("class_in_function", """
        def k(out: Buffer[i32]):
            class C:  # <-
                pass
        """, "unsupported statement 'class'"),
    ("unknown_name", """
        def k(out: Buffer[i32]):
            x = 1
            out[0] = y + x  # <-
        """, "unknown name 'y'"),
    ("unknown_function", """
        def k(out: Buffer[i32]):
            out[0] = 1
            out[1] = foo(2)  # <-
        """, "unknown function 'foo'"),
    ("int_plus_bool", """
        def k(out: Buffer[i32]):
            c = gid() > 0
            out[0] = 1 + c  # <-
        """, "right operand of '+' must be an integer, got bool"),
    ("bool_in_arithmetic_left", """
        def k(out: Buffer[i32]):
            out[0] = True * 2  # <-
        """, "left operand of '*' must be an integer, got bool"),
    ("if_condition_not_bool", """
        def k(out: Buffer[i32]):
            x = gid()
            if x:  # <-
                out[0] = 1
        """, "if condition must be bool, got i32"),
    ("unbounded_for_over_buffer", """
        def k(out: Buffer[i32]):
            s = 0
            for x in out:  # <-
                s = s + x
        """, "unbounded loop"),
    ("loop_bound_is_buffer_param", """
        def k(out: Buffer[i32]):
            for j in range(0, out):  # <-
                pass
        """, "loop bound must be an integer, got Buffer[i32]"),
    ("loop_bound_is_bool", """
        def k(out: Buffer[i32]):
            for j in range(True, 3):  # <-
                pass
        """, "loop bound must be an integer, got bool"),
    ("elect_takes_nothing", """
        def k(out: Buffer[i32]):
            out[0] = i32(elect(1))  # <-
        """, "elect() takes 0 arguments, got 1"),
    ("range_with_step", """
        def k(out: Buffer[i32]):
            for j in range(0, 10, 2):  # <-
                pass
        """, "range() takes one or two arguments"),
    ("missing_param_annotation", """
        def k(out: Buffer[i32],
              x):  # <-
            pass
        """, "missing type annotation on parameter 'x'"),
    ("unknown_annotation", """
        def k(out: Buffer[i32], x: f16):  # <-
            pass
        """, "unknown type annotation 'f16' on parameter 'x'"),
    ("unknown_buffer_annotation", """
        def k(out: Buffer[u128]):  # <-
            pass
        """, "unknown type annotation 'Buffer[u128]'"),
    ("missing_return_in_valued_helper", """
        def k(out: Buffer[i32]):
            out[0] = h(gid())

        def h(x: i32) -> i32:  # <-
            if x > 0:
                return 1
        """, "function 'h' must return an i32 value on every path"),
    ("return_only_in_loop", """
        def h(x: i32) -> i32:  # <-
            for j in range(0, 4):
                return j
        """, "must return an i32 value on every path"),
    ("return_value_from_kernel", """
        def k(out: Buffer[i32]):
            out[0] = 1
            return 5  # <-
        """, "'k' has no return type, so it cannot return a value"),
    ("bare_return_in_valued_helper", """
        def h(x: i32) -> i32:
            if x > 0:
                return  # <-
            return x
        """, "'h' must return an i32 value"),
    ("helper_returns_wrong_type", """
        def h(x: i64) -> i32:
            return x  # <-
        """, "'h' returns i32, not i64"),
    ("break_outside_loop", """
        def k(out: Buffer[i32]):
            if gid() > 0:
                break  # <-
        """, "'break' outside a loop"),
    ("continue_outside_loop", """
        def k(out: Buffer[i32]):
            continue  # <-
        """, "'continue' outside a loop"),
    ("continue_in_helper_called_from_loop", """
        def k(out: Buffer[i32]):
            for j in range(0, 3):
                h()

        def h():
            continue  # <-
        """, "'continue' outside a loop"),
    ("direct_recursion", """
        def k(out: Buffer[i32]):
            out[0] = f(3)

        def f(x: i32) -> i32:
            return f(x - 1)  # <-
        """, "recursive call of 'f'"),
    ("mutual_recursion", """
        def k(out: Buffer[i32]):
            out[0] = f(3)

        def f(x: i32) -> i32:
            return g(x)

        def g(x: i32) -> i32:
            return f(x)  # <-
        """, "recursive call of 'f'"),
    ("assign_i64_to_i32_variable", """
        def k(out: Buffer[i32]):
            x = 0
            x = i64(gid())  # <-
        """, "cannot assign an i64 value to 'x', which is i32"),
    ("declared_i32_from_i64_literal", """
        def k(out: Buffer[i32]):
            x: i32 = 4294967296  # <-
        """, "cannot assign an i64 value to 'x', which is i32"),
    ("store_i64_into_i32_buffer", """
        def k(out: Buffer[i32], v: i64):
            out[0] = 1
            out[1] = v  # <-
        """, "cannot store an i64 value into 'out' (Buffer[i32])"),
    ("atomic_add_i64_into_i32_buffer", """
        def k(out: Buffer[i32], v: i64):
            atomic_add(out, 0, v)  # <-
        """, "cannot atomic_add an i64 value into 'out'"),
    ("use_before_assignment_one_branch", """
        def k(out: Buffer[i32]):
            if gid() > 0:
                x = 1
            else:
                out[1] = 2
            out[0] = x  # <-
        """, "variable 'x' may be used before it is assigned"),
    ("use_after_loop_of_loop_local", """
        def k(out: Buffer[i32]):
            for j in range(0, 3):
                t = j
            out[0] = t  # <-
        """, "variable 't' may be used before it is assigned"),
    ("assign_loop_variable_in_loop", """
        def k(out: Buffer[i32]):
            for j in range(0, 3):
                out[j] = 1
                j = j + 1  # <-
        """, "cannot assign to loop variable 'j' inside its loop"),
    ("augassign_loop_variable_in_nested_if", """
        def k(out: Buffer[i32]):
            for j in range(0, 3):
                if j > 0:
                    j += 1  # <-
        """, "cannot assign to loop variable 'j' inside its loop"),
    ("loop_variable_reused_by_inner_loop", """
        def k(out: Buffer[i32]):
            for j in range(0, 3):
                for j in range(0, 2):  # <-
                    pass
        """, "loop variable 'j' is already used by an enclosing loop"),
    ("chained_comparison", """
        def k(out: Buffer[i32]):
            i = gid()
            if 0 < i < 4:  # <-
                out[i] = 1
        """, "chained comparisons are not supported"),
    ("true_division", """
        def k(out: Buffer[i32]):
            out[0] = gid() / 2  # <-
        """, "unsupported operator / (there is no true division: // divides integers, "
             "truncating; f32 has + - * and fma, min, max, abs)"),
    ("power_operator", """
        def k(out: Buffer[i32]):
            out[0] = gid() ** 2  # <-
        """, "unsupported operator **"),
    ("string_constant", """
        def k(out: Buffer[i32]):
            x = 1
            y = "a"  # <-
        """, "unsupported constant 'a'"),
    ("float_into_int_buffer", """
        def k(out: Buffer[i32]):
            out[0] = 1.5  # <-
        """, "cannot store an f32 value into 'out' (Buffer[i32]); convert it with i32"),
    ("string_constant", """
        def k(out: Buffer[i32]):
            y = 'abc'  # <-
        """, "unsupported constant 'abc'"),
    ("wave_op_too_many_args", """
        def k(out: Buffer[i32]):
            out[0] = wave_sum(1, 2)  # <-
        """, "wave_sum() takes 1 argument, got 2"),
    ("shuffle_one_arg", """
        def k(out: Buffer[i32]):
            out[0] = shuffle(gid())  # <-
        """, "shuffle() takes 2 arguments, got 1"),
    ("ballot_of_int", """
        def k(out: Buffer[i64]):
            out[0] = ballot(gid())  # <-
        """, "argument of ballot() must be bool, got i32"),
    ("wave_sum_of_bool", """
        def k(out: Buffer[i32]):
            out[0] = wave_sum(gid() > 0)  # <-
        """, "argument of wave_sum() must be an integer or a float, got bool"),
    ("void_helper_in_expression", """
        def k(out: Buffer[i32]):
            x = 1
            out[0] = h(x) + 1  # <-

        def h(x: i32):
            pass
        """, "'h' returns no value"),
    ("keyword_arguments", """
        def k(out: Buffer[i32]):
            out[0] = h(x=1)  # <-

        def h(x: i32) -> i32:
            return x
        """, "keyword arguments are not supported in 'h()'"),
    ("keyword_arguments_statement", """
        def k(out: Buffer[i32]):
            h(x=1)  # <-

        def h(x: i32):
            pass
        """, "keyword arguments are not supported in 'h()'"),
    ("helper_wrong_arity", """
        def k(out: Buffer[i32]):
            out[0] = h(1)  # <-

        def h(x: i32, y: i32) -> i32:
            return x + y
        """, "'h' takes 2 arguments, got 1"),
    ("helper_argument_wrong_type", """
        def k(out: Buffer[i32]):
            out[0] = h(i64(1))  # <-

        def h(x: i32) -> i32:
            return x
        """, "argument 'x' of 'h' must be i32, got i64"),
    ("duplicate_function", """
        def k(out: Buffer[i32]):
            pass

        def h(x: i32) -> i32:
            return x

        def h(x: i32) -> i32:  # <-
            return x
        """, "function 'h' is defined twice"),
    ("redefine_builtin", """
        def gid() -> i32:  # <-
            return 0
        """, "'gid' is a builtin and cannot be redefined"),
    ("atomic_add_inside_an_expression", """
        def k(out: Buffer[i32]):
            x = 1 + atomic_add(out, 0, 1)  # <-
        """, "atomic_add() is only an assignment's whole value"),
    ("atomic_max_as_statement", """
        def k(out: Buffer[i32]):
            atomic_max(out, 0, 1)  # <-
        """, "atomic_max() gives the location's old value: write `old = atomic_max(...)`"),
    ("atomic_result_of_another_type", """
        def k(out: Buffer[i32]):
            x: i64 = atomic_or(out, 0, 1)  # <-
        """, "atomic_or() gives an i32 (the element of 'out'), but 'x' is i64"),
    ("atomic_on_floats", """
        def k(out: Buffer[f32]):
            x = atomic_exchange(out, 0, 1.0)  # <-
        """, "atomics that return take integer buffers"),
    ("atomic_on_a_private_array", """
        def k(out: Buffer[i32]):
            a: Array[i32, 4]
            x = atomic_min(a, 0, 1)  # <-
        """, "a private array: no other workitem sees it"),
    ("compare_exchange_arity", """
        def k(out: Buffer[i32]):
            x = atomic_compare_exchange(out, 0, 1)  # <-
        """, "atomic_compare_exchange() takes 4 arguments, got 3"),
    ("expression_statement", """
        def k(out: Buffer[i32]):
            gid() + 1  # <-
        """, "has no effect"),
    ("unused_wave_op_result", """
        def k(out: Buffer[i32]):
            wave_sum(1)  # <-
        """, "the result of 'wave_sum(1)' is unused"),
    ("augassign_to_buffer_element", """
        def k(out: Buffer[i32]):
            out[0] += 1  # <-
        """, "augmented assignment is only supported on variables"),
    ("if_expression_sides_differ", """
        def k(out: Buffer[i32]):
            c = gid() > 0
            x = 1 if c else True  # <-
        """, "the two sides of an if-expression differ: i32 and bool"),
    ("compare_bool_ordering", """
        def k(out: Buffer[i32]):
            c = gid() > 0
            d = c < True  # <-
        """, "cannot compare bool < bool"),
    ("index_a_scalar", """
        def k(out: Buffer[i32], x: i32):
            x[0] = 1  # <-
        """, "'x' is i32, not a buffer"),
    ("index_an_element", """
        def k(out: Buffer[i32]):
            a: Array[i32, 4]
            out[0] = a[0][1]  # <-
        """, "'a[0]' is one element, not a buffer or array"),
    ("is_comparison", """
        def k(out: Buffer[i32]):
            c = gid() is 0  # <-
        """, "unsupported comparison 'Is'"),
    ("assign_to_builtin", """
        def k(out: Buffer[i32]):
            lane = 3  # <-
        """, "cannot assign to 'lane'"),
    ("decorator", """
        @staticmethod
        def k(out: Buffer[i32]):  # <-
            pass
        """, "decorators are not supported"),
    ("default_argument", """
        def k(out: Buffer[i32], x: i32 = 3):  # <-
            pass
        """, "may only have plain positional parameters"),
    ("chained_assignment", """
        def k(out: Buffer[i32]):
            a = b = 1  # <-
        """, "chained assignment is not supported"),
    ("constant_too_big_for_i64", """
        def k(out: Buffer[i64]):
            out[0] = 99999999999999999999  # <-
        """, "does not fit in i64"),
    ("variable_redeclared_with_other_type", """
        def k(out: Buffer[i32]):
            x = 1
            x: i64 = 2  # <-
        """, "variable 'x' is i32, cannot redeclare it as i64"),
    ("range_outside_for", """
        def k(out: Buffer[i32]):
            x = range(3)  # <-
        """, "range() may only appear as a for loop's iterable"),
]


@pytest.mark.parametrize("src,fragment", [(s, f) for _, s, f in BAD_KERNELS],
                         ids=[i for i, _, _ in BAD_KERNELS])
def test_malformed_kernel_is_rejected_with_line_and_message(src: str, fragment: str) -> None:
    line = marked_line(src)
    with pytest.raises(KernelError) as info:
        parse(K(src))
    err = info.value
    assert fragment in err.message, err.message
    assert err.line == line, f"reported line {err.line}, expected {line}: {err}"
    # The printed form is one line naming the line number.
    text = str(err)
    assert "\n" not in text
    assert f"line {line}" in text


def test_kernel_text_without_function() -> None:
    with pytest.raises(KernelError, match="defines no function"):
        parse('"""just a docstring"""\n')


def test_well_formed_kernels_are_accepted() -> None:
    # Controls: things close to the rejected forms above that the language allows.
    ok = [
        # a parameter as a loop bound, also after being reassigned; len(buf); range(b)
        "def k(out: Buffer[i32], b: i32):\n    for j in range(0, b):\n        out[j] = 1\n"
        "    for j in range(len(out)):\n        out[j] = 2\n",
        # assigned on both branches
        "def k(out: Buffer[i32]):\n    if gid() > 0:\n        x = 1\n    else:\n        x = 2\n"
        "    out[0] = x\n",
        # i32 widens into i64 variables, buffers, arguments and returns
        "def k(out: Buffer[i64]):\n    y: i64 = gid()\n    out[0] = h(gid()) + y\n\n"
        "def h(x: i64) -> i64:\n    return gid()\n",
        # a helper that returns on every path through if/else
        "def h(x: i32) -> i32:\n    if x > 0:\n        return 1\n    else:\n        return 2\n",
        # elif, augmented assignment, pass, docstring, -> None
        'def k(out: Buffer[i32]) -> None:\n    """doc"""\n    x = 0\n    if x == 1:\n'
        "        pass\n    elif x == 2:\n        x += 3\n    out[0] = x\n",
        # a buffer reference in a local, chosen by an if-expression
        "def k(a: Buffer[i32], b: Buffer[i32]):\n    r = a if gid() > 0 else b\n    r[0] = 1\n",
    ]
    for src in ok:
        parse(src)


def test_dead_code_after_return_sees_earlier_assignments() -> None:
    # check.py's block(): "Statements after a return/break still must be well-typed; check
    # them with the last defined set". x is assigned before the return, so the dead
    # `out[0] = x` must type-check (Python accepts it too).
    parse(K("""
        def k(out: Buffer[i32]):
            x = 1
            return
            out[0] = x
        """))


# ===================================================================== case-level errors

GOOD_CASE: dict[str, Any] = {
    "kernel": K("""
        def k(out: Buffer[i32], x: i32, flag: bool):
            if flag:
                out[gid()] = x

        def h(v: i32) -> i32:
            return v
        """),
    "entry": "k",
    "launch": {"n": 2, "wave": 2},
    "args": {"out": {"dtype": "i32", "data": [0, 0]}, "x": 3, "flag": True},
}


def test_good_case_loads() -> None:
    case = case_from_json(copy.deepcopy(GOOD_CASE))
    assert case.n == 2 and case.wave == 2
    assert case.args["x"] == 3 and case.args["flag"] is True
    assert case.args["out"].tolist() == [0, 0]


def _with(path: str, value: Any) -> dict[str, Any]:
    """GOOD_CASE with one field (dotted path) replaced, or deleted when value is DELETE."""
    obj = copy.deepcopy(GOOD_CASE)
    keys = path.split(".")
    target = obj
    for k in keys[:-1]:
        target = target[k]
    if value is DELETE:
        del target[keys[-1]]
    else:
        target[keys[-1]] = value
    return obj


DELETE = object()

BAD_CASES: list[tuple[str, str, Any, list[str]]] = [
    # (id, field path, new value, substrings the message must contain)
    ("missing_argument", "args.x", DELETE, ["missing argument 'x'"]),
    ("missing_buffer_argument", "args.out", DELETE, ["missing argument 'out'"]),
    ("unknown_argument", "args.zz", 5, ["unknown argument 'zz'"]),
    ("wrong_dtype", "args.out.dtype", "i64", ["args.out.dtype", "Buffer[i32]"]),
    ("unknown_dtype", "args.out.dtype", "f32", ["args.out.dtype", "f32"]),
    ("scalar_not_fitting_i32", "args.x", 2**31, ["args.x", "2147483648", "i32"]),
    ("scalar_below_i32", "args.x", -(2**31) - 1, ["args.x", "does not fit in i32"]),
    ("buffer_value_not_fitting_i32", "args.out.data", [0, 2**31],
     ["args.out.data[1]", "does not fit in i32"]),
    ("bool_for_i32_scalar", "args.x", True, ["args.x", "integer"]),
    ("int_for_bool_scalar", "args.flag", 1, ["args.flag", "true or false"]),
    ("buffer_as_plain_list", "args.out", [0, 0], ["args.out", "buffer argument"]),
    ("buffer_extra_key", "args.out", {"dtype": "i32", "data": [0], "len": 1},
     ["args.out", "buffer argument"]),
    ("buffer_data_not_ints", "args.out.data", [0, "1"], ["args.out.data", "integers"]),
    ("scalar_given_a_buffer", "args.x", {"dtype": "i32", "data": [1]}, ["args.x"]),
    ("bad_wave_size_3", "launch.wave", 3, ["launch.wave", "power of two"]),
    ("bad_wave_size_128", "launch.wave", 128, ["launch.wave", "128"]),
    ("bad_wave_size_0", "launch.wave", 0, ["launch.wave"]),
    ("bad_n_zero", "launch.n", 0, ["launch.n"]),
    ("launch_unknown_field", "launch.waves", 4, ["launch", "waves"]),
    ("entry_not_a_function", "entry", "nope", ["entry", "'nope' is not a function"]),
    ("entry_returns_a_value", "entry", "h", ["entry 'h' returns a value"]),
    ("missing_launch", "launch", DELETE, ["missing field 'launch'"]),
    ("bad_policy", "policy", "fastest", ["policy"]),
    ("kernel_not_text", "kernel", 42, ["kernel"]),
]


@pytest.mark.parametrize("path,value,fragments", [c[1:] for c in BAD_CASES],
                         ids=[c[0] for c in BAD_CASES])
def test_malformed_case_names_the_field(path: str, value: Any, fragments: list[str]) -> None:
    with pytest.raises(CaseError) as info:
        case_from_json(_with(path, value), "mycase.json")
    msg = str(info.value)
    assert msg.startswith("mycase.json"), msg
    assert "\n" not in msg
    for frag in fragments:
        assert frag in msg, msg


def test_case_with_invalid_kernel_names_kernel_and_line() -> None:
    obj = _with("kernel", "def k(out: Buffer[i32], x: i32, flag: bool):\n    y = x + 1.5\n")
    with pytest.raises(CaseError) as info:
        case_from_json(obj, "mycase.json")
    msg = str(info.value)
    assert "kernel" in msg and "line 2" in msg and "mixes f32 and i32" in msg


def test_case_that_is_not_an_object() -> None:
    with pytest.raises(CaseError, match="JSON object"):
        case_from_json([1, 2, 3])


@pytest.mark.parametrize("expr", ["m" + " + m" * 1000, "not " * 1000 + "True"])
def test_deep_nesting_is_a_kernel_error_not_a_crash(expr: str) -> None:
    from difftest.core.errors import KernelError

    with pytest.raises(KernelError, match="nested too deeply"):
        parse(f"def k(m: i32):\n    x = {expr}\n")


# The limits on helper call chains and on nesting (difftest.core.ir.check: MAX_CALL_DEPTH = 16,
# MAX_NESTING = 100, inlined helpers counted), at the limit and one past it. Nesting
# counts every statement and expression node on the deepest path, a body's statements at
# depth 1: `x = 1 + 1 + ... + 1` with k `+` is the Assign, k Binary nodes (left-nested)
# and a Const: k + 2 deep.

def _sum_of_ones(pluses: int) -> str:
    return " + ".join(["1"] * (pluses + 1))


@pytest.mark.parametrize("pluses, deep", [(98, None), (99, 101)])
def test_nesting_limit_in_one_function(pluses: int, deep: int | None) -> None:
    src = f"def k(out: Buffer[i32]):\n    x = {_sum_of_ones(pluses)}\n    out[0] = x\n"
    if deep is None:
        parse(src)
        return
    with pytest.raises(KernelError, match=f"'k' nests statements and expressions {deep} "
                                          "deep, inlined helpers counted; the limit is 100"):
        parse(src)


@pytest.mark.parametrize("pluses, deep", [(96, None), (97, 101)])
def test_nesting_limit_counts_the_inlined_helper(pluses: int, deep: int | None) -> None:
    # h: Return, `pluses` Binary, Const = pluses + 2 deep, well within the limit alone;
    # k: the Store (1), the Call under it (2), then h's body inlined: pluses + 4
    src = (f"def h() -> i32:\n    return {_sum_of_ones(pluses)}\n\n\n"
           "def k(out: Buffer[i32]):\n    out[0] = h()\n")
    if deep is None:
        parse(src)
        return
    with pytest.raises(KernelError, match=f"'k' nests statements and expressions {deep} deep"):
        parse(src)


@pytest.mark.parametrize("helpers, deep", [(16, None), (17, 17)])
def test_call_depth_limit(helpers: int, deep: int | None) -> None:
    # k calls h0, h0 calls h1, ...: the chain from k is `helpers` calls deep
    src = "".join(f"def h{i}(a: i32) -> i32:\n    return h{i + 1}(a + 1)\n\n\n"
                  for i in range(helpers - 1))
    src += f"def h{helpers - 1}(a: i32) -> i32:\n    return a\n\n\n"
    src += "def k(out: Buffer[i32]):\n    out[0] = h0(1)\n"
    if deep is None:
        parse(src)
        return
    with pytest.raises(KernelError, match=f"helper calls nest {deep} deep \\(k -> h0 -> h1 "
                                          "-> h2 -> ...\\); the limit is 16") as info:
        parse(src)
    assert info.value.line == src.splitlines().index("def k(out: Buffer[i32]):") + 1


@pytest.mark.parametrize("levels, size", [(12, None), (13, 65530)])
def test_inlined_size_limit(levels: int, size: int | None) -> None:
    # h{i} returns h{i+1}(x) + h{i+1}(x): Return, Binary, two Calls and their two Names,
    # 6 nodes, plus its callee twice; the last helper `return x` is 2 nodes. So h0 of L
    # levels is 8 * 2**L - 6 nodes inlined: 32762 for 12 levels, 65530 for 13 (limit 50,000)
    src = "".join(f"def h{i}(x: i32) -> i32:\n    return h{i + 1}(x) + h{i + 1}(x)\n\n\n"
                  for i in range(levels))
    src += f"def h{levels}(x: i32) -> i32:\n    return x\n\n\n"
    src += "def k(out: Buffer[i32]):\n    out[0] = h0(1)\n"
    if size is None:
        parse(src)
        return
    with pytest.raises(KernelError, match=f"'h0' is {size} nodes with its helpers inlined "
                                          "at every call; the limit is 50000") as info:
        parse(src)
    assert info.value.line == 1

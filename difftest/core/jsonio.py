"""Reading JSON files the user hands us (case, outcome and corpus files): every way the
text can be wrong becomes one `CaseError` naming the file, never a traceback.

Only ever `json.loads`: nothing read here is executed or unpickled.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

from difftest.core.errors import CaseError


def decimal(text: str, where: str) -> float:
    """A float written in decimal; one past binary64's range, or so small it is 0, is
    refused (read as it is it would become an infinity or a zero nobody wrote)."""
    x = float(text)
    if math.isinf(x) or (x == 0 and re.search(r"[1-9]", re.split(r"[eE]", text)[0])):
        meant = "inf" if x > 0 else "-inf" if x < 0 else \
            "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
        raise CaseError(f"{where}: {text} is past the float range (it would be read as "
                        f"{meant}: write {meant} for that)")
    return x


def _not_json(token: str, where: str) -> float:
    """Python's json reads NaN, Infinity and -Infinity, which JSON has not: refused, as
    another reader of the file would refuse them (a case file writes "nan", "inf")."""
    spelled = {"NaN": "nan", "Infinity": "inf", "-Infinity": "-inf"}[token]
    raise CaseError(f"{where}: {token} is not JSON (a case file writes the string "
                    f'"{spelled}")')


def loads(text: str, where: str) -> Any:
    """Parse JSON text; `where` (a file name) starts the error message. A number past
    the float range is refused as `decimal` refuses it, and NaN or Infinity as JSON has
    none (a case file writes "nan", "inf")."""
    try:
        return json.loads(text, parse_float=lambda t: decimal(t, where),
                          parse_constant=lambda t: _not_json(t, where))
    except json.JSONDecodeError as e:
        if where.lower().endswith(".py"):
            hint = " (a .py file is a kernel file: this reads a JSON file here)"
        elif text.lstrip().startswith(("def ", "# difftest:")):
            hint = " (it reads as a kernel file: name it .py)"
        else:
            hint = ""
        raise CaseError(f"{where}: malformed JSON at line {e.lineno} column {e.colno}: "
                        f"{e.msg}{hint}") from None
    except RecursionError:
        raise CaseError(f"{where}: JSON nested too deeply") from None
    except ValueError as e:  # e.g. an integer of more than 4,300 digits
        raise CaseError(f"{where}: malformed JSON: {str(e).split(';')[0]}") from None


def read_json(path: str | Path) -> Any:
    """Read and parse a JSON file."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")  # an editor's byte-order mark is no text
    except FileNotFoundError:
        raise CaseError(f"{p}: no such file") from None
    except IsADirectoryError:
        raise CaseError(f"{p}: is a folder, not a file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise CaseError(f"{p}: cannot read: {e}") from None
    return loads(text, str(p))

"""Reading JSON files the user hands us (case, outcome and corpus files): every way the
text can be wrong becomes one `CaseError` naming the file, never a traceback.

Only ever `json.loads`: nothing read here is executed or unpickled.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from difftest.core.errors import CaseError


def loads(text: str, where: str) -> Any:
    """Parse JSON text; `where` (a file name) starts the error message."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise CaseError(f"{where}: malformed JSON at line {e.lineno} column {e.colno}: "
                        f"{e.msg}") from None
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

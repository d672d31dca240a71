"""The quote of an input value in a message, for the messages Python writes.

The same rule as SQL's ``rs_quote`` (``sql/common/v1/000_quote.sql``), which the packs'
SQL messages use, so that a value reads alike wherever a message comes from: its JSON text
(as DuckDB's ``to_json`` writes it), a character that shows blank or not at all written
``\\uXXXX``, and a text longer than 80 characters visibly cut (``"abc…"``). A test holds
the two to the same output. ``path`` is the rule for a path before ``:line: reason``.
"""

from __future__ import annotations

import json
import re
from typing import Any

#: rs_unseen_re: what shows blank or not at all yet is no ASCII space.
_UNSEEN = re.compile(
    "[\u00a0\u00ad\u1680\u180e\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff]"
)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.S)
#: rs_whole_escapes: the longest head made of whole characters and whole escapes.
_WHOLE = re.compile(r"(?:[^\\]|\\u[0-9A-Fa-f]{4}|\\[^u])*", re.S)
LIMIT = 80


def _json_text(value: Any) -> str:
    try:
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):  # a YAML date, a set: quoted as its text
        text = json.dumps(str(value), ensure_ascii=False)
    # DuckDB's to_json writes an escaped control character's hex in capitals (\u001B).
    return _ESCAPE.sub(lambda m: "\\" + (m.group(1)[0] + m.group(1)[1:].upper()), text)


def _cut(text: str) -> str:
    if len(text) <= LIMIT:
        return text
    if text.startswith('"'):
        return _head(text[: LIMIT - 2]) + '…"'
    return _head(text[: LIMIT - 1]) + "…"


def _head(text: str) -> str:
    m = _WHOLE.match(text)
    return m.group(0) if m else ""


def quote(value: Any) -> str:
    """``value`` as a message quotes it: ``"docs"``, ``1.5``, ``"PASS\\u00a042/42"``."""
    return _UNSEEN.sub(lambda m: f"\\u{ord(m.group(0)):04x}", _cut(_json_text(value)))


#: What a path is quoted for: a character that cannot be seen, or that would break or
#: steer the line (a control character, C1 too), or one that shows blank (``_UNSEEN``).
_UNSAFE_IN_PATH = re.compile("[\x00-\x1f\x7f-\x9f]|" + _UNSEEN.pattern)


def path(name: str) -> str:
    """A file's path as the ``file:line: reason`` of a message writes it: as it is, so that
    ``file:line:`` output and the tools that parse it keep working, unless it holds a
    character that ``_UNSAFE_IN_PATH`` finds or starts with ``"``; then quoted as ``quote``
    quotes a value (``"a\\tb.jsonl":3: ...``), but never cut: a cut path names no file.
    SQL's ``rs_path`` (``sql/common/v1/000_quote.sql``) is the same rule."""
    if not name.startswith('"') and not _UNSAFE_IN_PATH.search(name):
        return name
    return _UNSEEN.sub(lambda m: f"\\u{ord(m.group(0)):04x}", _json_text(name))

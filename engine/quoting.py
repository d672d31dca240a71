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

#: rs_unseen_re: what shows blank or not at all yet is no ASCII space, or steers how the text
#: around it is drawn: the Unicode spaces, the line and paragraph separators, and every
#: format character (category Cf, as of Unicode 15): the soft hyphen, zero-width and bidi
#: marks, overrides and isolates, the Arabic letter mark (U+061C) and number signs, the
#: byte-order mark, the interlinear annotation marks, the tags (U+E0001, U+E0020-E007F,
#: which hide ASCII text), ...
_UNSEEN = re.compile(
    "[\u00a0\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u1680\u180e"
    "\u2000-\u200f\u2028-\u202f\u205f-\u2064\u2066-\u206f\u3000\ufeff\ufff9-\ufffb"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]"
)
_ESCAPE = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.S)
#: rs_whole_escapes: the longest head made of whole characters and whole escapes.
_WHOLE = re.compile(r"(?:[^\\]|\\u[0-9A-Fa-f]{4}|\\[^u])*", re.S)
LIMIT = 80


def json_text(value: Any) -> str:
    """``value``'s JSON text, whole, as DuckDB's ``to_json`` writes it (what ``quote`` cuts)."""
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


def _u_escape(m: re.Match[str]) -> str:
    c = ord(m.group(0))
    if c < 0x10000:
        return f"\\u{c:04x}"
    c -= 0x10000  # as JSON writes a character past U+FFFF: its UTF-16 surrogate pair
    return f"\\u{0xD800 + (c >> 10):04x}\\u{0xDC00 + (c & 0x3FF):04x}"


def show_unseen(text: str) -> str:
    """``text`` with each character ``_UNSEEN`` finds written ``\\uXXXX`` (``a\\u202eb``, a
    tag ``\\udb40\\udc41``), the rest as it is: rs_show_unseen. Also how a report writes
    such a character in a message (``output.md_message``), and inside the quote of a value
    (``output.md_escape``, ``plain_text``): a right-to-left override in a name turned the
    rest of its line around."""
    return _UNSEEN.sub(_u_escape, text)


def quote(value: Any) -> str:
    """``value`` as a message quotes it: ``"docs"``, ``1.5``, ``"PASS\\u00a042/42"``."""
    return show_unseen(_cut(json_text(value)))


#: What a path is quoted for: a character that cannot be seen, or that would break or
#: steer the line (a control character, C1 too), or one that shows blank (``_UNSEEN``).
_UNSAFE_IN_PATH = re.compile("[\x00-\x1f\x7f-\x9f]|" + _UNSEEN.pattern)


def needs_quote(text: str) -> bool:
    """Whether ``shown`` quotes ``text``: it holds a character that ``_UNSAFE_IN_PATH``
    finds, or starts with ``"`` (as it is, it would read as a quote). SQL's
    ``rs_needs_quote``."""
    return text.startswith('"') or _UNSAFE_IN_PATH.search(text) is not None


def shown(text: str) -> str:
    """A text as a message or plain text shows it when it is not quoted anyway: as it is,
    unless ``needs_quote``; then quoted as ``quote`` quotes a value, but whole. Each
    character that would be written escaped (``\\t``, ``\\u202e``) is then inside a quote
    whose own backslashes and quotes are escaped, as JSON (and Python's repr) write them:
    ``"a\\u202eb"`` is a right-to-left override, ``a\\u202eb`` the six characters as they
    are, where writing each escape in place made the two read alike. SQL's ``rs_shown``."""
    return show_unseen(json_text(text)) if needs_quote(text) else text


def path(name: str) -> str:
    """A file's path as the ``file:line: reason`` of a message writes it: as it is, so that
    ``file:line:`` output and the tools that parse it keep working, unless it holds a
    character that ``_UNSAFE_IN_PATH`` finds or starts with ``"``; then quoted as ``quote``
    quotes a value (``"a\\tb.jsonl":3: ...``), but never cut: a cut path names no file.
    The rule of ``shown``; SQL's ``rs_path`` (``sql/common/v1/000_quote.sql``)."""
    return shown(name)


def cannot_show(text: str) -> bool:
    """Whether ``text`` holds a character no message or report shows as it is (what
    ``path`` quotes a path for: a control character, C1 too, or one ``_UNSEEN`` finds).
    Written escaped, such a text can no longer be pasted as it is written: a command
    holding it is not shown (``cli.routes``' route command, the nightly's note on a
    history's other versions)."""
    return _UNSAFE_IN_PATH.search(text) is not None

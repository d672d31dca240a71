"""The rule a name from the input follows to become part of a report's file name.

One rule for every report a pack writes per item (``plugin score --out``'s per-skill
files, ``pipeline --out``'s per-pipeline pair), so that an id reads alike in each: the
letters, digits and marks of every script are kept (``résumé``, ``中文``), composed; and
two names are one file when a file system that ignores case (macOS, Windows), or composes
accents (macOS), takes them for one.
"""

from __future__ import annotations

import re
import unicodedata

#: The names Windows reserves for devices (case-folded), with or without an extension.
WINDOWS_DEVICES = frozenset(
    ["con", "prn", "aux", "nul"]
    + [f"{d}{n}" for d in ("com", "lpt") for n in "0123456789\u00b9\u00b2\u00b3"]
)


def keep_letters(text: str) -> str:
    """``text`` composed (NFC), each run of characters that are no letter, digit or mark
    of any script and none of ``.``, ``_``, ``-`` as one ``_``. File systems take UTF-8
    names, and ``résumé`` as ``r_sum_`` named nothing one could find; a separator, a
    control or a blank-looking character cannot reach the name."""
    s = unicodedata.normalize("NFC", text)
    kept = "".join(c if c in "._-" or unicodedata.category(c)[0] in "LNM" else "\0" for c in s)
    return re.sub("\0+", "_", kept)


def cut_bytes(text: str, limit: int) -> str:
    """At most ``limit`` bytes of UTF-8, never half a character: a file name may have 255
    bytes, and a cut by characters let 80 of them be 320."""
    return text.encode("utf-8")[:limit].decode("utf-8", "ignore")


def same_file_key(name: str) -> str:
    """When two names are one file on a file system that ignores case (macOS, Windows),
    or that composes accents (macOS): their case-folded, composed form."""
    return unicodedata.normalize("NFC", name.casefold())

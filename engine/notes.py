"""What the engine has to tell the user outside any result: one line each (a file it
cleaned up after a process that was killed). On stderr by default; the CLI says them
as it says its own notes (``output.note``: a line break in a path is written escaped)."""

from __future__ import annotations

import sys
from collections.abc import Callable


def _stderr(message: str) -> None:
    sys.stderr.write(message + "\n")


#: Says one message; the CLI sets it.
say: Callable[[str], None] = _stderr

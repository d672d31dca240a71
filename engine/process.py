"""What only a process that is runscore's alone may tune: the engine, called as a library,
shares its process with the application's own threads and leaves such settings alone.

Python's cyclic garbage collector is the process's: ``gc.disable()`` in a library call
turned it off for every other thread of the application while the call ran. The CLI's
entry point (``runscore.cli.main.run``) says the process is runscore's (``own_process``);
only then does ``gc_paused`` pause it.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator

_own = False


def own_process() -> None:
    """This process is runscore's alone (the CLI's): the engine may tune it from now on."""
    global _own
    _own = True


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Python's cyclic collector off for the duration, its previous state restored after,
    in a process that is runscore's own (``own_process``); elsewhere it is left as it is.

    Extract builds hundreds of thousands of objects that hold no cycles (a SourceFile per
    file, the manifest's entries, the lists said of them), and every full collection
    walked all of them again: 11 full collections were ~0.5 s of a 2.4 s rerun over 100k
    unchanged run files. Reference counting still frees all of it as it goes.
    """
    if not _own:
        yield
        return
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()

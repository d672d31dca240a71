"""Run one command; write its wall time and rusage as JSON (for ``benchmarks.run.measure``).

    python benchmarks/_launch.py RESULT.json CMD [ARG...]

Why a process of its own: Linux reports a child's peak RSS as at least its parent's peak
at the fork (exec keeps the old memory's high-water mark in the new program's), so a
command the harness spawned after it had held a corpus in memory showed the harness's
peak as its own (measured: 811 MB for ``python -c pass`` after the parent held 800 MB,
freed or not). This launcher stays small (~10 MB) and spawns the command from there.
Standard streams, working directory and environment are passed on as they are.
"""

from __future__ import annotations

import json
import os
import sys
import time


def main() -> int:
    out_path, cmd = sys.argv[1], sys.argv[2:]
    t0 = time.perf_counter()
    pid = os.posix_spawnp(cmd[0], cmd, os.environ)
    _, status, ru = os.wait4(pid, 0)
    wall = time.perf_counter() - t0
    with open(out_path, "w", encoding="utf-8") as f:
        json.dump(
            {
                "wall_s": wall,
                "cpu_s": ru.ru_utime + ru.ru_stime,
                "max_rss_kib": ru.ru_maxrss,  # Linux reports KiB
                "rc": os.waitstatus_to_exitcode(status),
            },
            f,
        )
    rc = os.waitstatus_to_exitcode(status)
    return rc if rc >= 0 else 128 - rc


if __name__ == "__main__":
    sys.exit(main())

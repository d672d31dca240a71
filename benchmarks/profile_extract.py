"""Where does ``extract`` (or ``report``) spend its time? Per statement, with DuckDB's profile.

    python -m benchmarks.profile_extract CORPUS... [--history H] [--out DIR] [--python]
    python -m benchmarks.profile_extract --report HISTORY.jsonl [--out DIR]

Runs ``runscore.engine.packs.effectiveness.extract`` in this process with DuckDB
profiling on. Every statement the engine executes on its connection is timed and
attributed to the SQL file that issued it (``sqlpack.execute`` is wrapped to know
which); the profile tree of each statement slower than ``--min`` seconds is written
to ``DIR/NN_<file>.txt`` (the same tree ``EXPLAIN ANALYZE`` prints). Prints the
statements by time with their costliest operators, and the time spent outside
SQL (file scanning, hashing, history writing: Python), which is the time in which no
statement ran on any connection: extract runs statements on several threads at once, so
their times summed exceed the time they took (also shown). Also per statement what no
operator shows: a checkpoint DuckDB ran at its commit (``storage.checkpoint_latency``:
how 0.3 s of a 10k-run extract was found), the threads' idle time, and bytes spilled
to the temp directory once ``memory_limit`` was reached.

A diagnostic tool: it changes nothing in the engine, it only observes it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import duckdb


class _Ref(threading.local):
    # Per thread: extract scores on two connections at once (sqlpack._run_planned), and
    # one shared "current file" labelled each statement with the other thread's file.
    ref = "<engine>"


class _State:
    refs = _Ref()
    lock = threading.Lock()
    rows: list[dict[str, Any]] = []
    out: Path | None = None
    min_s = 0.05
    t0 = 0.0  # perf_counter() when the profiled call began: statements start from it


def _operators(node: dict[str, Any], acc: list[tuple[float, str, str, int]]) -> None:
    t = float(node.get("timing") or 0.0)
    name = str(node.get("name") or node.get("type") or "?")
    info = node.get("extra_info") or {}
    detail = ""
    if isinstance(info, dict):
        for k in ("Function", "Table", "Join Type", "Aggregates", "Projections"):
            if k in info:
                v = info[k]
                detail = (v if isinstance(v, str) else json.dumps(v))[:90]
                break
    if name not in ("RESULT_COLLECTOR", "EXPLAIN_ANALYZE"):
        acc.append((t, name, detail, int(node.get("intermediate_rows") or 0)))
    for c in node.get("children") or []:
        _operators(c, acc)


class ProfiledConnection:
    """Forwards everything to a DuckDB connection; times and profiles ``execute``."""

    def __init__(self, con: duckdb.DuckDBPyConnection) -> None:
        self._con = con
        con.execute("PRAGMA enable_profiling = 'no_output'")
        # 'detailed' adds what no operator shows: a checkpoint the statement paid for
        # (storage), the planner's and optimizer's time.
        con.execute("SET profiling_mode = 'detailed'")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._con, name)

    def cursor(self) -> ProfiledConnection:
        # The scoring workers' connections: profiled too (a cursor has its own settings,
        # so profiling is switched on for each), or their statements went unseen.
        return ProfiledConnection(self._con.cursor())

    def execute(self, query: Any, *args: Any, **kw: Any) -> Any:
        t0 = time.perf_counter()
        res = self._con.execute(query, *args, **kw)
        wall = time.perf_counter() - t0
        self._record(str(getattr(query, "query", query)), t0 - _State.t0, wall)
        return res

    def _record(self, text: str, start: float, wall: float) -> None:
        if text.lstrip().upper().startswith(("PRAGMA", "SET ")):
            return
        ops: list[tuple[float, str, str, int]] = []
        tree = ""
        extra: dict[str, Any] = {}
        try:
            prof = json.loads(self._con.get_profiling_information(format="json"))
            for node in prof.get("operator") or []:
                _operators(node, ops)
            system = prof.get("system") or {}
            extra = {
                "cpu_s": round(float(prof.get("query", {}).get("cpu_time") or 0.0), 4),
                "peak_buffer_mb": round(float(system.get("peak_buffer_memory") or 0) / 2**20, 1),
                # Costs outside the operators: the wall time a statement spends on a
                # checkpoint DuckDB started at its commit, its threads' idle time, and
                # what it spilled to the temp directory (memory_limit reached).
                "checkpoint_s": round(
                    float((prof.get("storage") or {}).get("checkpoint_latency") or 0.0), 4
                ),
                "blocked_s": round(float(system.get("blocked_thread_time") or 0.0), 4),
                "spilled_mb": round(float(system.get("total_bytes_spilled") or 0) / 2**20, 1),
                # Planning, which no operator shows either: on a small read (an
                # incremental's 100 runs) it is most of a statement's time.
                "planner_s": round(float((prof.get("planner") or {}).get("total_time") or 0), 4),
                "optimizer_s": round(
                    float((prof.get("optimizer") or {}).get("total_time") or 0), 4
                ),
                "physical_planner_s": round(
                    float((prof.get("physical_planner") or {}).get("total_time") or 0), 4
                ),
                "optimizers": {
                    k: float(v)
                    for k, v in (prof.get("optimizer") or {}).items()
                    if k != "total_time" and isinstance(v, (int, float))
                },
            }
            if wall >= _State.min_s:
                tree = self._con.get_profiling_information(format="text")
        except (duckdb.Error, ValueError):
            pass
        ops.sort(reverse=True)
        ref = _State.refs.ref
        with _State.lock:
            i = len(_State.rows) + 1
            row: dict[str, Any] = {"n": i}
            _State.rows.append(row)
        row.update(
            {
                "ref": ref,
                "start_s": round(start, 4),
                "wall_s": round(wall, 4),
                "sql": " ".join(text.split())[:160],
                **extra,
                "top_operators": [
                    {"operator": n, "s": round(t, 4), "rows": r, "detail": d}
                    for t, n, d, r in ops[:4]
                ],
                "thread": threading.current_thread().name,
            }
        )
        if tree and _State.out is not None:
            name = ref.replace("/", "_").replace("<", "").replace(">", "")
            (_State.out / f"{i:03d}_{name}.txt").write_text(text + "\n\n" + tree)


def busy_seconds(rows: list[dict[str, Any]]) -> float:
    """Seconds in which at least one of ``rows``' statements ran: the union of their
    spans. Their sum counts twice what two threads ran at once (at 2,000 runs it exceeded
    extract's whole time, and "outside SQL" came out at -0.24 s)."""
    busy, end = 0.0, float("-inf")
    for a, b in sorted((r["start_s"], r["start_s"] + r["wall_s"]) for r in rows):
        if b > end:
            busy += b - max(a, end)
            end = b
    return busy


@contextlib.contextmanager
def _patched() -> Iterator[None]:
    from runscore.engine import db, sqlpack

    orig_connect, orig_execute = db.connect, sqlpack.execute

    def connect(*a: Any, **kw: Any) -> Any:
        return ProfiledConnection(orig_connect(*a, **kw))

    def execute(con: Any, sql: Any, params: Any = None) -> Any:
        prev = _State.refs.ref
        _State.refs.ref = getattr(sql, "ref", "<inline>")
        try:
            return orig_execute(con, sql, params)
        finally:
            _State.refs.ref = prev

    db.connect = connect  # type: ignore[assignment]
    sqlpack.execute = execute  # type: ignore[assignment]
    try:
        yield
    finally:
        db.connect = orig_connect  # type: ignore[assignment]
        sqlpack.execute = orig_execute  # type: ignore[assignment]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.profile_extract",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument(
        "paths", nargs="+", help="corpus files or directories (or, with --report, one history file)"
    )
    ap.add_argument(
        "--report",
        action="store_true",
        help="profile `report` over the history file given instead of extract",
    )
    ap.add_argument("--history", default=None, help="history file (default: a fresh temp file)")
    ap.add_argument("--out", default=None, help="write profile trees and profile.json here")
    ap.add_argument("--min", type=float, default=0.05, help="write trees of statements ≥ this")
    ap.add_argument("--top", type=int, default=25, help="statements to print")
    ap.add_argument("--python", action="store_true", help="also profile the Python side (cProfile)")
    a = ap.parse_args(argv)
    if a.report and (len(a.paths) > 1 or a.history):
        # Report reads one history: another path, or --history, was ignored.
        ap.error("--report profiles the report of one history file: give it alone")
    from runscore.engine.packs import effectiveness, effectiveness_history

    out = Path(a.out or tempfile.mkdtemp(prefix="runscore-profile-"))
    out.mkdir(parents=True, exist_ok=True)
    _State.out, _State.min_s = out, a.min
    # A fresh history by default: with an old one, the manifest makes extract skip
    # every unchanged file and there is nothing to profile.
    hist = a.history or os.path.join(tempfile.mkdtemp(prefix="runscore-hist-"), "e.jsonl")
    t0 = _State.t0 = time.perf_counter()
    prof = None
    if a.python:
        import cProfile

        prof = cProfile.Profile()
        prof.enable()
    with _patched():
        if a.report:
            rep = effectiveness_history.report(a.paths[0])
            # What was read and reported: a report scores no runs and writes no records.
            said: dict[str, Any] = {
                "history_lines": rep.history.lines,
                "history_reader": rep.history.reader,
                "report_rows": rep.table.num_rows,
            }
            what = (
                f"{rep.history.lines} history lines ({rep.history.reader} reader), "
                f"{rep.table.num_rows} report rows"
            )
        else:
            res = effectiveness.extract(a.paths, hist)
            said = {"runs_scored": res.runs_scored, "records_written": res.records_written}
            what = f"{res.runs_scored} runs, {res.records_written} records"
    total = time.perf_counter() - t0
    if prof is not None:
        import io
        import pstats

        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).sort_stats("tottime").print_stats(25)
        # cProfile sees the thread that enabled it: the scoring and reading threads'
        # Python shows there as the main thread's wait for them (lock acquire).
        head = "Python profile of the main thread only (other threads: their SQL above)\n"
        (out / "python-profile.txt").write_text(head + buf.getvalue())
    summed = sum(r["wall_s"] for r in _State.rows)
    sql_total = busy_seconds(_State.rows)
    threads = len({r["thread"] for r in _State.rows})
    by_ref: dict[str, float] = {}
    for r in _State.rows:
        by_ref[r["ref"]] = by_ref.get(r["ref"], 0.0) + r["wall_s"]
    doc = {
        "paths": a.paths,
        "total_s": round(total, 3),
        "sql_s": round(sql_total, 3),
        "sql_summed_s": round(summed, 3),
        "threads": threads,
        "outside_sql_s": round(total - sql_total, 3),
        **said,
        "by_file": dict(sorted(by_ref.items(), key=lambda kv: -kv[1])),
        "statements": _State.rows,
    }
    (out / "profile.json").write_text(json.dumps(doc, indent=1) + "\n")
    w = sys.stdout.write
    checkpoints = sum(r.get("checkpoint_s", 0.0) for r in _State.rows)
    spilled = sum(r.get("spilled_mb", 0.0) for r in _State.rows)
    planning = {
        k: sum(r.get(k, 0.0) for r in _State.rows)
        for k in ("planner_s", "optimizer_s", "physical_planner_s")
    }
    optimizers: dict[str, float] = {}
    for r in _State.rows:
        for k, v in r.pop("optimizers", {}).items():
            optimizers[k] = optimizers.get(k, 0.0) + v
    top_opt = sorted(optimizers.items(), key=lambda kv: -kv[1])[:4]
    w(
        f"total {total:.2f} s = SQL {sql_total:.2f} s + outside SQL {total - sql_total:.2f} s "
        f"(SQL: while any statement ran; {summed:.2f} s summed over {threads} thread(s)); "
        f"{what}; trees in {out}"
        + (f"; Python profile in {out / 'python-profile.txt'}" if prof is not None else "")
        + "\n"
        f"in the SQL: checkpoints {checkpoints:.3f} s, spilled {spilled:.0f} MiB; planning "
        f"{sum(planning.values()):.3f} s (binder {planning['planner_s']:.3f}, optimizer "
        f"{planning['optimizer_s']:.3f}: {', '.join(f'{k} {v:.3f}' for k, v in top_opt)}; "
        f"physical plan {planning['physical_planner_s']:.3f}) over {len(_State.rows)} statements\n\n"
    )
    w("| SQL file | s (summed over threads) | share of total |\n|---|--:|--:|\n")
    for ref, s in doc["by_file"].items():
        w(f"| {ref} | {s:.3f} | {s / total:.0%} |\n")
    w(
        "\n| # | SQL file | s | CPU s | peak MiB | checkpoint s | blocked s | spilled MiB "
        "| costliest operators (s) |\n"
    )
    w("|--:|---|--:|--:|--:|--:|--:|--:|---|\n")
    for r in sorted(_State.rows, key=lambda r: -r["wall_s"])[: a.top]:
        ops = "; ".join(
            f"{o['operator']} {o['s']:.3f}" + (f" [{o['detail']}]" if o["detail"] else "")
            for o in r["top_operators"][:3]
        )
        w(
            f"| {r['n']} | {r['ref']} | {r['wall_s']:.3f} | {r.get('cpu_s', 0):.2f} "
            f"| {r.get('peak_buffer_mb', 0):.0f} | {r.get('checkpoint_s', 0):.3f} "
            f"| {r.get('blocked_s', 0):.2f} | {r.get('spilled_mb', 0):.0f} "
            f"| {ops.replace('|', '/')} |\n"
        )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("RUNSCORE_LOG", "")
    sys.exit(main())

"""Benchmark: score N operation episodes (default 1,000,000) in one pass.

Generates a deterministic synthetic corpus with DuckDB (no per-line Python loop), then
times ``runscore.engine.packs.routes.analyze`` over it and prints one JSON line with
the timings, counts and peak memory. Usage::

    python benchmarks/routes_bench.py                 # 1M episodes
    python benchmarks/routes_bench.py --episodes 5000 --out /tmp/rb
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import resource
import sys
import tempfile
import time

from runscore.engine import db
from runscore.engine.packs import routes

# The generator: every value is a deterministic function of the row number i (hash-based
# pseudo-random draws u1..u6 in [0, 1)), so two runs write byte-identical files.
GENERATE = """
COPY (
    WITH base AS (
        SELECT i,
            (hash(i * 11 + 1) % 1000000) / 1000000.0 AS u1,
            (hash(i * 11 + 2) % 1000000) / 1000000.0 AS u2,
            (hash(i * 11 + 3) % 1000000) / 1000000.0 AS u3,
            (hash(i * 11 + 4) % 1000000) / 1000000.0 AS u4,
            (hash(i * 11 + 5) % 1000000) / 1000000.0 AS u5,
            (hash(i * 11 + 6) % 1000000) / 1000000.0 AS u6
        FROM range($n) t(i)
    ),
    d AS (
        SELECT *,
            'activity-' || CAST(floor(u1 * 10) AS INTEGER) AS activity,
            CASE WHEN u2 < 0.5 THEN 'claude-sonnet-4' WHEN u2 < 0.8 THEN 'claude-haiku-4'
                 ELSE 'claude-opus-4' END AS model,
            ['low', 'medium', 'high'][1 + CAST(floor(u3 * 3) AS INTEGER)] AS complexity,
            CASE WHEN u4 < 0.85 THEN 'historical' WHEN u4 < 0.95 THEN 'paired'
                 ELSE 'prospective' END AS kind,
            CASE WHEN i < $n / 2 THEN 'h1' ELSE 'h2' END AS harness
        FROM base
    )
    SELECT
        'ep-' || lpad(CAST(i AS VARCHAR), 8, '0') AS episodeId,
        {'kind': kind, 'host': 'claude-code', 'sessionKey': 's-' || (i // 20),
         'runId': 'run-' || (i // 2), 'workerId': 'w-' || (i % 7),
         'pairId': CASE WHEN kind = 'paired' THEN 'pair-' || (i // 3) END} AS source,
        {'id': 'proj', 'revision': 'r1'} AS project,
        {'id': activity, 'provenance': 'observed', 'confidence': 0.9} AS activity,
        {'fingerprint': 'fp-' || (i // 2), 'complexity': complexity} AS task,
        {'host': 'claude-code', 'inferenceProvider': 'anthropic',
         'providerProvenance': 'observed', 'model': model, 'reasoningEffort': 'medium',
         'harnessFingerprint': harness,
         'startedAt': strftime(TIMESTAMP '2025-01-01' + to_seconds(CAST(i * 5 AS BIGINT)),
                               '%Y-%m-%dT%H:%M:%SZ'),
         'endedAt': strftime(TIMESTAMP '2025-01-01' + to_seconds(CAST(i * 5 + 4 AS BIGINT)),
                             '%Y-%m-%dT%H:%M:%SZ'),
         'durationMs': 4000} AS execution,
        {'input': 1000 + CAST(u5 * 5000 AS INTEGER), 'output': 300,
         'cacheRead': 0, 'cacheWrite': 0, 'observedCostUsd': NULL,
         'apiEquivalentCostUsd': CASE model WHEN 'claude-haiku-4' THEN 0.01
                                 WHEN 'claude-sonnet-4' THEN 0.03 ELSE 0.10 END,
         'costBasis': 'api_equivalent', 'quotaPressure': NULL} AS usage,
        {'status': 'succeeded',
         'signals': CASE WHEN u6 < 0.15 THEN [{'kind': 'handoff', 'value': 'done'}]
                         WHEN u6 < 0.15 + 0.75 * (CASE complexity WHEN 'high' THEN 0.8 ELSE 0.95 END)
                         THEN [{'kind': 'gate', 'value': 'pass'}]
                         ELSE [{'kind': 'gate', 'value': 'fail'}] END,
         'retries': CASE WHEN u5 < 0.05 THEN 1 ELSE 0 END, 'repairs': 0,
         'escalation': {'escalated': kind = 'prospective' AND u5 < 0.1,
                        'toModel': CASE WHEN kind = 'prospective' AND u5 < 0.1
                                        THEN 'claude-opus-4' END}} AS outcome
    FROM d ORDER BY i
) TO '__PATH__' (FORMAT json)
"""


def generate(path: str, n: int) -> None:
    con = db.connect()
    try:
        # COPY targets cannot be bind parameters; the path is ours (a temp dir), quoted safely.
        con.execute(GENERATE.replace("__PATH__", path.replace("'", "''")), {"n": n})
    finally:
        con.close()


def _generate_apart(path: str, n: int) -> None:
    """``generate`` in a process of its own: DuckDB's memory for writing the corpus then
    stays out of this process's peak RSS, which is the analysis's alone (it counted the
    generation's, often the larger). Spawned, not forked: a forked child would start
    with this process's pages."""
    p = multiprocessing.get_context("spawn").Process(target=generate, args=(path, n))
    p.start()
    p.join()
    if p.exitcode != 0:
        raise SystemExit(f"generating {n} episodes failed (exit {p.exitcode})")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--episodes", type=int, default=1_000_000, help="episodes to generate")
    ap.add_argument("--out", help="folder for the corpus (default: a temp folder, removed)")
    args = ap.parse_args(argv)
    tmp = None
    out = args.out
    if out is None:
        tmp = tempfile.TemporaryDirectory(prefix="routes-bench-")
        out = tmp.name
    os.makedirs(out, exist_ok=True)
    path = os.path.join(out, "episodes.jsonl")
    t0 = time.perf_counter()
    _generate_apart(path, args.episodes)
    t1 = time.perf_counter()
    rep = routes.analyze([path], routes.Policy(), routes.parse_as_of("2025-03-01"))
    t2 = time.perf_counter()
    result = {
        "episodes_generated": args.episodes,
        "episodes_scored": rep.episodes,
        "rejected": len(rep.problems),
        "comparisons": rep.comparisons.num_rows,
        "findings": rep.findings.num_rows,
        "generate_seconds": round(t1 - t0, 2),
        "analyze_seconds": round(t2 - t1, 2),
        "episodes_per_second": round(rep.episodes / max(t2 - t1, 1e-9)),
        # this process's: the analysis (and imports), not the generator's child
        "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
        "file_mb": round(os.path.getsize(path) / 1e6, 1),
    }
    print(json.dumps(result, sort_keys=True))
    if tmp is not None:
        tmp.cleanup()
    return 0 if rep.episodes == args.episodes and not rep.problems else 1


if __name__ == "__main__":
    sys.exit(main())

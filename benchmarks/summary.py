"""Targets over several ``benchmarks.run`` results: each one's median, range and hit count.

    python -m benchmarks.summary RUN1.json RUN2.json RUN3.json [...]

Each run's ratios were measured within that run, against its own baseline; this only
gathers them, it does not mix one run's step with another's baseline. On a machine whose
single runs move by ±20%, a target near its limit is met in one run and missed in the
next: the verdict here is on the median, and "met in" says how often. A value its run
marked suspect (measured against a step that waited: ``benchmarks.run``) is left out, and
counted. Targets are matched by name without the measured values some names carry
(``compare.target_key``); steps by (corpus, step). Rows missing from some runs show how
many runs had them.
"""

from __future__ import annotations

import argparse
import statistics
import sys
from typing import Any

from benchmarks.compare import ResultError, _load, _num, failed, target_key, verdict
from benchmarks.run import stated


def _ok(value: float, op: str, limit: float) -> bool:
    return value >= limit if op == "≥" else value <= limit


def summary(docs: list[dict[str, Any]]) -> str:
    n = len(docs)
    lines = [
        f"{n} runs: " + ", ".join(str(d.get("started", "?")) for d in docs) + ".",
        "",
        "| target | runs | median | min | max | limit | met in | on the median |",
        "|---|--:|--:|--:|--:|--:|--:|---|",
    ]
    targets: dict[str, list[dict[str, Any]]] = {}
    suspect: dict[str, int] = {}
    for d in docs:
        for t in d.get("targets", []):
            key = target_key(t["target"])
            if t.get("suspect"):
                # measured against a step that waited (benchmarks.run): left out, counted
                suspect[key] = suspect.get(key, 0) + 1
                targets.setdefault(key, [])
            elif t.get("value") is not None:
                targets.setdefault(key, []).append(t)
    for key, ts in targets.items():
        name = key + (f" ({suspect[key]} suspect run(s) left out)" if suspect.get(key) else "")
        if not ts:
            lines.append(f"| {name} | 0 | — | — | — | — | — | — |")
            continue
        vals = [float(t["value"]) for t in ts]
        op, limit = ts[-1]["op"], float(ts[-1]["limit"])
        med = statistics.median(vals)
        # by the name's size, not the rows' flag (an older harness's may say otherwise)
        is_stated = stated(key)
        met = f"{sum(_ok(v, op, limit) for v in vals)} of {len(vals)}" if is_stated else "—"
        lines.append(
            f"| {name} | {len(vals)} | {_num(med, 2)} | {_num(min(vals), 2)} "
            f"| {_num(max(vals), 2)} | {op} {ts[-1]['limit']} | {met} "
            f"| {verdict(_ok(med, op, limit), is_stated)} |"
        )
    lines += [
        "",
        "| corpus | step | runs | median wall s | min | max | median peak RSS MiB |",
        "|---|---|--:|--:|--:|--:|--:|",
    ]
    steps: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for d in docs:
        for r in d["results"]:
            # a failed step's time measured nothing (benchmarks.compare.failed)
            if not r.get("skipped") and r.get("wall_s") is not None and not failed(r):
                steps.setdefault((r["corpus"], r["step"]), []).append(r)
    for (corpus, step), rs in steps.items():
        walls = [float(r["wall_s"]) for r in rs]
        peaks = [float(r["max_rss_mb"]) for r in rs if r.get("max_rss_mb") is not None]
        rss = statistics.median(peaks) if peaks else None
        lines.append(
            f"| {corpus} | {step} | {len(rs)} | {_num(statistics.median(walls))} "
            f"| {_num(min(walls))} | {_num(max(walls))} | {_num(rss, 0)} |"
        )
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.summary",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("results", nargs="+", help="result JSONs (benchmarks.run --json)")
    a = ap.parse_args(argv)
    try:
        docs = [_load(p) for p in a.results]
    except ResultError as e:
        sys.stderr.write(f"{e}\n")
        return 1
    sys.stdout.write(summary(docs))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Diff two ``benchmarks.run`` JSON results: a markdown table of new/old ratios.

    python -m benchmarks.compare OLD.json NEW.json

Steps are matched by (corpus, step); targets by name. A ratio below 1 means the
new result is faster (or smaller). Steps present in only one file are listed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any


def _load(p: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(Path(p).read_text())
    if "results" not in doc:
        raise SystemExit(f"{p}: not a benchmarks.run result (no 'results')")
    return doc


def _ratio(new: float | None, old: float | None) -> str:
    if new is None or old is None or old == 0:
        return "—"
    return f"{new / old:.2f}"


def _num(v: float | None, digits: int = 3) -> str:
    return "—" if v is None else f"{v:.{digits}f}"


def _key(r: dict[str, Any]) -> tuple[str, str]:
    return (r["corpus"], r["step"])


def compare(old: dict[str, Any], new: dict[str, Any]) -> str:
    lines = [
        f"Old: {old.get('started', '?')} on {old['machine'].get('cores')} cores; "
        f"new: {new.get('started', '?')} on {new['machine'].get('cores')} cores.",
        "",
        "| corpus | step | old s | new s | new/old time | old RSS MiB | new RSS MiB "
        "| new/old RSS |",
        "|---|---|--:|--:|--:|--:|--:|--:|",
    ]
    olds = {_key(r): r for r in old["results"] if not r.get("skipped")}
    news = {_key(r): r for r in new["results"] if not r.get("skipped")}
    for k, n in news.items():
        o = olds.get(k)
        if o is None:
            continue
        lines.append(
            f"| {k[0]} | {k[1]} | {_num(o['wall_s'])} | {_num(n['wall_s'])} "
            f"| {_ratio(n['wall_s'], o['wall_s'])} | {_num(o['max_rss_mb'], 0)} "
            f"| {_num(n['max_rss_mb'], 0)} | {_ratio(n['max_rss_mb'], o['max_rss_mb'])} |"
        )
    only_old = sorted(set(olds) - set(news))
    only_new = sorted(set(news) - set(olds))
    ot = {target_key(t["target"]): t for t in old.get("targets", [])}
    nt = {target_key(t["target"]): t for t in new.get("targets", [])}
    if ot or nt:
        lines += [
            "",
            "| target | old | new | limit | old result | new result |",
            "|---|--:|--:|--:|---|---|",
        ]
        for key in [*nt, *[k for k in ot if k not in nt]]:
            o, n = ot.get(key, {}), nt.get(key, {})
            t = n or o
            lines.append(
                f"| {t['target']} | {_num(o.get('value'), 2)} | {_num(n.get('value'), 2)} "
                f"| {t['op']} {t['limit']} | {_res(o)} | {_res(n)} |"
            )
    if only_old or only_new:
        lines.append("")
        lines += [f"- only in old: {c} / {s}" for c, s in only_old]
        lines += [f"- only in new: {c} / {s}" for c, s in only_new]
    return "\n".join(lines) + "\n"


def target_key(name: str) -> str:
    """A target's name without the measured values some names carry (ms per run, and
    the seed scorer's own time when it was timed in the run)."""
    name = re.sub(r"\([0-9.]+ s/run over [0-9]+ runs; [0-9.]+ ms/run\)", "(timed)", name)
    return re.sub(r"; [0-9.]+ ms/run\)", ")", name)


def _res(t: dict[str, Any]) -> str:
    if not t or t.get("ok") is None:
        return "—"
    return "met" if t["ok"] else "**missed**"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.compare",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("old", help="earlier result JSON (benchmarks.run --json)")
    ap.add_argument("new", help="later result JSON")
    a = ap.parse_args(argv)
    sys.stdout.write(compare(_load(a.old), _load(a.new)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Diff two ``benchmarks.run`` JSON results: a markdown table of new/old ratios.

    python -m benchmarks.compare OLD.json NEW.json

Steps are matched by (corpus, step); targets by name. A ratio below 1 means the
new result is faster (or smaller). Steps present in only one file are listed. A step
that failed in either (``failed``, a check that is not ok, a timeout) shows its exit
instead of a time and gets no ratio: its time measured nothing.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

from benchmarks.run import stated


class ResultError(ValueError):
    """A file that is not a ``benchmarks.run`` result; the message names it and why."""


def _load(p: str) -> dict[str, Any]:
    """The result in file ``p``; raises ``ResultError`` for one that cannot be read, is not
    JSON or is not a result (a library caller's ``except Exception`` catches it: the
    ``SystemExit`` raised here before ended the caller's process)."""
    try:
        text = Path(p).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as e:
        raise ResultError(f"{p}: cannot read: {getattr(e, 'strerror', None) or e}") from None
    try:
        doc = json.loads(text)
    except ValueError as e:
        where = (
            f"line {e.lineno}, column {e.colno}: " if isinstance(e, json.JSONDecodeError) else ""
        )
        msg = e.msg if isinstance(e, json.JSONDecodeError) else str(e)
        raise ResultError(f"{p}: not JSON ({where}{msg})") from None
    if not isinstance(doc, dict) or not isinstance(doc.get("results"), list):
        raise ResultError(f"{p}: not a benchmarks.run result (no 'results')")
    # Rows and targets that are not objects would fail later, far from the file's name.
    for k in ("results", "targets"):
        if not all(isinstance(x, dict) for x in doc.get(k) or []):
            raise ResultError(f"{p}: not a benchmarks.run result ('{k}' holds a non-object)")
    return doc


def failed(r: dict[str, Any]) -> bool:
    """Whether step ``r`` failed: marked so by the harness, or (results written before
    it marked them) a check that is not ok, or a timeout."""
    chk = r.get("check")
    return bool(
        r.get("failed") or r.get("timed_out") or (isinstance(chk, dict) and chk.get("ok") is False)
    )


def _time(r: dict[str, Any]) -> str:
    if failed(r):
        return f"failed (exit {r.get('rc', '?')})"
    return _num(r.get("wall_s"))


def _ratio(new: float | None, old: float | None) -> str:
    if not isinstance(new, (int, float)) or not isinstance(old, (int, float)) or old == 0:
        return "—"
    return f"{new / old:.2f}"


def _num(v: float | None, digits: int = 3) -> str:
    return f"{v:.{digits}f}" if isinstance(v, (int, float)) else "—"


def _cores(doc: dict[str, Any]) -> Any:
    m = doc.get("machine")
    return m.get("cores", "?") if isinstance(m, dict) else "?"


def _key(r: dict[str, Any]) -> tuple[str, str]:
    return (r["corpus"], r["step"])


def compare(old: dict[str, Any], new: dict[str, Any]) -> str:
    lines = [
        f"Old: {old.get('started', '?')} on {_cores(old)} cores; "
        f"new: {new.get('started', '?')} on {_cores(new)} cores.",
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
        both = not failed(o) and not failed(n)
        ow, nw = o.get("wall_s"), n.get("wall_s")
        orss, nrss = o.get("max_rss_mb"), n.get("max_rss_mb")
        lines.append(
            f"| {k[0]} | {k[1]} | {_time(o)} | {_time(n)} "
            f"| {_ratio(nw, ow) if both else '—'} | {_num(orss, 0)} "
            f"| {_num(nrss, 0)} | {_ratio(nrss, orss) if both else '—'} |"
        )
    only_old = sorted(set(olds) - set(news))
    only_new = sorted(set(news) - set(olds))
    ot = {target_key(str(t.get("target"))): t for t in old.get("targets") or []}
    nt = {target_key(str(t.get("target"))): t for t in new.get("targets") or []}
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
                f"| {t.get('target')} | {_num(o.get('value'), 2)} | {_num(n.get('value'), 2)} "
                f"| {t.get('op', '?')} {t.get('limit', '?')} | {_res(o)} | {_res(n)} |"
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
    # A value measured against a step that waited may flatter (benchmarks.run marks it,
    # and summary leaves it out): shown as a plain "met", it read as a clean result.
    # Stated or not by the name's size, not by the row's flag: an older harness's file
    # marked stated limits the issue gives only at other sizes.
    return verdict(t["ok"], stated(str(t.get("target")))) + (
        " (suspect)" if t.get("suspect") else ""
    )


def verdict(ok: bool, stated: bool) -> str:
    """Met or missed; for a limit the issue does not state (another corpus size, the
    harness's scaling of a stated one: ``stated`` false), a diagnostic, as
    ``benchmarks.run``'s own table words it: nothing there was met or missed."""
    if not stated:
        return "within (not a stated target)" if ok else "over (not a stated target)"
    return "met" if ok else "**missed**"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.compare",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("old", help="earlier result JSON (benchmarks.run --json)")
    ap.add_argument("new", help="later result JSON")
    a = ap.parse_args(argv)
    try:
        old, new = _load(a.old), _load(a.new)
    except ResultError as e:
        sys.stderr.write(f"{e}\n")
        return 1
    sys.stdout.write(compare(old, new))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Independent reference implementations and corpus generators for differential tests.

Written from the spec text (effectiveness.md §1–§3, pipeline.md §1–§5), in plain Python,
before and without reading runscore's SQL: the tests compare runscore's output with these
functions on seeded random corpora and on hand-made cases. Each rule cites the spec
sentence it implements, so a disagreement points at the sentence to read. Where the
spec is silent (marked "spec-silent") the reference adopts the behaviour runscore was
observed to have, so those choices are pinned too; where the spec can be read two ways
(marked "reading chosen"), the reference takes the more natural reading and the cases
file marks any runscore disagreement as a strict xfail with both readings.

Test modules reach this module through the ``ref`` fixture (test files cannot import
each other or the conftest under ``--import-mode=importlib``), and the routes reference
(routes.md §1–§6, in routes_ref.py beside this file) through the ``routes_ref`` fixture, and
the plugin reference (plugin-eval.md §1–§7, in plugin_ref.py) through the ``plugin_ref`` fixture.
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import math
import random
import re
import sys
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

# ============================================================================ shared

SCORED_AT = "2026-05-01T00:00:00Z"
EVAL_DATE = dt.date(2026, 5, 1)


def round6(x: float) -> float:
    """README: threshold comparisons are made on the value rounded to 6 decimals."""
    return round(x, 6)


#: What "trim" removes. Reading chosen: ASCII whitespace (as in Python/JS/jq), not only
#: spaces (SQL's TRIM). The random generators pad with spaces only; tabs are probed apart.
WS = " \t\n\r\f\v"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"non-standard JSON constant {name}")


class _Pairs(list[tuple[str, Any]]):
    """A JSON object as its members in the order given, duplicates kept."""


def _as_dicts(v: Any) -> Any:
    """A value parsed into ``_Pairs`` as plain dicts: a key given twice keeps its last value,
    as Python's own ``json`` (and jq) read it."""
    if isinstance(v, _Pairs):
        return {k: _as_dicts(x) for k, x in v}
    if isinstance(v, list):
        return [_as_dicts(x) for x in v]
    return v


def _gives_twice(pairs: Any, keys: Collection[str]) -> bool:
    names = [k for k, _ in pairs] if isinstance(pairs, _Pairs) else []
    return any(names.count(k) > 1 for k in keys)


def parse_jsonl(
    path: str, data: bytes, unique: Mapping[str, Collection[str]] | None = None
) -> tuple[list[tuple[int, Any]], list[tuple[str, int]]]:
    """Physical lines of one file → (line number, parsed value) and skipped (file, line).

    effectiveness §1: a line that is not valid UTF-8 or not JSON (NaN/Infinity
    included) is skipped and reported; blank (whitespace-only) lines are ignored
    silently; a trailing ``\\r`` is not part of the line.

    ``unique``: where ("" for the line's object, else the name of a member holding an
    object) -> the keys read there; a line whose object there gives one of them twice is
    skipped too: which of its values was meant cannot be known (jq takes the last).
    """
    out: list[tuple[int, Any]] = []
    skipped: list[tuple[str, int]] = []
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()  # the newline that ends the last line does not start another one
    if lines and lines[0].startswith(b"\xef\xbb\xbf"):
        lines[0] = lines[0][3:]  # spec-silent: a UTF-8 byte-order mark is not content
    for i, raw in enumerate(lines, start=1):
        if raw.endswith(b"\r"):
            raw = raw[:-1]
        if raw.strip() == b"":
            continue
        try:
            text = raw.decode("utf-8")
            value = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_Pairs)
        except (UnicodeDecodeError, ValueError):
            skipped.append((path, i))
            continue
        if unique and isinstance(value, _Pairs):
            top = dict(value)
            if any(
                _gives_twice(value if at == "" else top.get(at), keys)
                for at, keys in unique.items()
            ):
                skipped.append((path, i))
                continue
        out.append((i, _as_dicts(value)))
    return out, skipped


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _int_value(v: Any) -> int | None:
    """An integer by its value: 5 and 5.0 alike (a float only when it fits a BIGINT, as
    runscore's jint); None for anything else."""
    if _is_int(v):
        return int(v)
    if isinstance(v, float) and v.is_integer() and -(2**63) <= v < 2**63:
        return int(v)
    return None


def _by_value(v: Any) -> Any:
    """A parsed JSON value with every integral float as its int, so that lines equal but
    for 1 vs 1.0 have one canonical text (§1 identical content; runscore compares the
    parsed values). A bool stays a bool: true is not 1."""
    if isinstance(v, float) and v.is_integer():
        return int(v)
    if isinstance(v, dict):
        return {k: _by_value(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_by_value(x) for x in v]
    return v


def _norm(v: Any) -> str | None:
    """lower(trim(v)) for a string, else unknown."""
    return v.strip(WS).lower() if isinstance(v, str) else None


# ============================================================================ effectiveness

REVIEW_USEFUL_SEVERITIES = {"warning", "bug", "critical"}
WEIGHTS = (0.30, 0.25, 0.20, 0.15, 0.10)  # s/n, fix_rate, cost_eff_norm, accuracy, cycle


@dataclass
class Event:
    run_id: str
    seq: int
    type: str
    ts: Any
    agent: Any
    data: dict[str, Any]
    parents_raw: Any
    file: str
    line: int
    canon: str  # canonical normalised envelope, for duplicate detection

    @property
    def archetype(self) -> str:
        # §1: lower(trim(coalesce(data.archetype, agent))), or 'unknown' when both missing.
        # A name that is not a string (a number, an object) names nobody: the next in line
        # is used (not generated; the engine warns of it). A blank one follows the formula
        # (see the AMBIGUOUS blank_archetype_string case).
        for a in (self.data.get("archetype"), self.agent):
            if isinstance(a, str):
                return a.strip(WS).lower()
        return "unknown"


@dataclass
class EffResult:
    records: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)
    incomplete: set[str] = field(default_factory=set)
    invalid: set[str] = field(default_factory=set)
    skipped: set[tuple[str, int]] = field(default_factory=set)
    scored: set[str] = field(default_factory=set)
    # Diagnostics (§1 warnings): lines whose seq was replaced; ignored parent edges as
    # (file, line, parent seq); fix.applied lines attributed to nobody; and, per invalid
    # run, the file:line of every line of a seq that has differing contents.
    warn_seq: set[tuple[str, int]] = field(default_factory=set)
    warn_edge: set[tuple[str, int, int]] = field(default_factory=set)
    unattributed: set[tuple[str, int]] = field(default_factory=set)
    invalid_locations: dict[str, set[str]] = field(default_factory=dict)


def utc_text(ts: Any) -> Any:
    """README "Times are UTC ISO-8601": a run_ts is written as the UTC time it stands for,
    in Z form (a time without an offset is UTC, as the history readers take it); a text
    that is no time is null (unknown; runscore warns). ISO 8601's forms are read as the
    pipeline's are (``_ts``): Python reads the week dates, the basic format and a decimal
    comma; a lowercase t/z is read as its capital, and an ordinal date (2026-033) is
    written as the calendar date it names first, if its year has that day."""
    if not isinstance(ts, str):
        return ts
    v = ts.upper()
    m = ORDINAL_DATE.fullmatch(v)
    if m and 1 <= int(m[1]) and 1 <= int(m[3]) <= 366:
        day = dt.date(int(m[1]), 1, 1) + dt.timedelta(days=int(m[3]) - 1)
        if day.year == int(m[1]):
            v = f"{day.year:04d}{m[2]}{day.month:02d}{m[2]}{day.day:02d}{m[4]}"
    try:
        t = dt.datetime.fromisoformat(v)
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=dt.UTC)
    t = t.astimezone(dt.UTC)
    frac = f".{t.microsecond:06d}".rstrip("0") if t.microsecond else ""
    return t.strftime("%Y-%m-%dT%H:%M:%S") + frac + "Z"


def parse_parents(p: Any) -> list[int]:
    """§1: array of integers, one integer, "3,4", "" or absent (and null) → the list. An
    array element may also be a string holding one integer (runscore's reading: a seq
    written as text, as a part of "3,4" is); a negative one is a seq no run has."""
    if p is None or p == "":
        return []
    if _int_value(p) is not None:
        return [_int_value(p)]  # by value, as a seq: 2.0 is 2
    if isinstance(p, list):
        return [
            int(x.strip(WS)) if isinstance(x, str) else _int_value(x)
            for x in p
            if _int_value(x) is not None
            or (isinstance(x, str) and re.fullmatch(r"-?[0-9]+", x.strip(WS)))
        ]
    if isinstance(p, str):
        out = []
        for part in p.split(","):
            part = part.strip(WS)
            if re.fullmatch(r"-?[0-9]+", part):  # ASCII digits: \d takes "٢" too
                out.append(int(part))
        return out
    return []


def _line_text(line: Any) -> str:
    """A line number by its value: 42.0 is line 42 (runscore's jkeytext)."""
    if isinstance(line, float) and line.is_integer() and abs(line) < 1e30:
        return str(int(line))
    return str(line)


def finding_key(f: dict[str, Any], *, with_description: bool = True) -> str | None:
    """§3 match key: location; else file[:line]; else description; else none."""
    loc = f.get("location")
    if isinstance(loc, str):
        return loc.strip(WS).lower()
    fil = f.get("file")
    if isinstance(fil, str):
        line = f.get("line")
        return fil.strip(WS).lower() + (f":{_line_text(line)}" if line is not None else "")
    if with_description:
        d = f.get("description")
        if isinstance(d, str):
            return d.strip(WS).lower()
    return None


def fix_required(v: Any) -> bool:
    # §1: true only for JSON true or the string "true" (any case).
    return v is True or (isinstance(v, str) and v.lower() == "true")


#: effectiveness §1: the envelope, and the `data` fields its event types use (a
#: finding's own fields are read too, but are not checked here).
EFF_READ_KEYS: dict[str, tuple[str, ...]] = {
    "": ("ts", "run_id", "seq", "parent", "type", "phase", "agent", "data"),
    "data": (
        "archetype",
        "model",
        "tokens",
        "tokens_input",
        "tokens_output",
        "cost_usd",
        "estimated_cost_usd",
        "verdict",
        "cycle",
        "findings",
        "source",
        "finding",
        "location",
        "file",
        "line",
        "met",
        "status",
    ),
}


def ref_effectiveness(files: Sequence[tuple[str, bytes]]) -> EffResult:
    """Spec effectiveness §1–§3 over files given in input order (display path, bytes)."""
    res = EffResult()
    accepted: list[tuple[str, int, dict[str, Any]]] = []
    for path, data in files:
        values, skipped = parse_jsonl(path, data, EFF_READ_KEYS)
        res.skipped.update(skipped)
        for line, v in values:
            # §1: not an object, or no non-empty string run_id / type → skipped.
            if (
                not isinstance(v, dict)
                or not isinstance(v.get("run_id"), str)
                or v["run_id"] == ""
                or not isinstance(v.get("type"), str)
                or v["type"] == ""
            ):
                res.skipped.add((path, line))
                continue
            accepted.append((path, line, v))

    by_run: dict[str, list[tuple[str, int, dict[str, Any]]]] = {}
    for item in accepted:
        by_run.setdefault(item[2]["run_id"], []).append(item)

    for run_id, lines in by_run.items():
        events: dict[int, Event] = {}
        contents: dict[int, list[tuple[str, str]]] = {}
        seq_warn: set[tuple[str, int]] = set()
        conflict = False
        for pos, (path, line, v) in enumerate(lines, start=1):
            seq = _int_value(v.get("seq"))  # an integer by its value: 5.0 is seq 5
            # §1: missing/null/non-integer/< 1 → the 1-based position among the run's lines.
            if seq is None or seq < 1:
                seq = pos
                seq_warn.add((path, line))
            data = v.get("data")
            ev = Event(
                run_id=run_id,
                seq=seq,
                type=v["type"],
                ts=v.get("ts"),
                agent=v.get("agent"),
                data=data if isinstance(data, dict) else {},
                parents_raw=v.get("parent"),
                file=path,
                line=line,
                # §1 "identical content": the envelope only ("fields outside it are
                # ignored"), normalised (parents as a list, seq as substituted), and a
                # JSON object's member order is not content, nor 1 vs 1.0 (one number).
                canon=json.dumps(
                    _by_value(
                        [
                            seq,
                            v["type"],
                            v.get("ts"),
                            v.get("phase"),
                            v.get("agent"),
                            v.get("data"),
                            parse_parents(v.get("parent")),
                        ]
                    ),
                    sort_keys=True,
                ),
            )
            old = events.get(seq)
            if old is None:
                events[seq] = ev
            elif old.canon != ev.canon:
                conflict = True  # §1: same (run_id, seq), different content → invalid
            contents.setdefault(seq, []).append((ev.canon, f"{path}:{line}"))
        if conflict:
            res.invalid.add(run_id)
            # §1 reports each replaced seq "and a warning is reported": an invalid run's
            # too, where a position that is another line's seq is the conflict itself
            res.warn_seq.update(seq_warn)
            # "the report names both file:lines": every line of a conflicting seq
            res.invalid_locations[run_id] = {
                loc for c in contents.values() if len({canon for canon, _ in c}) > 1 for _, loc in c
            }
            continue
        # Spec-silent: other warnings are reported for scored and incomplete runs; an
        # invalid run is reported as invalid (and its replaced seqs, above) only.
        res.warn_seq.update(seq_warn)
        for s, e in events.items():
            for p in parse_parents(e.parents_raw):
                if p not in events or p >= s:
                    res.warn_edge.add((e.file, e.line, p))
        attributed = attribute_fixes(events)
        # attributed to nobody: no source and no verdict ancestor, or a blank source ('')
        res.unattributed.update(
            (events[f].file, events[f].line) for f, a in attributed.items() if not a - {""}
        )
        completes = [e for e in events.values() if e.type == "run.complete"]
        if not completes:
            res.incomplete.add(run_id)
            continue
        res.scored.add(run_id)
        run_ts = utc_text(max(completes, key=lambda e: e.seq).ts)
        for (rid, arch), rec in score_run(events, attributed).items():
            rec["run_ts"] = run_ts
            res.records[(rid, arch)] = rec
    return res


def attribute_fixes(events: dict[int, Event]) -> dict[int, set[str]]:
    """§3 fix attribution: fix seq → the archetypes it is attributed to."""
    # §1: an edge to a missing seq or a seq >= the child's own seq is ignored.
    parents = {
        s: sorted({p for p in parse_parents(e.parents_raw) if p in events and p < s})
        for s, e in events.items()
    }
    attributed: dict[int, set[str]] = {}
    for f in (e for e in events.values() if e.type == "fix.applied"):
        src = f.data.get("source")
        if isinstance(src, str) and src != "":
            attributed[f.seq] = {src.strip(WS).lower()}
            continue
        found: set[str] = set()
        seen: set[int] = set()
        stack = list(parents[f.seq])
        while stack:
            s = stack.pop()
            if s in seen:
                continue
            seen.add(s)
            e = events[s]
            if e.type == "review.verdict":
                found.add(e.archetype)
            else:
                stack.extend(parents[s])
        attributed[f.seq] = found
    return attributed


def score_run(
    events: dict[int, Event], attributed: dict[int, set[str]]
) -> dict[tuple[str, str], dict[str, Any]]:
    """§2–§3 for one complete, valid run (events keyed by seq)."""
    evs = sorted(events.values(), key=lambda e: e.seq)
    verdicts = [e for e in evs if e.type == "review.verdict"]
    boundaries = [e for e in evs if e.type == "cycle.boundary"]
    fixes = [e for e in evs if e.type == "fix.applied"]
    completes = [e for e in evs if e.type == "agent.complete"]
    reviewers = sorted({v.archetype for v in verdicts})

    def scope_cycle(v: Event) -> Any:
        c = v.data.get("cycle")
        if c is not None:
            return c
        return 1 + sum(1 for b in boundaries if b.seq < v.seq)

    # Findings per (archetype, scope).
    findings: list[tuple[str, Any, dict[str, Any]]] = []  # (archetype, cycle, finding)
    where: list[tuple[int, int]] = []  # (verdict seq, 1-based index) of each finding
    approvals: set[tuple[str, Any]] = set()
    for v in verdicts:
        cyc = scope_cycle(v)
        if _norm(v.data.get("verdict")) == "approved":
            approvals.add((v.archetype, cyc))
        fl = v.data.get("findings")
        for i, f in enumerate(fl if isinstance(fl, list) else [], start=1):
            findings.append((v.archetype, cyc, f if isinstance(f, dict) else {}))
            where.append((v.seq, i))

    met = [b for b in boundaries if b.data.get("met") is True]
    b_star = max(met, key=lambda b: b.seq) if met else None

    out: dict[tuple[str, str], dict[str, Any]] = {}
    for a in reviewers:
        mine = [(c, f) for (arch, c, f) in findings if arch == a]
        mine_at = [w for (arch, _, _), w in zip(findings, where, strict=True) if arch == a]
        flags: list[tuple[int, int]] = []  # where the contradicted findings are (debugging)
        total = len(mine)
        useful = sum(
            1
            for _, f in mine
            if _norm(f.get("severity")) in REVIEW_USEFUL_SEVERITIES
            and fix_required(f.get("fix_required"))
        )
        s2n = useful / total if total else 0.0
        my_fixes = [f for f in fixes if a in attributed[f.seq]]
        n_fix = len(my_fixes)
        fix_rate = min(1.0, n_fix / total) if total else 0.0

        # Cost.
        acs = [e for e in completes if e.archetype == a]
        cost: float | None = None
        basis = "unknown"
        any_est = False
        for e in acs:
            # "present" = a JSON number (null or a string is not a cost; not generated)
            c = e.data.get("cost_usd")
            if not _is_num(c):
                c = e.data.get("estimated_cost_usd")
                if _is_num(c):
                    any_est = True
            if _is_num(c):
                cost = (cost or 0) + c
        if cost is not None:
            basis = "estimated" if any_est else "observed"
        tokens: int | None = None
        if acs:
            tokens = 0
            for e in acs:
                t = e.data.get("tokens")
                if not _is_num(t):
                    ti, to = e.data.get("tokens_input"), e.data.get("tokens_output")
                    t = (ti if _is_num(ti) else 0) + (to if _is_num(to) else 0)
                tokens += t
        model = None
        named = [
            e
            for e in evs
            if e.type in ("agent.complete", "agent.start")
            and e.archetype == a
            and isinstance(e.data.get("model"), str)
            and e.data["model"].strip(WS) != ""  # a blank name names no model
            and e.data["model"].strip(WS).lower() != "unknown"  # nor ArcheFlow's placeholder
        ]
        if named:
            model = max(named, key=lambda e: e.seq).data["model"]

        if cost is None:
            ce, ce_norm = None, None
        elif cost == 0:
            ce, ce_norm = None, (1.0 if useful > 0 else 0.0)
        else:
            ce = useful / cost
            ce_norm = min(1.0, ce / 100)

        # Accuracy.
        fix_desc = {_norm(f.data.get("finding")) for f in my_fixes} - {None}
        fix_keys = {finding_key(f.data, with_description=False) for f in my_fixes} - {None}
        contradicted = 0
        for (cyc, f), at in zip(mine, mine_at, strict=True):
            sev = _norm(f.get("severity"))
            key = finding_key(f)
            cond1 = any(
                b != a
                and (b, c2) in approvals
                and c2 == cyc
                and not any(
                    # Reading chosen: two findings without a severity have "the same
                    # severity" (none); the other reading never matches a missing one.
                    arch == b and c3 == cyc and _norm(g.get("severity")) == sev
                    for (arch, c3, g) in findings
                )
                for (b, c2) in approvals
            )
            cond2 = key is None or not any(
                arch != a and c3 == cyc and finding_key(g) == key for (arch, c3, g) in findings
            )
            d = _norm(f.get("description"))
            confirmed = (d is not None and d in fix_desc) or (key is not None and key in fix_keys)
            if cond1 and cond2 and not confirmed:
                contradicted += 1
                flags.append(at)
        accuracy = 1 - contradicted / total if total else 1.0

        impact = b_star is not None and any(f.seq < b_star.seq for f in my_fixes)

        vals = (s2n, fix_rate, ce_norm, accuracy, 1.0 if impact else 0.0)
        num = sum(w * v for w, v in zip(WEIGHTS, vals, strict=True) if v is not None)
        den = sum(w for w, v in zip(WEIGHTS, vals, strict=True) if v is not None)
        out[(evs[0].run_id, a)] = {
            "findings_total": total,
            "findings_useful": useful,
            "signal_to_noise": s2n,
            "fixes_applied": n_fix,
            "fix_rate": fix_rate,
            "cost_usd": cost,
            "cost_basis": basis,
            "tokens": tokens,
            "model": model,
            "cost_efficiency": ce,
            "cost_efficiency_norm": ce_norm,
            "findings_contradicted": contradicted,
            "accuracy": accuracy,
            "cycle_impact": impact,
            "composite_score": num / den,
            "_contradicted_at": flags,
            "_fixes": sorted(f.seq for f in my_fixes),
        }
    return out


EFF_FLOAT_FIELDS = (
    "signal_to_noise",
    "fix_rate",
    "cost_usd",
    "cost_efficiency",
    "cost_efficiency_norm",
    "accuracy",
    "composite_score",
)
EFF_EXACT_FIELDS = (
    "findings_total",
    "findings_useful",
    "fixes_applied",
    "cost_basis",
    "tokens",
    "model",
    "findings_contradicted",
    "cycle_impact",
    "run_ts",
)

# ---------------------------------------------------------------------------- generator

ARCHETYPES = ["guardian", "skeptic", "sage", "trickster"]
OTHERS = ["creator", "maker", "explorer"]
SEVERITIES = ["warning", "WARNING", " Bug ", "bug", "critical", "Critical", "info", "INFO ", None]
VERDICT_WORDS = ["approved", "APPROVED", " Approved ", "needs_changes", "rejected", "REJECTED"]
LOCATIONS = ["src/a.py:10", " SRC/A.py:10", "src/b.py:3", "lib/c.py"]
FILES = ["src/a.py", " Src/A.py ", "src/b.py", "lib/c.py", "src/a.py:10"]
DESCRIPTIONS = ["Missing validation", " missing VALIDATION", "Null deref", "Off by one", "src/b.py"]
MODELS = ["claude-haiku-4", "claude-sonnet-4", "opus", "gpt-x"]
FILLER_TYPES = ["agent.message", "tool.call", "plan.note"]


def _variant(rng: random.Random, name: str) -> str:
    r = rng.random()
    if r < 0.55:
        return name
    if r < 0.7:
        return name.upper()
    if r < 0.85:
        return " " + name.capitalize() + " "
    return "  " + name.title()


def _pick(rng: random.Random, xs: Sequence[Any]) -> Any:
    return xs[rng.randrange(len(xs))]


def _finding(rng: random.Random) -> dict[str, Any]:
    f: dict[str, Any] = {}
    sev = _pick(rng, SEVERITIES)
    if sev is not None:
        f["severity"] = sev
    fr = rng.random()
    if fr < 0.35:
        f["fix_required"] = True
    elif fr < 0.45:
        f["fix_required"] = "TRUE"
    elif fr < 0.5:
        f["fix_required"] = "true"
    elif fr < 0.6:
        f["fix_required"] = "false"
    elif fr < 0.7:
        f["fix_required"] = 1
    elif fr < 0.8:
        f["fix_required"] = False
    kind = rng.random()
    if kind < 0.3:
        f["location"] = _pick(rng, LOCATIONS)
    elif kind < 0.55:
        f["file"] = _pick(rng, FILES)
        if rng.random() < 0.6:
            f["line"] = _pick(rng, [10, 3, 42])
    elif kind < 0.65:
        # line without file: the file branch does not apply (no file), description does
        f["line"] = 10
    if rng.random() < 0.7:
        f["description"] = _pick(rng, DESCRIPTIONS)
    if rng.random() < 0.3:
        f["category"] = _pick(rng, ["security", "style"])
    return f


def _parent_field(rng: random.Random, ps: list[int]) -> tuple[bool, Any]:
    """(present, value) in one of the accepted encodings of the list ``ps``."""
    if not ps:
        return _pick(rng, [(True, []), (True, ""), (False, None), (True, None)])
    r = rng.random()
    if len(ps) == 1 and r < 0.3:
        return True, ps[0]
    if r < 0.5:
        return True, ",".join(str(p) for p in ps)
    return True, list(ps)


def gen_effectiveness_corpus(rng: random.Random, prefix: str) -> list[list[bytes]]:
    """A random corpus of run logs (run ids start with ``prefix``), as 1–3 chunks of lines.

    Chunk i is meant for the i-th input file (see ``write_batch``): a run may be split
    across files, and its lines stay in order across them.
    """
    n_runs = rng.randint(1, 4)
    runs = [(f"{prefix}-r{r}", _gen_run(rng, f"{prefix}-r{r}")) for r in range(n_runs)]
    all_lines: list[tuple[str, bytes]] = []  # (run_id, line bytes) in global order
    if rng.random() < 0.4:
        # Interleave runs; each run keeps its own line order (positions stay stable).
        queues = [list(ls) for _, ls in runs]
        ids = [rid for rid, _ in runs]
        while any(queues):
            k = rng.choice([i for i, q in enumerate(queues) if q])
            all_lines.append((ids[k], queues[k].pop(0)))
    else:
        for rid, ls in runs:
            all_lines.extend((rid, ln) for ln in ls)
    # Junk lines anywhere.
    junk = [
        b"not json at all",
        b"[1, 2, 3]",
        b'"a string"',
        b'{"run_id": "' + prefix.encode() + b'-r0", "type": ""}',
        b'{"type": "run.start"}',
        b'{"run_id": 5, "type": "run.start"}',
        b'{"run_id": "' + prefix.encode() + b'-r0", "type": 7}',
        b'{"run_id": "' + prefix.encode() + b'-r0", "type": "x", "v": NaN}',
        b"Infinity",
        b'{"run_id": "'
        + prefix.encode()
        + b'-r1", "type": "tool.call", "data": {"q": "\xff\xfe"}}',
        b"   ",
        b"",
        b'{"run_id": "",  "type": "run.start"}',
        b'{"run_id": "' + prefix.encode() + b'-r0", "type": "x"',
    ]
    for _ in range(rng.choice([0, 0, 1, 2, 4])):
        all_lines.insert(rng.randrange(len(all_lines) + 1), ("", _pick(rng, junk)))
    # Split into 1..3 files, order preserved across the files.
    n_files = rng.choice([1, 1, 2, 3])
    cuts = sorted(rng.sample(range(1, len(all_lines)), min(n_files - 1, len(all_lines) - 1)))
    out = []
    start = 0
    for end in [*cuts, len(all_lines)]:
        out.append([ln for _, ln in all_lines[start:end]])
        start = end
    return out


def write_batch(
    rng: random.Random, tmp: Path, name: str, corpora: Sequence[Sequence[list[bytes]]]
) -> list[tuple[str, bytes]]:
    """Write many corpora into a few shared files: chunk i of every corpus → file i.

    Files are read in order, so each corpus's runs keep their line order; corpora never
    share a run id, so scoring them together equals scoring them apart (and one reader
    pass over a few files is much faster than one per corpus).
    """
    n = max((len(c) for c in corpora), default=0)
    out = []
    for i in range(n):
        lines = [ln for c in corpora if i < len(c) for ln in c[i]]
        eol = b"\r\n" if rng.random() < 0.3 else b"\n"
        body = eol.join(lines) + (eol if rng.random() < 0.7 else b"")
        p = tmp / f"{name}-{i}.jsonl"
        p.write_bytes(body)
        out.append((str(p), body))
    return out


def _gen_run(rng: random.Random, run_id: str) -> list[bytes]:
    """Lines of one run, in the order they are to be read."""
    reviewers = rng.sample(ARCHETYPES, rng.randint(1, 3))
    if rng.random() < 0.1:
        reviewers.append("unknown")  # a verdict with neither data.archetype nor agent
    others = rng.sample(OTHERS, rng.randint(0, 2))
    events: list[dict[str, Any]] = []
    minute = [0]

    def add(etype: str, agent: Any = None, data: dict[str, Any] | None = None, **kw: Any) -> int:
        seq = len(events) + 1
        minute[0] += 1
        ev: dict[str, Any] = {
            "ts": f"2026-04-{1 + minute[0] // 1440:02d}T{(minute[0] // 60) % 24:02d}:"
            f"{minute[0] % 60:02d}:00Z",
            "run_id": run_id,
            "seq": seq,
            "type": etype,
            "agent": agent,
            "data": data if data is not None else {},
        }
        ev.update(kw)
        events.append(ev)
        return seq

    def parents_from(pool: list[int], k: int) -> list[int]:
        return sorted(rng.sample(pool, min(k, len(pool)))) if pool else []

    add("run.start", phase="plan")
    for _cycle in range(rng.randint(1, 3)):
        for a in others + reviewers:
            if a == "unknown":
                continue
            if rng.random() < 0.5:
                d: dict[str, Any] = {"archetype": _variant(rng, a)}
                if rng.random() < 0.5:
                    d["model"] = _pick(rng, MODELS + [""])
                add("agent.start", agent=a if rng.random() < 0.5 else None, data=d)
            if rng.random() < 0.7:
                d = {}
                if rng.random() < 0.8:
                    d["archetype"] = _variant(rng, a)
                if rng.random() < 0.5:
                    d["model"] = _pick(rng, MODELS)
                c = rng.random()
                if c < 0.3:
                    d["cost_usd"] = _pick(rng, [0.01, 0.125, 0.0, 0.003, 2.5])
                elif c < 0.5:
                    d["estimated_cost_usd"] = _pick(rng, [0.02, 0.0, 0.5])
                elif c < 0.6:
                    d["cost_usd"] = 0.04
                    d["estimated_cost_usd"] = 0.9
                elif c < 0.65:
                    d["cost_usd"] = None
                    d["estimated_cost_usd"] = 0.07
                t = rng.random()
                if t < 0.4:
                    d["tokens"] = rng.randint(0, 5000)
                elif t < 0.7:
                    d["tokens_input"] = rng.randint(0, 3000)
                    if rng.random() < 0.7:
                        d["tokens_output"] = rng.randint(0, 3000)
                elif t < 0.8:
                    d["tokens"] = 100
                    d["tokens_input"] = 7
                    d["tokens_output"] = 9
                add("agent.complete", agent=a if rng.random() < 0.7 else "Someone", data=d)
        # filler events make chains and diamonds between verdicts and fixes
        for _ in range(rng.randint(0, 3)):
            add(_pick(rng, FILLER_TYPES), parent=parents_from(list(range(1, len(events) + 1)), 2))
        verdict_seqs: list[int] = []
        cyc_field = rng.random() < 0.4
        cyc_value = rng.randint(1, 3)
        for a in reviewers:
            for _ in range(rng.choice([1, 1, 2])):
                d = {"verdict": _pick(rng, VERDICT_WORDS)}
                agent: Any = None
                if a != "unknown":
                    r = rng.random()
                    if r < 0.5:
                        d["archetype"] = _variant(rng, a)
                        agent = rng.choice([None, a, "explorer"])
                    elif r < 0.8:
                        agent = _variant(rng, a)
                    else:
                        d["archetype"] = None
                        agent = _variant(rng, a)
                fr = rng.random()
                if fr < 0.15:
                    pass  # no findings field
                elif fr < 0.2:
                    d["findings"] = None
                elif fr < 0.35:
                    d["findings"] = []
                else:
                    d["findings"] = [_finding(rng) for _ in range(rng.randint(1, 4))]
                if cyc_field and rng.random() < 0.85:
                    d["cycle"] = cyc_value
                pool = list(range(1, len(events) + 1))
                verdict_seqs.append(
                    add(
                        "review.verdict",
                        agent=agent,
                        data=d,
                        phase="check",
                        parent=parents_from(pool, rng.randint(0, 2)),
                    )
                )
        # fixes: by source, or through the DAG (direct, chains, diamonds, fix→fix)
        for _ in range(rng.randint(0, 4)):
            d = {}
            s = rng.random()
            if s < 0.35:
                d["source"] = _variant(rng, _pick(rng, reviewers + ["maker"]))
            elif s < 0.42:
                d["source"] = ""
            elif s < 0.47:
                d["source"] = None
            f = rng.random()
            if f < 0.5:
                d["finding"] = _pick(rng, DESCRIPTIONS + ["Something else"])
            g = rng.random()
            if g < 0.25:
                d["location"] = _pick(rng, LOCATIONS)
            elif g < 0.5:
                d["file"] = _pick(rng, FILES)
                if rng.random() < 0.6:
                    d["line"] = _pick(rng, [10, 3])
            shape = rng.random()
            if shape < 0.3 and verdict_seqs:
                ps = parents_from(verdict_seqs, rng.randint(1, 2))
            elif shape < 0.6 and verdict_seqs:
                # a chain / diamond of filler events below verdicts
                mid = []
                for _ in range(rng.randint(1, 3)):
                    mid.append(
                        add(
                            _pick(rng, FILLER_TYPES),
                            parent=parents_from(verdict_seqs + mid, rng.randint(1, 2)),
                        )
                    )
                ps = parents_from(mid, rng.randint(1, 2))
            else:
                ps = parents_from(list(range(1, len(events) + 1)), rng.randint(0, 2))
            # bad edges: to a missing seq, to itself or to a later seq
            if rng.random() < 0.15:
                ps = ps + [len(events) + rng.choice([1, 2, 50])]
            if rng.random() < 0.05:
                ps = ps + [0]
            add("fix.applied", data=d, phase="act", parent=ps)
        if rng.random() < 0.8:
            d = {"cycle": _cycle + 1}
            m = rng.random()
            if m < 0.5:
                d["met"] = True
            elif m < 0.85:
                d["met"] = False
            add("cycle.boundary", data=d, parent=parents_from(list(range(1, len(events) + 1)), 1))
    if rng.random() < 0.85:
        add(
            "run.complete",
            data={"status": "completed"},
            parent=parents_from(list(range(1, len(events) + 1)), 1),
        )

    # Encode parents; drop some seqs (position = seq as long as order is kept).
    lines: list[bytes] = []
    encoded: list[dict[str, Any]] = []
    for ev in events:
        ev = dict(ev)
        ps = ev.pop("parent", [])
        present, val = _parent_field(rng, ps)
        if present:
            ev["parent"] = val
        r = rng.random()
        if r < 0.04:
            del ev["seq"]
        elif r < 0.06:
            ev["seq"] = _pick(rng, [None, 0, -3, "7", 2.5])
        if rng.random() < 0.03:
            ev.pop("data")
        encoded.append(ev)
    # Move a line out of order sometimes (a missing seq then collides → invalid run).
    if rng.random() < 0.1 and len(encoded) > 3:
        i = rng.randrange(1, len(encoded))
        encoded.insert(rng.randrange(i), encoded.pop(i))
    for ev in encoded:
        lines.append(json.dumps(ev).encode())
    # Exact duplicates (same text), and rarely a conflicting duplicate.
    for _ in range(rng.choice([0, 0, 1, 2])):
        i = rng.randrange(len(lines))
        # mostly at the end, so positions of later seq-less lines do not shift
        at = len(lines) if rng.random() < 0.7 else rng.randrange(i + 1, len(lines) + 1)
        lines.insert(at, lines[i])
    if rng.random() < 0.08:
        i = rng.randrange(len(encoded))
        ev = dict(encoded[i])
        if "seq" in ev and _is_int(ev["seq"]) and ev["seq"] >= 1:
            ev["data"] = {"changed": True}
            lines.insert(rng.randrange(len(lines) + 1), json.dumps(ev).encode())
    return lines


# ============================================================================ pipeline

TERMINAL = {"completed", "failed", "cancelled"}
TEST_RE = re.compile(r"^\s*(PASS|FAIL)\s+(\d+)\s*/\s*(\d+)\s*$", re.IGNORECASE | re.ASCII)
DIM_CODES = ("D1", "D2", "D3", "D4", "D5")
DIM_WEIGHTS = (0.30, 0.20, 0.25, 0.10, 0.15)


ORDINAL_DATE = re.compile(r"(\d{4})(-?)(\d{3})((?:T.*)?)", re.ASCII | re.DOTALL)


def _ts(v: Any) -> dt.datetime | None:
    """An ISO-8601 time; spec-silent: an unparsable one counts as missing. Python reads
    the calendar and week dates; an ordinal one (2026-033) is written as the calendar
    date it names first, if its year has that day."""
    if not isinstance(v, str):
        return None
    m = ORDINAL_DATE.fullmatch(v)
    if m and 1 <= int(m[1]) and 1 <= int(m[3]) <= 366:
        day = dt.date(int(m[1]), 1, 1) + dt.timedelta(days=int(m[3]) - 1)
        if day.year == int(m[1]):
            v = f"{day.year:04d}{m[2]}{day.month:02d}{m[2]}{day.day:02d}{m[4]}"
    try:
        t = dt.datetime.fromisoformat(v.replace("Z", "+00:00"))
    except ValueError:
        return None
    return t.replace(tzinfo=dt.UTC) if t.tzinfo is None else t.astimezone(dt.UTC)


def _ident(v: Any) -> str | None:
    """An id: a string, trimmed, or (spec-silent) an integer as its text; a blank string
    or any other JSON value is no id. Every output names an id by its text, so 1 and "1"
    are one id, as " p1" and "p1" are."""
    if _is_int(v):
        return str(v)
    return v.strip(WS) if isinstance(v, str) and v.strip(WS) != "" else None


@dataclass
class PipeResult:
    pipelines: dict[str, dict[str, Any]] = field(default_factory=dict)
    errors: set[tuple[str, int]] = field(default_factory=set)
    # testResult strings of the tasks' latest snapshots that are ignored, as (file, line):
    # not matching the pattern (reported, §3) / a total of 0 (ignored, §3)
    tests_unparsable: set[tuple[str, int]] = field(default_factory=set)
    tests_zero_total: set[tuple[str, int]] = field(default_factory=set)


def ref_pipelines(
    task_files: Sequence[tuple[str, bytes]], plan_files: Sequence[tuple[str, bytes]] = ()
) -> PipeResult:
    """Spec pipeline.md §1–§5."""
    res = PipeResult()
    snaps: dict[tuple[str, str], tuple[Any, ...]] = {}
    latest_dated: dict[tuple[str, str], dt.datetime] = {}
    order = 0
    for path, data in task_files:
        values, skipped = parse_jsonl(path, data)
        res.errors.update(skipped)
        for line, v in values:
            order += 1
            if not isinstance(v, dict):
                res.errors.add((path, line))
                continue
            md = v.get("metadata") if isinstance(v.get("metadata"), dict) else {}
            # §1: pipelineId (also accepted: metadata.pipelineId); id (also: taskId).
            # Spec-silent: a present but empty id is rejected, not replaced.
            raw_pid = v.get("pipelineId")
            pid = _ident(raw_pid if raw_pid is not None else md.get("pipelineId"))
            raw_tid = v.get("id")
            tid = _ident(raw_tid if raw_tid is not None else v.get("taskId"))
            if pid is None or tid is None:
                res.errors.add((path, line))
                continue
            upd = _ts(v.get("updatedAt"))
            # §1: latest updatedAt wins; ties or no updatedAt: the later line. (Reading
            # chosen: a snapshot without updatedAt is as recent as the latest dated one of
            # its task before it, so the later line wins against those; none before it:
            # older than any dated one.)
            if upd is not None:
                latest_dated[(pid, tid)] = max(upd, latest_dated.get((pid, tid), upd))
            recency = upd if upd is not None else latest_dated.get((pid, tid))
            key = (
                recency is not None,
                recency or dt.datetime.min.replace(tzinfo=dt.UTC),
                order,
            )
            old = snaps.get((pid, tid))
            if old is None or key > old[0]:
                snaps[(pid, tid)] = (key, v, md, (path, line))
    estimates: dict[str, float] = {}
    for path, data in plan_files:
        values, skipped = parse_jsonl(path, data)
        res.errors.update(skipped)
        for line, v in values:
            pid = _ident(v.get("pipelineId")) if isinstance(v, dict) else None
            if pid is None:
                res.errors.add((path, line))
                continue
            # Minutes win over ms. Spec-silent: a present estimate that is not a number
            # >= 0 is rejected (the line is reported); none at all is no plan. 0 is an
            # estimate: D4 divides by the actual, never by it.
            m, ms = v.get("estimatedDurationMinutes"), v.get("estimatedDurationMs")
            est = m if m is not None else (ms / 60000.0 if _is_num(ms) else ms)
            if est is None:
                continue
            if not _is_num(est) or est < 0:
                res.errors.add((path, line))
                continue
            estimates[pid] = float(est)  # a later plan line for the same pipeline wins

    tasks: dict[str, list[tuple[str, dict[str, Any], dict[str, Any]]]] = {}
    for (pid, tid), (_k, v, md, where) in snaps.items():
        tasks.setdefault(pid, []).append((tid, v, md))
        tr = md.get("testResult")
        if tr is not None:
            # spec-silent: a testResult that is not a string is reported like a bad one
            parsed = parse_test_result(tr) if isinstance(tr, str) else None
            if parsed is None:
                res.tests_unparsable.add(where)
            elif parsed[1] == 0:
                res.tests_zero_total.add(where)
            elif parsed[1] > INT64_MAX:  # warned too (too large to count), not ignored
                res.tests_unparsable.add(where)
    for pid, ts in tasks.items():
        res.pipelines[pid] = _score_pipeline(ts, estimates.get(pid))
    return res


INT64_MAX = 2**63 - 1


def parse_test_result(tr: str) -> tuple[int, int] | None:
    """§3 pattern (ASCII \\s and \\d); spec-silent: passed > total cannot be a test
    result and is ignored like a non-matching string. Counts beyond 64 bits are a test
    result, whose counts cannot be carried: the pipeline's pass rate is unknown
    (``_score_pipeline``)."""
    m = TEST_RE.fullmatch(tr)
    if not m:
        return None
    passed, total = int(m.group(2)), int(m.group(3))
    if passed > total:
        return None
    return passed, total


def _natural(s: str) -> tuple[str, list[tuple[int, str]], str]:
    """Task ids in natural order: runs of ASCII digits as numbers, ties by the text."""
    runs = re.findall(r"[0-9]+|[^0-9]+", s)
    return (
        "0" if s[:1] in DIGITS else s[:1],
        [(len(r.lstrip("0")), r.lstrip("0")) if r[0] in DIGITS else (0, r) for r in runs],
        s,
    )


DIGITS = "0123456789"


def _score_pipeline(
    tasks: list[tuple[str, dict[str, Any], dict[str, Any]]], estimate: float | None
) -> dict[str, Any]:
    statuses = {tid: (_norm(v.get("status")) or "") for tid, v, _ in tasks}
    total = len(tasks)
    out: dict[str, Any] = {"task_count": total}
    non_terminal = sorted((t for t, s in statuses.items() if s not in TERMINAL), key=_natural)
    if non_terminal:
        out.update(status="not_terminal", non_terminal_task_ids=non_terminal)
        return out
    completed = sum(1 for s in statuses.values() if s == "completed")
    out.update(
        status="scored",
        non_terminal_task_ids=[],
        completed=completed,
        failed=sum(1 for s in statuses.values() if s == "failed"),
        cancelled=sum(1 for s in statuses.values() if s == "cancelled"),
    )
    # D1
    rate = completed / total * 100
    r = round6(rate)
    d1 = 100 if r == 100 else 85 if r >= 90 else 70 if r >= 75 else 50 if r >= 60 else 20
    # D2: a metadata.deviations that is not an array leaves the count unknown, D2 neutral
    # (never above the score of the items counted: there are at least that many)
    devs = [md.get("deviations") for _, _, md in tasks]
    known = sum(len(d) for d in devs if isinstance(d, list))
    d2 = (
        100 if known == 0 else 85 if known <= 2 else 65 if known <= 5 else 40 if known <= 10 else 10
    )
    count: int | None = known
    if not all(d is None or isinstance(d, list) for d in devs):
        count, d2 = None, min(d2, 50)
    # D3
    passed = tot = 0
    for _, _, md in tasks:
        tr = md.get("testResult")
        if not isinstance(tr, str):
            continue
        parsed = parse_test_result(tr)
        if parsed is None or parsed[1] == 0:
            continue
        passed += parsed[0]
        tot += parsed[1]
    # spec-silent: counts past 64 bits (one result's, or their sums) cannot be carried by
    # the reports: the pass rate is unknown, so unverified and neutral
    verified = 0 < tot <= INT64_MAX
    pass_rate = passed / tot * 100 if verified else None
    d3 = pass_rate if pass_rate is not None else 50.0
    # D4: latest completedAt (else updatedAt) minus earliest createdAt, per task ends.
    ends = [_ts(md.get("completedAt")) or _ts(v.get("updatedAt")) for _, v, md in tasks]
    starts = [_ts(v.get("createdAt")) for _, v, _ in tasks]
    ends_k = [e for e in ends if e is not None]
    starts_k = [s for s in starts if s is not None]
    actual = (max(ends_k) - min(starts_k)).total_seconds() / 60 if ends_k and starts_k else None
    if estimate is None:
        d4 = 70.0
    elif actual is None:
        d4 = 70.0  # spec-silent: no measurable duration, so the estimate cannot be used
    elif actual <= 0:
        d4 = 100.0
    else:
        d4 = min(estimate / actual, 1.0) * 100
    # D5
    q = 60
    for _, _, md in tasks:
        qual = md.get("quality") if isinstance(md.get("quality"), dict) else {}
        lint = qual.get("lintFix") if isinstance(qual.get("lintFix"), dict) else {}
        fmt = qual.get("format") if isinstance(qual.get("format"), dict) else {}
        if lint.get("ran") is True and _is_num(lint.get("errors")):
            if lint["errors"] == 0:
                q += 10
            elif lint["errors"] > 0:
                q -= 5
        if fmt.get("ran") is True and fmt.get("changed") is False:
            q += 5
        todos = qual.get("unresolvedTodos")
        if _is_num(todos) and todos > 0:
            q -= 10
    d5 = float(min(100, max(0, q)))
    dims = (float(d1), float(d2), d3, d4, d5)
    composite = sum(w * d for w, d in zip(DIM_WEIGHTS, dims, strict=True))  # type: ignore[operator]
    c = round6(composite)
    if c > 90:
        verdict = "EXCELLENT" if verified and round6(d3) > 90 else "GOOD"
    elif c > 75:
        verdict = "GOOD"
    elif c > 60:
        verdict = "ACCEPTABLE"
    else:
        verdict = "NEEDS_IMPROVEMENT"
    weak = []
    if round6(d1) < 80:
        weak.append((d1, 0))
    if known > 5:
        weak.append((d2, 1))
    if round6(d3) < 80:
        weak.append((d3, 2))
    if round6(d4) < 70:  # type: ignore[arg-type]
        weak.append((d4, 3))
    if round6(d5) < 70:
        weak.append((d5, 4))
    recs = [DIM_CODES[i] for _, i in sorted(weak, key=lambda t: (round6(t[0]), t[1]))]
    out.update(
        completion_rate=rate,
        task_completion_score=float(d1),
        deviation_count=count,
        deviation_score=float(d2),
        tests_passed=passed if verified else None,
        tests_total=tot if verified else None,
        test_pass_rate=pass_rate,
        test_pass_rate_verified=verified,
        test_score=d3,
        actual_minutes=actual,
        estimated_minutes=estimate,
        time_efficiency=d4,
        quality_score=d5,
        composite_score=composite,
        verdict=verdict,
        recommendations=recs,
    )
    return out


PIPE_FLOAT_FIELDS = (
    "completion_rate",
    "task_completion_score",
    "deviation_score",
    "test_pass_rate",
    "test_score",
    "actual_minutes",
    "estimated_minutes",
    "time_efficiency",
    "quality_score",
    "composite_score",
)
PIPE_EXACT_FIELDS = (
    "status",
    "task_count",
    "completed",
    "failed",
    "cancelled",
    "non_terminal_task_ids",
    "deviation_count",
    "tests_passed",
    "tests_total",
    "test_pass_rate_verified",
    "verdict",
    "recommendations",
)

# ---------------------------------------------------------------------------- generator

NON_TERMINAL = ["pending", "in_progress", "blocked"]
TEST_STRINGS_BAD = ["PASSED 4/5", "PASS 4", "ok", "FAIL -1/3", "PASS 1/2 extra", "PASS 3/x"]


def _case(rng: random.Random, s: str) -> str:
    return _pick(rng, [s, s, s.upper(), s.capitalize(), s.title(), f" {s.upper()}\t"])


def _iso_min(base: dt.datetime, minutes: float) -> str:
    t = base + dt.timedelta(minutes=minutes)
    if t.microsecond:
        return t.strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    return t.strftime("%Y-%m-%dT%H:%M:%SZ")


def gen_pipeline_corpus(rng: random.Random, prefix: str) -> tuple[list[list[bytes]], list[bytes]]:
    """A random corpus of pipelines (ids start with ``prefix``): 1–2 chunks of task
    snapshot lines (chunk i for task file i, see ``write_batch``) and plan lines."""
    lines: list[bytes] = []
    plans: list[bytes] = []
    for p in range(rng.randint(1, 4)):
        pid = f"{prefix}-p{p}"
        plines, plan = _gen_pipeline(rng, pid)
        lines.extend(plines)
        if plan is not None:
            plans.append(plan)
    junk = [
        b"garbage",
        b"[]",
        b"42",
        b'{"id": "t-orphan", "status": "completed"}',
        b'{"pipelineId": "' + prefix.encode() + b'-p0", "status": "completed"}',
        b"  ",
        b'{"pipelineId": "' + prefix.encode() + b'-p0", "id": "x", "status": "completed", ',
    ]
    for _ in range(rng.choice([0, 0, 1, 2])):
        lines.insert(rng.randrange(len(lines) + 1), _pick(rng, junk))
    n_files = rng.choice([1, 1, 2])
    cut = rng.randrange(1, len(lines)) if n_files == 2 and len(lines) > 1 else len(lines)
    return [lines[:cut], lines[cut:]], plans


def _gen_pipeline(rng: random.Random, pid: str) -> tuple[list[bytes], bytes | None]:
    good = rng.random() < 0.3  # near the top verdicts: EXCELLENT, GOOD, exactly 90
    total, completed = _pick(
        rng,
        [
            (1, 1),
            (1, 0),
            (4, 3),
            (5, 3),
            (5, 4),
            (10, 9),
            (10, 8),
            (10, 6),
            (10, 5),
            (20, 18),
            (20, 15),
            (20, 12),
            (20, 11),
            (3, 3),
            (7, 7),
            (6, 5),
            (4, 2),
            (8, 6),
        ],
    )
    base = dt.datetime(2026, 3, 1, 9, 0, tzinfo=dt.UTC) + dt.timedelta(days=rng.randint(0, 30))
    statuses = ["completed"] * completed + [
        rng.choice(["failed", "cancelled"]) for _ in range(total - completed)
    ]
    if good:
        total = rng.randint(1, 6)
        completed = total if rng.random() < 0.85 else total - 1
        statuses = ["completed"] * completed + ["cancelled"] * (total - completed)
    rng.shuffle(statuses)
    if rng.random() < (0.03 if good else 0.12):
        statuses[rng.randrange(total)] = _pick(rng, NON_TERMINAL)
    # Deviations: a target count on a bucket boundary, spread over tasks.
    dev_total = _pick(rng, [0, 0, 0, 1, 2] if good else [0, 0, 1, 2, 3, 5, 6, 10, 11, 15])
    devs = [0] * total
    for _ in range(dev_total):
        devs[rng.randrange(total)] += 1
    # Tests: mostly parsable, some invalid or zero-total.
    tests_mode = rng.random()
    good_tests = _pick(rng, [(24, 25), (23, 25), (9, 10), (22, 25), (19, 20), (4, 5), (1, 1)])
    good_lint = rng.randint(0, 4)  # how many tasks report a clean lint run
    # Quality signals.
    quality_mode = rng.random()
    span = rng.choice([30, 60, 100, 600])
    lines: list[bytes] = []
    ends: list[float] = []
    starts: list[float] = []
    for i in range(total):
        tid = f"t{i}"
        created = rng.choice([0, 0, 5, 10])
        end = rng.randint(created + 1, span) if span > created else created + 1
        if rng.random() < 0.05:
            end = created  # zero-length task
        starts.append(created)
        md: dict[str, Any] = {}
        mode = rng.choices(
            ["ordered", "shuffled", "no_updated", "ties", "mixed", "mixed_rev"],
            [35, 15, 15, 15, 15, 5],
        )[0]
        if rng.random() < 0.8 or mode in ("no_updated", "mixed_rev"):
            md["completedAt"] = _iso_min(base, end)
            ends.append(end)
        else:
            ends.append(end + 1)
        md["summary"] = f"did {tid}"
        md["filesModified"] = [f"src/{tid}.py"]
        if devs[i] or rng.random() < 0.3:
            md["deviations"] = [
                _pick(rng, ["scope", {"what": "x"}, 3, None]) for _ in range(devs[i])
            ]
        if good:
            if i == 0:
                md["testResult"] = f"PASS {good_tests[0]}/{good_tests[1]}"
        elif tests_mode < 0.75:
            r = rng.random()
            if r < 0.55:
                t = rng.choice([1, 4, 5, 10, 20, 42])
                p = t if rng.random() < 0.6 else rng.randint(0, t)
                word = "PASS" if p == t else "FAIL"
                if rng.random() < 0.1:
                    word = "FAIL" if word == "PASS" else "PASS"  # the word does not matter
                md["testResult"] = _pick(
                    rng,
                    [f"{word} {p}/{t}", f"  {word.lower()} {p} / {t} ", f"{word.title()}\t{p}/{t}"],
                )
            elif r < 0.65:
                md["testResult"] = _pick(rng, ["PASS 0/0", "FAIL 0/0"])
            elif r < 0.75:
                md["testResult"] = _pick(rng, TEST_STRINGS_BAD)
        elif tests_mode < 0.85:
            md["testResult"] = _pick(rng, ["FAIL 4/5", "PASS 9/10", "FAIL 8/10", "PASS 5/5"])
        if good:
            if i < good_lint:
                md["quality"] = {"lintFix": {"ran": True, "errors": 0}}
                if rng.random() < 0.3:
                    md["quality"]["format"] = {"ran": True, "changed": False}
        elif quality_mode < 0.7:
            qual: dict[str, Any] = {}
            if rng.random() < 0.6:
                qual["lintFix"] = _pick(
                    rng,
                    [
                        {"ran": True, "errors": 0},
                        {"ran": True, "errors": 3},
                        {"ran": False, "errors": 0},
                        {"ran": False},
                    ],
                )
            if rng.random() < 0.5:
                qual["format"] = _pick(
                    rng,
                    [
                        {"ran": True, "changed": False},
                        {"ran": True, "changed": True},
                        {"ran": False, "changed": False},
                    ],
                )
            if rng.random() < 0.4:
                qual["unresolvedTodos"] = _pick(rng, [0, 1, 4])
            if qual or rng.random() < 0.5:
                md["quality"] = qual
        final_status = _case(rng, statuses[i])
        # Snapshots: earlier states, then the final one, with various updatedAt shapes.
        n_prev = rng.choice([0, 0, 1, 2])
        if good and mode == "mixed_rev":
            mode = "ordered"
        if mode == "mixed_rev" and rng.random() < 0.7:
            n_prev = max(n_prev, 1)
        snaps: list[dict[str, Any]] = []
        for k in range(n_prev):
            prev_md = {"testResult": "FAIL 0/3", "deviations": [1, 2, 3, 4, 5, 6]}
            if rng.random() < 0.5:
                prev_md["completedAt"] = _iso_min(base, span + 500)
            snaps.append(
                {
                    "status": _case(rng, _pick(rng, NON_TERMINAL + ["failed"])),
                    "metadata": prev_md,
                    "_upd": created + k * 0.5,
                }
            )
        snaps.append({"status": final_status, "metadata": md, "_upd": end + 1})
        objs = []
        for j, s in enumerate(snaps):
            o: dict[str, Any] = {}
            ident = rng.random()
            if ident < 0.8:
                o["pipelineId"] = pid
            else:
                s["metadata"] = dict(s["metadata"], pipelineId=pid)
            if rng.random() < 0.8:
                o["id"] = tid
            else:
                o["taskId"] = tid
            o["status"] = s["status"]
            o["createdAt"] = _iso_min(base, created)
            if mode in ("ordered", "shuffled"):
                o["updatedAt"] = _iso_min(base, s["_upd"])
            elif mode == "ties":
                o["updatedAt"] = _iso_min(base, end + 1)
            elif mode == "mixed" and (j == len(snaps) - 1 or rng.random() < 0.5):
                o["updatedAt"] = _iso_min(base, s["_upd"])
            elif mode == "mixed_rev" and j < len(snaps) - 1:
                # only earlier snapshots carry updatedAt; the last line has none
                o["updatedAt"] = _iso_min(base, s["_upd"])
            o["metadata"] = s["metadata"]
            objs.append(o)
        if mode == "shuffled":
            rng.shuffle(objs)
        lines.extend(json.dumps(o).encode() for o in objs)
    # Interleave tasks of the pipeline a little.
    if rng.random() < 0.3:
        rng.shuffle(lines)
    plan: bytes | None = None
    pr = rng.random()
    actual_hint = max(ends) - min(starts)  # when the final snapshots win
    if good and pr < 0.6:
        est = _pick(rng, [actual_hint, actual_hint * 2, actual_hint * 0.7, actual_hint * 0.9])
        plan = json.dumps({"pipelineId": pid, "estimatedDurationMinutes": est or 30}).encode()
    elif pr < 0.6:
        est = _pick(
            rng, [actual_hint, actual_hint * 0.7, actual_hint * 0.5, actual_hint * 2, 45, 7]
        )
        est = est if est > 0 else 30
        if rng.random() < 0.5:
            plan = json.dumps({"pipelineId": pid, "estimatedDurationMinutes": est}).encode()
        else:
            plan = json.dumps({"pipelineId": pid, "estimatedDurationMs": est * 60000}).encode()
    elif pr < 0.7:
        plan = json.dumps({"pipelineId": pid}).encode()
    return lines, plan


# ============================================================================ comparison

Keep = Callable[[Any], bool]


def _everything(_: Any) -> bool:
    return True


def same(a: Any, b: Any, is_float: bool) -> bool:
    """Float fields within 1e-9, everything else exact (types included: 1 is not True)."""
    if a is None or b is None:
        return a is None and b is None
    if is_float:
        return math.isclose(float(a), float(b), rel_tol=0, abs_tol=1e-9)
    return bool(a == b) and type(a) is type(b)


def _set_diff(name: str, got: set[Any], exp: set[Any]) -> list[str]:
    if got == exp:
        return []
    return [f"{name}: runscore-only {sorted(got - exp)}, spec-only {sorted(exp - got)}"]


def eff_run(files: Sequence[tuple[str, bytes]], tmp: Path) -> tuple[EffResult, Any]:
    """(reference result, runscore's ExtractResult) for the same input files."""
    from runscore.engine.packs import effectiveness

    got = effectiveness.extract(
        [p for p, _ in files], str(tmp / "history.jsonl"), write=False, scored_at=SCORED_AT
    )
    return ref_effectiveness(files), got


def eff_diffs(
    exp: EffResult, got: Any, run: Keep = _everything, file: Keep = _everything
) -> list[str]:
    """Every difference, limited to the runs and files the predicates keep."""
    diffs: list[str] = []
    rows = {(r["run_id"], r["archetype"]): r for r in got.records.to_pylist() if run(r["run_id"])}
    want = {k: v for k, v in exp.records.items() if run(k[0])}
    for key in sorted(set(rows) | set(want)):
        if key not in rows:
            diffs.append(f"{key}: missing in runscore (spec: {want[key]})")
            continue
        if key not in want:
            diffs.append(f"{key}: runscore-only record {rows[key]}")
            continue
        e, g = want[key], rows[key]
        for name in EFF_FLOAT_FIELDS + EFF_EXACT_FIELDS:
            if not same(g[name], e[name], name in EFF_FLOAT_FIELDS):
                diffs.append(f"{key}.{name}: runscore {g[name]!r} != spec {e[name]!r}")
    diffs += _set_diff(
        "incomplete runs",
        {r for r in got.incomplete if run(r)},
        {r for r in exp.incomplete if run(r)},
    )
    diffs += _set_diff(
        "invalid runs",
        {d["run_id"] for d in got.invalid if run(d["run_id"])},
        {r for r in exp.invalid if run(r)},
    )
    got_locs = {d["run_id"]: set(d["locations"]) for d in got.invalid}
    for run_id, locs in sorted(exp.invalid_locations.items()):
        if run(run_id) and run_id in got_locs and got_locs[run_id] != locs:
            diffs.append(f"invalid {run_id} locations: runscore {got_locs[run_id]} != spec {locs}")
    warns = [w for w in got.warnings if file(w.file)]
    edge = re.compile(r"parent edge to seq (-?\d+) ignored")
    diffs += _set_diff(
        "seq warnings",
        {(w.file, w.line) for w in warns if "seq:" in w.reason},
        {x for x in exp.warn_seq if file(x[0])},
    )
    diffs += _set_diff(
        "edge warnings",
        {(w.file, w.line, int(m.group(1))) for w in warns if (m := edge.match(w.reason))},
        {x for x in exp.warn_edge if file(x[0])},
    )
    diffs += _set_diff(
        "unattributed fixes",
        {(w.file, w.line) for w in warns if "unattributed" in w.reason},
        {x for x in exp.unattributed if file(x[0])},
    )
    diffs += _set_diff(
        "skipped lines",
        {(d.file, d.line) for d in got.skipped_lines if file(d.file)},
        {x for x in exp.skipped if file(x[0])},
    )
    return diffs


def pipe_run(
    tasks: Sequence[tuple[str, bytes]], plans: Sequence[tuple[str, bytes]]
) -> tuple[PipeResult, Any]:
    """(reference result, runscore's PipelineResult) for the same input files."""
    from runscore.engine.packs import pipeline

    got = pipeline.evaluate_pipelines(
        [p for p, _ in tasks], [p for p, _ in plans] or None, eval_date=EVAL_DATE
    )
    return ref_pipelines(tasks, plans), got


def _pipe_views(p: str, e: dict[str, Any], got: Any) -> list[str]:
    """The same numbers as shown elsewhere: the dimension table, the ranked
    recommendations and the JSON report (§6) must agree with the reference too."""
    diffs: list[str] = []
    dims = {d["code"]: d for d in got.rows_for(got.dimensions, p)}
    want = dict(
        zip(
            DIM_CODES,
            (
                e["task_completion_score"],
                e["deviation_score"],
                e["test_score"],
                e["time_efficiency"],
                e["quality_score"],
            ),
            strict=True,
        )
    )
    for code, score in want.items():
        d = dims.get(code)
        if d is None or not same(d["score"], score, True):
            diffs.append(f"{p} dimension {code}: runscore {d and d['score']!r} != spec {score!r}")
        elif not same(d["weight"], DIM_WEIGHTS[DIM_CODES.index(code)], True):
            diffs.append(f"{p} dimension {code} weight {d['weight']!r}")
    ranked = [
        r["code"] for r in sorted(got.rows_for(got.recommendations, p), key=lambda r: r["rank"])
    ]
    if ranked != e["recommendations"]:
        diffs.append(
            f"{p} ranked recommendations: runscore {ranked} != spec {e['recommendations']}"
        )
    doc = got.documents.get(p)
    if doc is None:
        return diffs + [f"{p}: no JSON report"]
    scores = {
        "taskCompletionRate": e["completion_rate"],
        "deviationCount": e["deviation_count"],
        "deviationScore": e["deviation_score"],
        "testPassRate": e["test_score"],
        "timeEfficiency": e["time_efficiency"],
        "qualityScore": e["quality_score"],
    }
    for k, v in scores.items():
        if not same(doc["scores"].get(k), v, True):
            diffs.append(f"{p} report scores.{k}: runscore {doc['scores'].get(k)!r} != spec {v!r}")
    if not same(doc.get("compositeScore"), e["composite_score"], True):
        diffs.append(f"{p} report compositeScore {doc.get('compositeScore')!r}")
    if doc.get("verdict") != e["verdict"] or doc.get("taskCount") != e["task_count"]:
        diffs.append(f"{p} report verdict/taskCount {doc.get('verdict')}/{doc.get('taskCount')}")
    if len(doc.get("recommendations", [])) != len(e["recommendations"]):
        diffs.append(f"{p} report has {len(doc.get('recommendations', []))} recommendations")
    return diffs


def pipe_diffs(
    exp: PipeResult, got: Any, pid: Keep = _everything, file: Keep = _everything
) -> list[str]:
    rows = {r["pipeline_id"]: r for r in got.pipelines.to_pylist() if pid(r["pipeline_id"])}
    want = {k: v for k, v in exp.pipelines.items() if pid(k)}
    diffs: list[str] = []
    for p in sorted(set(rows) | set(want)):
        if p not in rows or p not in want:
            diffs.append(f"{p}: only in {'spec' if p not in rows else 'runscore'}")
            continue
        e, g = want[p], rows[p]
        # in the order runscore lists them (natural: t2 before t10), as the reference does
        g = dict(g, non_terminal_task_ids=g["non_terminal_task_ids"] or [])
        fields = [(n, False) for n in ("status", "task_count", "non_terminal_task_ids")]
        if e["status"] == "scored":
            fields += [(n, False) for n in PIPE_EXACT_FIELDS if n not in dict(fields)]
            fields += [(n, True) for n in PIPE_FLOAT_FIELDS]
        for name, is_float in fields:
            if not same(g[name], e[name], is_float):
                diffs.append(f"{p}.{name}: runscore {g[name]!r} != spec {e[name]!r}")
        if e["status"] == "scored":
            diffs += _pipe_views(p, e, got)
        elif p in got.documents:
            diffs.append(f"{p}: a JSON report for a not_terminal pipeline")
    tests = [(d.file, d.line, d.reason) for d in got.warnings if "testResult" in d.reason]
    diffs += _set_diff(
        "unparsable testResult warnings",
        {(f, ln) for f, ln, r in tests if "total of 0" not in r and file(f)},
        {x for x in exp.tests_unparsable if file(x[0])},
    )
    diffs += _set_diff(
        "zero-total testResult warnings",
        {(f, ln) for f, ln, r in tests if "total of 0" in r and file(f)},
        {x for x in exp.tests_zero_total if file(x[0])},
    )
    diffs += _set_diff(
        "rejected lines",
        {(d.file, d.line) for d in got.errors if d.file is not None and file(d.file)},
        {x for x in exp.errors if file(x[0])},
    )
    return diffs


# ============================================================================ fixture


@pytest.fixture(scope="session")
def ref() -> ModuleType:
    """This module: reference implementations, generators and field lists."""
    return sys.modules[__name__]


def _load_beside(file: str) -> ModuleType:
    """A module beside this file, loaded by path: under --import-mode=importlib the test
    directory is not importable as a package."""
    name = "runscore_differential_" + file.removesuffix(".py")
    if name not in sys.modules:
        path = Path(__file__).with_name(file)
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while the class is made
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def routes_ref() -> ModuleType:
    """The routes reference (routes_ref.py beside this file)."""
    return _load_beside("routes_ref.py")


@pytest.fixture(scope="session")
def plugin_ref() -> ModuleType:
    """The plugin reference (plugin_ref.py beside this file)."""
    return _load_beside("plugin_ref.py")

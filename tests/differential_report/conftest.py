"""Differential testing of `runscore report` / `recommend` (spec effectiveness §4-§6).

Two halves, both plain Python with no runscore imports:

* a reference implementation written only from the spec text (§4 history reading,
  §5 aggregates, §6 team recommendations) — deliberately naive and slow, one loop
  per rule, so it is easy to check against the spec line by line;
* seeded random generators of history files and ArcheFlow team YAMLs that aim at
  the edges: ties in run time, re-scored runs, null/zero costs, scores exactly on
  thresholds, trend deltas exactly ±0.05, legacy and v1 lines mixed, hostile names.

Where the spec is silent the reference follows runscore's (natural) choice and the
choice is named in a ``SPEC-SILENT`` comment.
"""

from __future__ import annotations

import json
import math
import random
import sys
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, timezone
from types import ModuleType
from typing import Any

import pytest
import yaml

V1 = "effectiveness/v1"
LEGACY = "archeflow-legacy"

# The 15 fields of ArcheFlow's own records (§4), in order.
LEGACY_FIELDS = (
    "ts",
    "run_id",
    "archetype",
    "signal_to_noise",
    "fix_rate",
    "cost_efficiency",
    "accuracy",
    "cycle_impact",
    "composite_score",
    "tokens",
    "cost_usd",
    "model",
    "findings_total",
    "findings_useful",
    "fixes_applied",
)
V1_EXTRA = (
    "scoring_version",
    "run_ts",
    "cost_basis",
    "cost_efficiency_norm",
    "findings_contradicted",
    "events_sha256",
    "source",
)

REPORT_KEYS = (
    "archetype",
    "scoring_version",
    "runs",
    "avg_composite",
    "avg_signal_noise",
    "avg_fix_rate",
    "avg_cost_efficiency",
    "avg_accuracy",
    "avg_cost_usd",
    "trend",
    "recommendation",
    "model",
    "value_per_dollar",
    "suggestion",
    # beyond §5's list, the columns that say how the model advice was reached
    "runs_in_window",
    "window_runs",
    "cost_runs",
    "model_tier",
    "model_tier_rank",
    "suggested_model",
    "trend_delta",
)
RECOMMEND_KEYS = (
    "archetype",
    "current_model",
    "model_source",
    "model_tier",
    "score",
    "runs",
    "runs_in_window",
    "scored_model",
    "scored_model_tier",
    "scored_model_runs",
    "model_tier_differs",
    "action",
    "suggested_model",
    "scoring_version",
)

WINDOW = 10  # §5: recent = last 10 runs
HALF = 5  # §5: trend = last 5 vs the 5 before

# =============================================================================== reference
# ------------------------------------------------------------------------- §4 history


def parse_ts(v: Any) -> datetime | None:
    """An ISO-8601 time as an aware UTC instant (naive = UTC, README 'Times are UTC')."""
    if not isinstance(v, str) or not v.strip():
        return None
    s = v.strip()
    if s.endswith(("Z", "z")):
        s = s[:-1] + "+00:00"
    try:
        t = datetime.fromisoformat(s)
    except ValueError:
        return None
    if t.tzinfo is None:
        t = t.replace(tzinfo=UTC)
    return t.astimezone(UTC)


def _no_nan(c: str) -> Any:
    raise ValueError(f"not JSON: {c}")


@dataclass
class HLine:
    """One usable history line."""

    order: int  # position in the file (1-based line number)
    version: str
    run_id: str
    archetype: str
    ts: datetime
    run_ts: datetime
    rec: dict[str, Any]


def read_history(text: str) -> list[HLine]:
    """§4: every usable line, in file order. Torn / non-JSON / foreign lines are skipped."""
    out: list[HLine] = []
    for no, raw in enumerate(text.split("\n"), start=1):
        line = raw[:-1] if raw.endswith("\r") else raw
        if not line.strip():
            continue
        try:
            rec = json.loads(line, parse_constant=_no_nan)
        except ValueError:
            continue
        if not isinstance(rec, dict):
            continue
        run_id, arch = rec.get("run_id"), rec.get("archetype")
        ts = parse_ts(rec.get("ts"))
        if not isinstance(run_id, str) or not run_id or not isinstance(arch, str) or ts is None:
            continue
        if "scoring_version" not in rec or rec["scoring_version"] is None:
            # ArcheFlow's shell scorer: the 15 fields only → legacy, run_ts = ts.
            version, run_ts = LEGACY, ts
        else:
            version = rec["scoring_version"]
            if not isinstance(version, str):
                continue
            run_ts = parse_ts(rec.get("run_ts")) if "run_ts" in rec else None
            if run_ts is None:
                # SPEC-SILENT: a versioned line without run_ts falls back to its ts
                # (only generated for legacy-version lines, where §4 says run_ts = ts).
                run_ts = ts
        out.append(HLine(no, version, run_id, arch, ts, run_ts, rec))
    return out


def current_lines(lines: Sequence[HLine]) -> list[HLine]:
    """§4: per (run_id, archetype, scoring_version) the line with the latest ts.

    SPEC-SILENT: two lines of one key with the same ts → the later line in the file.
    """
    best: dict[tuple[str, str, str], HLine] = {}
    for h in lines:
        k = (h.run_id, h.archetype, h.version)
        if k not in best or (h.ts, h.order) > (best[k].ts, best[k].order):
            best[k] = h
    return sorted(best.values(), key=lambda h: h.order)


def version_key(v: str) -> tuple[int, int]:
    """Oldest first: archeflow-legacy, then effectiveness/v1, v2, ..."""
    if v == LEGACY:
        return (0, 0)
    if v.startswith("effectiveness/v") and v[len("effectiveness/v") :].isdigit():
        return (1, int(v[len("effectiveness/v") :]))
    return (-1, 0)  # not a version runscore can report


def select_version(lines: Sequence[HLine], requested: str | None) -> str:
    """§5: default = the newest effectiveness/vN present; legacy counts as the oldest.

    SPEC-SILENT: an empty history reports the newest known version (v1), with no rows.
    """
    if requested is not None:
        return requested
    present = {h.version for h in lines if version_key(h.version)[0] >= 0}
    return max(present, key=version_key) if present else V1


def _num(v: Any) -> float | None:
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    return float(v)


def _str(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def r6(x: float) -> float:
    """README: thresholds compare the value rounded to 6 decimal places."""
    return round(x, 6)


def mean(xs: Iterable[float | None]) -> float | None:
    vals = [x for x in xs if x is not None]
    return math.fsum(vals) / len(vals) if vals else None


# ------------------------------------------------------------------------- §5 report

TIERS = (("haiku", "cheap", 1), ("sonnet", "standard", 2), ("opus", "premium", 3))


def tier_of(model: str | None) -> tuple[str, int] | None:
    """§5 model tiers: case-insensitive substring; no match (or no model) → unknown (None).

    SPEC-SILENT: a name containing several patterns takes the longest one (then the
    cheaper tier), as runscore does; the generators never produce such names.
    """
    if model is None:
        return None
    m = model.lower()
    hits = [(-len(sub), rank, name) for sub, name, rank in TIERS if sub in m]
    if not hits:
        return None
    _, rank, name = min(hits)
    return name, rank


def tier_rank(model: str | None) -> int | None:
    t = tier_of(model)
    return None if t is None else t[1]


def tier_step(rank: int | None, action: str) -> str | None:
    """§5 "downgrade (to the next cheaper tier)", "upgrade (to the next tier up)": the
    model names of that tier. SPEC-SILENT: several names of one tier are joined "a or b"
    (alphabetical); none beyond the table's ends."""
    if rank is None or action not in ("upgrade", "downgrade"):
        return None
    ranks = sorted({r for _s, _n, r in TIERS})
    nxt = [r for r in ranks if r > rank] if action == "upgrade" else [r for r in ranks if r < rank]
    if not nxt:
        return None
    target = nxt[0] if action == "upgrade" else nxt[-1]
    return " or ".join(sorted(s for s, _n, r in TIERS if r == target))


def runs_of(cur: Sequence[HLine], version: str) -> dict[str, list[HLine]]:
    """Archetype → its runs ordered by run_ts, ties by run_id."""
    by: dict[str, list[HLine]] = {}
    for h in cur:
        if h.version == version:
            by.setdefault(h.archetype, []).append(h)
    for runs in by.values():
        runs.sort(key=lambda h: (h.run_ts, h.run_id))
    return by


def model_name(m: str | None) -> str | None:
    """A line's model as counted: outer ASCII whitespace is no part of the name (" sonnet"
    is sonnet); blank or "unknown" (any case) is none."""
    t = None if m is None else m.strip(" \t\n\r\v\f")
    return t if t and t.lower() != "unknown" else None


def top_model(runs: Sequence[HLine]) -> str | None:
    """Most frequent non-blank model (tie: the one used most recently), or None.

    SPEC-SILENT: "unknown" (any case) is no model either: ArcheFlow's scorer writes it for
    a missing one (§8), so it must not outvote the model the other runs name.
    """
    models = [model_name(_str(h.rec.get("model"))) for h in runs]
    counts = Counter(m for m in models if m is not None)
    if not counts:
        return None
    last_use = {m: i for i, m in enumerate(models) if m is not None}
    return max(counts, key=lambda m: (counts[m], last_use[m]))


def trend_delta_of(runs: Sequence[HLine]) -> float | None:
    """§5: mean composite of the last 5 runs − mean of the 5 before; None under 10 runs."""
    if len(runs) < 2 * HALF:
        return None
    comp = [_num(h.rec.get("composite_score")) for h in runs]
    last, before = mean(comp[-HALF:]), mean(comp[-2 * HALF : -HALF])
    assert last is not None and before is not None
    return last - before


def trend_of(runs: Sequence[HLine]) -> str:
    d = trend_delta_of(runs)
    if d is None:
        return "insufficient_data"
    delta = r6(d)
    if delta > 0.05:
        return "improving"
    if delta < -0.05:
        return "declining"
    return "stable"


def recommendation_of(avg: float) -> str:
    a = r6(avg)
    return "keep" if a >= 0.70 else "optimize" if a >= 0.40 else "consider_removing"


def suggestion_of(avg: float, model: str | None) -> str:
    a, rank = r6(avg), tier_rank(model)
    if rank is None:
        return "none"
    if a >= 0.70:
        return "keep" if rank == 1 else "downgrade"
    if a < 0.50:
        return "upgrade" if rank == 1 else "remove"
    return "none"


def archetype_stats(runs: Sequence[HLine]) -> dict[str, Any]:
    recent = list(runs[-WINDOW:])
    g = [h.rec for h in recent]
    avg_composite = mean(_num(r.get("composite_score")) for r in g)
    avg_cost = mean(_num(r.get("cost_usd")) for r in g)
    model = top_model(recent)
    vpd = None
    if avg_composite is not None and avg_cost is not None and avg_cost != 0:
        vpd = avg_composite / avg_cost
    assert avg_composite is not None, "generated composites are never null"
    tier = tier_of(model)
    suggestion = suggestion_of(avg_composite, model)
    return {
        "runs": len(runs),
        "avg_composite": avg_composite,
        "avg_signal_noise": mean(_num(r.get("signal_to_noise")) for r in g),
        "avg_fix_rate": mean(_num(r.get("fix_rate")) for r in g),
        "avg_cost_efficiency": mean(_num(r.get("cost_efficiency")) for r in g),
        "avg_accuracy": mean(_num(r.get("accuracy")) for r in g),
        "avg_cost_usd": avg_cost,
        "trend": trend_of(runs),
        "recommendation": recommendation_of(avg_composite),
        "model": model if model is not None else "unknown",
        "value_per_dollar": vpd,
        "suggestion": suggestion,
        "runs_in_window": len(recent),
        "window_runs": WINDOW,
        # recent runs whose cost is known: what avg_cost_usd is the mean of
        "cost_runs": sum(1 for r in g if _num(r.get("cost_usd")) is not None),
        "model_tier": None if tier is None else tier[0],
        "model_tier_rank": None if tier is None else tier[1],
        "suggested_model": tier_step(None if tier is None else tier[1], suggestion),
        "trend_delta": trend_delta_of(runs),
        # §6 "the most frequent model in its history": every run of the archetype, not
        # only the recent window §5's `model` counts (ties: the one used most recently).
        "_history_model": top_model(runs),
    }


def ref_report(text: str, version: str | None = None) -> list[dict[str, Any]]:
    """§5 report rows of one scoring version ('all' = every version present)."""
    cur = current_lines(read_history(text))
    if version == "all":
        versions = sorted(
            {h.version for h in cur if version_key(h.version)[0] >= 0}, key=version_key
        )
    else:
        versions = [select_version(cur, version)]
    rows = []
    for v in versions:
        # SPEC-SILENT: rows by archetype (code point order), versions oldest first.
        for arch, runs in sorted(runs_of(cur, v).items()):
            st = archetype_stats(runs)
            del st["_history_model"]
            rows.append({"archetype": arch, "scoring_version": v, **st})
    return rows


# ------------------------------------------------------------------------- §6 recommend

DEFAULT_MODELS = {
    "explorer": "haiku",
    "guardian": "haiku",
    "skeptic": "haiku",
    "trickster": "haiku",
    "creator": "sonnet",
    "maker": "sonnet",
    "sage": "sonnet",
}


@dataclass
class Member:
    name: str
    sources: set[str] = field(default_factory=set)  # plan/do/check/archetypes/model_overrides
    archetypes_model: str | None = None
    override: str | None = None


MEMBER_SOURCES = ("plan", "do", "check", "archetypes", "model_overrides")


def team_members(team_text: str) -> list[Member]:
    """§6 members: plan/do/check, archetypes:, model_overrides keys; first seen, lower-cased.

    SPEC-AMBIGUOUS: "first-seen order" over "the union of the plan, do, check lists, an
    optional archetypes: list, and the keys of model_overrides" — read (as runscore does)
    as that concatenation order, not as the order of the keys in the file.
    SPEC-SILENT: names are also trimmed (as history archetypes are); the first model
    non-blank model given for a member in archetypes: (or in model_overrides) wins.
    """
    doc = yaml.safe_load(team_text)
    members: dict[str, Member] = {}

    def see(name: str, src: str) -> Member:
        key = name.strip().lower()
        m = members.setdefault(key, Member(key))
        m.sources.add(src)
        return m

    for key in MEMBER_SOURCES:
        val = doc.get(key)
        if key in ("plan", "do", "check"):
            for x in [val] if isinstance(val, str) else val or []:
                see(x, key)
        elif key == "archetypes":
            for x in val or []:
                if isinstance(x, str):
                    see(x, key)
                else:
                    m = see(x.get("name") or x.get("archetype"), key)
                    mv = x.get("model")
                    if m.archetypes_model is None and isinstance(mv, str) and mv.strip(" "):
                        m.archetypes_model = x["model"]
        else:
            for k, mv in (val or {}).items():
                m = see(k, key)
                if m.override is None and isinstance(mv, str) and mv.strip(" "):
                    m.override = mv
    return list(members.values())


def ref_recommend(text: str, team_text: str, version: str | None = None) -> list[dict[str, Any]]:
    cur = current_lines(read_history(text))
    v = select_version(cur, version)
    by = runs_of(cur, v)
    rows = []
    for m in team_members(team_text):
        # SPEC-SILENT: a history keeps an archetype as written (ArcheFlow's scorer: §8
        # folds no case), a team's are lower-cased (§6): a member is the history's name in
        # any case, trimmed. Of several spellings: its own, then most runs, then code points.
        spellings = [a for a in by if a.strip(" ").lower() == m.name]
        spellings.sort(key=lambda a: (a != m.name, -len(by[a]), a))
        runs = by[spellings[0]] if spellings else []
        st = archetype_stats(runs) if runs else None
        # §6 "Current model per member: model_overrides → the member's model in
        # archetypes: → ArcheFlow's defaults (...) → the most frequent model in its
        # history → unknown": the team's configuration first, history only for a member
        # the team and ArcheFlow leave without one (a skeptic scored on sonnet, in a team
        # that does not override it, is advised as the haiku ArcheFlow will run).
        # SPEC-SILENT: a blank model anywhere names none (the next source is asked).
        sources = (
            ("model_overrides", m.override),
            ("archetypes", m.archetypes_model),
            ("default", DEFAULT_MODELS.get(m.name)),
            ("history", st["_history_model"] if st else None),
        )
        model_source, model = next(
            (
                (src, mv if src == "history" else mv.strip(" "))
                for src, mv in sources
                if mv is not None and mv.strip(" ")
            ),
            ("unknown", "unknown"),
        )
        score = st["avg_composite"] if st else None
        tier = tier_of(model)
        rank = None if tier is None else tier[1]
        if st is None:
            # §6 "in plan/do only": of the places a member is named, plan, do and check
            # are phases; archetypes: and model_overrides only give it a model.
            phases = m.sources & {"plan", "do", "check"}
            action = "not_scored" if phases and phases <= {"plan", "do"} else "no_data"
        else:
            a = r6(score)
            if a < 0.40:
                action = "remove"
            elif a >= 0.70:
                # SPEC-SILENT: §6 has no row for a model in no tier: runscore keeps it.
                action = "downgrade" if rank is not None and rank > 1 else "keep"
            else:
                # SPEC-SILENT: ... and optimizes it (the lens, not the model, can change).
                action = "upgrade" if rank == 1 else "optimize"
        rows.append(
            {
                "archetype": m.name,
                "current_model": model,
                "model_source": model_source,
                "model_tier": None if tier is None else tier[0],
                "score": score,
                "runs": len(runs),
                # the runs the score averages (§5's recent window)
                "runs_in_window": st["runs_in_window"] if st else 0,
                # SPEC-SILENT: the model the score was earned on (§5's model of the
                # window), its tier, and the window's runs on it, beside the team's.
                "scored_model": st["model"] if st else None,
                "scored_model_tier": st["model_tier"] if st else None,
                "scored_model_runs": sum(
                    1 for h in runs[-WINDOW:] if model_name(_str(h.rec.get("model"))) == st["model"]
                )
                if st and st["model"] != "unknown"
                else None,
                "model_tier_differs": rank != st["model_tier_rank"]
                if st and rank is not None and st["model_tier_rank"] is not None
                else None,
                "action": action,
                "suggested_model": tier_step(rank, action),
                "scoring_version": v,
            }
        )
    return rows


# =============================================================================== comparison


def same(a: Any, b: Any) -> bool:
    """Floats within 1e-9 (absolute or relative); everything else exact (and same type)."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, int | float) or not isinstance(b, int | float):
            return False
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return type(a) is type(b) and a == b


def diff_rows(
    got: Sequence[dict[str, Any]],
    want: Sequence[dict[str, Any]],
    keys: Sequence[str],
    ident: Sequence[str],
) -> list[str]:
    """Human-readable differences between two row lists matched by ``ident`` columns."""
    out: list[str] = []
    g = {tuple(r[k] for k in ident): r for r in got}
    w = {tuple(r[k] for k in ident): r for r in want}
    if len(g) != len(got):
        out.append(
            f"duplicate rows in runscore output: {[tuple(r[k] for k in ident) for r in got]}"
        )
    for k in w.keys() - g.keys():
        out.append(f"{k}: missing from runscore output")
    for k in g.keys() - w.keys():
        out.append(f"{k}: unexpected row in runscore output")
    for k in w.keys() & g.keys():
        for c in keys:
            if c not in g[k]:
                out.append(f"{k}: key {c!r} missing")
            elif not same(g[k][c], w[k][c]):
                out.append(f"{k}.{c}: runscore={g[k][c]!r} reference={w[k][c]!r}")
    return out


# =============================================================================== generators

HOSTILE = (
    "ñandú",
    "名前の審査",
    "pipe|name",
    "back`tick",
    "new\nline",
    "emoji🚀",
    'quote"s',
    "back\\slash",
    "tab\tx",
    "æsir",
    "<b>bold</b>",
    "- [ ] not a list",
)
REVIEWERS = ("guardian", "skeptic", "sage", "trickster", "custom-reviewer")
NON_REVIEWERS = ("explorer", "creator", "maker")
MODELS = (
    None,
    "claude-haiku-4-5",
    "claude-3-5-HAIKU",
    "claude-sonnet-4",
    "Sonnet",
    "claude-opus-4-1",
    "OPUS",
    "gpt-4o",
    "llama-3",
)
# scores exactly on (or one rounding step around) the thresholds
EDGE = (0.7, 0.4, 0.5, 0.69999999, 0.70000001, 0.39999999, 0.40000001, 0.49999999, 0.0, 1.0)
DELTAS = (0.05, -0.05, 0.050001, -0.050001, 0.049999, -0.049999, 0.0500004, 0.0, 0.2, -0.2)
BASE = datetime(2026, 1, 1, tzinfo=UTC)


def fmt_ts(t: datetime, rng: random.Random) -> str:
    """The same instant in one of the ISO-8601 spellings a history may hold: Z or
    +00:00, with or without fractions, rarely naive (= UTC) or in another offset."""
    k = rng.random()
    if k < 0.05:
        return t.replace(tzinfo=None).isoformat()  # naive: UTC by the README's convention
    if k < 0.1:
        return t.astimezone(timezone(timedelta(hours=5, minutes=30))).isoformat()
    if t.microsecond:
        core = t.strftime("%Y-%m-%dT%H:%M:%S.%f")
    elif k < 0.25:
        core = t.strftime("%Y-%m-%dT%H:%M:%S") + ".000"
    else:
        core = t.strftime("%Y-%m-%dT%H:%M:%S")
    return core + ("+00:00" if rng.random() < 0.2 else "Z")


def _score(rng: random.Random) -> float:
    return rng.choice(EDGE) if rng.random() < 0.25 else round(rng.random(), 4)


def _cost(rng: random.Random, legacy: bool) -> float | None:
    k = rng.random()
    if k < 0.25:
        return 0.0 if legacy else None  # legacy writes 0 for a missing cost
    if k < 0.4:
        return 0.0
    return round(rng.uniform(0.0001, 0.5), 4)


def _record(
    rng: random.Random,
    run_id: str,
    arch: str,
    composite: float,
    model_pool: Sequence[str | None],
    legacy: bool,
) -> dict[str, Any]:
    cost = _cost(rng, legacy)
    ft = rng.randint(0, 6)
    fu = rng.randint(0, ft)
    model = rng.choice(model_pool)
    if legacy and model is None:
        model = "unknown"
    if cost is None or cost == 0:
        eff = 0.0 if legacy else None
    else:
        eff = fu / cost
    rec: dict[str, Any] = {
        "ts": None,
        "run_id": run_id,
        "archetype": arch,
        "signal_to_noise": _score(rng),
        "fix_rate": _score(rng),
        "cost_efficiency": round(eff, 1) if legacy and eff is not None else eff,
        "accuracy": _score(rng),
        "cycle_impact": rng.random() < 0.5,
        "composite_score": composite,
        "tokens": rng.randint(0, 50000) if (legacy or cost is not None) else None,
        "cost_usd": cost,
        "model": model,
        "findings_total": ft,
        "findings_useful": fu,
        "fixes_applied": rng.randint(0, ft),
    }
    if legacy:
        for k in ("signal_to_noise", "fix_rate", "accuracy"):
            rec[k] = round(rec[k], 2)
    return rec


def _composites(rng: random.Random, n: int) -> list[float]:
    """n composites in final run order, aimed at threshold and trend-boundary edges."""
    k = rng.random()
    if k < 0.2:  # one edge value everywhere: the average sits on the threshold
        return [rng.choice(EDGE)] * n
    if k < 0.5 and n >= 10:  # last 5 vs the 5 before differ by an edge delta
        d = rng.choice(DELTAS)
        a = rng.choice((0.3, 0.45, 0.5, 0.6, 0.65))
        head = [round(rng.random(), 4) for _ in range(n - 10)]
        return head + [a] * 5 + [round(a + d, 7)] * 5
    if k < 0.6 and n >= 10:  # an edge delta made of mixed values (same means)
        d = rng.choice(DELTAS)
        head = [round(rng.random(), 4) for _ in range(n - 10)]
        before = [0.4, 0.6, 0.5, 0.45, 0.55]
        return head + before + [round(x + d, 7) for x in reversed(before)]
    return [_score(rng) for _ in range(n)]


@dataclass
class Group:
    """One independent random history (its archetypes are unique in the file)."""

    lines: list[tuple[datetime, dict[str, Any]]]  # (ts, record) before file shuffling
    archetypes: list[str]


def gen_group(
    rng: random.Random, gid: int, *, plain_names: bool = False, mode: str | None = None
) -> Group:
    """A few archetypes, 1-25 runs each, with v1 and/or legacy lines and re-scores."""
    suffix = "" if plain_names else f"~{gid}"
    n_arch = rng.randint(1, 4)
    pool = list(REVIEWERS) + list(HOSTILE) + ["Guardian", "SAGE"]
    names = rng.sample(pool if not plain_names else list(REVIEWERS) + list(HOSTILE), n_arch)
    if plain_names and rng.random() < 0.5:
        names.append(rng.choice(NON_REVIEWERS))  # a maker that somehow has history
    names = [n + suffix for n in names]
    mode = mode or rng.choice(("v1", "v1", "legacy", "both", "both"))
    n_runs = rng.randint(1, 25)
    # run times with ties: several runs share an instant (spelled differently)
    slots = [BASE + timedelta(minutes=rng.randint(0, 10_000)) for _ in range(max(1, n_runs // 3))]
    runs = []
    for i in range(n_runs):
        rid = f"r{rng.randint(0, 999):03d}-{gid}-{i}"
        t = (
            rng.choice(slots)
            if rng.random() < 0.5
            else BASE + timedelta(seconds=rng.randint(0, 600_000))
        )
        if rng.random() < 0.1:
            t += timedelta(microseconds=rng.randint(1, 999_999))
        runs.append((rid, t))
    lines: list[tuple[datetime, dict[str, Any]]] = []
    for arch in names:
        mine = rng.sample(runs, rng.randint(1, n_runs))
        model_pool = [rng.choice(MODELS) for _ in range(rng.randint(1, 3))]
        versions = {"v1": ["v1"], "legacy": ["legacy"], "both": ["v1", "legacy"]}[mode]
        for ver in versions:
            legacy = ver == "legacy"
            shell = legacy and rng.random() < 0.7  # ArcheFlow's 15 fields vs runscore-written
            # the run_ts of the *current* line may differ from older ones (events changed)
            final = []
            for rid, t in mine:
                rt = t + timedelta(minutes=rng.randint(1, 90)) if rng.random() < 0.1 else t
                final.append((rid, rt))
            # composites are assigned in the final (run_ts, run_id) order
            scored_at: dict[str, datetime] = {}
            for rid, rt in final:
                scored_at[rid] = rt + timedelta(
                    minutes=rng.randint(0, 120), seconds=rng.randint(0, 59)
                )
            # shell lines: run_ts = ts, so the final order is by the scoring time
            if shell:
                final.sort(key=lambda x, at=scored_at: (at[x[0]], x[0]))
            else:
                final.sort(key=lambda x: (x[1], x[0]))
            comps = _composites(rng, len(final))
            for (rid, rt), comp in zip(final, comps, strict=True):
                arch_w = arch
                rec = _record(rng, rid, arch_w, comp, model_pool, legacy)
                ts = scored_at[rid]
                cur = _finish(rng, rec, ts, rt, ver, shell)
                # older lines of the same (run, archetype): earlier ts, other scores
                for _ in range(rng.choice((0, 0, 0, 1, 2))):
                    # mostly earlier; sometimes the same instant (then the later line wins)
                    same_ts = rng.random() < 0.1
                    old_ts = ts if same_ts else ts - timedelta(minutes=rng.randint(1, 5000))
                    old_rt = rt - timedelta(minutes=rng.randint(0, 3)) if not shell else old_ts
                    old = _record(rng, rid, arch_w, _score(rng), MODELS, legacy)
                    lines.append((old_ts, _finish(rng, old, old_ts, old_rt, ver, shell)))
                lines.append((ts, cur))
    return Group(lines, names)


def _finish(
    rng: random.Random, rec: dict[str, Any], ts: datetime, run_ts: datetime, ver: str, shell: bool
) -> dict[str, Any]:
    rec["ts"] = fmt_ts(ts, rng)
    if shell:
        return {k: rec[k] for k in LEGACY_FIELDS}
    cost = rec["cost_usd"]
    rec.update(
        {
            "scoring_version": LEGACY if ver == "legacy" else V1,
            "run_ts": fmt_ts(run_ts, rng),
            "cost_basis": "unknown" if cost is None else rng.choice(("observed", "estimated")),
            "cost_efficiency_norm": None
            if cost is None
            else min(1.0, (rec["cost_efficiency"] or 0) / 100),
            "findings_contradicted": 0,
            "events_sha256": f"{rng.getrandbits(64):016x}",
            "source": f".archeflow/events/{rec['run_id']}.jsonl",
        }
    )
    return rec


def history_text(rng: random.Random, groups: Sequence[Group], *, torn: bool = False) -> str:
    """Mostly appended in scoring order, with some lines out of order (clock skew,
    concurrent writers): readers must pick the latest ts, not the last line."""
    lines = [rec for group in groups for rec in group.lines]
    lines.sort(key=lambda x: x[0])
    recs = [r for _t, r in lines]
    for _ in range(len(recs) // 10):
        i, j = rng.randrange(len(recs)), rng.randrange(len(recs))
        recs[i], recs[j] = recs[j], recs[i]
    text = "".join(json.dumps(r, ensure_ascii=rng.random() < 0.5) + "\n" for r in recs)
    if torn and recs:
        text += json.dumps(recs[0])[:37]  # a torn last line: skipped and reported
    return text


def gen_team(rng: random.Random, history_names: Sequence[str]) -> str:
    """An ArcheFlow team preset: lists, archetypes: entries, model_overrides; random key order."""

    def pick(k: int) -> list[str]:
        pool = (
            list(history_names)
            + list(REVIEWERS)
            + list(NON_REVIEWERS)
            + ["Guardian", "SAGE", "Ñandú", "ÆSIR", "brand-new", "名前の審査"]
        )
        out = []
        for _ in range(k):
            n = rng.choice(pool)
            if rng.random() < 0.1 and n.isascii():
                n = n.upper()
            out.append(f" {n} " if rng.random() < 0.05 else n)
        return out

    doc: dict[str, Any] = {}
    parts = ["plan", "do", "check"]
    if rng.random() < 0.5:
        parts.append("archetypes")
    if rng.random() < 0.6:
        parts.append("model_overrides")
    rng.shuffle(parts)
    doc["name"] = f"team-{rng.randint(0, 99)}"
    for p in parts:
        if p in ("plan", "do", "check"):
            doc[p] = pick(rng.randint(0 if p != "check" else 1, 4))
        elif p == "archetypes":
            entries: list[Any] = []
            for n in pick(rng.randint(1, 4)):
                k = rng.random()
                model = rng.choice([m for m in MODELS if m is not None])
                if k < 0.3:
                    entries.append(n)
                elif k < 0.6:
                    entries.append({"name": n, "model": model})
                elif k < 0.85:
                    entries.append({"archetype": n, "model": model})
                else:
                    entries.append({"name": n})
            doc[p] = entries
        else:
            # a null override falls through to the next source of the model
            doc[p] = {n: rng.choice(MODELS) for n in pick(rng.randint(1, 3))}
    return yaml.safe_dump(doc, sort_keys=False, allow_unicode=rng.random() < 0.5)


@pytest.fixture(scope="session")
def ref() -> ModuleType:
    """This module (test files cannot import conftest under --import-mode=importlib)."""
    return sys.modules[__name__]

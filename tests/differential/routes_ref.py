"""A plain-Python reference of the routes pack (spec routes.md §1–§6), for differential tests.

Written from the spec text: each rule cites the sentence it implements (§n "…"), so a
disagreement with runscore points at the sentence to read. Where the spec is silent
("spec-silent") the reference adopts the behaviour runscore's README or SQL headers document,
so those choices are pinned too; where it can be read two ways ("reading chosen") the
reference takes one reading and tests/differential/test_routes_cases.py marks a runscore
disagreement as a strict xfail with both readings.

Loaded by tests/differential/conftest.py (the ``routes_ref`` fixture): under
``--import-mode=importlib`` test files cannot import each other.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

Z95 = 1.959963984540054

#: §3 "Configurable policy (defaults)".
DEFAULTS: dict[str, float] = {
    "tolerance": 0.05,
    "min_labelled_per_route": 30,
    "min_pairs": 20,
    "max_ci_width": 0.25,
    "freshness_days": 30,
    "min_stratum_overlap": 0.5,
}
#: §6 "blind_spot: ≥ 50 episodes for an activity with fewer than 20% labelled."
BLIND_MIN_EPISODES = 50
BLIND_MAX_SHARE = 0.20
#: spec-silent: runscore's floor of labelled episodes per side before a harness shift of a
#: model is considered (000_policy_defaults.sql harness_min_labelled_side).
HARNESS_MIN_SIDE = 10

#: §2 table. Unknown kinds count as `none` (spec-silent).
STRONG = {"gate", "qe", "review", "user"}
STRONG_NEGATIVE = {"repair", "revert", "regression", "reopened"}
MEDIUM = {"retry", "escalation", "handoff"}
WEAK = {"session_end"}
#: §2 "a strong signal whose value is a failure (`fail`, `reject`)"; the positives pass/accept
#: read from §1's value list. spec-silent: the synonyms runscore also reads.
POSITIVE = {"pass", "passed", "accept", "accepted", "approve", "approved", "success"}
POSITIVE |= {"succeeded", "ok", "green", "merged"}
NEGATIVE = {"fail", "failed", "failure", "reject", "rejected", "error", "red"}
NEGATIVE |= {"changes_requested"}
#: spec-silent: a strong-negative kind whose value says it did not happen.
NEGATION = {"none", "false", "no", "absent", "clear"}
#: §6 "Unknown cost … the model tier table (haiku < sonnet < opus, extendable)".
TIERS = {"haiku": 1, "sonnet": 2, "opus": 3}

KINDS = ("historical", "paired", "prospective")
COMPLEXITIES = ("low", "medium", "high")
STATUSES = ("succeeded", "failed", "cancelled", "timed_out", "blocked")
BASES = ("observed", "api_equivalent", "subscription", "unknown")


def r6(x: float) -> float:
    """README: every threshold comparison is made on the value rounded to 6 decimals."""
    return round(x, 6)


def stat(x: float) -> float:
    """An effect or interval end as written: at the 6 decimals it is compared at, never -0.0
    (README, routes: equal rates have an effect of 0, not float noise)."""
    return round(x, 6) + 0.0


# ---------------------------------------------------------------- reason text (README)
# A reason prints a value beside the bound it was judged against with the fewest decimals
# (from d on, up to the 6 every comparison rounds to) at which the two read apart, so a
# value judged different never reads as its bound (spec-silent: runscore's 004 macros).


def _has_digit(text: str) -> bool:
    return any(ch in "123456789" for ch in text)


def dec_vs(x: float, b: float, d: int) -> int:
    return next((k for k in range(d, 7) if f"{x:.{k}f}" != f"{b:.{k}f}"), d)


def num_vs(x: float, b: float, d: int) -> str:
    return f"{x:.{dec_vs(x, b, d)}f}"


def days(x: float) -> str:
    """An age (not negative) as English counts it, whole days counted up from the age as
    judged (spec-silent, routes' wording: more than an integer freshness_days exactly when
    the age is): "1 day" for 0.29 days, "2 days" for 1.5, "30 days" for 30."""
    n = math.ceil(r6(x))
    return f"{n} day" if n == 1 else f"{n} days"


def plural(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def signed(x: float | None) -> str:
    if x is None:
        return "unknown"
    if x == 0:
        return "0.000"
    if abs(x) >= 1e15 or not _has_digit(f"{x:.3f}"):
        return f"{x:+.3g}"
    return f"{x:+.3f}"


def signed_vs(x: float | None, b: float) -> str:
    if x is None or x == 0 or abs(x) >= 1e15 or not _has_digit(f"{x:.3f}"):
        return signed(x)
    return f"{x:+.{dec_vs(x, b, 3)}f}"


def pct_vs(x: float, b: float) -> str:
    if x != 0 and (abs(100 * x) >= 1e15 or not _has_digit(f"{100 * x:.0f}")):
        return f"{100 * x:.3g}%"
    return f"{100 * x:.{dec_vs(100 * x, 100 * b, 0)}f}%"


def usd(x: float | None) -> str:
    if x is None or not math.isfinite(x):
        return "unknown"
    if x != 0 and round(x, 4) == 0:
        return "<$0.0001" if x > 0 else ">-$0.0001"
    if abs(x) >= 1e15:
        return ("-" if x < 0 else "") + f"${abs(x):.3g}"
    return f"-${-x:.4f}" if x < 0 else f"${x:.4f}"


def _hidden(c: str) -> bool:
    """A character a message writes escaped: a control character (C1 too), a format
    character, a line or paragraph separator, a space other than the ASCII one."""
    cat = unicodedata.category(c)
    return cat in ("Cc", "Cf", "Zl", "Zp") or (cat == "Zs" and c != " ")


def _escaped(c: str) -> str:
    n = ord(c)
    if n < 0x10000:
        return f"\\u{n:04x}"
    n -= 0x10000  # as JSON writes it: its UTF-16 surrogate pair
    return f"\\u{0xD800 + (n >> 10):04x}\\u{0xDC00 + (n & 0x3FF):04x}"


def shown(name: str) -> str:
    """A name in a sentence (a reason, a headline) as every report shows a name (README:
    "a text that holds one is quoted whole, as a message quotes it"; spec-silent: runscore's
    common/v1 rs_shown): as it is, unless it holds a character written escaped or starts
    with a quote; then its JSON text, each such character written \\uXXXX."""
    if not (name.startswith('"') or any(map(_hidden, name))):
        return name
    text = json.dumps(name, ensure_ascii=False)
    # DuckDB's to_json writes an escaped control character's hex in capitals (\u001B)
    text = re.sub(r"\\(u[0-9a-f]{4}|.)", lambda m: "\\" + m[1][:1] + m[1][1:].upper(), text)
    return "".join(_escaped(c) if _hidden(c) else c for c in text)


def untimed(late: bool) -> str:
    """Evidence of unknown age, said (spec-silent): a time it has is after the as-of date
    (read as undated, evaluate), or it has none."""
    return "no evidence dated on or before the as-of date" if late else "no evidence timestamp"


def stale_reason(
    newest: dt.datetime | None, age_days: float | None, fresh_days: float
) -> str | None:
    """§4 insufficient "… or stale", said with the evidence's date and age."""
    if newest is None or age_days is None or r6(age_days) <= fresh_days:
        return None
    return (
        f"stale: newest evidence {newest:%Y-%m-%d} is {days(age_days)} old"
        f" (freshness_days {fresh_days})"
    )


# ============================================================================ §1 input


def _s(v: Any) -> str | None:
    """A string field: trimmed; empty or not a string is unknown (spec-silent)."""
    if isinstance(v, str) and v.strip():
        return v.strip()
    return None


def _ts(v: Any) -> dt.datetime | None:
    if not isinstance(v, str):
        return None
    t = dt.datetime.fromisoformat(v.strip().replace("Z", "+00:00"))
    if t.tzinfo is not None:
        t = t.astimezone(dt.UTC).replace(tzinfo=None)
    return t


@dataclass
class Ep:
    id: str
    line: int
    kind: str
    run_id: str | None
    pair_id: str | None
    activity: str
    fingerprint: str | None
    complexity: str | None
    host: str | None
    provider: str | None
    model: str | None
    harness: str | None
    started: dt.datetime | None
    ended: dt.datetime | None
    cost: float | None  # on its own basis; None = unknown (§1 "never priced by assumption")
    basis: str  # observed | api_equivalent | subscription | unknown
    retries: int | None
    repairs: int | None
    escalated: bool | None
    to_model: str | None
    label: str | None = None  # success | failure | None
    label_reason: str = ""
    after_as_of: bool = False  # dated on a later day than the clock (evaluate sets it)

    @property
    def route(self) -> tuple[str | None, str | None, str]:
        # §3 "A *route* is `(host, inferenceProvider, model)`".
        assert self.model is not None
        return (self.host, self.provider, self.model)

    @property
    def at(self) -> dt.datetime | None:
        # spec-silent: an episode is dated by its end, else its start (runscore's evidence_at);
        # one dated after the as-of date by nothing (evaluate).
        return None if self.after_as_of else self.ended or self.started


def label_of(signals: Any, status: str | None) -> tuple[str | None, str]:
    """§2 "labelled success when it has at least one strong positive signal and no strong
    negative one; labelled failure when it has a strong negative signal or a strong signal
    whose value is a failure (`fail`, `reject`); otherwise it is unlabelled. Medium/weak
    signals alone never create a label." """
    pos = neg = strong_any = mw = done = 0
    for s in signals if isinstance(signals, list) else []:
        if not isinstance(s, dict):
            continue
        kind = s.get("kind").strip().lower() if isinstance(s.get("kind"), str) else None
        value = s.get("value").strip().lower() if isinstance(s.get("value"), str) else None
        if kind in STRONG:
            strong_any += 1
            if value in POSITIVE:
                pos += 1
            elif value in NEGATIVE:
                neg += 1
        elif kind in STRONG_NEGATIVE:
            if (value or "") not in NEGATION:
                neg += 1
        elif kind in MEDIUM or kind in WEAK:
            mw += 1
        elif kind == "assistant_done":
            done += 1
    if neg:
        return "failure", "strong negative signal"
    if pos:
        return "success", "strong positive signal"
    # §2 "Permission, auth and orphaned states (`status` blocked/cancelled with no strong
    # signal) are unlabelled, never failures."
    if status in ("blocked", "cancelled"):
        return None, "blocked/cancelled without a strong signal"
    if strong_any:
        return None, "strong signal without a pass/fail value"
    if mw:
        return None, "only medium/weak signals"
    if done:
        return None, "only assistant_done (never counts)"
    return None, "no outcome signal"


def parse(lines: Sequence[dict[str, Any]]) -> tuple[list[Ep], list[tuple[int, str]]]:
    """Valid episodes and rejected (line, reason). Only the rejections the generators can
    produce are modelled (spec-silent: §1 gives the schema, not what to do with a line that
    breaks it; runscore rejects it with a reason, 010_episodes.sql)."""
    eps: list[Ep] = []
    rejects: list[tuple[int, str]] = []
    seen: set[str] = set()
    for i, d in enumerate(lines, start=1):
        src, act, task = d.get("source") or {}, d.get("activity") or {}, d.get("task") or {}
        ex, us, out = d.get("execution") or {}, d.get("usage") or {}, d.get("outcome") or {}
        eid = _s(d.get("episodeId"))
        kind = (_s(src.get("kind")) or "historical").lower()  # spec-silent: absent = historical
        complexity = (_s(task.get("complexity")) or "").lower() or None
        status = (_s(out.get("status")) or "").lower() or None
        basis_raw = (_s(us.get("costBasis")) or "unknown").lower()
        reason = None
        if eid is None:
            reason = "lacks episodeId"
        elif _s(act.get("id")) is None:
            reason = "lacks activity.id"
        elif kind not in KINDS:
            reason = "unknown source.kind"
        elif kind == "paired" and _s(src.get("pairId")) is None:
            reason = "paired episode lacks source.pairId"
        elif kind == "prospective" and _s(src.get("runId")) is None:
            reason = "prospective episode lacks source.runId"
        elif kind == "prospective" and _s(task.get("fingerprint")) is None:
            reason = "prospective episode lacks task.fingerprint"
        elif complexity is not None and complexity not in COMPLEXITIES:
            reason = "unknown task.complexity"
        elif status is not None and status not in STATUSES:
            reason = "unknown outcome.status"
        elif basis_raw not in BASES:
            reason = "unknown usage.costBasis"
        elif eid in seen:
            reason = "duplicate episodeId"
        if reason is not None:
            rejects.append((i, reason))
            continue
        assert eid is not None
        seen.add(eid)
        esc = out.get("escalation")
        escalated = esc.get("escalated") if isinstance(esc, dict) else None
        # §3 "Cost basis is carried through"; §1 "an unknown cost is never priced by
        # assumption": observed reads observedCostUsd, api_equivalent and subscription read
        # apiEquivalentCostUsd; anything missing leaves the cost unknown. No costBasis with
        # observedCostUsd the only cost given is observed (spec-silent, runscore's reading:
        # the field holds observed cash and nothing else, so that cost is stated, not assumed;
        # apiEquivalentCostUsd alone is api_equivalent or subscription: unknown).
        obs, api = us.get("observedCostUsd"), us.get("apiEquivalentCostUsd")
        if _s(us.get("costBasis")) is None and obs is not None and api is None:
            basis_raw = "observed"
        cost: float | None = None
        basis = "unknown"
        if basis_raw == "observed" and obs is not None:
            cost, basis = float(obs), "observed"
        elif basis_raw in ("api_equivalent", "subscription") and api is not None:
            cost, basis = float(api), basis_raw
        lab, why = label_of(out.get("signals"), status)
        eps.append(
            Ep(
                id=eid,
                line=i,
                kind=kind,
                run_id=_s(src.get("runId")),
                pair_id=_s(src.get("pairId")),
                activity=str(_s(act.get("id"))),
                fingerprint=_s(task.get("fingerprint")),
                complexity=complexity,
                host=_s(ex.get("host")),
                provider=_s(ex.get("inferenceProvider")),
                model=_s(ex.get("model")),
                harness=_s(ex.get("harnessFingerprint")),
                started=_ts(ex.get("startedAt")),
                ended=_ts(ex.get("endedAt")),
                cost=cost,
                basis=basis,
                # §1 "Unknown stays unknown (null)": an absent count is not 0.
                retries=out.get("retries"),
                repairs=out.get("repairs"),
                escalated=escalated if isinstance(escalated, bool) else None,
                to_model=_s(esc.get("toModel")) if isinstance(esc, dict) else None,
                label=lab,
                label_reason=why,
            )
        )
    return eps, rejects


# ============================================================================ intervals


def wilson(p: float, n: float, z: float = Z95) -> tuple[float, float]:
    d = 1 + z * z / n
    c = p + z * z / (2 * n)
    h = z * math.sqrt(max(0.0, p * (1 - p) / n + z * z / (4 * n * n)))
    return max(0.0, (c - h) / d), min(1.0, (c + h) / d)


def newcombe(p1: float, n1: float, p0: float, n0: float) -> tuple[float, float]:
    """§3 "a 95% confidence interval (document the method; Newcombe/Wilson-based …)":
    Newcombe's hybrid score interval (spec-silent which one: runscore's, method 10)."""
    l1, u1 = wilson(p1, n1)
    l0, u0 = wilson(p0, n0)
    d = p1 - p0
    return d - math.hypot(p1 - l1, u0 - p0), d + math.hypot(u1 - p1, p0 - l0)


def mh(cells: Sequence[tuple[int, int, int, int]]) -> dict[str, float] | None:
    """§3 "stratified difference in success rate (candidate − incumbent), combining strata
    with Mantel–Haenszel weights". cells: (n1, x1, n0, x0) per stratum, in stratum order.
    The interval: Newcombe on the MH-weighted rates with Kish effective sizes (spec-silent:
    runscore's documented method, 004_interval_macros.sql)."""
    cells = [c for c in cells if c[0] > 0 and c[2] > 0]
    if not cells:
        return None
    w = [n1 * n0 / (n1 + n0) for n1, _, n0, _ in cells]
    sw = sum(w)
    p1 = sum(wi * x1 / n1 for wi, (n1, x1, _, _) in zip(w, cells, strict=True)) / sw
    p0 = sum(wi * x0 / n0 for wi, (_, _, n0, x0) in zip(w, cells, strict=True)) / sw
    ne1 = sw * sw / sum(wi * wi / n1 for wi, (n1, _, _, _) in zip(w, cells, strict=True))
    ne0 = sw * sw / sum(wi * wi / n0 for wi, (_, _, n0, _) in zip(w, cells, strict=True))
    lo, hi = newcombe(p1, ne1, p0, ne0)
    return {
        "n1": sum(c[0] for c in cells),
        "x1": sum(c[1] for c in cells),
        "n0": sum(c[2] for c in cells),
        "x0": sum(c[3] for c in cells),
        "p1": stat(p1),
        "p0": stat(p0),
        "effect": stat(p1 - p0),
        "ci_low": stat(lo),
        "ci_high": stat(hi),
        "ci_width": stat(stat(hi) - stat(lo)),
        "strata": len(cells),
    }


def paired_ci(a: int, b: int, c: int, d: int) -> tuple[float, float]:
    """§3 "compare with a paired method on discordant pairs (exact/McNemar-style), with its own
    interval" — spec-silent which: runscore's Newcombe method 10 for paired proportions."""
    n = a + b + c + d
    p1, p0 = (a + b) / n, (a + c) / n
    l1, u1 = wilson(p1, n)
    l0, u0 = wilson(p0, n)
    den = (a + b) * (c + d) * (a + c) * (b + d)
    phi = (a * d - b * c) / math.sqrt(den) if den > 0 else 0.0
    eff = (b - c) / n
    lo = eff - math.sqrt(
        max(0.0, (p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u0 - p0) + (u0 - p0) ** 2)
    )
    hi = eff + math.sqrt(
        max(0.0, (u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p0 - l0) + (p0 - l0) ** 2)
    )
    return lo, hi


# ============================================================================ §3 cost


def tier(model: str | None, extra: dict[str, int] | None = None) -> int | None:
    """§6 the tier table; spec-silent: a model's lower-cased id containing a name has its tier,
    the longest name winning."""
    if model is None:
        return None
    table = {**TIERS, **(extra or {})}
    hits = [(len(k), k) for k in table if k in model.lower()]
    return table[max(hits)[1]] if hits else None


@dataclass
class Total:
    accepted: bool
    cost: float | None
    basis: str


def totals(eps: Sequence[Ep]) -> dict[str, Total]:
    """§3 "Net route value per route: cost per accepted outcome, counting every attempt, retry
    and escalation cost"; §6 "an attempt that escalated has `outcome.escalation.escalated =
    true`, and the next attempt runs on `toModel`. An episode's `usage` covers that attempt
    with its retries." An escalated episode is priced with its follow-up (same activity,
    runId, fingerprint, model = toModel, not started before it) and accepted when that
    follow-up succeeded (spec-silent: README "Costs are per accepted outcome (a success, or an
    escalation whose follow-up attempt succeeded)"). Unknown whenever a part is (§1)."""
    out: dict[str, Total] = {}
    for e in eps:
        ok = e.label == "success"
        if e.escalated is None:
            out[e.id] = Total(ok, None, "unknown")
            continue
        if not e.escalated:
            out[e.id] = Total(ok, e.cost, e.basis)
            continue
        fol = [
            f
            for f in eps
            if e.run_id is not None
            and f.activity == e.activity
            and f.run_id == e.run_id
            and f.fingerprint == e.fingerprint
            and e.fingerprint is not None
            and f.model == e.to_model
            and f.id != e.id
            and (e.started is None or f.started is None or f.started >= e.started)
        ]
        ok = ok or any(f.label == "success" for f in fol)
        bases = {f.basis for f in fol}
        if not fol or any(f.cost is None for f in fol) or e.cost is None:
            out[e.id] = Total(ok, None, "unknown")
        elif bases == {e.basis}:
            out[e.id] = Total(ok, e.cost + sum(f.cost or 0.0 for f in fol), e.basis)
        else:
            out[e.id] = Total(ok, None, "mixed")
    return out


def per_accepted(ts: Sequence[Total]) -> tuple[str, float | None, int, int]:
    """(basis, cost per accepted, accepted, unknown-cost episodes). §3 "observed cash,
    API-equivalent and subscription capacity are never added together"."""
    bases = {t.basis for t in ts}
    acc = sum(t.accepted for t in ts)
    unknown = sum(t.cost is None for t in ts)
    basis = (
        "unknown" if "unknown" in bases or not ts else (bases.pop() if len(bases) == 1 else "mixed")
    )
    if unknown == 0 and basis not in ("unknown", "mixed") and acc > 0:
        return basis, sum(t.cost or 0.0 for t in ts) / acc, acc, unknown
    return basis, None, acc, unknown


# ============================================================================ results


@dataclass
class Result:
    rejects: list[tuple[int, str]]
    comparisons: list[dict[str, Any]] = field(default_factory=list)
    cascades: list[dict[str, Any]] = field(default_factory=list)
    matrix: list[dict[str, Any]] = field(default_factory=list)
    #: (type, activity, grade, drift_of, candidate model, incumbent model, reasons: those of
    #: the comparison or cascade it comes from, as its why carries them; () for the others,
    #: freshness.stale)
    findings: list[tuple[Any, ...]] = field(default_factory=list)


def _key(v: str | None) -> tuple[int, str]:
    return (v is None, v or "")


def _route_order(r: tuple[str | None, str | None, str]) -> tuple[Any, ...]:
    return (_key(r[0]), _key(r[1]), r[2])


def evaluate(
    lines: Sequence[dict[str, Any]],
    as_of: dt.datetime,
    policy: dict[str, float] | None = None,
    incumbents: dict[str, str] | None = None,
    model_changed_reading: bool = False,
) -> Result:
    """The spec's output for ``lines`` at the clock ``as_of``.

    ``model_changed_reading``: §5 evidence_drift "or the model/harness changed since" — read
    (when True) as "the activity's newest episode runs on a model the evidence does not
    cover" (as its harness rule); runscore's reading (False) is that a route is its model
    (§3), so a new model is a new route with its own comparison, not a drift of this one."""
    pol = {**DEFAULTS, **(policy or {})}
    tol, min_lab, fresh_days = (
        pol["tolerance"],
        pol["min_labelled_per_route"],
        pol["freshness_days"],
    )
    eps, rejects = parse(lines)
    for e in eps:
        # spec-silent (§6 Clock measures freshness against --as-of, nothing of times after
        # it): an episode dated on a later day than the clock's is no evidence as of it; it
        # counts, undated, so it makes nothing fresh. One of the clock's own day does date it
        # (the default clock is today at 00:00).
        t = e.ended or e.started
        e.after_as_of = t is not None and t.date() > as_of.date()
    res = Result(rejects)
    tot = totals(eps)
    by_act: dict[str, list[Ep]] = defaultdict(list)
    for e in eps:
        by_act[e.activity].append(e)

    def age(t: dt.datetime | None) -> float | None:
        return None if t is None else (as_of - t).total_seconds() / 86400.0

    def stale_of(t: dt.datetime | None) -> bool:
        # §5 evidence_drift "the newest supporting evidence is older than `freshness_days`";
        # §6 Clock "Freshness is measured against `--as-of`". Evidence dated after the clock is
        # not older than anything: fresh (the default clock is today 00:00, so today's
        # episodes are later than it). spec-silent: undated evidence is stale (unknown
        # freshness is not fresh).
        a = age(t)
        return a is None or r6(a) > fresh_days

    harness_acts = harness_changes(by_act, tol, min_lab)
    for fnd in harness_acts:
        # §5 evidence_drift "the newest supporting evidence is older than freshness_days", for
        # a harness shift as for every finding backed by evidence; it keeps its grade (§6).
        if stale_of(fnd["newest"]):
            res.findings.append(
                (
                    "evidence_drift",
                    fnd["activity"],
                    fnd["grade"],
                    "harness_change",
                    None,
                    None,
                    (),
                    True,
                )
            )
        else:
            res.findings.append(
                ("harness_change", fnd["activity"], fnd["grade"], None, None, None, (), False)
            )
    capped = {f["activity"] for f in harness_acts}

    for act in sorted(by_act):
        aeps = by_act[act]
        # spec-silent: an episode of unknown model is in no route (it has its matrix row).
        routes: dict[tuple[Any, ...], list[Ep]] = defaultdict(list)
        for e in aeps:
            if e.model is not None:
                routes[e.route].append(e)
        now = max(aeps, key=lambda e: (e.at is not None, e.at or dt.datetime.min, e.id))
        current_harness = now.harness
        if routes:
            # §6 "Incumbent. The route with the most labelled episodes for the activity (ties:
            # most episodes, then lexicographic order); a policy file may name it."

            def most_labelled(r: tuple[Any, ...], routes: dict[Any, list[Ep]] = routes) -> Any:
                return (
                    -sum(e.label is not None for e in routes[r]),
                    -len(routes[r]),
                    _route_order(r),
                )

            ranked = sorted(routes, key=most_labelled)
            inc = ranked[0]
            # spec-silent: which rule of that order set the incumbent apart from the runner-up
            # (runscore's incumbent.source, README), or the policy file's naming it.
            first, second = (most_labelled(r) for r in (ranked + ranked)[:2])
            inc_source = (
                "most labelled episodes"
                if len(ranked) == 1 or first[0] < second[0]
                else "most episodes (tie on labelled episodes)"
                if first[1] < second[1]
                else "lexicographic order (tie on labelled and total episodes)"
            )
            if incumbents and act in incumbents:
                named = [r for r in routes if r[2] == incumbents[act]]
                if named:  # a policy file's incumbent: of its routes, the same order
                    inc = min(named, key=most_labelled)
                    inc_source = "configured"
            for cand in sorted(routes, key=_route_order):
                if cand == inc:
                    continue
                c = compare(act, inc, cand, routes, tot, pol, current_harness, stale_of, age)
                c["incumbent_source"] = inc_source
                if (
                    model_changed_reading
                    and c["evidence_episodes"]
                    and now.model not in (inc[2], cand[2])
                ):
                    c["harness_drift"] = True
                c["harness_capped"] = act in capped
                # §6 "harness_change is observed or correlated" and §4 "A finding never uses
                # the language of a higher grade": a comparison in an activity with a harness
                # change is at most observed (spec-silent: runscore's cap).
                g = c["evidence_grade"]
                c["grade"] = (
                    "insufficient"
                    if c["stale"]
                    else (
                        "observed" if c["harness_capped"] and g in ("correlated", "verified") else g
                    )
                )
                w = c["would_be_type"]
                c["finding_type"] = (
                    None
                    if w is None
                    else "evidence_drift"
                    if c["stale"] or c["harness_drift"]
                    else None
                    if c["harness_capped"]
                    else w
                )
                c["candidate_route"] = cand
                # spec-silent (runscore's 080): the harness change's reason comes between the
                # evidence's and those of the finding it keeps from being claimed.
                capped_why = [
                    "a harness change in this activity moved several models; no route"
                    " attribution until the shift is separated"
                ]
                c["reasons"] = (
                    c.pop("reasons_head")
                    + (capped_why if c["harness_capped"] else [])
                    + c.pop("reasons_tail")
                )
                res.comparisons.append(c)
                if c["finding_type"] is not None:
                    drift = c["finding_type"] == "evidence_drift"
                    res.findings.append(
                        (
                            c["finding_type"],
                            act,
                            c["evidence_grade"] if drift else c["grade"],
                            w if drift else None,
                            cand[2],
                            inc[2],
                            tuple(c["reasons"]),
                            c["stale"],
                        )
                    )
            res.cascades += cascades(
                act, aeps, routes, inc, tot, pol, stale_of, current_harness, age
            )
        for cs in res.cascades:
            if cs["activity"] == act and cs["finding_type"] is not None:
                drift = cs["finding_type"] == "evidence_drift"
                res.findings.append(
                    (
                        cs["finding_type"],
                        act,
                        cs["evidence_grade"] if drift else cs["grade"],
                        cs["would_be_type"] if drift else None,
                        cs["entry_model"],
                        cs["target_model"],
                        tuple(cs["reasons"]),
                        cs["stale"],
                    )
                )
        # §6 "blind_spot: ≥ 50 episodes for an activity with fewer than 20% labelled";
        # "blind_spot is insufficient".
        n_lab = sum(e.label is not None for e in aeps)
        if len(aeps) >= BLIND_MIN_EPISODES and r6(n_lab / len(aeps)) < BLIND_MAX_SHARE:
            # §6 Clock and freshness_days, of the activity's newest episode (its evidence is
            # its episodes). spec-silent: with no dated episode its freshness is unknown (None),
            # not stale as a comparison's is: a blind spot recommends nothing to keep back.
            newest = max((e.at for e in aeps if e.at is not None), default=None)
            res.findings.append(
                (
                    "blind_spot",
                    act,
                    "insufficient",
                    None,
                    None,
                    None,
                    (),
                    None if newest is None else stale_of(newest),
                )
            )
        res.matrix += matrix(
            act,
            aeps,
            tot,
            pol,
            stale_of,
            [c for c in res.comparisons if c["activity"] == act],
            [c for c in res.cascades if c["activity"] == act],
        )
    return res


def compare(
    act: str,
    inc: tuple[Any, ...],
    cand: tuple[Any, ...],
    routes: dict[tuple[Any, ...], list[Ep]],
    tot: dict[str, Total],
    pol: dict[str, float],
    current_harness: str | None,
    stale_of: Any,
    age: Any,
) -> dict[str, Any]:
    tol, min_lab, min_pairs = pol["tolerance"], pol["min_labelled_per_route"], pol["min_pairs"]
    max_w, min_ov = pol["max_ci_width"], pol["min_stratum_overlap"]

    # §3 "Strata: (activity, complexity, harnessFingerprint). Only strata in which both routes
    # have labelled episodes are compared." Reading chosen: the strata are the historical
    # episodes' (§4 "matched historical strata"); paired ones are compared pair by pair.
    def cells(r: tuple[Any, ...]) -> dict[tuple[Any, Any], list[Ep]]:
        out: dict[tuple[Any, Any], list[Ep]] = defaultdict(list)
        for e in routes[r]:
            if e.kind == "historical":
                out[(e.complexity, e.harness)].append(e)
        return out

    cc, ci = cells(cand), cells(inc)

    def nlab(es: Iterable[Ep]) -> int:
        return sum(e.label is not None for e in es)

    def nsucc(es: Iterable[Ep]) -> int:
        return sum(e.label == "success" for e in es)

    strata = sorted(
        (s for s in cc if s in ci and nlab(cc[s]) > 0 and nlab(ci[s]) > 0),
        key=lambda s: (_key(s[0]), _key(s[1])),
    )
    h = mh([(nlab(cc[s]), nsucc(cc[s]), nlab(ci[s]), nsucc(ci[s])) for s in strata])

    # §6 "Overlap. The share of a route's *labelled* episodes that fall in compared strata."
    def overlap(cs: dict[Any, list[Ep]]) -> float | None:
        total = sum(nlab(v) for v in cs.values())
        return None if total == 0 else sum(nlab(cs[s]) for s in strata) / total

    ov_c, ov_i = overlap(cc), overlap(ci)
    c_lab = h["n1"] if h else 0
    i_lab = h["n0"] if h else 0
    # §4 insufficient "below minimum labelled evidence, CI wider than `max_ci_width`, overlap
    # below `min_stratum_overlap`"
    hist_ok = bool(
        h
        and c_lab >= min_lab
        and i_lab >= min_lab
        and r6(h["ci_width"]) <= max_w
        and ov_c is not None
        and r6(ov_c) >= min_ov
        and ov_i is not None
        and r6(ov_i) >= min_ov
    )

    # §3 "Paired evidence: episodes sharing a `pairId` ran the same frozen fixture on both
    # routes". spec-silent: each route's first labelled paired episode of a pairId represents
    # it (by start, then id).
    def picks(r: tuple[Any, ...]) -> dict[str, Ep]:
        out: dict[str, Ep] = {}
        for e in sorted(
            (e for e in routes[r] if e.kind == "paired" and e.label is not None),
            key=lambda e: (e.started is None, e.started or dt.datetime.min, e.id),
        ):
            assert e.pair_id is not None
            out.setdefault(e.pair_id, e)
        return out

    pc, pi = picks(cand), picks(inc)
    shared = sorted(set(pc) & set(pi))
    n_pairs = len(shared)
    ab = Counter((pc[p].label == "success", pi[p].label == "success") for p in shared)
    a, b, c_, d = ab[(True, True)], ab[(True, False)], ab[(False, True)], ab[(False, False)]
    p_eff = p_lo = p_hi = None
    if n_pairs:
        p_eff = stat((b - c_) / n_pairs)
        p_lo, p_hi = (stat(x) for x in paired_ci(a, b, c_, d))
    # §4 "min_pairs"; "CI wider than max_ci_width".
    paired_ok = bool(
        n_pairs >= min_pairs and p_lo is not None and p_hi is not None and r6(p_hi - p_lo) <= max_w
    )

    # The evidence behind the comparison: every historical episode of either route in a
    # compared stratum, and the paired picks (spec-silent: runscore's evidence set).
    hist_ev = [e for s in strata for e in cc[s] + ci[s]]
    pair_ev = [pc[p] for p in shared] + [pi[p] for p in shared]

    # §4 insufficient "… or stale"; §5 evidence_drift "or the model/harness changed since".
    # spec-silent: paired evidence outranks the historical strata, but not once it is stale or
    # misses the current harness while sufficient historical strata are neither.
    def current(es: Sequence[Ep]) -> bool:
        dated = [e.at for e in es if e.at is not None]
        return bool(
            dated
            and not stale_of(max(dated))
            and (current_harness is None or any(e.harness == current_harness for e in es))
        )

    paired_decides = paired_ok and (current(pair_ev) or not (hist_ok and current(hist_ev)))
    source = "paired" if paired_decides else "historical" if hist_ok else None
    lo = hi = None
    if source == "paired":
        lo, hi = p_lo, p_hi
    elif source == "historical" and h:
        lo, hi = h["ci_low"], h["ci_high"]
    # §3 "Non-inferiority: the candidate is non-inferior when the lower bound of the effect is
    # ≥ −tolerance"; §5/§6 premium_justified "lower bound > 0".
    if source is None or lo is None or hi is None:
        conclusion = "insufficient"
    elif r6(lo) > 0:
        conclusion = "candidate_better"
    elif r6(hi) < 0:
        conclusion = "incumbent_better"
    elif r6(lo) >= -tol:
        conclusion = "non_inferior"
    else:
        conclusion = "inconclusive"
    # §4: verified = paired evidence passes; correlated = matched historical strata pass;
    # observed = descriptive statistics only; insufficient = below the minimums.
    evidence_grade = {
        "insufficient": "insufficient",
        "inconclusive": "observed",
    }.get(conclusion, "verified" if source == "paired" else "correlated")

    # §5 evidence_drift "the newest supporting evidence": that of the part that decides
    # (spec-silent which when none decides: all of it).
    deciding = (
        pair_ev if source == "paired" else hist_ev if source == "historical" else hist_ev + pair_ev
    )
    dated = [e.at for e in deciding if e.at is not None]
    newest = max(dated) if dated else None
    stale = stale_of(newest)
    # §5 "or the model/harness changed since": the activity's current harness (that of its
    # newest episode) is not among the deciding evidence's harnesses.
    # spec-silent: with no evidence at all there is nothing to have drifted (runscore: false).
    harness_drift = bool(
        hist_ev + pair_ev
        and current_harness is not None
        and all(e.harness != current_harness for e in deciding)
    )

    cand_ids = {e.id for e in routes[cand]}
    side = {
        "candidate": [e for e in hist_ev + pair_ev if e.id in cand_ids],
        "incumbent": [e for e in hist_ev + pair_ev if e.id not in cand_ids],
    }
    cost: dict[str, Any] = {}
    for role, es in side.items():
        basis, per, acc, unk = per_accepted([tot[e.id] for e in es])
        cost[role] = {"basis": basis, "per_accepted": per, "accepted": acc, "unknown": unk}
    cb, ib = cost["candidate"]["basis"], cost["incumbent"]["basis"]
    basis = "unknown" if "unknown" in (cb, ib) else cb if cb == ib else "mixed"
    cpa, ipa = cost["candidate"]["per_accepted"], cost["incumbent"]["per_accepted"]
    ct, it = tier(cand[2]), tier(inc[2])
    # §6 "Unknown cost … "cheaper" then rests only on the model tier table".
    cheaper_by: str | None = None
    same_cost = False
    if basis not in ("unknown", "mixed") and cpa is not None and ipa is not None:
        if r6(cpa) != r6(ipa):
            cheaper_by = "cost"
        else:
            same_cost = True
    elif ct is not None and it is not None and ct != it:
        cheaper_by = "tier"
    cheaper_route = None
    if cheaper_by == "cost":
        cheaper_route = "candidate" if cpa < ipa else "incumbent"
    elif cheaper_by == "tier":
        cheaper_route = "candidate" if ct < it else "incumbent"

    # §6 premium_justified "the pricier route's success rate exceeds the cheaper's with the
    # interval's lower bound > 0, or its repair + escalation rate is lower with the interval's
    # upper bound < 0". The repair+escalation ground needs enough episodes reporting both
    # (spec-silent: runscore's re_sufficient) — modelled from the same strata.
    def re_cells(r: dict[Any, list[Ep]]) -> list[tuple[int, int]]:
        out = []
        for s in strata:
            known = [e for e in r[s] if e.repairs is not None and e.escalated is not None]
            out.append((len(known), sum(bool(e.repairs) or bool(e.escalated) for e in known)))
        return out

    re = mh(
        [(n1, x1, n0, x0) for (n1, x1), (n0, x0) in zip(re_cells(cc), re_cells(ci), strict=True)]
    )
    re_ok = bool(hist_ok and re and re["n1"] >= min_lab and re["n0"] >= min_lab)
    premium_by = None
    if cheaper_route == "candidate" and conclusion == "incumbent_better":
        premium_by = "success_rate"
    elif cheaper_route == "incumbent" and conclusion == "candidate_better":
        premium_by = "success_rate"
    elif (
        re_ok
        and re
        and cheaper_route == "candidate"
        and r6(re["ci_low"]) > 0
        and conclusion != "candidate_better"
    ):
        premium_by = "repair_escalation"
    elif (
        re_ok
        and re
        and cheaper_route == "incumbent"
        and r6(re["ci_high"]) < 0
        and conclusion in ("candidate_better", "non_inferior")
    ):
        premium_by = "repair_escalation"
    # §5 cheaper_equivalent "a cheaper candidate is non-inferior at grade ≥ correlated".
    would_be = None
    if evidence_grade in ("correlated", "verified"):
        if premium_by is not None:
            would_be = "premium_justified"
        elif cheaper_route == "candidate" and conclusion in ("non_inferior", "candidate_better"):
            would_be = "cheaper_equivalent"
    # §6 "Output … the reasons for that grade, including insufficient ones": each minimum the
    # evidence misses, which evidence decides, the verdict against its bound, freshness.
    # spec-silent: the wording is runscore's (080); harness_capped's reason and those after
    # it are added once the activity's harness change is known (evaluate).
    fd = pol["freshness_days"]
    c_tot, i_tot = (sum(nlab(v) for v in cs.values()) for cs in (cc, ci))
    p_width = None if p_lo is None or p_hi is None else stat(p_hi - p_lo)
    why: list[str | None] = []
    if not strata:
        why.append(
            "no (complexity, harness) stratum where both routes have labelled historical episodes"
        )
        for role, n in (("candidate", c_tot), ("incumbent", i_tot)):
            if n < min_lab:
                why.append(
                    f"{role} has {plural(n, 'labelled historical episode')} (minimum {min_lab})"
                )
    else:
        for role, n in (("candidate", c_lab), ("incumbent", i_lab)):
            if n < min_lab:
                why.append(
                    f"{role} has {plural(n, 'labelled episode')} in compared strata"
                    f" (minimum {min_lab})"
                )
    if h and r6(h["ci_width"]) > max_w:
        w = h["ci_width"]
        why.append(
            f"historical 95% CI width {num_vs(w, max_w, 3)} exceeds max_ci_width"
            f" {num_vs(max_w, w, 3)}"
        )
    for role, ov in (("candidate", ov_c), ("incumbent", ov_i)):
        if ov is not None and r6(ov) < min_ov:
            why.append(
                f"{role} overlap {pct_vs(ov, min_ov)} of its labelled episodes is below"
                f" min_stratum_overlap {pct_vs(min_ov, ov)}"
            )
    if 0 < n_pairs < min_pairs:
        why.append(f"paired fixtures: {n_pairs} (minimum {min_pairs} for paired evidence)")
    if n_pairs >= min_pairs and p_width is not None and r6(p_width) > max_w:
        why.append(
            f"paired 95% CI width {num_vs(p_width, max_w, 3)} exceeds max_ci_width"
            f" {num_vs(max_w, p_width, 3)}"
        )
    if paired_decides and hist_ok:
        why.append("paired evidence outranks the historical strata and decides the verdict")
    if paired_ok and not paired_decides:
        p_dated = [e.at for e in pair_ev if e.at is not None]
        p_newest = max(p_dated) if p_dated else None
        p_age = age(p_newest)
        if p_newest is None and any(e.after_as_of for e in pair_ev):
            aside = "none of its fixtures is dated on or before the as-of date"
        elif p_newest is None:
            aside = "its fixtures carry no timestamp"
        elif stale_of(p_newest):
            aside = (
                f"its newest fixture {p_newest:%Y-%m-%d} is {days(p_age)} old (freshness_days {fd})"
            )
        else:
            aside = (
                f"it does not cover harness {shown(current_harness)}, which the activity now"
                " runs on"
            )
        why.append(
            f"paired evidence set aside: {aside}; the historical strata are sufficient and"
            " current, and decide the verdict"
        )
    if conclusion == "non_inferior":
        assert lo is not None
        why.append(
            f"non-inferior: lower bound {signed_vs(lo, -tol)} ≥ -tolerance -{num_vs(tol, -lo, 3)}"
        )
    elif conclusion == "candidate_better":
        why.append(f"candidate better: lower bound {signed(lo)} above 0")
    elif conclusion == "incumbent_better":
        why.append(f"incumbent better: upper bound {signed(hi)} below 0")
    elif conclusion == "inconclusive":
        assert lo is not None
        why.append(
            f"not shown non-inferior: lower bound {signed_vs(lo, -tol)} below -tolerance"
            f" -{num_vs(tol, -lo, 3)}"
        )
    if newest is None and source is not None:
        late = any(e.after_as_of for e in deciding)
        why.append(f"{untimed(late)}: freshness unknown, treated as stale")
    why.append(stale_reason(newest, age(newest), fd))
    if (
        source is not None
        and current_harness is not None
        and all(e.harness != current_harness for e in deciding)
    ):
        why.append(
            f"harness changed since: the activity now runs on {shown(current_harness)}, absent"
            " from the evidence"
        )
    tail: list[str | None] = []
    if would_be is None and evidence_grade in ("correlated", "verified") and cheaper_by is None:
        tail.append(
            "both routes cost the same per accepted outcome: neither is cheaper"
            if same_cost
            else "neither cost nor the model tier table says which route is cheaper"
        )
    if premium_by == "repair_escalation":
        tail.append(
            "the pricier route has materially fewer repairs/escalations (upper bound below 0)"
        )
    if hist_ok and not re_ok:
        tail.append(
            "repairs/escalations not compared: episodes reporting both, in strata where both"
            f" routes have some: candidate {re['n1'] if re else 0}, incumbent"
            f" {re['n0'] if re else 0} (minimum {min_lab})"
        )
    return {
        "activity": act,
        "incumbent": inc[2],
        "candidate": cand[2],
        "reasons_head": [x for x in why if x is not None],
        "reasons_tail": [x for x in tail if x is not None],
        "strata": [
            (s[0], s[1], nlab(cc[s]), nsucc(cc[s]), nlab(ci[s]), nsucc(ci[s])) for s in strata
        ],
        "candidate_overlap": ov_c,
        "incumbent_overlap": ov_i,
        "hist_effect": h["effect"] if h else None,
        "hist_ci_low": h["ci_low"] if h else None,
        "hist_ci_high": h["ci_high"] if h else None,
        "hist_sufficient": hist_ok,
        "pairs": n_pairs,
        "paired_effect": p_eff,
        "paired_counts": (a, b, c_, d) if n_pairs else (None, None, None, None),
        "paired_ci_low": p_lo,
        "paired_ci_high": p_hi,
        "paired_sufficient": paired_ok,
        "evidence_source": source,
        "conclusion": conclusion,
        "evidence_grade": evidence_grade,
        "newest_evidence": newest,
        "stale": stale,
        "harness_drift": harness_drift,
        "cost_basis": basis,
        "cheaper_route": cheaper_route,
        "cheaper_by": cheaper_by,
        "same_cost": same_cost,
        "candidate_per_accepted": cpa,
        "incumbent_per_accepted": ipa,
        # A count over the evidence is known even when the evidence is empty: 0 (§1 "unknown
        # stays unknown" is about what the input does not say).
        "candidate_accepted": cost["candidate"]["accepted"],
        "incumbent_accepted": cost["incumbent"]["accepted"],
        "candidate_unknown_cost_episodes": cost["candidate"]["unknown"],
        "incumbent_unknown_cost_episodes": cost["incumbent"]["unknown"],
        "premium_by": premium_by,
        "would_be_type": would_be,
        "evidence_episodes": len({e.id for e in hist_ev + pair_ev}),
    }


# ============================================================================ cascades


def cascades(
    act: str,
    aeps: Sequence[Ep],
    routes: dict[tuple[Any, ...], list[Ep]],
    inc: tuple[Any, ...],
    tot: dict[str, Total],
    pol: dict[str, float],
    stale_of: Any,
    current_harness: str | None,
    age: Any,
) -> list[dict[str, Any]]:
    """§6 "Operations and attempts. Prospective episodes of one operation share `source.runId`
    and `task.fingerprint` … The cost of an operation is the sum over its attempts; the
    route's net value is total cost over accepted operations." §5 cascade_working / escalation_tax.
    """
    tol, min_lab, max_w = pol["tolerance"], pol["min_labelled_per_route"], pol["max_ci_width"]
    ops: dict[tuple[Any, Any], list[Ep]] = defaultdict(list)
    for e in aeps:
        if e.kind == "prospective" and e.model is not None:
            ops[(e.run_id, e.fingerprint)].append(e)
    by_entry: dict[tuple[Any, ...], list[dict[str, Any]]] = defaultdict(list)
    # A cascade's follow-ups: attempts after the first of an operation begun on another
    # route. spec-silent (runscore's reading of §5 "net saving"): the saving is the cascade's
    # against the target run directly; a follow-up is the cascade's own cost and outcome, run
    # only on a task a cheaper attempt gave up on, so it is no part of the target's baseline.
    follow_ups: set[str] = set()
    for atts in ops.values():
        atts.sort(key=lambda e: (e.started is None, e.started or dt.datetime.min, e.id))
        follow_ups |= {e.id for e in atts[1:] if e.route != atts[0].route}
        ids = {e.id for e in atts}
        esc_known = all(e.escalated is not None for e in atts)
        escalated = True if any(e.escalated for e in atts) else False if esc_known else None
        ret_known = all(e.retries is not None for e in atts)
        retried = True if any((e.retries or 0) > 0 for e in atts) else False if ret_known else None
        # An escalation whose follow-up is not in the operation, or a last attempt that does
        # not say whether it escalated, leaves the sum over the attempts unknown (§1).
        missing = any(
            e.escalated
            and not any(
                f.id in ids
                and f.id != e.id
                and f.model == e.to_model
                and (e.started is None or f.started is None or f.started >= e.started)
                for f in atts
            )
            for e in atts
        )
        bases = {e.basis for e in atts}
        unknown = any(e.cost is None for e in atts) or missing or atts[-1].escalated is None
        cost = None if unknown or len(bases) != 1 else sum(e.cost or 0.0 for e in atts)
        basis = (
            "unknown"
            if unknown or "unknown" in bases
            else (next(iter(bases)) if len(bases) == 1 else "mixed")
        )
        by_entry[atts[0].route].append(
            {
                "final": atts[-1].route,
                "label": atts[-1].label,
                "escalations": sum(bool(e.escalated) for e in atts),
                "escalated": escalated,
                "retried": retried,
                "attempts": len(atts),
                "cost": cost,
                "basis": basis,
                "newest": max((e.at for e in atts if e.at is not None), default=None),
                "late": any(e.after_as_of for e in atts),
                "harnesses": {e.harness for e in atts},
                "attempt_unknown": any(e.cost is None for e in atts),
                "missing": missing,
                "final_unreported": atts[-1].escalated is None,
            }
        )
    out = []
    for entry in sorted(by_entry, key=lambda r: json.dumps(list(r), separators=(",", ":"))):
        os_ = by_entry[entry]
        finals = Counter(o["final"] for o in os_ if o["escalations"] > 0 and o["final"] != entry)
        target = (
            min(finals, key=lambda r: (-finals[r], json.dumps(list(r), separators=(",", ":"))))
            if finals
            else (inc if inc != entry else None)
        )
        if target is None:
            continue
        labelled = sum(o["label"] is not None for o in os_)
        accepted = sum(o["label"] == "success" for o in os_)
        unk_ops = sum(o["cost"] is None for o in os_)
        bases = {o["basis"] for o in os_}
        c_basis = "unknown" if unk_ops else (bases.pop() if len(bases) == 1 else "mixed")
        c_per = (
            sum(o["cost"] for o in os_) / accepted
            if unk_ops == 0 and c_basis not in ("mixed", "unknown") and accepted
            else None
        )
        direct_eps = [e for e in routes[target] if e.id not in follow_ups]
        t_basis, t_per, _, _ = per_accepted([tot[e.id] for e in direct_eps])
        basis = (
            c_basis
            if c_basis == t_basis and c_basis not in ("unknown", "mixed")
            else "unknown"
            if "unknown" in (c_basis, t_basis)
            else "mixed"
        )
        net = (
            t_per - c_per
            if basis not in ("unknown", "mixed") and t_per is not None and c_per is not None
            else None
        )
        rate = accepted / labelled if labelled else None
        t_lab = sum(e.label is not None for e in direct_eps)
        t_rate = sum(e.label == "success" for e in direct_eps) / t_lab if t_lab else None
        meets = False
        # README: a rate and its interval are written at the 6 decimals they are judged at
        # (the width judged is that of the ends as written); computed from the exact rate.
        acc_lo = acc_hi = None
        if rate is not None:
            acc_lo, acc_hi = (stat(x) for x in wilson(rate, labelled))
            meets = labelled >= min_lab and r6(acc_hi - acc_lo) <= max_w
        bar = False
        q_eff = q_lo = q_hi = None
        if rate is not None and t_rate is not None:
            # §3 "Effect … with a 95% confidence interval": acceptance − the target's rate,
            # written at 6 decimals as every effect (README), from the exact rates.
            q_eff = stat(rate - t_rate)
            q_lo, q_hi = (stat(x) for x in newcombe(rate, labelled, t_rate, t_lab))
            bar = r6(q_lo) >= -tol
        newest = max((o["newest"] for o in os_ if o["newest"] is not None), default=None)
        stale = stale_of(newest)
        esc_ops = sum(o["escalated"] is True for o in os_)
        ret_ops = sum(o["retried"] is True for o in os_)
        # §6 "cascade_working/escalation_tax carry the grade of the prospective evidence
        # (`proven` when it meets the minimums, else `insufficient`)"; §4 proven "keeping the
        # quality bar".
        ev_grade = (
            "proven" if meets and net is not None and (r6(net) <= 0 or bar) else "insufficient"
        )
        grade = ev_grade if not stale else "insufficient"
        # §5 escalation_tax "escalations and retries erase the saving": the saving the
        # first-attempt successes alone would have made (operations of one attempt that say
        # they did not escalate), when it can be priced.
        direct = [o for o in os_ if o["attempts"] == 1 and o["escalated"] is False]
        d_acc = sum(o["label"] == "success" for o in direct)
        gross = (
            t_per - sum(o["cost"] for o in direct) / d_acc
            if net is not None and unk_ops == 0 and c_basis not in ("mixed", "unknown") and d_acc
            else None
        )
        would = None
        if net is not None and r6(net) > 0:
            would = "cascade_working"
        elif net is not None and (esc_ops or ret_ops) and (gross is None or r6(gross) > 0):
            would = "escalation_tax"
        harnesses = set().union(*(o["harnesses"] for o in os_))
        # §5 evidence_drift "the newest supporting evidence is older than `freshness_days`, or
        # the model/harness changed since" — for every finding type backed by evidence.
        moved = current_harness is not None and current_harness not in harnesses
        drift = stale or moved
        # §6 the reasons for the grade and for the finding claimed or not (spec-silent: the
        # wording is runscore's, 085): each minimum missed, what leaves the cost unknown, the
        # quality bar, freshness, and why no escalation tax is claimed.
        # a name in a reason, as every report shows it
        n_ops, tgt = len(os_), shown(target[2])
        fd = pol["freshness_days"]
        why: list[str | None] = []
        if labelled < min_lab:
            why.append(f"labelled operations {labelled} (minimum {min_lab})")
        if acc_lo is not None and acc_hi is not None and r6(acc_hi - acc_lo) > max_w:
            w = acc_hi - acc_lo
            why.append(
                f"acceptance 95% CI width {num_vs(w, max_w, 3)} exceeds max_ci_width"
                f" {num_vs(max_w, w, 3)}"
            )
        k = sum(o["attempt_unknown"] for o in os_)
        if k:
            why.append(
                f"cost unknown for some attempts ({k} of {plural(n_ops, 'operation')}):"
                " No $ claimed"
            )
        t_unknown = sum(tot[e.id].cost is None for e in direct_eps)
        if not direct_eps:
            why.append(
                f"baseline unknown: no {tgt} episode of this activity ran other than as a"
                " cascade's follow-up, so what it costs run directly is not in the input:"
                " No $ claimed"
            )
        elif t_basis == "unknown":
            why.append(
                f"baseline unknown: {t_unknown} of {len(direct_eps)} {tgt} episodes have an"
                " unknown total cost (their cost unknown, an escalation follow-up not in the"
                " input, or not saying whether they escalated): No $ claimed"
            )
        k = sum(o["missing"] for o in os_)
        if k:
            why.append(
                f"{k} of {plural(n_ops, 'operation')} escalated with no follow-up attempt in the input"
                " (same runId, task fingerprint and toModel): their cost is unknown (an"
                " escalation is never priced at 0): No $ claimed"
            )
        k = sum(o["final_unreported"] for o in os_)
        if k:
            why.append(
                f"{k} of {plural(n_ops, 'operation')} end on an attempt that does not say whether it"
                " escalated (a follow-up it may have had is not in the input): their cost is"
                " unknown (never priced at 0): No $ claimed"
            )
        if basis == "mixed":
            why.append("cost bases differ (never added together): No $ claimed")
        if basis not in ("unknown", "mixed") and net is None:
            why.append("no accepted operation or no accepted baseline outcome to price")
        if not bar and (net is None or r6(net) > 0):
            if q_lo is None:
                why.append(
                    "acceptance not compared with the target route (no labelled outcome on one"
                    " side): the quality bar is not shown kept"
                )
            else:
                why.append(
                    "acceptance not shown within the tolerance of the target route (lower bound"
                    f" {signed_vs(q_lo, -tol)} below -tolerance -{num_vs(tol, -q_lo, 3)})"
                )
        if newest is None:
            why.append(
                f"{untimed(any(o['late'] for o in os_))}: freshness unknown, treated as stale"
            )
        why.append(stale_reason(newest, age(newest), fd))
        if moved:
            why.append(
                f"harness changed since: the activity now runs on {shown(current_harness)}, absent"
                " from the evidence"
            )
        if net is not None and r6(net) <= 0 and (esc_ops or ret_ops):
            if gross is not None and r6(gross) <= 0:
                why.append(
                    "no saving for escalations and retries to erase: first-attempt successes"
                    f" alone cost {usd(sum(o['cost'] for o in direct) / d_acc)} per accepted"
                    f" operation, no less than {tgt} directly ({usd(t_per)}); no escalation tax"
                    " claimed"
                )
        esc_rep = sum(o["escalated"] is not None for o in os_)
        ret_rep = sum(o["retried"] is not None for o in os_)
        if (
            net is not None
            and r6(net) <= 0
            and not esc_ops
            and not ret_ops
            and (esc_rep < n_ops or ret_rep < n_ops)
        ):
            why.append(
                f"no saving, and no escalation or retry reported (escalation reported by {esc_rep},"
                f" retries by {ret_rep} of {plural(n_ops, 'operation')}): no escalation tax claimed"
            )
        out.append(
            {
                "activity": act,
                "entry_route": entry,
                "entry_model": entry[2],
                "target_model": target[2],
                "operations": len(os_),
                "labelled_operations": labelled,
                "accepted_operations": accepted,
                "escalated_operations": esc_ops,
                "retried_operations": ret_ops,
                "acceptance_rate": None if rate is None else stat(rate),
                "acceptance_ci_low": acc_lo,
                "acceptance_ci_high": acc_hi,
                "target_success_rate": None if t_rate is None else stat(t_rate),
                "quality_effect": q_eff,
                "quality_ci_low": q_lo,
                "quality_ci_high": q_hi,
                "cascade_per_accepted": c_per,
                "target_direct_per_accepted": t_per,
                "net_saving_per_accepted": net,
                "cost_basis": basis,
                "stale": stale,
                "evidence_grade": ev_grade,
                "grade": grade,
                "would_be_type": would,
                "finding_type": None if would is None else "evidence_drift" if drift else would,
                "reasons": [x for x in why if x is not None],
            }
        )
    return out


# ============================================================================ harness_change


def harness_changes(
    by_act: dict[str, list[Ep]], tol: float, min_lab: float
) -> list[dict[str, Any]]:
    """§6 "harness_change: at least two models whose success rate moves the same way by more
    than the tolerance across one harness-fingerprint change." spec-silent (runscore's): the
    changes are consecutive fingerprints in order of first appearance; a model "moves" when its
    within-complexity MH change exceeds the tolerance, its interval excludes 0 and both sides
    have ≥ 10 labelled (historical or paired) episodes; graded correlated when every moving
    route has ≥ min_labelled_per_route on both sides, else observed."""
    out = []
    for act in sorted(by_act):
        first: dict[str, dt.datetime | None] = {}
        for e in by_act[act]:
            if e.harness is None:
                continue
            if e.harness not in first:
                first[e.harness] = e.at
            elif e.at is not None and (first[e.harness] is None or e.at < first[e.harness]):  # type: ignore[operator]
                first[e.harness] = e.at
        order = sorted(first, key=lambda h: (first[h] is None, first[h] or dt.datetime.min, h))
        lab = [
            e
            for e in by_act[act]
            if e.kind in ("historical", "paired")
            and e.label is not None
            and e.model is not None
            and e.harness
        ]
        for h0, h1 in zip(order, order[1:], strict=False):
            moves: dict[str, list[tuple[str, bool]]] = defaultdict(list)
            routes = sorted(
                {e.route for e in lab}, key=lambda r: json.dumps(list(r), separators=(",", ":"))
            )
            for r in routes:
                cells = []
                for cx in sorted({e.complexity for e in lab}, key=_key):
                    s1 = [e for e in lab if e.route == r and e.complexity == cx and e.harness == h1]
                    s0 = [e for e in lab if e.route == r and e.complexity == cx and e.harness == h0]
                    if s1 and s0:
                        cells.append(
                            (
                                len(s1),
                                sum(e.label == "success" for e in s1),
                                len(s0),
                                sum(e.label == "success" for e in s0),
                            )
                        )
                m = mh(cells)
                if not m or m["n1"] < HARNESS_MIN_SIDE or m["n0"] < HARNESS_MIN_SIDE:
                    continue
                full = m["n1"] >= min_lab and m["n0"] >= min_lab
                if r6(m["effect"]) > tol and r6(m["ci_low"]) > 0:
                    moves["up"].append((r[2], full, r))
                elif r6(m["effect"]) < -tol and r6(m["ci_high"]) < 0:
                    moves["down"].append((r[2], full, r))
            for direction in sorted(moves):
                mv = moves[direction]
                if len({m for m, _, _ in mv}) >= 2:
                    grade = "correlated" if all(f for _, f, _ in mv) else "observed"
                    # §5 evidence_drift "the newest supporting evidence": the moving routes'
                    # labelled episodes on either side of the change.
                    moving = {r for _, _, r in mv}
                    newest = max(
                        (
                            e.at
                            for e in lab
                            if e.route in moving and e.harness in (h0, h1) and e.at is not None
                        ),
                        default=None,
                    )
                    out.append(
                        {"activity": act, "direction": direction, "grade": grade, "newest": newest}
                    )
    return out


# ============================================================================ matrix


#: §4's grades, weakest first ("A finding never uses the language of a higher grade").
GRADE_RANK = {"insufficient": 0, "observed": 1, "correlated": 2, "verified": 3, "proven": 4}


def matrix(
    act: str,
    aeps: Sequence[Ep],
    tot: dict[str, Total],
    pol: dict[str, float],
    stale_of: Any,
    comparisons: Sequence[dict[str, Any]] = (),
    cascades: Sequence[dict[str, Any]] = (),
) -> list[dict[str, Any]]:
    """The activity × route matrix: descriptive statistics per route (§4 observed), graded by
    the best evidence the route has (spec-silent; runscore's 095 header): §4 ``observed``
    ("descriptive statistics only") when its labelled episodes meet the minimum, the Wilson
    interval is no wider than ``max_ci_width`` and the evidence is fresh (§4 insufficient:
    "below minimum labelled evidence, CI wider than max_ci_width, … or stale"), else
    ``insufficient``; the grade of a comparison that shows it, as the candidate, non-inferior
    or better (§4 correlated / verified "pass non-inferiority"); ``proven`` from its
    cheap-first cascade when that cascade saves (§4 proven "show positive net value after
    escalation") at grade proven. Each of those grades is already ``insufficient`` when its
    evidence is stale, and a harness changed since leaves it as it is (§6 "evidence_drift
    keeps the grade its evidence had")."""
    rows: dict[tuple[Any, ...], list[Ep]] = defaultdict(list)
    for e in aeps:
        rows[(e.host, e.provider, e.model)].append(e)
    out = []
    for r, es in rows.items():
        lab = sum(e.label is not None for e in es)
        succ = sum(e.label == "success" for e in es)
        basis, per, acc, _ = per_accepted([tot[e.id] for e in es])
        # README: the success rate and its Wilson interval as written, at 6 decimals.
        ci = wilson(succ / lab, lab) if lab else (None, None)
        lo = None if ci[0] is None else stat(ci[0])
        hi = None if ci[1] is None else stat(ci[1])
        newest = max((e.at for e in es if e.at is not None), default=None)
        grades = [
            "observed"
            if lab >= pol["min_labelled_per_route"]
            and lo is not None
            and hi is not None
            and r6(hi - lo) <= pol["max_ci_width"]
            and not stale_of(newest)
            else "insufficient"
        ]
        grades += [
            c["grade"]
            for c in comparisons
            if c["candidate_route"] == r
            and c["conclusion"] in ("non_inferior", "candidate_better")
            and c["grade"] in ("correlated", "verified")
        ]
        grades += [
            c["grade"]
            for c in cascades
            if c["entry_route"] == r
            and c["would_be_type"] == "cascade_working"
            and c["grade"] == "proven"
        ]
        out.append(
            {
                "activity": act,
                "model": r[2],
                "host": r[0],
                "provider": r[1],
                "episodes": len(es),
                "labelled": lab,
                "successes": succ,
                "accepted": acc,
                "success_rate": stat(succ / lab) if lab else None,
                "success_ci_low": lo,
                "success_ci_high": hi,
                "cost_per_accepted": per,
                "cost_basis": basis,
                "grade": max(grades, key=GRADE_RANK.__getitem__),
            }
        )
    return out


# ============================================================================ generator

MODELS = ("claude-haiku-4", "claude-sonnet-4", "claude-opus-4", "gpt-mini")
PRICES = {"claude-haiku-4": 0.01, "claude-sonnet-4": 0.03, "claude-opus-4": 0.1, "gpt-mini": 0.02}


def gen_corpus(rng: random.Random, prefix: str, as_of: dt.datetime) -> list[dict[str, Any]]:
    """A random episode corpus: one or two activities, 2–4 models, every source kind, costs
    known / unknown / of mixed bases, outcomes and signals of every strength, escalations,
    dates either side of the clock and of its freshness window, harness changes. Each activity
    draws a shape (thin or large, few or many strata, labelled or mostly not) so that every
    grade and finding type occurs across seeds."""
    eps: list[dict[str, Any]] = []
    n = 0

    def day(offset: float) -> str:
        t = as_of + dt.timedelta(days=offset)
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    def one(act: str, model: str, kind: str, shape: dict[str, Any], **kw: Any) -> dict[str, Any]:
        nonlocal n
        n += 1
        quality = shape["quality"][model] + kw.pop("lift", 0.0)
        roll = rng.random()
        if roll < shape["labelled"]:
            ok = rng.random() < quality
            sk = rng.choice(["gate", "qe", "review", "user", "Gate"])
            val = rng.choice(["pass", "accept", "PASS"]) if ok else rng.choice(["fail", "reject"])
            signals: list[Any] = [{"kind": sk, "value": val}]
            if rng.random() < 0.03:
                signals.append({"kind": rng.choice(["repair", "revert"]), "value": "yes"})
            if rng.random() < 0.03:
                signals.append({"kind": "regression", "value": "none"})
        elif roll < shape["labelled"] + (1 - shape["labelled"]) * 0.7:
            signals = [
                {
                    "kind": rng.choice(["handoff", "session_end", "retry", "assistant_done"]),
                    "value": "done",
                }
            ]
        elif rng.random() < 0.5:
            signals = [{"kind": "gate", "value": "maybe"}]
        else:
            signals = []
        status = rng.choice(STATUSES) if rng.random() < 0.1 else "succeeded"
        basis = kw.pop("basis", None) or rng.choice(shape["bases"])
        price = PRICES[model] * rng.choice([1, 1, 1, 2])
        start = kw.pop("start")
        esc = kw.pop("esc", False)
        to_model = kw.pop("to_model", None)
        escalation: Any = {"escalated": esc, "toModel": to_model}
        if not esc and rng.random() < shape["esc_unknown"]:
            escalation = rng.choice([None, {"escalated": None}])
        return {
            "episodeId": f"{prefix}-e{n}",
            "source": {
                "kind": kind,
                "host": "claude-code",
                "runId": kw.pop("run_id", None),
                "pairId": kw.pop("pair_id", None),
            },
            "activity": {"id": act},
            "task": {
                "fingerprint": kw.pop("fp", f"{prefix}-fp{n}"),
                "complexity": rng.choice(shape["complexities"]),
            },
            "execution": {
                "host": rng.choice(shape["hosts"]),
                "inferenceProvider": "anthropic",
                "model": model,
                "harnessFingerprint": kw.pop("harness"),
                "startedAt": day(start),
                "endedAt": day(start + 0.01),
            },
            "usage": {
                "observedCostUsd": price if basis == "observed" else None,
                "apiEquivalentCostUsd": price
                if basis in ("api_equivalent", "subscription")
                else None,
                "costBasis": basis,
            },
            "outcome": {
                "status": status,
                "signals": signals,
                "retries": rng.choice([0, 0, 0, 1, 2, None]),
                "repairs": rng.choice([0, 0, 0, 0, 1, None]) if shape["repairs"] else 0,
                "escalation": escalation,
            },
        }

    for a in range(rng.randint(1, 2)):
        act = f"{prefix}-a{a}"
        models = rng.sample(MODELS, rng.choice([2, 2, 3, 4]))
        same = rng.choice([None, 0.9])  # equal quality: where a cheaper route is equivalent
        shape = {
            "quality": {m: same or rng.choice([0.6, 0.75, 0.85, 0.9, 0.95]) for m in models},
            "labelled": rng.choice([0.95, 0.8, 0.1]),
            "bases": rng.choice(
                [
                    ["api_equivalent"],
                    ["api_equivalent"] * 20 + ["unknown"],
                    ["observed"],
                    ["api_equivalent", "subscription"],
                    ["api_equivalent", "unknown", None],
                ]
            ),
            "esc_unknown": rng.choice([0.0, 0.0, 0.02]),
            "complexities": rng.choice([["low"], ["low", "high"], [*COMPLEXITIES, None]]),
            "hosts": rng.choice([["claude-code"], ["claude-code"] * 9 + ["codex"]]),
            "repairs": rng.random() < 0.7,
        }
        size = rng.choice([30, 150, 400, 700])
        centre = rng.choice([-5.0, -5.0, -45.0, 0.3, -28.0])
        change = rng.random() < 0.3
        lift = rng.choice([0.0, 0.3]) if change else 0.0
        # Cheap-first operations that all ran before the harness change, the activity's newest
        # episodes after it: a cascade that may save while its activity now runs on a harness
        # it did not (§5 evidence_drift "or the model/harness changed since"). Decided by the
        # activity's name, not by a draw of ``rng``: a seed without the case is drawn as before.
        casc_before_change = change and random.Random(f"{act}-drift").random() < 0.5
        mix = rng.choice([(8, 1, 1), (2, 6, 1), (2, 1, 5), (6, 2, 2)])
        cheap = min(models, key=lambda x: PRICES[x])
        dear = max(models, key=lambda x: PRICES[x])
        if casc_before_change:
            # A harness change that moves no quality, a cheap route better than the dear one,
            # and every cost known (one basis, each escalation's follow-up in the input): a
            # saving that can be priced and show the quality bar kept, so be proven.
            lift = 0.0
            shape["quality"][cheap] = 0.97
            shape["bases"], shape["esc_unknown"] = ["api_equivalent"], 0.0
        esc_p = rng.choice([0.1, 0.4, 0.8])
        for _ in range(size):
            m = rng.choice(models)
            start = centre + rng.uniform(-4, 4)
            kind = rng.choices(["historical", "paired", "prospective"], weights=mix)[0]
            if casc_before_change and kind == "prospective" and start > centre:
                start = 2 * centre - start  # mirrored to before the change
            h2 = change and start > centre
            harness = "h2" if h2 else "h1"
            up = lift if h2 else 0.0
            if kind == "historical":
                eps.append(one(act, m, "historical", shape, start=start, harness=harness, lift=up))
            elif kind == "paired":
                pid = f"{prefix}-p{n}"
                pms = [cheap, dear] if rng.random() < 0.7 else rng.sample(models, 2)
                for pm in pms:
                    eps.append(
                        one(
                            act,
                            pm,
                            "paired",
                            shape,
                            start=start,
                            harness=harness,
                            pair_id=pid,
                            lift=up,
                        )
                    )
            else:
                run, fp = f"{prefix}-run{n}", f"{prefix}-task{n}"
                esc = rng.random() < esc_p
                eps.append(
                    one(
                        act,
                        cheap,
                        "prospective",
                        shape,
                        start=start,
                        harness=harness,
                        run_id=run,
                        fp=fp,
                        esc=esc,
                        to_model=dear if esc else None,
                        lift=up,
                    )
                )
                if esc and (rng.random() < 0.97 or casc_before_change):
                    eps.append(
                        one(
                            act,
                            dear,
                            "prospective",
                            shape,
                            start=start + 0.02,
                            harness=harness,
                            run_id=run,
                            fp=fp,
                            lift=up,
                        )
                    )
    if rng.random() < 0.3:  # a few lines that cannot be scored
        eps.append({"episodeId": f"{prefix}-bad1", "activity": {}, "execution": {"model": "x"}})
        eps.append(dict(eps[0]))  # a duplicate episodeId
        eps.append(
            {"episodeId": f"{prefix}-bad2", "source": {"kind": "paired"}, "activity": {"id": "z"}}
        )
    return eps


def write(path: Path, lines: Sequence[dict[str, Any]]) -> None:
    path.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")


# ============================================================================ comparison

FLOAT_TOL = 1e-9


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, float) or isinstance(b, float):
        if a is None or b is None:
            return a is b
        return math.isclose(a, b, rel_tol=FLOAT_TOL, abs_tol=FLOAT_TOL)
    return bool(a == b)


def _t(v: Any) -> Any:
    """A runscore JSON time as the reference's naive datetime."""
    return _ts(v) if isinstance(v, str) else v


COMP_FIELDS = (
    "incumbent_source",
    "candidate_overlap",
    "incumbent_overlap",
    "hist_effect",
    "hist_ci_low",
    "hist_ci_high",
    "hist_sufficient",
    "pairs",
    "paired_counts",
    "paired_effect",
    "paired_ci_low",
    "paired_ci_high",
    "paired_sufficient",
    "evidence_source",
    "conclusion",
    "evidence_grade",
    "grade",
    "newest_evidence",
    "stale",
    "harness_drift",
    "harness_capped",
    "cost_basis",
    "cheaper_route",
    "cheaper_by",
    "candidate_per_accepted",
    "incumbent_per_accepted",
    "candidate_accepted",
    "incumbent_accepted",
    "candidate_unknown_cost_episodes",
    "incumbent_unknown_cost_episodes",
    "premium_by",
    "would_be_type",
    "finding_type",
    "evidence_episodes",
    "reasons",
)


def comp_view(c: dict[str, Any]) -> dict[str, Any]:
    """runscore's JSON comparison in the reference's shape."""
    h, p, co = c["historical"], c["paired"], c["cost"]
    return {
        "activity": c["activity"],
        "incumbent": c["incumbent"]["model"],
        "incumbent_source": c["incumbent"]["source"],
        "candidate": c["candidate"]["model"],
        "strata": [
            (
                s["complexity"],
                s["harness"],
                s["candidate_labelled"],
                s["candidate_successes"],
                s["incumbent_labelled"],
                s["incumbent_successes"],
            )
            for s in h["strata"]
        ],
        "candidate_overlap": h["candidate_overlap"],
        "incumbent_overlap": h["incumbent_overlap"],
        "hist_effect": h["effect"],
        "hist_ci_low": h["ci_low"],
        "hist_ci_high": h["ci_high"],
        "hist_sufficient": h["sufficient"],
        "pairs": p["pairs"],
        "paired_counts": (
            p["both_success"],
            p["candidate_only"],
            p["incumbent_only"],
            p["both_fail"],
        ),
        "paired_effect": p["effect"],
        "paired_ci_low": p["ci_low"],
        "paired_ci_high": p["ci_high"],
        "paired_sufficient": p["sufficient"],
        "evidence_source": c["evidence_source"],
        "conclusion": c["conclusion"],
        "evidence_grade": c["evidence_grade"],
        "grade": c["grade"],
        "newest_evidence": _t(c["freshness"]["newest_evidence"]),
        "stale": c["freshness"]["stale"],
        "harness_drift": c["freshness"]["harness_changed_since"],
        "harness_capped": c["harness_capped"],
        "cost_basis": co["basis"],
        "cheaper_route": co["cheaper_route"],
        "cheaper_by": co["cheaper_by"],
        "candidate_per_accepted": co["candidate_per_accepted"],
        "incumbent_per_accepted": co["incumbent_per_accepted"],
        "candidate_accepted": co["candidate_accepted"],
        "incumbent_accepted": co["incumbent_accepted"],
        "candidate_unknown_cost_episodes": co["candidate_unknown_cost_episodes"],
        "incumbent_unknown_cost_episodes": co["incumbent_unknown_cost_episodes"],
        "premium_by": c["premium_by"],
        "would_be_type": c["would_be_type"],
        "finding_type": c["finding_type"],
        "evidence_episodes": c["evidence_episodes"],
        "reasons": c["reasons"],
    }


CASC_FIELDS = (
    "target_model",
    "operations",
    "labelled_operations",
    "accepted_operations",
    "escalated_operations",
    "retried_operations",
    "cascade_per_accepted",
    "target_direct_per_accepted",
    "net_saving_per_accepted",
    "cost_basis",
    "stale",
    "evidence_grade",
    "grade",
    "would_be_type",
    "finding_type",
    "acceptance_rate",
    "acceptance_ci_low",
    "acceptance_ci_high",
    "target_success_rate",
    "quality_effect",
    "quality_ci_low",
    "quality_ci_high",
    "reasons",
)


def casc_view(c: dict[str, Any]) -> dict[str, Any]:
    co = c["cost"]
    return {
        "activity": c["activity"],
        "entry_model": c["entry"]["model"],
        "target_model": c["target"]["model"],
        **{k: c[k] for k in CASC_FIELDS[1:6]},
        "cascade_per_accepted": co["cascade_per_accepted"],
        "target_direct_per_accepted": co["target_direct_per_accepted"],
        "net_saving_per_accepted": co["net_saving_per_accepted"],
        "cost_basis": co["basis"],
        "stale": c["freshness"]["stale"],
        **{k: c[k] for k in CASC_FIELDS[11:]},
    }


MATRIX_FIELDS = (
    "episodes",
    "labelled",
    "successes",
    "accepted",
    "success_rate",
    "success_ci_low",
    "success_ci_high",
    "cost_per_accepted",
    "cost_basis",
    "grade",
)


def finding_reasons(why: Sequence[str]) -> tuple[str, ...]:
    """The reasons a finding's why carries: those of the comparison or cascade it comes from,
    after its evidence lines (the last of which is "Newest evidence: …"), less the lines that
    are no reason of that evidence (an unnamed route command, other actionable findings).
    A harness shift's or a blind spot's why has no such line: none."""
    starts = [i for i, w in enumerate(why) if w.startswith("Newest evidence: ")]
    if not starts:
        return ()
    return tuple(
        w
        for w in why[starts[-1] + 1 :]
        if not w.startswith(("No route command: ", "Other actionable findings of "))
    )


def finding_view(f: dict[str, Any]) -> tuple[Any, ...]:
    return (
        f["type"],
        f["activity"],
        f["grade"],
        f["drift_of"],
        f["candidate"]["model"],
        f["incumbent"]["model"],
        finding_reasons(f["why"]),
        f["freshness"]["stale"],
    )


def diffs(exp: Result, got: dict[str, Any], activity: str | None = None) -> list[str]:
    """Every difference between the reference and runscore's ``to_dict()`` (of one activity's
    rows and findings when ``activity`` is given; rejected lines only when it is not)."""
    out: list[str] = []
    if activity is None:
        got_rej = sorted(r["line"] for r in got["inputs"]["rejected"])
        if got_rej != sorted(ln for ln, _ in exp.rejects):
            out.append(f"rejected lines: runscore {got_rej} != spec {exp.rejects}")

    def keyed(
        rows: Iterable[dict[str, Any]], key: tuple[str, ...]
    ) -> dict[tuple[Any, ...], dict[str, Any]]:
        return {
            tuple(r[k] for k in key): r
            for r in rows
            if activity is None or r["activity"] == activity
        }

    pairs = [
        (
            "comparison",
            exp.comparisons,
            [comp_view(c) for c in got["comparisons"]],
            ("activity", "candidate"),
            ("incumbent", "strata", *COMP_FIELDS),
        ),
        (
            "cascade",
            exp.cascades,
            [casc_view(c) for c in got["cascades"]],
            ("activity", "entry_model"),
            CASC_FIELDS,
        ),
        (
            "matrix",
            exp.matrix,
            got["matrix"],
            ("activity", "model", "host", "provider"),
            MATRIX_FIELDS,
        ),
    ]
    for name, e_rows, g_rows, key, fields in pairs:
        e, g = keyed(e_rows, key), keyed(g_rows, key)
        for k in sorted(set(e) | set(g), key=repr):
            if k not in e or k not in g:
                out.append(f"{name} {k}: only in {'spec' if k in e else 'runscore'}")
                continue
            for f in fields:
                if not _same(e[k][f], g[k][f]):
                    out.append(f"{name} {k}.{f}: runscore {g[k][f]!r} != spec {e[k][f]!r}")
    ef = sorted((f for f in exp.findings if activity in (None, f[1])), key=repr)
    gf = sorted(
        (finding_view(f) for f in got["findings"] if activity in (None, f["activity"])), key=repr
    )
    if ef != gf:
        out.append(f"findings: runscore {gf} != spec {ef}")
    return out

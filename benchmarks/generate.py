"""Deterministic generator of realistic ArcheFlow event logs (spec effectiveness §1).

Shapes:

* ``runs`` (default): N runs of ~35 events each: run.start, explorer and creator
  agents, then 3 cycles of maker work, 1-4 reviewers (guardian, skeptic, sage,
  trickster; 1% of runs are reviewed by nobody) with findings of mixed
  severities, fixes (some with a ``source``, some source-less and reachable from
  their review.verdict only through a chain of parent edges, a few converging
  from two verdicts), a cycle.boundary (met true/false), and run.complete (about
  1% of runs stay incomplete). Layout ``per-run`` writes ``OUT/<run_id>.jsonl`` as
  ArcheFlow does; ``single-file`` writes one export ``OUT/events-<start>.jsonl``.
* ``chain``: one run whose DAG is a single chain of ``--events`` events, the four
  verdicts at the top and ten source-less fixes at the bottom.
* ``diamond``: one run of layers ``--width`` wide where every event has every
  event of the layer above as a parent (N x width edges, exponentially many paths).
* ``history``: a synthetic effectiveness history (spec §4 lines) of ``--lines`` lines.

Every shape writes ``OUT/corpus-<shape>-<start>.json`` with what the generator
knows about its output (lines, findings, the history records extract must write
and their summed counts), so the harness and tests can check extract against it.

Only ``random.Random`` seeded from ``--seed`` (and the run index) is used: identical
arguments give byte-identical files, the manifest included (it names its files, not
their paths). Run ``i`` is the same run whatever the
layout, and ``--start`` continues a corpus (the harness's "1% new runs").

Types are kept canonical (``parent`` always an array, ``fix_required`` a JSON
bool, numbers numeric) because DuckDB's plain ``read_json`` (the baseline) fails
on a value whose type differs from the one it sampled. Variation that keeps the
type (case, whitespace, missing keys, empty source, missing cost/model) is always
on; ``--type-variants`` adds the spec's other encodings (``parent`` as an integer,
``"3,4"`` or ``""``, ``fix_required`` as ``"true"``) for extract-only tests.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

REVIEWERS = ("guardian", "skeptic", "sage", "trickster")
# ArcheFlow's defaults (spec §6): haiku for explorer/guardian/skeptic/trickster.
DEFAULT_TIER = {
    "explorer": "haiku",
    "creator": "sonnet",
    "maker": "sonnet",
    "guardian": "haiku",
    "skeptic": "haiku",
    "sage": "sonnet",
    "trickster": "haiku",
}
MODELS = {
    "haiku": ("claude-haiku-4-5", "claude-3-5-haiku-20241022", "haiku"),
    "sonnet": ("claude-sonnet-4-5", "claude-3-7-sonnet-20250219", "sonnet"),
    "opus": ("claude-opus-4-1", "opus"),
}
# $ per 1k tokens, roughly: makes costs plausible per tier.
PRICE = {"haiku": 0.001, "sonnet": 0.006, "opus": 0.03}
SEVERITIES = ("info", "warning", "bug", "critical", "style", "suggestion")
SEV_WEIGHTS = (30, 30, 15, 5, 10, 10)
USEFUL = frozenset(("warning", "bug", "critical"))
CATEGORIES = ("security", "correctness", "performance", "style", "testing", "docs")
MODULES = (
    "api", "auth", "cache", "cli", "config", "db", "handlers", "models",
    "parser", "queue", "routes", "utils",
)  # fmt: skip
DESCRIPTIONS = (
    "Missing validation", "Unchecked error return", "SQL built by string concatenation",
    "Race on shared counter", "Off-by-one in pagination", "Secret logged at debug level",
    "No timeout on HTTP call", "Consider logging", "Rename for clarity", "Dead code",
    "Missing test for empty input", "N+1 query in loop", "Unbounded retry", "Null dereference",
    "Integer overflow on large input", "Docstring out of date", "Inconsistent naming",
    "Magic number", "Resource not closed", "Path traversal via user input",
    "Timezone-naive datetime", "Lock held across await", "Swallowed exception",
    "Regex is catastrophic on long input", "Cache never invalidated",
)  # fmt: skip
ENC = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False).encode
#: Bumped whenever the output for given arguments changes (the harness then regenerates).
GENERATOR_VERSION = 2
T0 = 1767225600  # 2026-01-01T00:00:00Z: fixed, so output never depends on the clock


def _table(values: Any, weights: tuple[int, ...]) -> tuple[Any, ...]:
    """A weighted choice as a flat table: one ``random()`` per draw (``choices`` is slow)."""
    return tuple(v for v, w in zip(values, weights, strict=True) for _ in range(w))


def _pick(rng: random.Random, seq: Any) -> Any:
    return seq[int(rng.random() * len(seq))]


def _int(rng: random.Random, lo: int, hi: int) -> int:
    return lo + int(rng.random() * (hi - lo + 1))


SEV_TABLE = _table(SEVERITIES, SEV_WEIGHTS)
N_REVIEWERS = _table((0, 1, 2, 3, 4), (1, 5, 15, 34, 45))
N_FINDINGS = _table(range(5), (30, 25, 20, 15, 10))
N_HIST_FINDINGS = _table(range(6), (25, 25, 20, 15, 10, 5))


_DAYS: dict[int, str] = {}
_QUOTED: dict[str | None, str] = {None: "null"}


def iso(t: int) -> str:
    """UTC ISO-8601 of epoch seconds ``t`` (the day prefix is cached: this is hot)."""
    day, sec = divmod(t, 86400)
    pre = _DAYS.get(day)
    if pre is None:
        pre = _DAYS[day] = time.strftime("%Y-%m-%dT", time.gmtime(day * 86400))
    h, sec = divmod(sec, 3600)
    m, sec = divmod(sec, 60)
    return f"{pre}{h:02d}:{m:02d}:{sec:02d}Z"


def _q(s: str | None) -> str:
    """JSON text of a short vocabulary string (memoised: envelopes are hand-assembled)."""
    out = _QUOTED.get(s)
    if out is None:
        out = _QUOTED[s] = json.dumps(s)
    return out


@dataclass
class Expect:
    """What extract must produce; sums run over complete runs only."""

    runs: int = 0
    runs_complete: int = 0
    runs_incomplete: int = 0
    lines: int = 0  # event lines written (every line is one event)
    findings_in_files: int = 0  # sum(len(data.findings)) over every line: the baseline's sum
    records: int = 0  # history records: per complete run, distinct reviewers with verdicts
    findings_total: int = 0
    findings_useful: int = 0
    fixes_applied: int = 0  # fixes attributed to reviewers that have a record
    unattributed_fixes: int = 0
    per_archetype: dict[str, dict[str, int]] = field(default_factory=dict)

    def add(self, other: Expect) -> None:
        for k in (
            "runs",
            "runs_complete",
            "runs_incomplete",
            "lines",
            "findings_in_files",
            "records",
            "findings_total",
            "findings_useful",
            "fixes_applied",
            "unattributed_fixes",
        ):
            setattr(self, k, getattr(self, k) + getattr(other, k))
        for a, d in other.per_archetype.items():
            mine = self.per_archetype.setdefault(a, {})
            for k, v in d.items():
                mine[k] = mine.get(k, 0) + v


class Run:
    """Builds one run's events and tracks, per event, its nearest verdict archetypes."""

    def __init__(self, run_id: str, rng: random.Random, t: int, type_variants: bool) -> None:
        self.run_id = run_id
        self.rid = json.dumps(run_id)
        self.rng = rng
        self.t = t
        self.type_variants = type_variants
        self.heads: list[str] = []  # each event's line up to `"data":`
        self.datas: list[dict[str, Any]] = []
        # nearest[seq - 1]: archetypes of the nearest review.verdict ancestors (spec §3),
        # for a verdict event its own archetype (what a descendant's walk stops at).
        self.nearest: list[frozenset[str]] = []
        self.verdict_arch: dict[int, str] = {}
        self.findings: dict[str, list[int]] = {}  # archetype -> [total, useful]
        self.fixes: dict[str, int] = {}
        self.unattributed = 0
        self.findings_in_file = 0
        self.complete = False

    def emit(
        self,
        type_: str,
        phase: str | None,
        agent: str | None,
        data: dict[str, Any],
        parents: list[int],
        step: tuple[int, int] = (3, 90),
    ) -> int:
        seq = len(self.heads) + 1
        lo, hi = step
        self.t += lo + int(self.rng.random() * (hi - lo + 1))
        plist = ",".join(map(str, parents))
        ptxt = f'"parent":[{plist}],'
        if self.type_variants and self.rng.random() < 0.05:
            # The spec's other encodings of the parent list (§1).
            if not parents:
                ptxt = '"parent":"",' if self.rng.random() < 0.5 else ""
            elif len(parents) == 1:
                ptxt = f'"parent":{plist},'
            else:
                ptxt = f'"parent":"{plist}",'
        # The envelope is assembled by hand (every value is a number or a memoised
        # JSON string): json-encoding whole events made 100k runs take minutes.
        self.heads.append(
            f'{{"ts":"{iso(self.t)}","run_id":{self.rid},"seq":{seq},{ptxt}'
            f'"type":{_q(type_)},"phase":{_q(phase)},"agent":{_q(agent)},"data":'
        )
        self.datas.append(data)
        if type_ == "review.verdict":
            arch = _norm(data.get("archetype", agent))
            self.verdict_arch[seq] = arch
            self.nearest.append(frozenset((arch,)))
        elif len(parents) == 1:
            self.nearest.append(self.nearest[parents[0] - 1])
        else:
            acc: set[str] = set()
            for p in parents:
                acc |= self.nearest[p - 1]
            self.nearest.append(frozenset(acc))
        return seq

    def __len__(self) -> int:
        return len(self.heads)

    def text(self) -> str:
        """The run's JSONL text, newline-terminated.

        All ``data`` payloads are encoded by one encoder call, separated by a NUL
        sentinel that no payload contains, then split: a third faster than one
        call per event, which matters at 3.5 million events.
        """
        batch: list[Any] = []
        for d in self.datas:
            batch.append(d)
            batch.append("\0")
        batch.pop()
        parts = ENC(batch)[1:-1].split(',"\\u0000",')
        if len(parts) != len(self.heads):
            raise AssertionError("a data payload contains a NUL character")
        return "".join(f"{h}{d}}}\n" for h, d in zip(self.heads, parts, strict=True))

    def fix(self, data: dict[str, Any], parents: list[int], phase: str = "act") -> int:
        seq = self.emit("fix.applied", phase, None, data, parents)
        src = data.get("source")
        if isinstance(src, str) and src.strip():
            targets: frozenset[str] = frozenset((_norm(src),))
        else:
            targets = self.nearest[seq - 1]
        if not targets:
            self.unattributed += 1
        for a in targets:
            self.fixes[a] = self.fixes.get(a, 0) + 1
        return seq

    def expect(self) -> Expect:
        e = Expect(runs=1, lines=len(self), findings_in_files=self.findings_in_file)
        if not self.complete:
            e.runs_incomplete = 1
            return e
        e.runs_complete = 1
        e.unattributed_fixes = self.unattributed
        for a in sorted(set(self.verdict_arch.values())):
            total, useful = self.findings.get(a, [0, 0])
            fixes = self.fixes.get(a, 0)
            e.records += 1
            e.findings_total += total
            e.findings_useful += useful
            e.fixes_applied += fixes
            e.per_archetype[a] = {
                "records": 1,
                "findings_total": total,
                "findings_useful": useful,
                "fixes_applied": fixes,
            }
        return e


def _norm(s: str | None) -> str:
    return (s or "").strip().lower() or "unknown"


def _label(rng: random.Random, name: str) -> str:
    """How a log spells an archetype: mostly canonical, sometimes cased or padded."""
    r = rng.random()
    if r < 0.05:
        return name.capitalize()
    if r < 0.07:
        return f" {name} "
    if r < 0.08:
        return name.upper()
    return name


def _model(rng: random.Random, arch: str) -> tuple[str | None, str]:
    r = rng.random()
    tier = DEFAULT_TIER[arch] if r < 0.8 else _pick(rng, ("haiku", "sonnet", "opus"))
    if rng.random() < 0.1:
        return None, tier  # the log does not name the model
    return _pick(rng, MODELS[tier]), tier


def _complete_data(rng: random.Random, arch: str, model: str | None, tier: str) -> dict[str, Any]:
    d: dict[str, Any] = {"archetype": arch, "duration_ms": _int(rng, 2_000, 240_000)}
    if model is not None:
        d["model"] = model
    tin = _int(rng, 800, 40_000)
    tout = _int(rng, 100, 8_000)
    if rng.random() < 0.7:
        d["tokens"] = tin + tout
    else:
        d["tokens_input"] = tin
        if rng.random() < 0.9:
            d["tokens_output"] = tout
    cost = round((tin + tout) / 1000 * PRICE[tier] * rng.uniform(0.7, 1.3), 6)
    r = rng.random()
    if r < 0.55:
        d["cost_usd"] = cost
    elif r < 0.85:
        d["estimated_cost_usd"] = cost
    elif r < 0.9:
        d["cost_usd"] = cost
        d["estimated_cost_usd"] = round(cost * 1.1, 6)
    # else: no cost at all (unknown, not zero)
    return d


def _finding(rng: random.Random, type_variants: bool) -> tuple[dict[str, Any], bool]:
    sev = _pick(rng, SEV_TABLE)
    f: dict[str, Any] = {}
    r = rng.random()
    f["severity"] = sev.upper() if r < 0.1 else (f" {sev}" if r < 0.12 else sev)
    r = rng.random()
    fix_req: bool | None = None
    if r < 0.9:
        fix_req = rng.random() < (0.75 if sev in USEFUL else 0.15)
        if type_variants and rng.random() < 0.2:
            f["fix_required"] = _pick(rng, ("true", "TRUE", "True")) if fix_req else "false"
        else:
            f["fix_required"] = fix_req
    mod = _pick(rng, MODULES)
    line = _int(rng, 1, 400)
    r = rng.random()
    if r < 0.4:
        f["location"] = f"src/{mod}.py:{line}"
    elif r < 0.8:
        f["file"] = f"src/{mod}.py"
        if rng.random() < 0.85:
            f["line"] = line
    f["category"] = _pick(rng, CATEGORIES)
    if rng.random() < 0.95:
        f["description"] = _pick(rng, DESCRIPTIONS)
    return f, (sev in USEFUL and fix_req is True)


def gen_run(seed: int, index: int, type_variants: bool, incomplete_rate: float) -> Run:
    rng = random.Random((seed << 40) | index)
    run = Run(f"run-{seed}-{index:07d}", rng, T0 + index * 900, type_variants)
    k = _pick(rng, N_REVIEWERS)
    chosen = set(rng.sample(REVIEWERS, k))
    reviewers = [r for r in REVIEWERS if r in chosen]  # k = 0: a run nobody reviewed
    labels = {a: _label(rng, a) for a in (*REVIEWERS, "explorer", "creator", "maker")}
    models = {a: _model(rng, a) for a in DEFAULT_TIER}

    def agent(arch: str, phase: str, parents: list[int]) -> int:
        model, tier = models[arch]
        sd: dict[str, Any] = {"archetype": labels[arch]}
        if model is not None:
            sd["model"] = model
        s = run.emit("agent.start", phase, arch, sd, parents)
        cd = _complete_data(rng, labels[arch], model, tier)
        return run.emit("agent.complete", phase, arch, cd, [s])

    s1 = run.emit("run.start", "plan", None, {"task": f"Task {index}", "max_cycles": 3}, [])
    prev = agent("creator", "plan", [agent("explorer", "plan", [s1])])
    cycles = 3
    for c in range(1, cycles + 1):
        mk = agent("maker", "do", [prev])
        verdicts: list[tuple[int, str, list[tuple[dict[str, Any], bool]]]] = []
        for arch in reviewers:
            if c > 1 and rng.random() < 0.15:
                continue  # this reviewer sat this cycle out
            found = [_finding(rng, type_variants) for _ in range(_pick(rng, N_FINDINGS))]
            any_useful = any(u for _, u in found)
            verdict = (
                "needs_changes" if any_useful else _pick(rng, ("approved", "approved", "rejected"))
            )
            if rng.random() < 0.1:
                verdict = verdict.upper()
            vd: dict[str, Any] = {}
            label = labels[arch]
            if rng.random() < 0.95:
                vd["archetype"] = label
            vd["verdict"] = verdict
            if rng.random() < 0.7:
                vd["cycle"] = c
            if rng.random() < 0.97:
                vd["findings"] = [f for f, _ in found]
            else:
                found = []  # findings key missing: an empty list
            agent_field = arch if "archetype" in vd else label
            v = run.emit("review.verdict", "check", agent_field, vd, [mk])
            run.findings_in_file += len(found)
            tot = run.findings.setdefault(_norm(vd.get("archetype", agent_field)), [0, 0])
            tot[0] += len(found)
            tot[1] += sum(1 for _, u in found if u)
            if rng.random() < 0.6:
                model, tier = models[arch]
                run.emit(
                    "agent.complete", "check", arch, _complete_data(rng, label, model, tier), [v]
                )
            verdicts.append((v, label, found))
        last = len(run)  # the boundary hangs below the cycle's last event
        for v, label, found in verdicts:
            for f, useful in found:
                if not useful or rng.random() >= 0.55:
                    continue
                fd: dict[str, Any] = {}
                r = rng.random()
                if rng.random() < 0.7 and "description" in f:
                    fd["finding"] = f["description"]
                if "location" in f:
                    fd["location"] = f["location"]
                elif "file" in f:
                    fd["file"] = f["file"]
                    if "line" in f:
                        fd["line"] = f["line"]
                if r < 0.45:
                    # Authoritative source, parent is the verdict itself.
                    fd = {"source": _label(rng, _norm(label)), **fd}
                    last = run.fix(fd, [v])
                    continue
                if r < 0.55:
                    fd = {"source": "", **fd}  # empty source: falls back to the walk
                # Source-less: the fix hangs below a chain of maker events (and,
                # sometimes, below two verdicts at once).
                ps = [v]
                if len(verdicts) > 1 and rng.random() < 0.15:
                    other = _pick(rng, [x[0] for x in verdicts if x[0] != v])
                    ps = sorted((v, other))
                model, tier = models["maker"]
                depth = _int(rng, 1, 3)
                node = run.emit("agent.start", "act", "maker", {"archetype": labels["maker"]}, ps)
                for _ in range(depth - 1):
                    node = run.emit(
                        "agent.complete",
                        "act",
                        "maker",
                        _complete_data(rng, labels["maker"], model, tier),
                        [node],
                    )
                last = run.fix(fd, [node])
        met = rng.random() < (0.75 if c == cycles else 0.1)
        bd = {"cycle": c, "max_cycles": cycles, "met": met}
        prev = run.emit("cycle.boundary", "act", None, bd, [last])
    if rng.random() >= incomplete_rate:
        run.emit("run.complete", "act", None, {"status": "completed", "cycles": cycles}, [prev])
        run.complete = True
    return run


def _write(path: str, chunks: Iterator[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as f:
        buf: list[str] = []
        size = 0
        for c in chunks:
            buf.append(c)
            size += len(c)
            if size > 4 << 20:
                f.write("".join(buf))
                buf, size = [], 0
        f.write("".join(buf))


def generate_runs(
    out: str,
    runs: int,
    layout: str,
    seed: int,
    start: int = 0,
    type_variants: bool = False,
    incomplete_rate: float = 0.01,
) -> dict[str, Any]:
    """``runs`` runs from index ``start``, in one file per run or one file.

    Raises ``GenerateError`` (a ``ValueError``) for arguments the CLI refuses, before
    writing: an empty corpus wrote only its manifest, and checked out as correct."""
    if layout not in ("per-run", "single-file"):
        raise GenerateError("layout", f"must be per-run or single-file (got {layout!r})")
    for name, value, least in (("runs", runs, 1), ("seed", seed, 0), ("start", start, 0)):
        _at_least(name, value, least)
    if not 0.0 <= incomplete_rate <= 1.0:
        raise GenerateError("incomplete_rate", f"is a share, from 0 to 1 (got {incomplete_rate})")
    os.makedirs(out, exist_ok=True)
    exp = Expect()
    files: list[str] = []
    if layout == "per-run":
        for i in range(start, start + runs):
            r = gen_run(seed, i, type_variants, incomplete_rate)
            p = os.path.join(out, f"{r.run_id}.jsonl")
            with open(p, "w", encoding="utf-8", newline="\n") as f:
                f.write(r.text())
            files.append(p)
            exp.add(r.expect())
    elif layout == "single-file":
        p = os.path.join(out, f"events-{start:07d}.jsonl")

        def chunks() -> Iterator[str]:
            for i in range(start, start + runs):
                r = gen_run(seed, i, type_variants, incomplete_rate)
                exp.add(r.expect())
                yield r.text()

        _write(p, chunks())
        files.append(p)
    return _finish(
        out,
        "runs",
        start,
        seed,
        exp,
        files,
        {
            "layout": layout,
            "runs": runs,
            "type_variants": type_variants,
            "incomplete_rate": incomplete_rate,
        },
    )


def _stress_run(run_id: str, rng: random.Random) -> tuple[Run, int]:
    run = Run(run_id, rng, T0, False)
    s1 = run.emit("run.start", "plan", None, {"task": run_id}, [], step=(1, 1))
    for arch in REVIEWERS:
        fs = [
            {
                "severity": "warning",
                "fix_required": True,
                "location": f"src/{arch}.py:{n}",
                "description": f"{arch} finding {n}",
            }
            for n in (1, 2)
        ]
        run.emit(
            "review.verdict",
            "check",
            arch,
            {"archetype": arch, "verdict": "needs_changes", "cycle": 1, "findings": fs},
            [s1],
            step=(1, 1),
        )
        run.findings[arch] = [2, 2]
        run.findings_in_file += 2
    return run, s1


def _stress_tail(run: Run, parents: list[int], n_fixes: int) -> None:
    prev = parents
    for _ in range(n_fixes):
        prev = [run.fix({"finding": "applied"}, prev)]  # source-less: needs the walk
    b = run.emit("cycle.boundary", "act", None, {"cycle": 1, "met": True}, prev, step=(1, 1))
    run.emit("run.complete", "act", None, {"status": "completed"}, [b], step=(1, 1))
    run.complete = True


FILLER = ("agent.start", "agent.complete", "tool.call", "tool.result")


class GenerateError(ValueError):
    """Arguments that cannot make the corpus asked for. ``param`` names the argument (the
    CLI's option, without its dashes), so that the CLI can say which option it refuses."""

    def __init__(self, param: str, reason: str) -> None:
        super().__init__(f"{param} {reason}")
        self.param = param
        self.reason = reason


def _at_least(param: str, value: int, least: int) -> None:
    if value < least:
        raise GenerateError(param, f"must be at least {least} (got {value})")


def stress_min_events(shape: str, width: int = 1, fixes: int = 10) -> int:
    """The fewest events a chain (or a diamond ``width`` wide) of ``fixes`` fixes holds:
    run.start, four verdicts, one event (a diamond: one layer), the fixes, the boundary
    and run.complete."""
    return 1 + len(REVIEWERS) + fixes + 2 + (width if shape == "diamond" else 1)


def _check_stress(shape: str, events: int, width: int, fixes: int) -> None:
    if fixes < 0:
        raise GenerateError("fixes", f"must be at least 0 (got {fixes})")
    if width < 1:
        raise GenerateError("width", f"must be at least 1 (got {width})")
    least = stress_min_events(shape, width, fixes)
    if events < least:
        of = f"a diamond of width {width}" if shape == "diamond" else "a chain"
        raise GenerateError("events", f"must be at least {least} for {of} (got {events})")


def generate_chain(out: str, events: int, seed: int, fixes: int = 10) -> dict[str, Any]:
    """One run: 4 verdicts under run.start, a join, then a single chain to ``fixes`` fixes.

    Raises ``GenerateError`` (a ``ValueError``) for too few ``events``, before writing."""
    _check_stress("chain", events, 1, fixes)
    rng = random.Random(seed)
    run, _ = _stress_run(f"chain-{seed}-{events}", rng)
    filler = events - len(run) - fixes - 2
    prev = [2, 3, 4, 5]  # the join: every fix's walk ends at all four verdicts
    for i in range(filler):
        t = FILLER[i % len(FILLER)]
        prev = [run.emit(t, "act", "maker", {"step": i}, prev, step=(0, 1))]
    _stress_tail(run, prev, fixes)
    p = os.path.join(out, f"chain-{events}.jsonl")
    os.makedirs(out, exist_ok=True)
    _write(p, iter((run.text(),)))
    return _finish(out, "chain", 0, seed, run.expect(), [p], {"events": events, "fixes": fixes})


def generate_diamond(
    out: str, events: int, seed: int, width: int = 100, fixes: int = 10
) -> dict[str, Any]:
    """One run: layers ``width`` wide, each event a child of the whole layer above.

    Raises ``GenerateError`` (a ``ValueError``) for a ``width`` below 1 or too few
    ``events`` for one layer, before writing."""
    _check_stress("diamond", events, width, fixes)
    rng = random.Random(seed)
    run, _ = _stress_run(f"diamond-{seed}-{events}x{width}", rng)
    layers = (events - len(run) - fixes - 2) // width
    prev = [2, 3, 4, 5]
    for li in range(layers):
        t = FILLER[li % len(FILLER)]
        prev = [run.emit(t, "act", "maker", {"layer": li}, prev, step=(0, 1)) for _ in range(width)]
    _stress_tail(run, prev, fixes)
    p = os.path.join(out, f"diamond-{events}x{width}.jsonl")
    os.makedirs(out, exist_ok=True)
    _write(p, iter((run.text(),)))
    return _finish(
        out,
        "diamond",
        0,
        seed,
        run.expect(),
        [p],
        {"events": len(run), "width": width, "layers": layers, "fixes": fixes},
    )


HISTORY_FIELDS = (
    "ts", "run_id", "archetype", "signal_to_noise", "fix_rate", "cost_efficiency", "accuracy",
    "cycle_impact", "composite_score", "tokens", "cost_usd", "model", "findings_total",
    "findings_useful", "fixes_applied", "scoring_version", "run_ts", "cost_basis",
    "cost_efficiency_norm", "findings_contradicted", "events_sha256", "source",
)  # fmt: skip


def generate_history(out: str, lines: int, seed: int) -> dict[str, Any]:
    """A history file of spec §4 lines: v1 records, ~2% legacy lines, ~1% re-scored runs.

    Raises ``GenerateError`` (a ``ValueError``) for fewer than one line, before writing."""
    _at_least("lines", lines, 1)
    _at_least("seed", seed, 0)
    rng = random.Random(seed)
    os.makedirs(out, exist_ok=True)
    p = os.path.join(out, "effectiveness.jsonl")
    counts = {"v1": 0, "legacy": 0, "rescored": 0}
    run_ids: list[str] = []

    def record(run_id: str, arch: str, t: int, run_t: int, legacy: bool) -> str:
        total = _pick(rng, N_HIST_FINDINGS)
        useful = _int(rng, 0, total)
        fixes = _int(rng, 0, useful)
        s2n = useful / total if total else 0.0
        fix_rate = min(1.0, fixes / total) if total else 0.0
        contra = _int(rng, 0, total - useful) if total > useful else 0
        acc = 1 - contra / total if total else 1.0
        model, tier = _model(rng, arch)
        r = rng.random()
        cost = round(rng.uniform(0.0005, 0.3) * PRICE[tier] * 100, 6) if r < 0.85 else None
        basis = "unknown" if cost is None else ("observed" if r < 0.6 else "estimated")
        eff = useful / cost if cost else None
        eff_n = None if cost is None else (min(1.0, eff / 100) if eff is not None else 0.0)
        cyc = fixes > 0 and rng.random() < 0.6
        dims = [(0.30, s2n), (0.25, fix_rate), (0.20, eff_n), (0.15, acc), (0.10, float(cyc))]
        w = sum(a for a, v in dims if v is not None)
        comp = sum(a * v for a, v in dims if v is not None) / w
        rec: dict[str, Any] = {
            "ts": iso(t),
            "run_id": run_id,
            "archetype": arch,
            "signal_to_noise": s2n,
            "fix_rate": fix_rate,
            "cost_efficiency": eff,
            "accuracy": acc,
            "cycle_impact": cyc,
            "composite_score": comp,
            "tokens": _int(rng, 1_000, 60_000) if rng.random() < 0.9 else None,
            "cost_usd": cost,
            "model": model,
            "findings_total": total,
            "findings_useful": useful,
            "fixes_applied": fixes,
        }
        if legacy:
            # ArcheFlow's shell scorer: 15 fields, unknowns as 0 / "unknown", 2 decimals.
            for k in ("signal_to_noise", "fix_rate", "accuracy", "composite_score"):
                rec[k] = round(rec[k], 2)
            rec["cost_efficiency"] = round(eff or 0.0, 1)
            rec["cost_usd"] = cost or 0
            rec["tokens"] = rec["tokens"] or 0
            rec["model"] = model or "unknown"
        else:
            rec.update(
                scoring_version="effectiveness/v1",
                run_ts=iso(run_t),
                cost_basis=basis,
                cost_efficiency_norm=eff_n,
                findings_contradicted=contra,
                events_sha256=f"{rng.getrandbits(256):064x}",
                source=f".archeflow/events/{run_id}.jsonl",
            )
        return ENC(rec)

    def chunks() -> Iterator[str]:
        n = 0
        t = T0
        i = 0
        while n < lines:
            t += _int(rng, 60, 1800)
            if run_ids and rng.random() < 0.01:
                # The run's events changed: new lines with a later ts replace the old.
                run_id = _pick(rng, run_ids)
                kind = "rescored"
            else:
                run_id = f"run-{seed}-{i:07d}"
                run_ids.append(run_id)
                i += 1
                kind = "legacy" if rng.random() < 0.02 else "v1"
            archs = [a for a in REVIEWERS if rng.random() < 0.85] or ["guardian"]
            for a in archs:
                if n >= lines:
                    break
                yield record(run_id, a, t + 5, t, kind == "legacy")
                yield "\n"
                counts[kind] += 1
                n += 1

    _write(p, chunks())
    exp = Expect(lines=lines)
    return _finish(out, "history", 0, seed, exp, [p], {"lines": lines, "kinds": counts})


def _finish(
    out: str,
    shape: str,
    start: int,
    seed: int,
    exp: Expect,
    files: list[str],
    params: dict[str, Any],
) -> dict[str, Any]:
    doc = {
        "generator": GENERATOR_VERSION,
        "shape": shape,
        "seed": seed,
        "start": start,
        **params,
        "files": len(files),
        "bytes": sum(os.path.getsize(f) for f in files),
        # Names, not paths: the manifest is the same bytes wherever the corpus is written,
        # and stays right when its folder is moved (the harness reuses corpora by it).
        "paths": [os.path.basename(f) for f in files] if len(files) <= 10 else [],
        "expect": asdict(exp),
    }
    with open(os.path.join(out, f"corpus-{shape}-{start:07d}.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=True)
        f.write("\n")
    return {**doc, "paths": files}  # the caller gets every path; the manifest only a few


#: Events a chain or diamond needs besides its filler: run.start, four verdicts, ten
#: fixes, the boundary and run.complete.
STRESS_FIXED = stress_min_events("chain") - 1


def _written(a: argparse.Namespace) -> set[str]:
    """Names of the files this call writes in ``--out``."""
    if a.shape == "runs":
        data = (
            {f"run-{a.seed}-{i:07d}.jsonl" for i in range(a.start, a.start + a.runs)}
            if a.layout == "per-run"
            else {f"events-{a.start:07d}.jsonl"}
        )
        return data | {f"corpus-runs-{a.start:07d}.json"}
    if a.shape == "chain":
        return {f"chain-{a.events}.jsonl", "corpus-chain-0000000.json"}
    if a.shape == "diamond":
        return {f"diamond-{a.events}x{a.width}.jsonl", "corpus-diamond-0000000.json"}
    return {"effectiveness.jsonl", "corpus-history-0000000.json"}


#: The options only some shapes read, and those shapes; the others refuse them (they
#: were ignored: ``--shape chain --width 5`` wrote the chain as if no width were given).
SHAPE_OPTIONS = {
    "--runs": ("runs",),
    "--layout": ("runs",),
    "--start": ("runs",),
    "--type-variants": ("runs",),
    "--incomplete-rate": ("runs",),
    "--events": ("chain", "diamond"),
    "--width": ("diamond",),
    "--lines": ("history",),
}
#: Their defaults, set once the options given are known (``None``: not given).
SHAPE_DEFAULTS = {
    "runs": 1000,
    "layout": "per-run",
    "start": 0,
    "type_variants": False,
    "incomplete_rate": 0.01,
    "events": 10_000,
    "width": 100,
    "lines": 1_000_000,
}


def _check_shape(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """Refuse an option the shape does not read, then fill in the defaults of the rest."""
    bad = [
        f"{opt} does not apply to --shape {a.shape} (only to {', '.join(shapes)})"
        for opt, shapes in SHAPE_OPTIONS.items()
        if a.shape not in shapes and getattr(a, opt[2:].replace("-", "_")) is not None
    ]
    if bad:
        ap.error("; ".join(bad))
    for k, v in SHAPE_DEFAULTS.items():
        if getattr(a, k) is None:
            setattr(a, k, v)


def _check_args(ap: argparse.ArgumentParser, a: argparse.Namespace) -> None:
    """Refuse what would write a corpus other than the one asked for, before writing."""
    _check_shape(ap, a)
    for name, value, least in (
        ("--runs", a.runs, 1),
        ("--seed", a.seed, 0),  # run ids and each run's random stream assume it
        ("--start", a.start, 0),
        ("--width", a.width, 1),
        ("--lines", a.lines, 1),
    ):
        if value < least:
            ap.error(f"{name} must be at least {least} (got {value})")
    if not 0.0 <= a.incomplete_rate <= 1.0:
        ap.error(f"--incomplete-rate is a share, from 0 to 1 (got {a.incomplete_rate})")
    if os.path.exists(a.out) and not os.path.isdir(a.out):
        ap.error(f"--out {a.out}: exists and is not a directory")
    here = set(os.listdir(a.out)) if os.path.isdir(a.out) else set()
    # Files a new corpus would sit beside: extract reads the folder, so old run files
    # would be scored with it while the manifest counts only the new ones.
    other = sorted(here - _written(a))
    if not other:
        return
    if a.shape == "runs" and a.start > 0:
        first = os.path.join(a.out, "corpus-runs-0000000.json")
        try:
            with open(first, encoding="utf-8") as f:
                man = json.load(f)
        except (OSError, ValueError):
            man = {}
        if (man.get("seed"), man.get("layout")) != (a.seed, a.layout):
            ap.error(
                f"--start {a.start}: {a.out} holds other files but no corpus of --seed "
                f"{a.seed} and --layout {a.layout} to continue (no matching "
                "corpus-runs-0000000.json)"
            )
    else:
        ap.error(
            f"--out {a.out} already holds {len(other)} other file(s) ({other[0]}, ...): the "
            "new corpus would be mixed with them; give an empty or new directory "
            "(or --start to continue the corpus there)"
        )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m benchmarks.generate",
        description="Write a deterministic ArcheFlow event corpus (or a synthetic history).",
    )
    ap.add_argument(
        "--shape",
        choices=("runs", "chain", "diamond", "history"),
        default="runs",
        help="what to generate (default: runs)",
    )
    # The options of some shapes only default to None: one given to another shape is
    # refused (SHAPE_OPTIONS), and only an option that was not given can be told apart.
    ap.add_argument("--runs", type=int, help="runs to write (shape runs; default 1000)")
    ap.add_argument(
        "--layout",
        choices=("per-run", "single-file"),
        help="one file per run (ArcheFlow's layout, the default) or one export file (shape runs)",
    )
    ap.add_argument("--seed", type=int, default=1, help="random seed (same seed, same bytes)")
    ap.add_argument(
        "--out",
        required=True,
        help="output directory (created if missing); it must hold no other files, "
        "unless --start continues the corpus written there",
    )
    ap.add_argument(
        "--start",
        type=int,
        help="index of the first run: continue an existing corpus with new runs (shape runs)",
    )
    ap.add_argument(
        "--type-variants",
        action="store_true",
        default=None,
        help="also use the spec's other encodings of parent/fix_required "
        "(DuckDB's plain read_json baseline cannot read these; shape runs)",
    )
    ap.add_argument(
        "--incomplete-rate",
        type=float,
        help="share of runs without run.complete (shape runs; default 0.01)",
    )
    ap.add_argument("--events", type=int, help="events (shapes chain, diamond; default 10000)")
    ap.add_argument("--width", type=int, help="layer width (shape diamond; default 100)")
    ap.add_argument("--lines", type=int, help="history lines (shape history; default 1000000)")
    a = ap.parse_args(argv)
    _check_args(ap, a)
    t = time.perf_counter()
    try:
        if a.shape == "runs":
            doc = generate_runs(
                a.out, a.runs, a.layout, a.seed, a.start, a.type_variants, a.incomplete_rate
            )
        elif a.shape == "chain":
            doc = generate_chain(a.out, a.events, a.seed)
        elif a.shape == "diamond":
            doc = generate_diamond(a.out, a.events, a.seed, a.width)
        else:
            doc = generate_history(a.out, a.lines, a.seed)
    except GenerateError as e:
        # The library's refusals (raised before it writes): a usage error, as the CLI's own.
        ap.error(f"--{e.param.replace('_', '-')} {e.reason}")
    doc = {k: v for k, v in doc.items() if k != "paths"}
    doc["seconds"] = round(time.perf_counter() - t, 3)
    json.dump(doc, sys.stdout, indent=1, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Regenerate the bundled samples (deterministic): python examples/make_sample.py

The run logs (``extract``) and one file of operation episodes (``routes``, spec routes.md
§1) for the README's examples."""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).parent / "project" / ".archeflow" / "events"
EPISODES = Path(__file__).parent / "project" / ".archeflow" / "episodes" / "episodes.jsonl"
REVIEWERS = {  # archetype: (model, p_useful, p_fix, cost)
    "guardian": ("claude-haiku-4", 0.8, 0.9, 0.004),
    "skeptic": ("claude-sonnet-4", 0.75, 0.7, 0.02),
    "sage": ("claude-opus-4", 0.2, 0.3, 0.09),
    "trickster": ("claude-haiku-4", 0.15, 0.2, 0.003),
}


def run(i: int, rng: random.Random) -> list[dict[str, object]]:
    rid = f"run-2026-11-{i + 1:02d}"
    ev: list[dict[str, object]] = []

    def add(
        t: str, parent: list[int], agent: str | None, data: dict[str, object], phase: str
    ) -> int:
        seq = len(ev) + 1
        ev.append(
            {
                "ts": f"2026-11-{i + 1:02d}T10:{seq:02d}:00Z",
                "run_id": rid,
                "seq": seq,
                "parent": parent,
                "type": t,
                "phase": phase,
                "agent": agent,
                "data": data,
            }
        )
        return seq

    s = add("run.start", [], None, {"task": f"feature {i + 1}"}, "plan")
    s = add(
        "agent.complete",
        [s],
        "explorer",
        {"archetype": "explorer", "model": "claude-haiku-4", "tokens": 900, "cost_usd": 0.002},
        "plan",
    )
    s = add(
        "agent.complete",
        [s],
        "maker",
        {
            "archetype": "maker",
            "model": "claude-sonnet-4",
            "tokens_input": 4000,
            "tokens_output": 1500,
            "cost_usd": 0.05,
        },
        "do",
    )
    drift = 0.1 if i >= 7 else 0.0  # the skeptic gets better in the later runs
    for cycle in (1, 2):
        verdicts = []
        for arch, (model, pu, pf, cost) in REVIEWERS.items():
            a = add("agent.start", [s], arch, {"archetype": arch, "model": model}, "check")
            findings = []
            for k in range(rng.randint(0, 3)):
                useful = rng.random() < pu + (drift if arch == "skeptic" else 0.0)
                findings.append(
                    {
                        "severity": "warning" if useful else "info",
                        "fix_required": useful,
                        "file": f"src/m{k}.py",
                        "line": rng.randint(1, 200),
                        "description": f"{arch} finding {k} in cycle {cycle}",
                    }
                )
            v = add(
                "review.verdict",
                [a],
                arch,
                {
                    "archetype": arch,
                    "cycle": cycle,
                    "verdict": "approved" if not findings else "needs_changes",
                    "findings": findings,
                },
                "check",
            )
            add(
                "agent.complete",
                [v],
                arch,
                {
                    "archetype": arch,
                    "model": model,
                    "tokens": rng.randint(800, 3000),
                    **({"cost_usd": cost} if arch != "trickster" else {"estimated_cost_usd": cost}),
                },
                "check",
            )
            verdicts.append((arch, v, findings, pf))
        last = s
        for arch, v, findings, pf in verdicts:
            for f in findings:
                if f["fix_required"] and rng.random() < pf:
                    # Half the fixes name their source; the rest are attributed by the DAG walk.
                    data = {"finding": f["description"], "file": f["file"], "line": f["line"]}
                    if rng.random() < 0.5:
                        data["source"] = arch
                    last = add("fix.applied", [v], "maker", data, "act")
        s = add("cycle.boundary", [last], None, {"cycle": cycle, "met": cycle == 2}, "act")
    add("run.complete", [s], None, {"status": "completed"}, "act")
    return ev


#: model: (API-equivalent cost per episode, success rate on documentation tasks)
ROUTES = {"claude-sonnet-4": (0.03, 0.9), "claude-haiku-4": (0.01, 0.87)}


def episode(
    n: int, model: str, ok: bool, rng: random.Random, pair: str | None
) -> dict[str, object]:
    day = 1 + n % 14
    start = f"2026-11-{day:02d}T{9 + n % 8:02d}:{n % 60:02d}:00Z"
    return {
        "episodeId": f"ep-{n:04d}",
        "source": {
            "kind": "paired" if pair else "historical",
            "host": "claude-code",
            "sessionKey": f"s-{n}",
            "runId": f"run-2026-11-{day:02d}",
            "workerId": "w1",
            "pairId": pair,
        },
        "project": {"id": "sample", "revision": "abc123"},
        "activity": {"id": "documentation", "provenance": "observed", "confidence": 0.9},
        "task": {"fingerprint": pair or f"doc-{n}", "complexity": "low"},
        "execution": {
            "host": "claude-code",
            "inferenceProvider": "anthropic",
            "providerProvenance": "observed",
            "model": model,
            "reasoningEffort": "medium",
            "harnessFingerprint": "h1",
            "startedAt": start,
            "endedAt": start.replace(":00Z", ":30Z"),
            "durationMs": 30000,
        },
        "usage": {
            "input": rng.randint(800, 1500),
            "output": rng.randint(150, 400),
            "cacheRead": 0,
            "cacheWrite": 0,
            "observedCostUsd": None,
            "apiEquivalentCostUsd": ROUTES[model][0],
            "costBasis": "api_equivalent",
            "quotaPressure": None,
        },
        "outcome": {
            "status": "succeeded" if ok else "failed",
            "signals": [{"kind": "gate", "value": "pass" if ok else "fail", "source": "ci"}],
            "retries": 0,
            "repairs": 0,
            "escalation": {"escalated": False, "toModel": None},
        },
    }


def episodes(rng: random.Random) -> list[dict[str, object]]:
    """20 historical episodes per model, then 10 fixtures run on both (paired)."""
    out: list[dict[str, object]] = []
    for model, (_, rate) in ROUTES.items():
        for _ in range(20):
            out.append(episode(len(out) + 1, model, rng.random() < rate, rng, None))
    for k in range(10):
        for model, (_, rate) in ROUTES.items():
            out.append(episode(len(out) + 1, model, rng.random() < rate, rng, f"fixture-{k}"))
    return out


def main() -> None:
    rng = random.Random(7)
    OUT.mkdir(parents=True, exist_ok=True)
    for i in range(14):
        events = run(i, rng)
        path = OUT / f"{events[0]['run_id']}.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")
    EPISODES.parent.mkdir(parents=True, exist_ok=True)
    eps = episodes(random.Random(11))
    EPISODES.write_text("".join(json.dumps(e) + "\n" for e in eps), encoding="utf-8")


if __name__ == "__main__":
    main()

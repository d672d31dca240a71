"""Regenerate the bundled sample run logs (deterministic): python examples/make_sample.py"""

from __future__ import annotations

import json
import random
from pathlib import Path

OUT = Path(__file__).parent / "project" / ".archeflow" / "events"
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


def main() -> None:
    rng = random.Random(7)
    OUT.mkdir(parents=True, exist_ok=True)
    for i in range(14):
        events = run(i, rng)
        path = OUT / f"{events[0]['run_id']}.jsonl"
        path.write_text("".join(json.dumps(e) + "\n" for e in events), encoding="utf-8")


if __name__ == "__main__":
    main()

"""Deterministic synthetic corpora of operation episodes (spec routes.md §1, §7).

Every corpus is built from exact cell counts (``n`` episodes of which exactly
``successes`` carry a passing strong signal), shuffled by a seeded RNG, so the
expected comparisons are known by construction and reruns are byte-identical.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

AS_OF = "2025-03-01T00:00:00Z"
HOST = "claude-code"
PROVIDER = "anthropic"
HAIKU = "claude-haiku-4"
SONNET = "claude-sonnet-4"
OPUS = "claude-opus-4"

#: Per-episode API-equivalent cost of each model (a cheap model costs less).
PRICE = {HAIKU: 0.01, SONNET: 0.03, OPUS: 0.10}


@dataclass
class Gen:
    """Builds episodes with unique ids and a deterministic clock."""

    seed: int = 7
    start: str = "2025-02-20"
    episodes: list[dict[str, Any]] = field(default_factory=list)
    _n: int = 0

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)

    def _ts(self, day: str | None, k: int) -> str:
        d = day or self.start
        return f"{d}T{(k // 3600) % 24:02d}:{(k // 60) % 60:02d}:{k % 60:02d}Z"

    def episode(
        self,
        *,
        model: str,
        success: bool | None,
        activity: str = "documentation",
        kind: str = "historical",
        complexity: str | None = "low",
        harness: str | None = "h1",
        day: str | None = None,
        cost: float | None | str = "price",
        basis: str | None = "api_equivalent",
        retries: int = 0,
        repairs: int = 0,
        escalated: bool = False,
        to_model: str | None = None,
        run_id: str | None = None,
        fingerprint: str | None = None,
        pair_id: str | None = None,
        status: str = "succeeded",
        signals: list[dict[str, Any]] | None = None,
        host: str = HOST,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        self._n += 1
        eid = f"ep-{self._n:06d}"
        if signals is None:
            if success is None:
                signals = [
                    {"kind": "handoff", "value": "done"},
                    {"kind": "assistant_done", "value": "done"},
                ]
            else:
                signals = [{"kind": "gate", "value": "pass" if success else "fail", "source": "ci"}]
        price = PRICE.get(model, 0.05) if cost == "price" else cost
        ep: dict[str, Any] = {
            "episodeId": eid,
            "source": {
                "kind": kind,
                "host": host,
                "sessionKey": f"s-{self._n}",
                "runId": run_id,
                "workerId": "w1",
                "pairId": pair_id,
            },
            "project": {"id": "proj", "revision": "abc123"},
            "activity": {"id": activity, "provenance": "observed", "confidence": 0.9},
            "task": {"fingerprint": fingerprint or f"fp-{self._n}", "complexity": complexity},
            "execution": {
                "host": host,
                "inferenceProvider": PROVIDER,
                "providerProvenance": "observed",
                "model": model,
                "reasoningEffort": "medium",
                "harnessFingerprint": harness,
                "startedAt": self._ts(day, self._n),
                "endedAt": self._ts(day, self._n + 1),
                "durationMs": 1000,
            },
            "usage": {
                "input": 1000,
                "output": 200,
                "cacheRead": 0,
                "cacheWrite": 0,
                "observedCostUsd": None,
                "apiEquivalentCostUsd": price if basis != "observed" else None,
                "costBasis": basis,
                "quotaPressure": None,
            },
            "outcome": {
                "status": status,
                "signals": signals,
                "retries": retries,
                "repairs": repairs,
                "escalation": {"escalated": escalated, "toModel": to_model},
            },
        }
        if basis == "observed":
            ep["usage"]["observedCostUsd"] = price
        if extra:
            ep.update(extra)
        self.episodes.append(ep)
        return ep

    def cell(self, model: str, n: int, successes: int, **kw: Any) -> None:
        """``n`` labelled episodes of which exactly ``successes`` pass, in seeded order."""
        outcomes = [True] * successes + [False] * (n - successes)
        self.rng.shuffle(outcomes)
        for ok in outcomes:
            self.episode(model=model, success=ok, **kw)

    def unlabelled(self, model: str, n: int, **kw: Any) -> None:
        for _ in range(n):
            self.episode(model=model, success=None, **kw)

    def pairs(
        self, n: int, both: int, cand_only: int, inc_only: int, *, cand: str, inc: str, **kw: Any
    ) -> None:
        """``n`` frozen fixtures run on both routes with the given discordance."""
        kinds = [(True, True)] * both + [(True, False)] * cand_only + [(False, True)] * inc_only
        kinds += [(False, False)] * (n - len(kinds))
        self.rng.shuffle(kinds)
        for i, (c_ok, i_ok) in enumerate(kinds):
            pid = f"pair-{self._n}-{i}"
            self.episode(model=inc, success=i_ok, kind="paired", pair_id=pid, **kw)
            self.episode(model=cand, success=c_ok, kind="paired", pair_id=pid, **kw)

    def cascade(
        self,
        n_ops: int,
        *,
        cheap: str,
        premium: str,
        direct_ok: int,
        escalate: int,
        premium_ok: int,
        retries_on_escalated: int = 0,
        day: str | None = None,
        activity: str = "documentation",
        cheap_cost: float | None | str = "price",
        premium_cost: float | None | str = "price",
    ) -> None:
        """Prospective cheap-first operations.

        ``direct_ok`` operations succeed on the cheap first attempt; ``escalate`` escalate to
        ``premium`` (of which ``premium_ok`` succeed); the rest fail on the cheap attempt.
        """
        kinds = (
            ["direct"] * direct_ok
            + ["esc_ok"] * premium_ok
            + ["esc_fail"] * (escalate - premium_ok)
        )
        kinds += ["fail"] * (n_ops - len(kinds))
        self.rng.shuffle(kinds)
        for i, k in enumerate(kinds):
            run, fp = f"run-{self._n}-{i}", f"task-{self._n}-{i}"
            common = {
                "kind": "prospective",
                "run_id": run,
                "fingerprint": fp,
                "day": day,
                "activity": activity,
            }
            if k in ("direct", "fail"):
                self.episode(model=cheap, success=(k == "direct"), cost=cheap_cost, **common)
            else:
                self.episode(
                    model=cheap,
                    success=None,
                    escalated=True,
                    to_model=premium,
                    retries=retries_on_escalated,
                    cost=cheap_cost,
                    signals=[{"kind": "escalation", "value": "to-premium"}],
                    **common,
                )
                self.episode(model=premium, success=(k == "esc_ok"), cost=premium_cost, **common)

    def write(self, path: Path) -> Path:
        with open(path, "w", encoding="utf-8") as f:
            for ep in self.episodes:
                f.write(json.dumps(ep, sort_keys=True) + "\n")
        return path


def write_lines(path: Path, lines: Iterable[str]) -> Path:
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@pytest.fixture(autouse=True)
def _one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tiny corpora run faster on one DuckDB thread on a shared 2-core machine."""
    monkeypatch.setenv("RUNSCORE_THREADS", "1")


@pytest.fixture
def gen() -> Callable[..., Gen]:
    return lambda seed=7, start="2025-02-20": Gen(seed=seed, start=start)


def run_json(run_cli: Callable[..., Any], *args: str) -> dict[str, Any]:
    res = run_cli("routes", "report", "--format", "json", "--as-of", AS_OF, *args)
    assert res.exit_code == 0, res.stderr
    out: dict[str, Any] = json.loads(res.stdout)
    return out


@pytest.fixture
def report(run_cli: Callable[..., Any]) -> Callable[..., dict[str, Any]]:
    """Run ``runscore routes report --format json`` and parse the output."""
    return lambda *args: run_json(run_cli, *args)


def types_of(rep: dict[str, Any]) -> list[str]:
    return [f["type"] for f in rep["findings"]]


def only(rep: dict[str, Any], type_: str) -> list[dict[str, Any]]:
    return [f for f in rep["findings"] if f["type"] == type_]


@pytest.fixture
def helpers() -> Any:
    class H:
        types = staticmethod(types_of)
        of = staticmethod(only)

    return H


__all__: Sequence[str] = ["Gen", "AS_OF", "HAIKU", "SONNET", "OPUS"]

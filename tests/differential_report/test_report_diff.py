"""runscore report/recommend --format json vs the spec-only reference in conftest.py.

One DuckDB pass of the report SQL costs 0.3-1.5 s (the exact trend bootstrap), so
random histories are batched: a report file holds 25 independent random histories
("groups"; archetype names unique per file) that both sides read as one history, and
is reported once with --sql-version all (every version, each by its own SQL).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from click.testing import CliRunner
from runscore.cli.main import cli

REPORT_FILES = 10  # × 25 groups = 250 random histories
GROUPS = 25
TEAM_FILES = 30  # × 4 groups, one team each = 120 more
TEAM_GROUPS = 4
KINDS = ("mixed", "legacy", "v1")  # which scoring versions a team file holds


def run_json(*args: str, torn: bool) -> list[dict[str, Any]]:
    res = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    # a torn last line is skipped and reported: exit 1 (partial), the rest still reported
    assert res.exit_code == (1 if torn else 0), res.stderr
    rows: list[dict[str, Any]] = json.loads(res.stdout)
    return rows


def _torn(text: str) -> bool:
    return not text.endswith("\n")


def _fail(diffs: list[str]) -> None:
    assert not diffs, f"{len(diffs)} differences:\n" + "\n".join(diffs[:40])


def _report_diffs(
    ref: ModuleType, where: str, got: list[dict[str, Any]], want: list[dict[str, Any]]
) -> list[str]:
    ident = ("scoring_version", "archetype")
    diffs = [f"{where}: {d}" for d in ref.diff_rows(got, want, ref.REPORT_KEYS, ident)]
    order = [tuple(r[k] for k in ident) for r in got]
    if not diffs and order != [tuple(r[k] for k in ident) for r in want]:
        diffs.append(f"{where}: row order {order}")
    return diffs


@pytest.fixture(scope="module")
def report_files(
    tmp_path_factory: pytest.TempPathFactory, ref: ModuleType
) -> list[tuple[Path, str]]:
    d = tmp_path_factory.mktemp("report")
    out = []
    for f in range(REPORT_FILES):
        rng = random.Random(1000 + f)
        groups = [ref.gen_group(rng, 0, plain_names=True)]
        groups += [ref.gen_group(rng, g) for g in range(1, GROUPS)]
        text = ref.history_text(rng, groups, torn=f % 4 == 3)
        p = d / f"h{f}.jsonl"
        p.write_text(text, encoding="utf-8")
        out.append((p, text))
    return out


@pytest.fixture(scope="module")
def team_files(
    tmp_path_factory: pytest.TempPathFactory, ref: ModuleType
) -> list[tuple[str, Path, str, Path]]:
    d = tmp_path_factory.mktemp("teams")
    out = []
    for f in range(TEAM_FILES):
        rng = random.Random(5000 + f)
        kind = KINDS[f % len(KINDS)]
        mode = {"mixed": None, "legacy": "legacy", "v1": "v1"}[kind]
        groups = [ref.gen_group(rng, 0, plain_names=True, mode=mode)]
        groups += [ref.gen_group(rng, g, mode=mode) for g in range(1, TEAM_GROUPS)]
        text = ref.history_text(rng, groups, torn=f % 5 == 4)
        p = d / f"h{f}.jsonl"
        p.write_text(text, encoding="utf-8")
        tp = d / f"team{f}.yaml"
        tp.write_text(
            ref.gen_team(rng, [n for g in groups for n in g.archetypes]), encoding="utf-8"
        )
        out.append((kind, p, text, tp))
    return out


def test_report_all_versions_match_reference(
    report_files: list[tuple[Path, str]], ref: ModuleType
) -> None:
    diffs: list[str] = []
    for p, text in report_files:
        want = ref.ref_report(text, "all")
        assert {r["scoring_version"] for r in want} == {ref.V1, ref.LEGACY}
        got = run_json(
            "report",
            "--history",
            str(p),
            "--format",
            "json",
            "--sql-version",
            "all",
            torn=_torn(text),
        )
        diffs += _report_diffs(ref, p.name, got, want)
    _fail(diffs)


@pytest.mark.parametrize("version", [None, "archeflow-legacy", "v1"])
def test_report_one_version_matches_reference(
    report_files: list[tuple[Path, str]], ref: ModuleType, version: str | None
) -> None:
    p, text = report_files[0]
    args = ["report", "--history", str(p), "--format", "json"]
    if version:
        args += ["--sql-version", version]
    want = ref.ref_report(text, {"v1": ref.V1}.get(version or "", version))
    _fail(_report_diffs(ref, p.name, run_json(*args, torn=_torn(text)), want))


def test_default_version_matches_reference(
    team_files: list[tuple[str, Path, str, Path]], ref: ModuleType
) -> None:
    """Default version: the newest present (legacy-only files report legacy)."""
    diffs: list[str] = []
    for _kind, p, text, _tp in team_files[:6]:
        want = ref.ref_report(text)
        got = run_json("report", "--history", str(p), "--format", "json", torn=_torn(text))
        diffs += _report_diffs(ref, p.name, got, want)
    _fail(diffs)


def test_recommend_matches_reference(
    team_files: list[tuple[str, Path, str, Path]], ref: ModuleType
) -> None:
    diffs: list[str] = []
    for f, (kind, p, text, tp) in enumerate(team_files):
        team = tp.read_text(encoding="utf-8")
        version = "archeflow-legacy" if kind == "mixed" and f % 2 else None
        args = ["recommend", str(tp), "--history", str(p), "--format", "json"]
        if version:
            args += ["--sql-version", version]
        want = ref.ref_recommend(text, team, version)
        got = run_json(*args, torn=_torn(text))
        where = f"{p.name}/{tp.name}"
        if [r["archetype"] for r in got] != [r["archetype"] for r in want]:
            diffs.append(
                f"{where}: member order {[r['archetype'] for r in got]} != "
                f"{[r['archetype'] for r in want]}"
            )
        diffs += [
            f"{where}: {d}" for d in ref.diff_rows(got, want, ref.RECOMMEND_KEYS, ("archetype",))
        ]
    _fail(diffs)

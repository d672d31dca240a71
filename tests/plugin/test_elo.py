"""Elo from pairwise matchups (spec plugin-eval §7), badges, ranking, and how input lines
find their skill. One scoring run serves most tests (each run costs a DuckDB session)."""

from __future__ import annotations

import hashlib
import re
import shutil
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

DESC = "Use when testing Elo ratings from matchups in this pack, for testing."
SKILL = {"text": f"---\nname: elo\ndescription: {DESC}\n---\nbody\n"}
REAL = Path(__file__).resolve().parents[1] / "fixtures" / "plugin" / "team-composition-patterns"

VECTOR = [(1500, "win"), (1550, "draw"), (1450, "loss"), (1600, "win"), (1500, "win")]
BADGES = {  # matchups of a copy of team-composition-patterns (composite 72.80)
    "b-unknown/team-composition-patterns": ([], "Silver"),  # no Elo: the composite decides
    "b-silver/team-composition-patterns": ([(1500, "win")] * 3, "Silver"),  # Elo >= 1400
    "b-bronze/team-composition-patterns": ([(1300, "loss")] * 6, "Bronze"),  # 1367: < 1400
    "b-none/team-composition-patterns": ([(1100, "loss")] * 9, "none"),  # 970: < 1300
}


def m(skill: Any, elo: Any, result: str) -> dict[str, Any]:
    return {"skill": skill, "opponent": "o", "opponent_elo": elo, "result": result}


def elo(matchups: list[tuple[float, str]]) -> float:
    ra = 1500.0
    for rb, res in matchups:
        s = {"win": 1.0, "draw": 0.5, "loss": 0.0}[res]
        ra = ra + 32.0 * (s - 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0)))
    return ra


@pytest.fixture(scope="module")
def rated(tmp_path_factory: pytest.TempPathFactory, kit: SimpleNamespace) -> Any:
    base = tmp_path_factory.mktemp("elo")
    for folder in BADGES:
        shutil.copytree(REAL, base / "skills" / folder)  # the folder name stays the same
    skills = {
        "vector": SKILL,
        "single": SKILL,
        "unrated": SKILL,
        "rank-win": SKILL,
        "rank-loss": SKILL,
        "group/one": {"text": "---\nname: uno\ndescription: Use when one\n---\n"},
        "group/two": {"text": "---\nname: dup\ndescription: Use when two\n---\n"},
        "other/two": {"text": "---\nname: dup\ndescription: Use when two\n---\n"},
    }
    lines: list[Any] = [m("vector", rb, r) for rb, r in VECTOR]
    lines += [m("single", 1600, "draw"), m("rank-win", 1500, "win"), m("rank-loss", 1500, "loss")]
    for folder, (results, _) in BADGES.items():
        lines += [m(folder, rb, r) for rb, r in results]
    start = len(lines)
    lines += [
        m("group/one", 1500, "win"),  # path relative to the root
        m("uno", 1500, "win"),  # its name
        m(str(base / "skills" / "group" / "two"), 1500, "win"),  # the folder as found
        m("dup", 1500, "win"),  # a name two skills share
        m("two", 1500, "win"),  # neither a path nor a name
        {"skill": 3, "opponent_elo": 1500, "result": "win"},
        m("uno", "1500", "win"),
        m("uno", 1500, "tie"),
    ]
    by_skill, result = kit.score(base, skills, matchups=lines)
    return by_skill, result, start


def test_test_vector(rated: Any) -> None:
    got = rated[0]["vector"]["elo"]
    assert round(got["rating"], 4) == 1534.1586
    assert got["rating"] == elo(VECTOR)
    assert got["matchups"] == 5
    assert 1400 < got["ci_low"] < got["ci_high"] < 1650


def test_bootstrap_is_deterministic_and_per_skill(
    rated: Any, tmp_path_factory: pytest.TempPathFactory, kit: SimpleNamespace
) -> None:
    # Scored again alone, with other matchups around it: the interval does not move.
    lines = [m("b", 1500, "loss"), *[m("vector", rb, r) for rb, r in VECTOR], m("b", 1400, "win")]
    again, _ = kit.score(
        tmp_path_factory.mktemp("e2"), {"vector": SKILL, "b": SKILL}, matchups=lines
    )
    assert again["vector"]["elo"] == rated[0]["vector"]["elo"]
    assert again["b"]["elo"]["rating"] == elo([(1500, "loss"), (1400, "win")])


def test_fewer_than_two_matchups_use_the_point_estimate(rated: Any) -> None:
    got = rated[0]["single"]["elo"]
    assert got["rating"] == elo([(1600, "draw")])
    assert got["ci_low"] == got["ci_high"] == got["rating"]


def test_no_matchups_no_elo(rated: Any) -> None:
    assert rated[0]["unrated"]["elo"] is None


@pytest.mark.parametrize("folder", list(BADGES))
def test_badge_needs_the_elo_minimum_when_elo_is_known(rated: Any, folder: str) -> None:
    results, badge = BADGES[folder]
    s = rated[0][folder]
    assert s["composite"] == 72.8030303030303
    if results:
        assert s["elo"]["rating"] == elo(results)
    assert s["badge"] == badge


def test_rank_orders_by_composite_then_elo(rated: Any) -> None:
    ranking = [r["skill"] for r in rated[1].ranking.to_pylist()]
    # same SKILL.md text and folder-name relation: equal composites; Elo breaks the tie,
    # unknown Elo last
    same = [s for s in ranking if s in ("rank-win", "vector", "single", "rank-loss", "unrated")]
    assert same == ["vector", "rank-win", "single", "rank-loss", "unrated"]
    assert [r["rank"] for r in rated[1].ranking.to_pylist()] == list(range(1, len(ranking) + 1))


def test_input_lines_find_skills_by_path_or_name(rated: Any) -> None:
    by_skill, result, start = rated
    assert by_skill["group/one"]["elo"]["matchups"] == 2
    assert by_skill["group/two"]["elo"]["matchups"] == 1
    assert by_skill["other/two"]["elo"] is None
    assert sorted((i.line - start, i.reason) for i in result.issues) == [
        (4, 'skill "dup" matches several skills; give its path relative to the root'),
        (5, 'no scored skill matches skill "two"'),
        (6, "skill is not a string"),
        (7, "opponent_elo is not a number"),
        (8, "result is not one of win, draw, loss"),
    ]


def test_numbers_too_large_for_a_double_are_refused_not_read_as_infinity(
    tmp_path: Path, kit: SimpleNamespace
) -> None:
    # JSON has no infinity, but 1e400 overflows a double to one. An opponent rated
    # infinite made every win worth the full K and the rating meaningless; an infinite
    # token count made the token spread unknown. Such lines are reported, as the
    # effectiveness pack reports a cost of 1e400.
    mk = '{"skill": "s", "opponent": "o", "opponent_elo": %s, "result": "win"}'
    mc = '{"skill": "s", "activated": true, "quality_score": 0.5, "tokens": %s}'
    by_skill, result = kit.score(
        tmp_path,
        {"s": SKILL},
        matchups=[mk % "1e400", mk % "-1e400", mk % "1500"],
        mc=[mc % "1e400", mc % "1200", mc % "-1e400"],
    )
    got = by_skill["s"]
    assert got["elo"]["matchups"] == 1 and got["elo"]["rating"] == elo([(1500, "win")])
    assert sorted((Path(i.file).name, i.line, i.reason) for i in result.issues) == [
        ("matchups.jsonl", 1, "opponent_elo is not a finite number"),
        ("matchups.jsonl", 2, "opponent_elo is not a finite number"),
        ("mc.jsonl", 1, "tokens is not a finite number; read as absent"),
        ("mc.jsonl", 3, "tokens is not a finite number; read as absent"),
    ]


def test_a_number_that_is_not_finite_is_worded_alike_in_every_input(
    tmp_path: Path, kit: SimpleNamespace
) -> None:
    # Every spelling JSON parsing lets through, in each of the three inputs. Infinity and
    # NaN are not JSON: the line is refused by the reader, alike in each. A number too large
    # for a double is JSON and reads as infinity: a judge score said "= inf is outside
    # [0, 1]" and a quality score "= -inf is outside [0, 1]", where an opponent's rating
    # and a token count said "is not a finite number".
    spellings = ["Infinity", "-Infinity", "NaN", "1e999", "-1e999", "9" * 400]
    judge = '{"skill": "s", "judge": "j%d", "scores": {"output_quality": %s}}'
    mc = '{"skill": "s", "activated": true, "quality_score": %s}'
    mk = '{"skill": "s", "opponent": "o", "opponent_elo": %s, "result": "win"}'
    by_skill, result = kit.score(
        tmp_path,
        {"s": SKILL},
        judge=[judge % (i, v) for i, v in enumerate(spellings)],
        mc=[mc % v for v in spellings],
        matchups=[mk % v for v in spellings],
    )
    refused = {
        1: "not JSON: Infinity is not valid JSON",
        2: "not JSON: -Infinity is not valid JSON",
        3: "not JSON: NaN is not valid JSON",
    }
    not_finite = {
        "judge.jsonl": "scores.output_quality is not a finite number; treated as unmeasured",
        "mc.jsonl": "quality_score is not a finite number; read as absent",
        "matchups.jsonl": "opponent_elo is not a finite number",
    }
    assert sorted((Path(i.file).name, i.line, i.reason) for i in result.issues) == sorted(
        [
            (f, line, refused.get(line, reason))
            for f, reason in not_finite.items()
            for line in range(1, 7)
        ]
    )
    got = by_skill["s"]
    # The lines that read were used as unmeasured: 3 judges with no score, 3 runs without
    # a quality, no matchup.
    assert (got["judges"]["count"], got["mc"]["n"], got["elo"]) == (3, 3, None)
    assert (got["mc"]["quality_n"], got["dimensions"]["output_quality"]) == (0, None)


def test_the_bootstrap_interval_follows_the_readme(rated: Any) -> None:
    # Spec §7: "500 bootstrap resamples of the matchup list with a fixed, documented seed".
    # The seed and how a resample draws were only in an SQL comment; the README now says
    # both, and this recomputes the interval from its words alone.
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    found = re.search(r"`md5\('([^|']+)\|SKILL\|b\|i'\) mod n`", readme)
    assert found, "the README does not document the bootstrap's seed"
    seed = found.group(1)
    games = [(float(rb), {"win": 1.0, "draw": 0.5, "loss": 0.0}[r]) for rb, r in VECTOR]

    def rating(order: list[int]) -> float:
        ra = 1500.0
        for j in order:
            rb, s = games[j]
            ra = ra + 32.0 * (s - 1.0 / (1.0 + 10.0 ** ((rb - ra) / 400.0)))
        return ra

    def draw(b: int, i: int) -> int:
        digest = hashlib.md5(f"{seed}|vector|{b}|{i}".encode()).digest()
        return int.from_bytes(digest, "little") % len(games)

    boot = sorted(rating([draw(b, i) for i in range(len(games))]) for b in range(500))
    got = rated[0]["vector"]["elo"]
    assert (got["ci_low"], got["ci_high"]) == pytest.approx((boot[12], boot[486]), abs=1e-9)

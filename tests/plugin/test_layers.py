"""Judge and Monte Carlo ingestion, blending (spec plugin-eval §1, §5, §6) and input checks."""

from __future__ import annotations

import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from runscore.cli.plugin import render_skill
from runscore.engine import stats

DESC = "Use when testing the blending of evidence layers in this pack, for testing."
BASE = {"text": f"---\nname: base\ndescription: {DESC}\n---\n## Usage\nIt returns text.\n"}

DIM_W = {
    "triggering_accuracy": 0.25,
    "orchestration_fitness": 0.20,
    "output_quality": 0.15,
    "scope_calibration": 0.12,
    "progressive_disclosure": 0.10,
    "token_efficiency": 0.06,
    "robustness": 0.05,
    "structural_completeness": 0.03,
    "code_template_quality": 0.02,
    "ecosystem_coherence": 0.02,
}
BLEND = {  # static, judge, mc
    "triggering_accuracy": (0.15, 0.25, 0.60),
    "orchestration_fitness": (0.10, 0.70, 0.20),
    "output_quality": (0.00, 0.40, 0.60),
    "scope_calibration": (0.30, 0.55, 0.15),
    "progressive_disclosure": (0.80, 0.20, 0.00),
    "token_efficiency": (0.40, 0.10, 0.50),
    "robustness": (0.00, 0.20, 0.80),
    "structural_completeness": (0.90, 0.10, 0.00),
    "code_template_quality": (0.30, 0.70, 0.00),
    "ecosystem_coherence": (0.85, 0.15, 0.00),
}
STATIC_DIM = {
    "triggering_accuracy": "frontmatter_quality",
    "orchestration_fitness": "orchestration_wiring",
    "progressive_disclosure": "progressive_disclosure",
    "token_efficiency": "token_efficiency",
    "structural_completeness": "structural_completeness",
    "ecosystem_coherence": "ecosystem_coherence",
}


def psum(xs: list[float]) -> float:
    """Python >= 3.12 sum() of floats (what PluginEval's numbers come from)."""
    s, c = 0.0, 0.0
    for x in xs:
        t = s + x
        c += (s - t) + x if abs(s) >= abs(x) else (x - t) + s
        s = t
    return s + c if c and math.isfinite(c) else s


def expected_blend(
    static: dict[str, float], judge: dict[str, float], mc: dict[str, float], penalty: float
) -> tuple[dict[str, float | None], float]:
    """Spec §5 written out independently of the SQL."""
    dims: dict[str, float | None] = {}
    for d, (bs, bj, bm) in BLEND.items():
        layers = []
        if d in STATIC_DIM:
            layers.append((static[STATIC_DIM[d]], bs))
        if d in judge:
            layers.append((judge[d], bj))
        if d in mc:
            layers.append((mc[d], bm))
        if not layers:
            dims[d] = None
            continue
        tw = psum([b for _, b in layers])
        dims[d] = (
            psum([v for v, _ in layers]) / len(layers)
            if tw == 0
            else psum([v * b / tw for v, b in layers])
        )
    measured = [d for d in DIM_W if dims[d] is not None]
    mw = psum([DIM_W[d] for d in measured])
    raw = psum([(DIM_W[d] / mw) * dims[d] for d in measured])  # type: ignore[operator]
    return dims, min(100.0, max(0.0, raw * 100.0 * penalty))


def judge_line(skill: str, judge: str, **scores: Any) -> dict[str, Any]:
    return {"skill": skill, "judge": judge, "scores": scores}


# --------------------------------------------------------------------------- judges


@pytest.fixture(scope="module")
def judged(tmp_path_factory: pytest.TempPathFactory, kit: SimpleNamespace) -> Any:
    skills = {"base": BASE, "kappa-known": BASE, "kappa-same": BASE, "three": BASE, "solo": BASE}
    lines = [
        judge_line(
            "base",
            "j1",
            triggering_accuracy=0.8,
            orchestration_fitness=0.7,
            output_quality=0.75,
            scope_calibration=0.6,
        ),
        judge_line(
            "base",
            "j2",
            triggering_accuracy=0.9,
            orchestration_fitness=None,
            output_quality="good",
            scope_calibration=0.4,
        ),
        # bands A, B, C, D against A, B, D, D: p_o = 3/4, p_e = 1/4, kappa = 2/3
        judge_line(
            "kappa-known",
            "a",
            triggering_accuracy=0.9,
            orchestration_fitness=0.7,
            output_quality=0.5,
            scope_calibration=0.3,
        ),
        judge_line(
            "kappa-known",
            "b",
            triggering_accuracy=0.8,
            orchestration_fitness=0.6,
            output_quality=0.39,
            scope_calibration=0.2,
        ),
        # every item in band A for both judges: p_e = 1, kappa defined as 1
        judge_line("kappa-same", "a", triggering_accuracy=0.9, orchestration_fitness=0.95),
        judge_line("kappa-same", "b", triggering_accuracy=0.8, orchestration_fitness=0.85),
        # three judges: pairs (x,y) = 1, (x,z) = (y,z) = -1/3 … mean
        judge_line("three", "x", triggering_accuracy=0.9, orchestration_fitness=0.1),
        judge_line("three", "y", triggering_accuracy=0.9, orchestration_fitness=0.1),
        judge_line("three", "z", triggering_accuracy=0.1, orchestration_fitness=0.9),
        judge_line("solo", "only", scope_calibration=0.5),
        judge_line("solo", "only", scope_calibration=0.7),  # same judge again: later wins
        judge_line("nobody", "j1", scope_calibration=0.5),
        judge_line("base", "j3", triggering_accuracy=1.2),
        {"skill": "base", "scores": {}},
        {"skill": "base", "judge": "j4", "scores": [1]},
        "not json",
    ]
    return kit.score(tmp_path_factory.mktemp("judge"), skills, judge=lines)


def test_judges_are_averaged_per_dimension(judged: Any) -> None:
    by_skill, _ = judged
    base = by_skill["base"]
    # j3 is a judge too (its only score is out of range, so it measured nothing)
    assert base["judges"]["count"] == 3
    judge = {
        "triggering_accuracy": psum([0.8, 0.9]) / 2,
        "orchestration_fitness": 0.7,  # j2's null is unmeasured
        "output_quality": 0.75,  # j2's "good" is not a number
        "scope_calibration": psum([0.6, 0.4]) / 2,
    }
    dims, composite = expected_blend(base["static"]["sub_scores"], judge, {}, 1.0)
    for d, v in dims.items():
        got = base["dimensions"][d]
        assert (got is None and v is None) or got["score"] == v, d
    assert base["composite"] == composite
    assert base["depth"] == "standard" and base["confidence"] == "Assessed"


def test_judge_only_dimensions_take_the_judge_score(judged: Any) -> None:
    base = judged[0]["base"]
    assert base["dimensions"]["scope_calibration"]["score"] == (0.5 * 0.55) / 0.55
    assert base["dimensions"]["robustness"] is None  # no judge, no Monte Carlo
    assert base["dimensions"]["code_template_quality"] is None


@pytest.mark.parametrize(
    ("skill", "kappa"),
    [("kappa-known", 2 / 3), ("kappa-same", 1.0), ("three", (1.0 - 1.0 - 1.0) / 3)],
)
def test_cohens_kappa_over_anchor_bands(judged: Any, skill: str, kappa: float) -> None:
    assert judged[0][skill]["judges"]["kappa"] == pytest.approx(kappa, abs=1e-12)


def test_kappa_pairs_are_listed(judged: Any) -> None:
    pairs = judged[0]["three"]["judges"]["pairs"]
    assert [(p["judge_a"], p["judge_b"], p["dimensions"]) for p in pairs] == [
        ("x", "y", 2),
        ("x", "z", 2),
        ("y", "z", 2),
    ]
    # x and z disagree on both items with 2 bands each: p_o = 0, p_e = 1/2, kappa = -1
    assert [p["kappa"] for p in pairs] == pytest.approx([1.0, -1.0, -1.0])


def test_single_judge_has_no_kappa_and_later_line_wins(judged: Any) -> None:
    solo = judged[0]["solo"]
    assert solo["judges"] == {"count": 1, "kappa": None, "pairs": []}
    assert solo["dimensions"]["scope_calibration"]["score"] == (0.7 * 0.55) / 0.55


def test_bad_judge_lines_are_reported_with_file_and_line(judged: Any) -> None:
    _, result = judged
    got = sorted((i.file.rsplit("/", 1)[-1], i.line, i.reason) for i in result.issues)
    assert got == [
        (
            "judge.jsonl",
            2,
            'scores.output_quality = "good" is not a number; treated as unmeasured',
        ),
        ("judge.jsonl", 10, 'judge "only" scored this skill again later; this line is ignored'),
        ("judge.jsonl", 12, 'no scored skill matches skill "nobody"'),
        (
            "judge.jsonl",
            13,
            "scores.triggering_accuracy = 1.2 is outside [0, 1]; treated as unmeasured",
        ),
        ("judge.jsonl", 14, "missing judge"),
        ("judge.jsonl", 15, "scores is not an object"),
        ("judge.jsonl", 16, "not JSON: Expecting value: line 1 column 1 (char 0)"),
    ]


# --------------------------------------------------------------------------- Monte Carlo


def run(
    skill: str, activated: bool, q: Any = None, tokens: Any = None, errored: Any = False
) -> dict[str, Any]:
    return {
        "skill": skill,
        "activated": activated,
        "quality_score": q,
        "tokens": tokens,
        "errored": errored,
    }


@pytest.fixture(scope="module")
def simulated(tmp_path_factory: pytest.TempPathFactory, kit: SimpleNamespace) -> Any:
    names = ("mc", "none-active", "all-active", "even", "no-quality", "three-of-100", "all-layers")
    skills = dict.fromkeys(names, BASE)
    lines = [
        run("mc", True, 0.8, 100),
        run("mc", True, 0.6, 200),
        run("mc", True, 1.0, 300),
        run("mc", False, None, 400),
        run("mc", True, 0.9, 99999, errored=True),  # errored: no quality, no tokens
        run("mc", True, None, 10000),
        *[run("none-active", False) for _ in range(50)],
        *[run("all-active", True) for _ in range(50)],
        run("even", True, 0.5, 10),
        run("even", True, 0.5, 20),
        run("even", True, 0.5, 30),
        run("even", True, 0.5, 41),
        run("no-quality", True, None, None, errored=True),
        *[run("three-of-100", i < 3, errored=i >= 97) for i in range(100)],
        run("mc", "yes"),
        run("mc", True, 1.5, -3, errored="no"),
    ]
    lines = [run("all-layers", True, 0.7, 2000), run("all-layers", False, None, 1000)] + lines
    judges = [
        judge_line(
            "all-layers",
            "j",
            triggering_accuracy=0.5,
            orchestration_fitness=0.9,
            output_quality=0.6,
            scope_calibration=0.8,
        )
    ]
    return kit.score(tmp_path_factory.mktemp("mc"), skills, mc=lines, judge=judges)


def test_monte_carlo_statistics(simulated: Any) -> None:
    mc = simulated[0]["mc"]["mc"]
    # 7 accepted runs (the last line is kept with its bad fields read as absent: its
    # `errored` "no" unknown, so the failure rate is over the 6 runs that said)
    assert mc["n"] == 7 and mc["activated"] == 6
    assert mc["activation_rate"] == 6 / 7
    q = [0.8, 0.6, 1.0]  # activated, not errored, with a quality value
    mean = psum(q) / 3
    std = math.sqrt(psum([(x - mean) * (x - mean) for x in q]) / 3)
    assert mc["quality_n"] == 3
    assert mc["mean_quality"] == mean and mc["std_quality"] == std
    assert mc["cv"] == std / abs(mean)
    assert (mc["errored"], mc["failure_n"], mc["failure_rate"]) == (1, 6, 1 / 6)
    assert (mc["failure_ci_low"], mc["failure_ci_high"]) == stats.clopper_pearson(1, 6, 0.95)
    # tokens of non-errored runs: 100 200 300 400 10000 (the bad -3 is absent)
    assert mc["tokens_n"] == 5
    assert (mc["median_tokens"], mc["q1_tokens"], mc["q3_tokens"]) == (300, 200, 400)
    assert mc["iqr_tokens"] == 200 and mc["token_outliers"] == 1
    assert mc["efficiency_norm"] == 1.0 - 300 / 8000
    score = (
        0.40 * (6 / 7)
        + 0.30 * (1.0 - min(1.0, std / mean))
        + 0.20 * (1.0 - 1 / 6)
        + 0.10 * (1.0 - 300 / 8000)
    )
    assert mc["mc_score"] == score


def test_wilson_interval_known_values(simulated: Any) -> None:
    none_, all_ = simulated[0]["none-active"]["mc"], simulated[0]["all-active"]["mc"]
    assert none_["activation_rate"] == 0.0 and none_["activation_ci_low"] == 0.0
    # With 0 (or n) successes Wilson's bound is z² / (n + z²): 0.07135003…
    assert none_["activation_ci_high"] == pytest.approx(1.96**2 / (50 + 1.96**2), rel=1e-12)
    assert all_["activation_ci_low"] == pytest.approx(50 / (50 + 1.96**2), rel=1e-12)
    assert all_["activation_ci_high"] == 1.0
    assert none_["failure_ci_low"] == 0.0
    assert none_["failure_ci_high"] == pytest.approx(1 - 0.025 ** (1 / 50), rel=1e-12)


def test_three_of_a_hundred(simulated: Any) -> None:
    mc = simulated[0]["three-of-100"]["mc"]
    assert mc["activation_rate"] == 0.03
    # Wilson 95% for 3/100 with z = 1.96 (published: 0.0103–0.0845); the digits are the
    # 40-digit decimal evaluation of the closed form
    assert mc["activation_ci_low"] == pytest.approx(0.010254338223414805, rel=1e-13)
    assert mc["activation_ci_high"] == pytest.approx(0.08452078080402699, rel=1e-13)
    # exact Clopper–Pearson for 3 failures in 100 (published: 0.0062–0.0852)
    assert mc["failure_ci_low"] == pytest.approx(0.006229971538306489, rel=1e-12)
    assert mc["failure_ci_high"] == pytest.approx(0.08517605297427962, rel=1e-12)


def test_even_token_count_median_and_no_quality(simulated: Any) -> None:
    even = simulated[0]["even"]["mc"]
    assert even["median_tokens"] == (20 + 30) / 2
    assert even["q1_tokens"] == 20 and even["q3_tokens"] == 41  # sorted[1], sorted[3]
    assert even["cv"] == 0.0  # mean 0.5, std 0
    nq = simulated[0]["no-quality"]
    assert nq["mc"]["mean_quality"] is None and nq["mc"]["cv"] == 0.0
    assert nq["dimensions"]["output_quality"] is None  # unmeasured, not 0
    assert nq["dimensions"]["robustness"]["score"] == ((1.0 - 1.0) * 0.8) / 0.8


def test_a_cv_of_0_by_the_spec_s_rule_says_so(tmp_path: Path, kit: SimpleNamespace) -> None:
    # §6: cv is 0 with one quality value or none, and when the mean is 0 (and it counts as
    # full consistency in mc_score). The report wrote "CV 0.000" alike for runs of equal
    # quality and for no quality at all ("Quality (0 values): mean —, std —, CV 0.000").
    from runscore.cli import plugin as cli_plugin

    names = ("measured", "equal", "one", "none", "zero-mean")
    lines = [
        run("measured", True, 0.8, 10),
        run("measured", True, 0.6, 10),
        run("equal", True, 0.5, 10),
        run("equal", True, 0.5, 10),
        run("one", True, 0.8, 10),
        run("none", False, None, 10),
        run("zero-mean", True, 0.0, 10),
        run("zero-mean", True, 0.0, 10),
    ]
    by_skill, result = kit.score(tmp_path, dict.fromkeys(names, BASE), mc=lines)
    mc = {n: by_skill[n]["mc"] for n in names}
    assert {n: (m["cv"], m["cv_rule"]) for n, m in mc.items()} == {
        "measured": (pytest.approx(0.1 / 0.7), None),
        "equal": (0.0, None),
        "one": (0.0, "fewer than 2 quality values"),
        "none": (0.0, "fewer than 2 quality values"),
        "zero-mean": (0.0, "mean quality 0"),
    }
    shown = {
        n: next(
            ln
            for ln in cli_plugin.render_skill(by_skill[n], result.dimension_weights).splitlines()
            if ln.startswith("- Quality (")
        )
        for n in names
    }
    assert shown == {
        "measured": "- Quality (2 values): mean 0.700, std 0.100, CV 0.143",
        "equal": "- Quality (2 values): mean 0.500, std 0.000, CV 0.000",
        "one": "- Quality (1 value): mean 0.800, std 0.000, CV 0.000 (0 by rule: fewer than 2 "
        "quality values)",
        "none": "- Quality (0 values): mean —, std —, CV 0.000 (0 by rule: fewer than 2 quality "
        "values)",
        "zero-mean": "- Quality (2 values): mean 0.000, std 0.000, CV 0.000 (0 by rule: mean "
        "quality 0)",
    }


def test_every_run_errored_leaves_efficiency_unknown(simulated: Any) -> None:
    # Its one run errored: no token count is counted (spec §6: "tokens of non-errored
    # runs"), yet efficiency read 0, as if the skill used 8000 tokens or more, and the
    # Monte Carlo layer pulled token_efficiency down with it. The failure rate (1) and
    # robustness (0) are what say the runs failed.
    nq = simulated[0]["no-quality"]
    assert nq["mc"]["median_tokens"] is None and nq["mc"]["efficiency_norm"] is None
    # mc_score is weighed over its known terms (it was unknown): activation 1, no quality
    # value (CV 0 by rule), failure 1
    assert nq["mc"]["mc_score"] == (0.40 * 1.0 + 0.30 * 1.0 + 0.20 * 0.0) / (0.40 + 0.30 + 0.20)
    assert nq["mc"]["failure_rate"] == 1.0
    static = nq["static"]["sub_scores"]["token_efficiency"]
    assert nq["dimensions"]["token_efficiency"]["score"] == (static * 0.40) / 0.40


def test_monte_carlo_only_blend_stays_quick(simulated: Any) -> None:
    s = simulated[0]["mc"]
    mc = s["mc"]
    layer = {
        "triggering_accuracy": mc["activation_rate"],
        "output_quality": mc["mean_quality"],
        "robustness": 1.0 - mc["failure_rate"],
        "token_efficiency": mc["efficiency_norm"],
    }
    dims, composite = expected_blend(s["static"]["sub_scores"], {}, layer, 1.0)
    for d, v in dims.items():
        got = s["dimensions"][d]
        assert (got is None and v is None) or got["score"] == v, d
    assert s["composite"] == composite
    # The depths are a ladder (spec §5: static only, + judge, + Monte Carlo): Monte Carlo
    # runs without a judge read "deep (Certified)", a claim of judge results never given.
    assert s["depth"] == "quick" and s["confidence"] == "Estimated"
    assert s["judges"] is None


def test_all_three_layers_blend(simulated: Any) -> None:
    s = simulated[0]["all-layers"]
    judge = {
        "triggering_accuracy": 0.5,
        "orchestration_fitness": 0.9,
        "output_quality": 0.6,
        "scope_calibration": 0.8,
    }
    mc = {
        "triggering_accuracy": 0.5,
        "output_quality": 0.7,
        "robustness": 1.0,
        "token_efficiency": 1.0 - 1500 / 8000,
    }
    dims, composite = expected_blend(s["static"]["sub_scores"], judge, mc, 1.0)
    for d, v in dims.items():
        got = s["dimensions"][d]
        assert (got is None and v is None) or got["score"] == v, d
    assert s["dimensions"]["robustness"]["score"] == 1.0  # Monte Carlo alone
    assert s["composite"] == composite
    assert s["depth"] == "deep" and s["judges"]["count"] == 1


def test_a_run_that_does_not_say_whether_it_errored_is_counted_neither_way(
    tmp_path: Path, kit: SimpleNamespace
) -> None:
    # An absent or null `errored` read as false: a file that never said scored a failure
    # rate of 0, robustness 1.0, and its runs' quality and tokens counted as clean runs'.
    # Unknown now: the rate is over the runs that said, and the report says how many did not.
    lines = [
        {"skill": "some", "activated": True, "quality_score": 0.8, "tokens": 100, "errored": False},
        {"skill": "some", "activated": True, "quality_score": 0.6, "tokens": 200, "errored": True},
        {"skill": "some", "activated": True, "quality_score": 0.4, "tokens": 300},
        {"skill": "none", "activated": True, "quality_score": 0.8, "tokens": 100},
        {"skill": "none", "activated": False, "tokens": 200, "errored": None},
    ]
    by_skill, result = kit.score(tmp_path, {"some": BASE, "none": BASE}, mc=lines)
    assert result.issues == []  # absent is not wrong: errored is optional
    some, none = by_skill["some"], by_skill["none"]
    assert (some["mc"]["errored"], some["mc"]["failure_rate"]) == (1, 0.5)  # was 1 / 3
    assert some["mc"]["failure_n"] == 2
    assert (some["mc"]["quality_n"], some["mc"]["tokens_n"]) == (1, 1)
    assert (none["mc"]["failure_rate"], none["mc"]["failure_n"]) == (None, 0)  # was 0.0
    assert none["dimensions"]["robustness"] is None
    md = [render_skill(s, result.dimension_weights).splitlines() for s in (some, none)]
    assert [line for line in md[0] if line.startswith(("- Failures", "- Monte Carlo"))] == [
        "- Failures: 1 of the 2 runs that said whether they errored (1 did not): rate 0.500 "
        "(Clopper–Pearson 95% 0.013–0.987)",
        f"- Monte Carlo score: {some['mc']['mc_score']:.2f}",
    ]
    assert [line for line in md[1] if line.startswith(("- Failures", "- Monte Carlo"))] == [
        "- Failures: — (no run said whether it errored): rate — (Clopper–Pearson 95% —–—)",
        "- Monte Carlo score: 0.71 (failure rate and token efficiency unknown: weighed over "
        "activation and consistency)",
    ]


def test_bad_monte_carlo_lines(simulated: Any) -> None:
    got = sorted((i.line, i.reason) for i in simulated[1].issues)
    assert got == [
        (214, "activated is not true/false"),
        (215, "errored is not true/false; read as unknown"),
        (215, "quality_score = 1.5 is outside [0, 1]; read as absent"),
        (215, "tokens is negative; read as absent"),
    ]


def test_a_fractional_token_count_is_reported_and_read_as_absent(
    tmp_path: Path, kit: SimpleNamespace
) -> None:
    # `tokens` is a count (spec §1: 1234): 1.5 was taken without a word and its median fed
    # token efficiency. Now it is said, as a negative count is, and read as absent; a
    # whole number written as a double (1500.0, 1.5e3) is still the count it is.
    lines = [
        run("frac", True, 0.8, 1.5),
        run("frac", True, 0.6, 1500.0),
        '{"skill": "frac", "activated": true, "quality_score": 0.7, "tokens": 1.5e3, '
        '"errored": false}',
        run("frac", True, 0.7, 7e-1),
        '{"skill": "frac", "activated": true, "quality_score": 0.7, "tokens": 2.50}',
    ]
    by_skill, result = kit.score(tmp_path, {"frac": BASE}, mc=lines)
    got = sorted((i.line, i.reason) for i in result.issues)
    assert got == [
        (1, "tokens = 1.5 is not a whole number; read as absent"),
        (4, "tokens = 0.7 is not a whole number; read as absent"),
        (5, "tokens = 2.5 is not a whole number; read as absent"),
    ]
    mc = by_skill["frac"]["mc"]
    assert (mc["tokens_n"], mc["median_tokens"]) == (2, 1500.0)
    assert mc["efficiency_norm"] == 1.0 - 1500 / 8000


def test_runs_without_token_counts_leave_efficiency_unknown(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    # Runs that completed but reported no tokens read as efficiency 0: the Monte Carlo
    # layer dragged token_efficiency from 1.0 to 0.44 and the composite with it.
    runs = [run("no-tokens", True, 0.8), run("no-tokens", False), run("no-tokens", True, 0.6)]
    by_skill, result = kit.score(tmp_path, {"no-tokens": BASE}, mc=runs)
    s = by_skill["no-tokens"]
    mc = s["mc"]
    assert mc["tokens_n"] == 0 and mc["median_tokens"] is None
    assert mc["efficiency_norm"] is None
    assert mc["activation_rate"] == 2 / 3 and mc["failure_rate"] == 0.0
    # Spec §6: tokens feed only efficiency_norm, a tenth of mc_score; mc_score was unknown
    # with it. It is weighed over the three terms that are known, as the composite is over
    # the measured dimensions (§5), and the report says so.
    cv = mc["std_quality"] / mc["mean_quality"]
    assert cv == pytest.approx(0.1 / 0.7)
    assert mc["mc_score"] == (0.40 * (2 / 3) + 0.30 * (1.0 - cv) + 0.20 * 1.0) / (
        0.40 + 0.30 + 0.20
    )
    from runscore.cli import plugin as cli_plugin

    md = cli_plugin.render_skill(s, result.dimension_weights)
    assert (
        "- Monte Carlo score: 0.80 (token efficiency unknown: weighed over activation, "
        "consistency and reliability)"
    ) in md.splitlines()
    layer = {
        "triggering_accuracy": 2 / 3,
        "output_quality": psum([0.8, 0.6]) / 2,
        "robustness": 1.0,
    }  # token_efficiency: the static layer alone
    dims, composite = expected_blend(s["static"]["sub_scores"], {}, layer, 1.0)
    for d, v in dims.items():
        got = s["dimensions"][d]
        assert (got is None and v is None) or got["score"] == v, d
    assert s["dimensions"]["token_efficiency"]["score"] == 1.0
    assert s["composite"] == composite
    assert "token_efficiency" not in [t["dimension"] for t in s["tips"]]
    assert result.issues == []


def test_a_judge_score_that_is_not_a_number_is_reported(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    # §1: a non-numeric score is unmeasured; it was dropped without a word, so a judge that
    # wrote "0.8" (or "4") instead of 0.8 silently measured nothing. A null or missing
    # score is the documented way to say "not measured" and stays quiet.
    lines = [
        judge_line(
            "base",
            "j1",
            triggering_accuracy="0.8",
            orchestration_fitness=True,
            output_quality=[1],
            scope_calibration=None,
        ),
        judge_line("base", "j2", output_quality={"value": "x" * 90}, scope_calibration=0.5),
    ]
    by_skill, result = kit.score(tmp_path, {"base": BASE}, judge=lines)
    assert [(i.line, i.reason) for i in result.issues] == [
        (1, "scores.orchestration_fitness = true is not a number; treated as unmeasured"),
        (1, "scores.output_quality = [1] is not a number; treated as unmeasured"),
        (1, 'scores.triggering_accuracy = "0.8" is not a number; treated as unmeasured'),
        (
            2,
            # cut as every message cuts a value (rs_quote): its first 79 characters and …
            f'scores.output_quality = {{"value":"{"x" * 69}… is not a number; '
            "treated as unmeasured",
        ),
    ]
    base = by_skill["base"]
    assert base["judges"]["count"] == 2
    assert base["dimensions"]["scope_calibration"]["score"] == (0.5 * 0.55) / 0.55
    assert base["dimensions"]["output_quality"] is None  # still unmeasured, not 0


def test_a_score_on_another_scale_is_quoted_as_written(tmp_path: Any, kit: SimpleNamespace) -> None:
    # A judge scoring 0-10 or 0-100 (the usual slip) wrote 8 and was told "= 8.0 is outside
    # [0, 1]", a Monte Carlo quality of 85 "= 85.0": the value read as a double, not as the
    # input has it, where every other message quotes an input value as its JSON text.
    lines = [judge_line("base", "j1", triggering_accuracy=8, orchestration_fitness=100)]
    runs = [run("base", True, 85, 100), run("base", True, 1e2, 100)]
    _, result = kit.score(tmp_path, {"base": BASE}, judge=lines, mc=runs)
    assert sorted((i.file.rsplit("/", 1)[-1], i.line, i.reason) for i in result.issues) == [
        (
            "judge.jsonl",
            1,
            "scores.orchestration_fitness = 100 is outside [0, 1]; treated as unmeasured",
        ),
        (
            "judge.jsonl",
            1,
            "scores.triggering_accuracy = 8 is outside [0, 1]; treated as unmeasured",
        ),
        ("mc.jsonl", 1, "quality_score = 85 is outside [0, 1]; read as absent"),
        ("mc.jsonl", 2, "quality_score = 100.0 is outside [0, 1]; read as absent"),
    ]


@pytest.mark.parametrize(
    ("tokens", "median"),
    [
        ([1e308, 1e308], 1e308),
        ([1.7976931348623157e308, 1.7976931348623157e308], 1.7976931348623157e308),
        ([1e308, 1.5e308, 1.7e308, 1.7e308], (1.5e308 / 2) + (1.7e308 / 2)),
        ([2**70, 2**70], float(2**70)),
    ],
)
def test_absurd_token_counts_keep_a_median(
    tmp_path: Any, kit: SimpleNamespace, tokens: list[Any], median: float
) -> None:
    # Two huge counts summed to infinity before halving: the median read as unknown ("—")
    # in the report and as "inf tokens" in the tip.
    runs = [run("big", True, 0.8, t) for t in tokens]
    by_skill, result = kit.score(tmp_path, {"big": BASE}, mc=runs)
    mc = by_skill["big"]["mc"]
    assert result.issues == []
    assert mc["median_tokens"] == median
    assert mc["efficiency_norm"] == 0.0
    assert mc["mc_score"] == 0.40 + 0.30 + 0.20
    tip = {t["dimension"]: t["tip"] for t in by_skill["big"]["tips"]}.get("token_efficiency")
    assert tip is None or "inf" not in tip


@pytest.mark.parametrize(
    ("quality", "tip"),
    [
        # every run's output perfect, the judges' 0.1 what holds the score down: the tip
        # said "mean output quality is 1.0"
        (1.0, "judges rate output quality low: add a worked example of the expected output"),
        # 0.996 read "1.0" as well
        (0.996, "mean output quality is 0.996: add a worked example of the expected output"),
        (0.5, "mean output quality is 0.50: add a worked example of the expected output"),
    ],
)
def test_the_output_quality_tip_blames_what_is_low(
    tmp_path: Any, kit: SimpleNamespace, quality: float, tip: str
) -> None:
    judge = [{"skill": "base", "judge": "j", "scores": {"output_quality": 0.1}}]
    run = {
        "skill": "base",
        "activated": True,
        "quality_score": quality,
        "tokens": 100,
        "errored": False,
    }
    by_skill, _ = kit.score(tmp_path, {"base": BASE}, judge=judge, mc=[run] * 5)
    tips = {t["dimension"]: t["tip"] for t in by_skill["base"]["tips"]}
    assert tips["output_quality"] == tip


@pytest.mark.parametrize(("lines", "shown"), [(300, 307), (393, 400)])
def test_the_progressive_disclosure_tip_names_what_holds_the_score_down(
    tmp_path: Any, kit: SimpleNamespace, lines: int, shown: int
) -> None:
    # 200–400 lines with references/ and assets/ score .90 (.60 + .15 + .15): the
    # references/ bonus is .25 only above 400 lines (spec §3). The tip said "keep SKILL.md
    # a summary and link detail in references/", which is what such a skill does.
    desc = (
        "Use proactively when reviewing, for testing, when debugging, during deploying: "
        "invoke it automatically to check the progressive disclosure tip of this pack."
    )
    head = f"---\nname: pd-skill\ndescription: {desc}\n---\n## Usage\nSee also skills.\n"
    body = "".join(f"guidance line {i}\n" for i in range(lines))
    spec = {"text": head + body, "refs": ["r.md"], "assets": ["t.md"]}
    # judges' 1.0 on their four dimensions, so progressive_disclosure is among the weakest
    scores = dict.fromkeys(
        ("triggering_accuracy", "orchestration_fitness", "output_quality", "scope_calibration"),
        1.0,
    )
    by_skill, _ = kit.score(tmp_path, {"pd": spec}, judge=[judge_line("pd", "j", **scores)])
    s = by_skill["pd"]
    assert (s["line_count"], s["static"]["sub_scores"]["progressive_disclosure"]) == (shown, 0.9)
    tips = {t["dimension"]: t["tip"] for t in s["tips"]}
    assert tips["progressive_disclosure"] == (
        f"SKILL.md has {shown} lines: references/ earns its full bonus above 400 lines "
        "(401–600 scores best)"
    )


@pytest.mark.parametrize(
    ("lines", "folders", "tip"),
    [
        # .40 + .25 + .15 = .80 at 601–800 lines; 401–600 lines score 1, 200–400 .90
        (650, ("refs", "assets"), "SKILL.md has {n} lines: move detail into references/ and "
         "keep 401–600 lines (the best score with references/)"),
        # .40 now; 401–600 lines with a reference file .85, any of 200–600 without one .60
        (650, (), "SKILL.md has {n} lines: move detail into references/ and keep 401–600 "
         "lines (the best score with references/)"),
        (50, ("refs",), "SKILL.md has only {n} lines: flesh it out to 401–600 lines of "
         "guidance (the best score with references/)"),
        (150, ("refs", "assets"), "SKILL.md has {n} lines: 401–600 lines score best with "
         "references/"),
    ],
)  # fmt: skip
def test_the_length_tip_names_the_length_that_scores_best(
    tmp_path: Any, kit: SimpleNamespace, lines: int, folders: tuple[str, ...], tip: str
) -> None:
    # "keep 200–600 lines" (and "200–600 is the sweet spot"): with a file in references/,
    # 200–400 lines score .15 less than 401–600 (spec §3's references/ bonus).
    desc = (
        "Use proactively when reviewing, for testing, when debugging, during deploying: "
        "invoke it automatically to check the progressive disclosure tip of this pack."
    )
    head = f"---\nname: pd-skill\ndescription: {desc}\n---\n## Usage\nSee also skills.\n"
    body = "".join(f"guidance line {i}\n" for i in range(lines))
    spec = {"text": head + body, "refs": ["r.md"] if "refs" in folders else []}
    if "assets" in folders:
        spec["assets"] = ["t.md"]
    scores = dict.fromkeys(
        ("triggering_accuracy", "orchestration_fitness", "output_quality", "scope_calibration"),
        1.0,
    )
    by_skill, _ = kit.score(tmp_path, {"pd": spec}, judge=[judge_line("pd", "j", **scores)])
    s = by_skill["pd"]
    tips = {t["dimension"]: t["tip"] for t in s["tips"]}
    assert tips["progressive_disclosure"] == tip.format(n=s["line_count"])


def test_a_judge_line_without_scores_says_they_are_missing(
    tmp_path: Any, kit: SimpleNamespace
) -> None:
    # A line with no `scores`, or `"scores": null`, was "scores is not an object", where a
    # line with no judge is "missing judge": the field is not there to be of a kind.
    lines = [
        {"skill": "base", "judge": "a"},
        {"skill": "base", "judge": "b", "scores": None},
        {"skill": "base", "judge": "c", "scores": [0.5]},
    ]
    _, result = kit.score(tmp_path, {"base": BASE}, judge=lines)
    assert [(i.line, i.reason) for i in result.issues] == [
        (1, "missing scores"),
        (2, "missing scores"),
        (3, "scores is not an object"),
    ]

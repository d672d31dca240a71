"""`runscore recommend TEAM.yaml` on ArcheFlow's team preset format (spec §6)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runscore.engine.errors import NothingReadable, UsageError
from runscore.engine.packs import effectiveness_history as eh

# ArcheFlow's bundle format: comments, description/domain/exit keys, an unexpanded
# ${max_cycles} placeholder, and the lists recommend reads.
ARCHEFLOW_TEAM = """\
# Team: Backend Feature
# Explorer scopes the change, Creator designs, Maker implements,
# Guardian + Sage review.

name: backend-feature
description: "Backend feature development: scope, design, implement, review"
domain: code

plan: [explorer, creator]
do: [maker]
check: [guardian, sage]

exit: all_approved
max_cycles: ${max_cycles}
"""


def test_archeflow_bundle_team(tmp_path: Path, run_cli, write_history, make_series) -> None:
    team = tmp_path / "team.yaml"
    team.write_text(ARCHEFLOW_TEAM)
    hist = write_history(make_series("guardian", [0.9, 0.8]) + make_series("sage", [0.3]))
    r = run_cli("recommend", str(team), "--history", str(hist), "--format", "json")
    assert r.exit_code == 0, r.stderr
    rows = json.loads(r.stdout)
    assert [
        (x["archetype"], x["current_model"], x["model_source"], x["score"], x["runs"], x["action"])
        for x in rows
    ] == [
        ("explorer", "haiku", "default", None, 0, "not_scored"),
        ("creator", "sonnet", "default", None, 0, "not_scored"),
        ("maker", "sonnet", "default", None, 0, "not_scored"),
        ("guardian", "haiku", "default", pytest.approx(0.85), 2, "keep"),
        ("sage", "sonnet", "default", 0.3, 1, "remove"),
    ]
    md = run_cli("recommend", str(team), "--history", str(hist)).stdout
    assert md.splitlines()[0] == "# Model Recommendations for team: backend-feature"
    assert "| Archetype | Current Model | Score | Suggestion |" in md
    assert (
        "| guardian | haiku | 0.85 (2 runs) | Keep haiku: high effectiveness at low cost (`keep`) |"
        in md
    )


def test_members_models_and_order(tmp_path: Path, write_history, make_series) -> None:
    team = tmp_path / "team.yaml"
    team.write_text(
        "name: custom\n"
        "plan: [Explorer]\n"
        "check: [ Guardian , sage]\n"
        "archetypes:\n"
        "  - name: Skeptic\n"
        "    model: claude-opus-4\n"
        "  - archetype: sage\n"
        "    model: claude-haiku-4\n"
        "  - reviewer-x\n"
        "model_overrides:\n"
        "  SAGE: claude-sonnet-4\n"
        "  maker: opus\n"
    )
    hist = write_history(
        make_series("skeptic", [0.5])
        + make_series("reviewer-x", [0.75, 0.75], model="claude-sonnet-4")
        + make_series("explorer", [0.9])  # a plan-only member with history is scored
    )
    rows = eh.recommend(hist, team).table.to_pylist()
    got = [(r["archetype"], r["current_model"], r["model_source"], r["action"]) for r in rows]
    assert got == [
        ("explorer", "haiku", "default", "keep"),
        ("guardian", "haiku", "default", "no_data"),
        # model_overrides beats the archetypes: entry; keys are lower-cased too
        ("sage", "claude-sonnet-4", "model_overrides", "no_data"),
        ("skeptic", "claude-opus-4", "archetypes", "optimize"),
        ("reviewer-x", "claude-sonnet-4", "history", "downgrade"),
        # named only in model_overrides: not plan/do only, so no_data (not not_scored)
        ("maker", "opus", "model_overrides", "no_data"),
    ]
    assert [r["suggested_model"] for r in rows] == [None, None, None, None, "haiku", None]


@pytest.mark.parametrize("version", ["effectiveness/v1", "archeflow-legacy"])
def test_the_current_model_is_the_team_s_not_the_one_the_runs_were_on(
    tmp_path: Path, run_cli, write_history, make_series, version: str
) -> None:
    # The bundled sample's skeptic ran on claude-sonnet-4 while its team file leaves the
    # skeptic's model to ArcheFlow: report advised a downgrade (its model is the runs'),
    # recommend "keep haiku". Both are the spec's. §6: "Current model per member:
    # `model_overrides` → the member's `model` in `archetypes:` → ArcheFlow's defaults
    # (haiku: explorer, guardian, skeptic, trickster; sonnet: creator, maker, sage) → the
    # most frequent model in its history → `unknown`", and its cheap/expensive is that
    # model's tier: the model the team will run next, not the one it ran on. §5's report
    # has no team: its "model = the most frequent non-null model in recent".
    hist = write_history(
        [
            rec
            for arch in ("skeptic", "sage", "reviewer-x")
            for rec in make_series(arch, [0.72] * 3, model="claude-sonnet-4", version=version)
        ]
    )
    team = tmp_path / "team.yaml"
    team.write_text("name: t\ncheck: [skeptic, sage, reviewer-x]\nmodel_overrides: {sage: opus}\n")
    rows = eh.recommend(hist, team, version=version).table.to_pylist()
    assert [
        (r["archetype"], r["current_model"], r["model_source"], r["action"], r["suggested_model"])
        for r in rows
    ] == [
        ("skeptic", "haiku", "default", "keep", None),  # not claude-sonnet-4's downgrade
        ("sage", "opus", "model_overrides", "downgrade", "sonnet"),
        # only a member the team and ArcheFlow give no model takes its history's
        ("reviewer-x", "claude-sonnet-4", "history", "downgrade", "haiku"),
    ]
    report = {r["archetype"]: r for r in eh.report(hist, version=version).table.to_pylist()}
    assert (report["skeptic"]["model"], report["skeptic"]["suggestion"]) == (
        "claude-sonnet-4",
        "downgrade",
    )
    md = run_cli("recommend", str(team), "--history", str(hist), "--sql-version", version).stdout
    assert "| skeptic | haiku | 0.72 (3 runs) | Keep haiku: high effectiveness at low cost" in md


@pytest.mark.parametrize("version", ["effectiveness/v1", "archeflow-legacy"])
def test_a_score_earned_on_another_tier_than_the_team_s_model_is_noted(
    tmp_path: Path, run_cli, write_history, make_series, version: str
) -> None:
    # recommend advises on the team's model (§6) with the score of the runs' models: it
    # said "Keep haiku: high effectiveness at low cost" of a skeptic whose runs were on
    # sonnet, and only model_source hinted at it. The JSON says which model the score was
    # earned on; stderr names each member advised on a model of another tier.
    skeptic = make_series("skeptic", [0.8] * 12, version=version, model="claude-sonnet-4")
    for rec in skeptic[2:5]:  # the window is the last 10: 7 of them on sonnet
        rec["model"] = "claude-haiku-4"
    hist = write_history(
        skeptic
        + make_series("sage", [0.5] * 2, version=version, model="haiku")
        + make_series("reviewer-x", [0.3], version=version, model="sonnet")
        # same tier, another name: no note
        + make_series("guardian", [0.9], version=version, model="claude-haiku-4")
        # a model of no known tier: its tier cannot be said to differ
        + make_series("trickster", [0.9], version=version, model="gpt-4o")
        + make_series("custom", [0.9], version=version)
    )
    team = tmp_path / "team.yaml"
    team.write_text(
        "name: t\ncheck: [skeptic, sage, reviewer-x, guardian, trickster, custom, fresh]\n"
        "archetypes: [{name: reviewer-x, model: claude-opus-4}]\n"
        "model_overrides: {sage: opus}\n"
    )
    rows = eh.recommend(hist, team, version=version).table.to_pylist()
    assert [
        (
            r["archetype"],
            r["current_model"],
            r["model_tier"],
            r["scored_model"],
            r["scored_model_tier"],
            r["scored_model_runs"],
            r["model_tier_differs"],
            r["action"],
        )
        for r in rows
    ] == [
        ("skeptic", "haiku", "cheap", "claude-sonnet-4", "standard", 7, True, "keep"),
        ("sage", "opus", "premium", "haiku", "cheap", 2, True, "optimize"),
        ("reviewer-x", "claude-opus-4", "premium", "sonnet", "standard", 1, True, "remove"),
        ("guardian", "haiku", "cheap", "claude-haiku-4", "cheap", 1, False, "keep"),
        ("trickster", "haiku", "cheap", "gpt-4o", None, 1, None, "keep"),
        ("custom", "unknown", None, "unknown", None, None, None, "keep"),
        ("fresh", "unknown", None, None, None, None, None, "no_data"),
    ]
    args = ["recommend", str(team), "--history", str(hist), "--sql-version", version]
    md = run_cli(*args)
    assert md.exit_code == 0
    # stdout is the spec's table, as it was
    assert "| skeptic | haiku | 0.80 (last 10 of 12 runs) | Keep haiku: high effectiveness" in (
        md.stdout
    )
    assert md.stderr == (
        "note: skeptic: the team leaves it to ArcheFlow's default, haiku (cheap); 7 of its "
        "last 10 runs ran on claude-sonnet-4 (standard): the score was earned there\n"
        "note: sage: the team says opus (premium, in model_overrides); its 2 runs ran on "
        "haiku (cheap): the score was earned there\n"
        "note: reviewer-x: the team says claude-opus-4 (premium, in its archetypes: entry); "
        "its one run ran on sonnet (standard): the score was earned there\n"
    )
    for fmt in ("json", "csv"):
        r = run_cli(*args, "--format", fmt)
        assert (r.exit_code, r.stderr) == (0, md.stderr)


def test_the_api_result_holds_the_model_notes_the_cli_says(
    tmp_path: Path, run_cli, write_history, make_series
) -> None:
    # `recommend` said them on stderr and the nightly run log wrote them, but the
    # RecommendResult a Python caller got held none of them: the CLI computed them from
    # its table itself. The result carries them, in the words the CLI says after "note: ".
    skeptic = make_series("skeptic", [0.8] * 3, model="claude-sonnet-4")
    hist = write_history(skeptic + make_series("guardian", [0.9], model="claude-haiku-4"))
    team = tmp_path / "team.yaml"
    team.write_text("name: t\ncheck: [skeptic, guardian]\nmodel_overrides: {skeptic: opus}\n")
    res = eh.recommend(hist, team)
    assert res.model_notes == [
        "skeptic: the team says opus (premium, in model_overrides); its 3 runs ran on "
        "claude-sonnet-4 (standard): the score was earned there"
    ]
    r = run_cli("recommend", str(team), "--history", str(hist), "--format", "json")
    assert (r.exit_code, r.stderr) == (0, "".join(f"note: {n}\n" for n in res.model_notes))


def test_a_plan_member_with_a_model_override_is_still_not_scored(
    tmp_path: Path, write_history, make_series
) -> None:
    # model_overrides sets a member's model; it is no phase. Explorer, in plan with an
    # override, was "no_data" ("run more orchestrations first": runs that never score it).
    team = tmp_path / "team.yaml"
    team.write_text(
        "name: t\nplan: [explorer, creator]\ndo: [maker]\ncheck: [guardian]\n"
        "model_overrides: {explorer: sonnet, maker: opus, tester: haiku}\n"
    )
    hist = write_history(make_series("guardian", [0.9]))
    rows = eh.recommend(hist, team).table.to_pylist()
    assert [(r["archetype"], r["model_source"], r["action"]) for r in rows] == [
        ("explorer", "model_overrides", "not_scored"),
        ("creator", "default", "not_scored"),
        ("maker", "model_overrides", "not_scored"),
        ("guardian", "default", "keep"),
        # named only in model_overrides: in no phase at all, so no_data
        ("tester", "model_overrides", "no_data"),
    ]


@pytest.mark.parametrize("version", ["effectiveness/v1", "archeflow-legacy"])
def test_a_plan_member_with_an_archetypes_entry_or_override_is_not_scored(
    tmp_path: Path, write_history, make_series, version: str
) -> None:
    # An archetypes: entry, like a model_overrides key, gives a member its model; neither is
    # a phase. Explorer in plan with an archetypes: entry was "no_data" (in both versions),
    # and with an override too under archeflow-legacy, whose 160 kept the old rule.
    team = tmp_path / "team.yaml"
    team.write_text(
        "name: t\nplan: [explorer, creator]\ndo: [maker]\ncheck: [guardian]\n"
        "archetypes:\n  - {name: explorer, model: claude-haiku-4}\n  - maker\n"
        "  - reviewer-x\n"
        "model_overrides: {creator: opus}\n"
    )
    hist = write_history(make_series("guardian", [0.9], version=version))
    rows = eh.recommend(hist, team, version=version).table.to_pylist()
    assert [(r["archetype"], r["current_model"], r["model_source"], r["action"]) for r in rows] == [
        ("explorer", "claude-haiku-4", "archetypes", "not_scored"),
        ("creator", "opus", "model_overrides", "not_scored"),
        ("maker", "sonnet", "default", "not_scored"),
        ("guardian", "haiku", "default", "keep"),
        # named only in archetypes:, in no phase: it may be a reviewer yet to run
        ("reviewer-x", "unknown", "unknown", "no_data"),
    ]


def test_no_history_file_is_nothing_readable_as_for_report(tmp_path: Path, run_cli) -> None:
    # It printed every review archetype as no_data and exited 0 where `report` exits 3: a
    # mistyped --history read as a team nobody had scored yet.
    team = tmp_path / "team.yaml"
    team.write_text(ARCHEFLOW_TEAM)
    missing = str(tmp_path / "none.jsonl")
    r = run_cli("recommend", str(team), "--history", missing, "--format", "json")
    assert (r.exit_code, r.stdout) == (3, "")
    assert r.stderr == (
        f"error: no effectiveness history at {missing}; run `runscore extract` first\n"
    )
    assert r.stderr == run_cli("report", "--history", missing).stderr
    with pytest.raises(NothingReadable):
        eh.recommend(missing, team)
    # The team file is still checked first: a bad one is the usage error it always was.
    team.write_text("name: empty\n")
    r = run_cli("recommend", str(team), "--history", missing)
    assert r.exit_code == 2 and "names no archetype" in r.stderr


def test_lines_of_other_versions_are_said_as_report_says_them(
    tmp_path: Path, run_cli, write_history, make_series
) -> None:
    # `report` says on stderr that the history also holds lines of another scoring
    # version; recommend and summary used the newest version's lines without a word.
    team = tmp_path / "team.yaml"
    team.write_text(ARCHEFLOW_TEAM)
    hist = write_history(
        make_series("guardian", [0.9, 0.8]) + make_series("sage", [0.3], version=None)
    )
    v1_only = "use --sql-version VERSION"
    for args in (["recommend", str(team)], ["summary"], ["summary", "--team", str(team)]):
        r = run_cli(*args, "--history", str(hist))
        assert r.exit_code == 0, r.stderr
        assert r.stderr == (
            f"{hist} also holds archeflow-legacy lines, not used here: {v1_only}\n"
        ), args
        r = run_cli(*args, "--history", str(hist), "--sql-version", "archeflow-legacy")
        assert r.exit_code == 0, r.stderr
        assert r.stderr == (
            f"{hist} also holds effectiveness/v1 lines, not used here: {v1_only}\n"
        ), args
    r = run_cli("report", "--history", str(hist))
    assert r.stderr == (
        f"{hist} also holds archeflow-legacy lines, reported separately: "
        "use --sql-version VERSION or --sql-version all\n"
    )


def test_a_version_without_lines_is_said_as_report_says_it(
    tmp_path: Path, run_cli, write_history, make_series
) -> None:
    team = tmp_path / "team.yaml"
    team.write_text(ARCHEFLOW_TEAM)
    hist = write_history(make_series("guardian", [0.9, 0.8]))
    for args in (["report"], ["recommend", str(team)], ["summary"]):
        r = run_cli(*args, "--history", str(hist), "--sql-version", "archeflow-legacy")
        assert r.exit_code == 0, r.stderr
        assert r.stderr == (
            "no history lines of scoring version archeflow-legacy\n"
            f"{hist} also holds effectiveness/v1 lines, "
            + (
                "reported separately: use --sql-version VERSION or --sql-version all\n"
                if args == ["report"]
                else "not used here: use --sql-version VERSION\n"
            )
        ), args


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("plan: [explorer\ncheck: [guardian]\n", "not valid YAML"),
        ("name: empty\ndescription: nothing\n", "names no archetype"),
        ("plan: []\ncheck: []\n", "names no archetype"),
        ("- guardian\n- sage\n", "must be a YAML mapping"),
        ("", "must be a YAML mapping"),
        ("check: guardian: sage\n", "not valid YAML"),
        ("check: [guardian, 42]\n", "check[1]: expected an archetype name, got 42"),
        ("check: {guardian: 1}\n", "check: expected a list of archetype names"),
        ("check: [guardian]\nmodel_overrides: [sonnet]\n", "model_overrides: expected a mapping"),
        (
            "check: [guardian]\nmodel_overrides: {guardian: 3}\n",
            'model_overrides["guardian"]: expected a model name, got 3',
        ),
        ("archetypes: [{model: opus}]\n", "archetypes[0].name: expected an archetype name"),
        ("check: ['  ']\n", "check[0]: expected an archetype name"),
    ],
)
def test_bad_team_files_are_usage_errors(tmp_path: Path, run_cli, text: str, message: str):
    team = tmp_path / "team.yaml"
    team.write_text(text)
    r = run_cli("recommend", str(team), "--history", str(tmp_path / "h.jsonl"))
    assert r.exit_code == 2
    assert r.stdout == ""
    assert r.stderr.startswith(f"error: {team}")
    assert message in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # YAML keeps only the last of two equal keys: guardian was dropped without a word.
        (
            "name: t\ncheck: [guardian]\ndo: [maker]\ncheck: [sage]\n",
            ':4:1: not valid YAML: duplicate key "check" (first on line 2; YAML keeps only '
            "the last)",
        ),
        (
            "check: [guardian]\nmodel_overrides:\n  guardian: opus\n  guardian: haiku\n",
            ':4:3: not valid YAML: duplicate key "guardian" (first on line 3; YAML keeps only '
            "the last)",
        ),
        # A misspelt member key was read as one of ArcheFlow's other keys: its members
        # were no team's.
        (
            "name: t\nplan: [explorer]\nchek: [guardian, sage]\n",
            ':3: unknown key "chek" (did you mean "check"?): its archetypes would not be read',
        ),
        (
            "check: [guardian]\nmodel_override: {guardian: opus}\n",
            ':2: unknown key "model_override" (did you mean "model_overrides"?): its '
            "archetypes would not be read",
        ),
        (
            "Check: [guardian]\nplan: [explorer]\n",
            ':1: unknown key "Check" (did you mean "check"?): its archetypes would not be read',
        ),
    ],
)
def test_duplicate_and_misspelt_team_keys_are_usage_errors(
    tmp_path: Path, run_cli, write_history, make_series, text: str, message: str
) -> None:
    team = tmp_path / "team.yaml"
    team.write_text(text)
    hist = write_history(make_series("guardian", [0.9]))
    r = run_cli("recommend", str(team), "--history", str(hist))
    assert (r.exit_code, r.stdout) == (2, "")
    assert r.stderr == f"error: {team}{message} (see 'cli recommend --help')\n"
    r = run_cli("summary", "--team", str(team), "--history", str(hist))
    assert (r.exit_code, r.stderr) == (2, f"error: {team}{message} (see 'cli summary --help')\n")


def test_other_archeflow_keys_and_merge_keys_are_still_read(tmp_path: Path) -> None:
    # ArcheFlow's own keys (description, domain, exit, max_cycles, ...) are not members and
    # are not misspellings; a merge key (<<) that a later key overrides is not a duplicate.
    team = tmp_path / "team.yaml"
    team.write_text(
        ARCHEFLOW_TEAM
        + "base: &b {guardian: haiku, sage: opus}\n"
        + "model_overrides:\n  <<: *b\n  sage: sonnet\n"
    )
    t = eh.parse_team(team)
    assert t.name == "backend-feature"
    assert [e for e in t.entries if e[1] == "model_overrides"] == [
        ("guardian", "model_overrides", "haiku"),
        ("sage", "model_overrides", "sonnet"),
    ]


def test_yaml_error_names_line_and_column(tmp_path: Path) -> None:
    team = tmp_path / "team.yaml"
    team.write_text("name: x\ncheck: [guardian\nplan: [a]\n")
    with pytest.raises(UsageError, match=r"team\.yaml:3:\d+: not valid YAML"):
        eh.parse_team(team)


def test_missing_and_binary_team_files(tmp_path: Path, run_cli) -> None:
    r = run_cli("recommend", str(tmp_path / "nope.yaml"))
    assert r.exit_code == 2 and "team file not found" in r.stderr
    bad = tmp_path / "bin.yaml"
    bad.write_bytes(b"check: [\xff]\n")
    r = run_cli("recommend", str(bad))
    assert r.exit_code == 2 and "not UTF-8" in r.stderr


def test_yaml_tags_are_not_executed(tmp_path: Path) -> None:
    team = tmp_path / "team.yaml"
    team.write_text("check: !!python/object/apply:os.system ['echo pwned']\n")
    with pytest.raises(UsageError, match="not valid YAML"):
        eh.parse_team(team)


# None: ArcheFlow's own 15-field lines (archeflow-legacy), whose 130 kept counting blanks
@pytest.mark.parametrize("version", ["effectiveness/v1", None])
def test_blank_history_model_is_unknown(
    tmp_path: Path, write_history, make_record, version: str | None
) -> None:
    # §3 names a model only when it is non-empty; a hand-written (or foreign) history line
    # with "model": "" or "  " must not become the archetype's model: the blank model was
    # the most frequent, so report showed an empty model and recommend an empty current
    # model (from "history") with its tier unknown, instead of the real one or 'unknown'.
    def rec(run: str, arch: str, day: int, model: str | None) -> dict[str, object]:
        return make_record(
            run, arch, 0.8, f"2026-01-0{day}T00:00:00Z", model=model, version=version
        )

    recs = [
        rec("r1", "custom", 1, ""),
        rec("r2", "custom", 2, "  "),
        rec("r3", "custom", 3, "  "),
        rec("r4", "custom", 4, "claude-opus-4"),
        rec("r1", "blank", 1, ""),
        rec("r2", "blank", 2, None),
    ]
    hist = write_history(recs)
    rows = {r["archetype"]: r for r in eh.report(hist).table.to_pylist()}
    assert (rows["custom"]["model"], rows["custom"]["suggestion"]) == ("claude-opus-4", "downgrade")
    assert (rows["blank"]["model"], rows["blank"]["suggestion"]) == ("unknown", "none")
    team = tmp_path / "team.yaml"
    team.write_text("check: [custom, blank]\n")
    got = [
        (r["archetype"], r["current_model"], r["model_source"], r["model_tier"], r["action"])
        for r in eh.recommend(hist, team).table.to_pylist()
    ]
    assert got == [
        ("custom", "claude-opus-4", "history", "premium", "downgrade"),
        ("blank", "unknown", "unknown", None, "keep"),
    ]


# None: ArcheFlow's own 15-field lines (archeflow-legacy)
@pytest.mark.parametrize("version", ["effectiveness/v1", None])
def test_unknown_history_model_does_not_outvote_a_named_one(
    tmp_path: Path, write_history, make_record, version: str | None
) -> None:
    # ArcheFlow's scorer writes "model": "unknown" for an archetype whose agent.complete names
    # none (§8), so a legacy history holds it wherever the model was not recorded. It won the
    # most-frequent-model vote over the model the other runs name: report said model unknown,
    # suggestion none, and recommend took no current model from the history.
    models = ["claude-opus-4"] * 4 + ["unknown"] * 3 + ["Unknown ", "UNKNOWN", "unknown"]
    recs = [
        make_record(
            f"r{i}", "custom", 0.8, f"2026-01-{i + 1:02d}T00:00:00Z", model=m, version=version
        )
        for i, m in enumerate(models)
    ] + [make_record("r1", "none", 0.8, "2026-01-01T00:00:00Z", model="unknown", version=version)]
    hist = write_history(recs)
    rows = {r["archetype"]: r for r in eh.report(hist).table.to_pylist()}
    got = {a: (r["model"], r["model_tier"], r["suggestion"]) for a, r in rows.items()}
    assert got == {
        "custom": ("claude-opus-4", "premium", "downgrade"),
        "none": ("unknown", None, "none"),
    }
    team = tmp_path / "team.yaml"
    team.write_text("check: [custom, none]\n")
    got_team = [
        (r["archetype"], r["current_model"], r["model_source"], r["action"])
        for r in eh.recommend(hist, team).table.to_pylist()
    ]
    assert got_team == [
        ("custom", "claude-opus-4", "history", "downgrade"),
        ("none", "unknown", "unknown", "keep"),
    ]


@pytest.mark.parametrize(
    ("series", "said"),
    [
        (["guardian"], "no scored runs of this team's members yet (1 other archetype has some)"),
        (
            ["guardian", "sage"],
            "no scored runs of this team's members yet (2 other archetypes have some)",
        ),
    ],
)
def test_summary_for_a_team_without_runs_says_others_have_some(
    tmp_path: Path, run_cli, write_history, make_series, series: list[str], said: str
) -> None:
    # It said "no scored runs yet", which the history contradicts: others have them.
    team = tmp_path / "team.yaml"
    team.write_text("name: t\nplan: [explorer]\ncheck: [skeptic]\n")
    hist = write_history([rec for a in series for rec in make_series(a, [0.9])])
    r = run_cli("summary", "--team", str(team), "--history", str(hist))
    assert (r.exit_code, r.stdout) == (0, f"Archetype effectiveness: {said}.\n")
    r = run_cli("summary", "--team", str(team), "--history", str(hist), "--format", "json")
    assert (r.exit_code, r.stdout) == (0, "[]\n")  # the rows: none, as before


@pytest.mark.parametrize("version", ["effectiveness/v1", "archeflow-legacy"])
def test_the_history_model_is_the_whole_history_s_not_the_window_s(
    tmp_path: Path, run_cli, write_history, make_series, version: str
) -> None:
    # §6: "→ the most frequent model in its history → `unknown`". recommend took the report's
    # model, the most frequent in the last 10 runs: reviewer-x, 8 runs on opus then 6 on
    # haiku, was a haiku member ("keep") while its history is an opus one ("downgrade").
    # reviewer-y: a tie over the whole history (4 and 4) goes, as §5's, to the model used
    # most recently; its window (the last 10: 2 sonnet, 4 haiku) says the same here.
    x = make_series("reviewer-x", [0.8] * 14, version=version, model="claude-opus-4")
    for rec in x[8:]:
        rec["model"] = "claude-haiku-4"
    y = make_series("reviewer-y", [0.8] * 12, version=version, model="claude-sonnet-4")
    for rec in y[:4]:
        rec["model"] = None
    for rec in y[8:]:
        rec["model"] = "claude-haiku-4"
    hist = write_history(x + y)
    team = tmp_path / "team.yaml"
    team.write_text("name: t\ncheck: [reviewer-x, reviewer-y]\n")
    rows = eh.recommend(hist, team, version=version).table.to_pylist()
    assert [
        (
            r["archetype"],
            r["current_model"],
            r["model_source"],
            r["scored_model"],
            r["scored_model_runs"],
            r["model_tier_differs"],
            r["action"],
        )
        for r in rows
    ] == [
        ("reviewer-x", "claude-opus-4", "history", "claude-haiku-4", 6, True, "downgrade"),
        ("reviewer-y", "claude-haiku-4", "history", "claude-haiku-4", 4, False, "keep"),
    ]
    r = run_cli("recommend", str(team), "--history", str(hist), "--sql-version", version)
    assert r.exit_code == 0
    assert r.stderr == (
        "note: reviewer-x: the team and ArcheFlow give none, so its history's most frequent "
        "model, claude-opus-4 (premium); 6 of its last 10 runs ran on claude-haiku-4 (cheap): "
        "the score was earned there\n"
    )
    # --window 2: the fallback does not follow the window either
    rows = eh.recommend(hist, team, version=version, window=2).table.to_pylist()
    assert [r["current_model"] for r in rows] == ["claude-opus-4", "claude-haiku-4"]


# None: ArcheFlow's own 15-field lines (archeflow-legacy)
@pytest.mark.parametrize("version", ["effectiveness/v1", None])
def test_a_model_s_outer_whitespace_is_not_another_model(
    tmp_path: Path, write_history, make_record, version: str | None
) -> None:
    # " sonnet" and "sonnet" were counted as two models: 3 runs on opus outvoted 4 on
    # sonnet written four ways, and the report showed the name with its spaces. Outer
    # whitespace (tabs, newlines too) is trimmed where models are counted; a name of
    # whitespace only is none (unknown), not "".
    models = ["claude-opus-4"] * 3 + [" sonnet", "sonnet", "sonnet\t", "\nsonnet "] + ["\t"] * 3
    recs = [
        make_record(
            f"r{i:02d}", "custom", 0.8, f"2026-01-{i + 1:02d}T00:00:00Z", model=m, version=version
        )
        for i, m in enumerate(models)
    ] + [
        make_record("r1", "blank", 0.8, "2026-01-01T00:00:00Z", model=" \t ", version=version),
        make_record("r1", "edge", 0.8, "2026-01-01T00:00:00Z", model=" haiku ", version=version),
    ]
    hist = write_history(recs)
    rows = {r["archetype"]: r for r in eh.report(hist).table.to_pylist()}
    assert {a: (r["model"], r["model_tier"], r["suggestion"]) for a, r in rows.items()} == {
        "blank": ("unknown", None, "none"),
        "custom": ("sonnet", "standard", "downgrade"),
        "edge": ("haiku", "cheap", "keep"),
    }
    team = tmp_path / "team.yaml"
    team.write_text("check: [custom, blank, edge]\n")
    got = [
        (r["archetype"], r["current_model"], r["model_source"], r["scored_model_runs"])
        for r in eh.recommend(hist, team).table.to_pylist()
    ]
    assert got == [
        ("custom", "sonnet", "history", 4),
        ("blank", "unknown", "unknown", None),
        ("edge", "haiku", "history", 1),
    ]


def test_surrogate_escapes_in_a_team_file_are_one_character_or_refused(
    tmp_path: Path, run_cli, write_history, make_series
) -> None:
    """PyYAML keeps each JSON-style ``\\uXXXX`` surrogate escape as a surrogate of its own,
    which no UTF-8 output can write: a team named ``"a\\udb40\\udc41"`` ended ``recommend``
    in a UnicodeEncodeError traceback when its report was written. A pair is the one
    character it stands for (here the tag U+E0041, written escaped as every report writes
    a format character); a lone half is a YAML error at its line and column."""
    hist = write_history(make_series("guardian", [0.8] * 3))
    team = tmp_path / "team.yaml"
    team.write_text('{"name": "a\\udb40\\udc41", "check": ["guardian"]}\n')
    assert eh.parse_team(team).name == "a\U000e0041"
    r = run_cli("recommend", str(team), "--history", str(hist))
    assert r.exit_code == 0, r.stderr
    assert "Traceback" not in r.stderr
    # markdown: quoted as a message quotes it (it holds what is written escaped), the
    # escape's backslash doubled, so that it renders as "a\udb40\udc41"
    assert r.stdout.splitlines()[0] == '# Model Recommendations for team: "a\\\\udb40\\\\udc41"'
    team.write_text('{"name": "a\\udb40", "check": ["guardian"]}\n')
    r = run_cli("recommend", str(team), "--history", str(hist))
    assert (r.exit_code, r.stdout, r.stderr) == (
        2,
        "",
        f"error: {team}:1:10: not valid YAML: \\udb40 is half of a UTF-16 surrogate pair, no "
        "character of its own (see 'cli recommend --help')\n",
    )

"""Golden files for every output format of report, recommend and summary.

The fixed history (data/history.jsonl) holds ties, nulls, unknown and zero costs, a
re-scored run, ArcheFlow legacy lines, unicode and hostile names, and three lines the
reader must skip. Golden files were generated once and checked by hand against the
numbers asserted in test_report_numbers (below); regenerate with
RUNSCORE_UPDATE_GOLDEN=1 only after a deliberate change.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
HISTORY = str(HERE / "data" / "history.jsonl")
TEAM = str(HERE / "data" / "team-review.yaml")

SKIPPED = [
    f"{HISTORY}:6: history line skipped: missing run_id; missing archetype; missing ts; "
    "missing composite_score",
    f"{HISTORY}:10: history line skipped: composite_score is not a number",
    f"{HISTORY}:45: "
    "torn last line (no newline at the end; a writer was interrupted or is still writing): "
    "not JSON: Unterminated string starting at: line 1 column 60 (char 59)",
]


@pytest.mark.parametrize("fmt", ["markdown", "json", "csv"])
def test_report_golden(run_cli, golden, fmt: str) -> None:
    r = run_cli("report", "--history", HISTORY, "--format", fmt)
    assert r.exit_code == 1  # three lines were skipped: partial
    assert r.stderr.splitlines() == SKIPPED + [
        f"{HISTORY} also holds archeflow-legacy lines, reported separately: "
        "use --sql-version VERSION or --sql-version all"
    ]
    golden(f"report.{ {'markdown': 'md'}.get(fmt, fmt) }", r.stdout)


def test_report_all_versions_golden(run_cli, golden) -> None:
    r = run_cli("report", "--history", HISTORY, "--sql-version", "all")
    assert r.exit_code == 1
    golden("report-all.md", r.stdout)


@pytest.mark.parametrize("fmt", ["markdown", "json", "csv"])
def test_recommend_golden(run_cli, golden, fmt: str) -> None:
    r = run_cli("recommend", TEAM, "--history", HISTORY, "--format", fmt)
    assert r.exit_code == 1
    assert r.stderr.splitlines() == SKIPPED + [
        f"{HISTORY} also holds archeflow-legacy lines, not used here: use --sql-version VERSION"
    ]
    golden(f"recommend.{ {'markdown': 'md'}.get(fmt, fmt) }", r.stdout)


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_summary_golden(run_cli, golden, fmt: str) -> None:
    r = run_cli("summary", "--history", HISTORY, "--format", fmt)
    assert r.exit_code == 1
    assert r.stderr.splitlines() == SKIPPED + [
        f"{HISTORY} also holds archeflow-legacy lines, not used here: use --sql-version VERSION"
    ]
    golden(f"summary.{ {'text': 'txt'}.get(fmt, fmt) }", r.stdout)


def test_summary_for_team_golden(run_cli, golden) -> None:
    r = run_cli("summary", "--history", HISTORY, "--team", TEAM)
    assert r.exit_code == 1
    golden("summary-team.txt", r.stdout)


def test_report_numbers(run_cli) -> None:
    """The values the golden files show, asserted independently of them."""
    rows = {
        r["archetype"]: r
        for r in json.loads(run_cli("report", "--history", HISTORY, "--format", "json").stdout)
    }
    assert list(rows) == sorted(rows)  # archetype (code point) order
    g = rows["guardian"]
    # 12 current v1 runs (run-12 re-scored: the later line, 0.83, is current); the 2
    # legacy lines are another scoring version and do not count.
    assert g["runs"] == 12 and g["runs_in_window"] == 10
    recent = [0.60, 0.62, 0.58, 0.61, 0.59, 0.80, 0.82, 0.79, 0.81, 0.83]
    assert g["avg_composite"] == pytest.approx(sum(recent) / 10, abs=1e-12)
    assert g["trend"] == "improving" and g["trend_significant"] is True
    assert g["trend_delta"] == pytest.approx(0.81 - 0.60, abs=1e-12)
    assert (g["recommendation"], g["model"], g["suggestion"]) == (
        "keep",
        "claude-3-5-haiku",
        "keep",
    )
    assert g["avg_cost_usd"] == pytest.approx(0.004)
    assert g["value_per_dollar"] == pytest.approx(g["avg_composite"] / 0.004)

    s = rows["sage"]
    # run-05 has two lines with the same ts: the later line (0.73) is current.
    comps = [0.74, 0.76, 0.75, 0.77, 0.73, 0.76, 0.74, 0.75, 0.75, 0.76]
    assert s["avg_composite"] == pytest.approx(sum(comps) / 10, abs=1e-12)
    assert s["cost_runs"] == 7 and s["avg_cost_usd"] == pytest.approx(0.02)  # nulls skipped
    assert (s["trend"], s["trend_significant"]) == ("stable", False)
    assert (s["model_tier"], s["suggestion"], s["suggested_model"]) == (
        "standard",
        "downgrade",
        "haiku",
    )

    k = rows["skeptic"]
    assert (k["runs"], k["trend"], k["recommendation"], k["suggestion"]) == (
        3,
        "insufficient_data",
        "consider_removing",
        "remove",
    )
    assert k["trend_delta"] is None and k["trend_significant"] is None

    t = rows["trickster"]
    # 5 haiku / 5 sonnet in the window: the most recently used wins. run-09 and run-10
    # share a run_ts; ties order by run_id, so run-10 (haiku) is the latest.
    assert (t["model"], t["model_tier"], t["suggestion"]) == ("haiku", "cheap", "upgrade")
    assert (t["trend"], t["trend_significant"]) == ("declining", False)
    assert t["recommendation"] == "optimize"

    e = rows["evil|`name`\n<b>"]
    assert e["avg_cost_usd"] == 0.0 and e["value_per_dollar"] is None  # cost 0: no ratio
    assert e["avg_cost_efficiency"] is None and e["suggestion"] == "none"

    u = rows["prüfer-🦉"]
    assert (u["model"], u["avg_cost_usd"], u["recommendation"]) == ("unknown", None, "optimize")


def test_markdown_escapes_hostile_names(run_cli) -> None:
    out = run_cli("report", "--history", HISTORY).stdout
    table = [line for line in out.splitlines() if line.startswith("| ")]
    # every row keeps exactly 9 cells: no unescaped pipe, no line break from the name
    for line in table:
        cells = line.replace("\\|", "").split("|")
        assert len(cells) == 11, line
    # the name's line break is <br>, a break where markdown renders it (it was a space)
    assert "| evil\\|\\`name\\`<br>&lt;b> |" in out


def test_a_name_cannot_make_a_block_or_lose_a_heading_s_hash(
    tmp_path: Path, run_cli, write_history, make_series
) -> None:
    # The report lists each archetype at the start of a list item ("- NAME (model, ...)"),
    # where a name "# h" became a heading, "- l"/"+ p" a nested list and "1. o"/"2) t"
    # an ordered list. And "# Model Recommendations for team: t #" lost its "#" (an ATX
    # closing sequence). The leading marker and the last "#" are now escaped.
    names = ["# h", "+ p", "- l", "1. o", "2) t", "a &amp; b"]
    hist = write_history([r for n in names for r in make_series(n, [0.6])])
    md = run_cli("report", "--history", str(hist)).stdout
    suggestions = [x for x in md.splitlines() if x.startswith("- ")]
    tail = " (unknown, score 0.60): No change recommended (model tier unknown). (`none`)"
    assert suggestions == [
        "- \\# h" + tail,
        "- \\+ p" + tail,
        "- \\- l" + tail,
        "- 1\\. o" + tail,
        "- 2\\) t" + tail,
        "- a &amp;amp; b" + tail,
    ]
    team = tmp_path / "team.yaml"
    team.write_text('name: "t #"\ncheck: ["# h"]\n')
    md = run_cli("recommend", str(team), "--history", str(hist)).stdout
    assert md.splitlines()[0] == "# Model Recommendations for team: t \\#"
    assert "| \\# h | unknown | 0.60 (1 run) |" in md


def test_summary_columns_line_up_on_the_bundled_sample(run_cli) -> None:
    # The README's first command's history: `(consider_removing)` was padded to ArcheFlow's
    # 10 characters only, so its row's model and cost started 9 columns to the right of
    # the others'; a wide character in a name (`prüfer-🦉` above) took one column too few.
    events = HERE.parents[1] / "examples" / "project" / ".archeflow" / "events"
    assert run_cli("extract", str(events), "--history", "h.jsonl").exit_code == 0
    r = run_cli("summary", "--history", "h.jsonl")
    assert (r.exit_code, r.stderr) == (0, "")
    assert r.stdout == (
        "Archetype effectiveness (last 10 runs):\n"
        "  guardian:  0.90 (keep)              — claude-haiku-4, $0.008/run avg\n"
        "  sage:      0.21 (consider_removing) — claude-opus-4, $0.18/run avg\n"
        "  skeptic:   0.72 (keep)              — claude-sonnet-4, $0.04/run avg\n"
        "  trickster: 0.23 (consider_removing) — claude-haiku-4, $0.006/run avg\n"
    )


@pytest.mark.parametrize("name", ["summary.txt", "summary-team.txt"])
def test_summary_rows_put_the_model_in_one_column(name: str) -> None:
    from runscore.cli.output import display_width

    rows = (HERE / "golden" / name).read_text(encoding="utf-8").splitlines()[1:]
    assert len({display_width(row.split(" — ")[0]) for row in rows}) == 1

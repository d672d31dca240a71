"""Spec plugin-eval §3–§4 checks that depend on the file system, whatever the root's spelling."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from runscore.engine.packs import plugin

HEAD = (
    "---\nname: {n}\ndescription: Use when testing cross references between sibling skills.\n---\n"
)


def _flags(res: plugin.PluginResult) -> dict[str, list[tuple[str, Any]]]:
    return {
        str(r["name"]): [(a["flag"], a["target"]) for a in r["anti_patterns"]]
        for r in res.report.to_pylist()
    }


@pytest.mark.parametrize("where", ["skill", "child"])
def test_a_cross_reference_resolves_the_same_from_inside_the_skill_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, where: str
) -> None:
    # `skills/b` names a folder next to the skill's own; `plugin score .` from inside the
    # skill folder used to look for it inside (the parent of "." is ".") and call it dead.
    skills = tmp_path / "skills"
    (skills / "a" / "docs").mkdir(parents=True)
    (skills / "b").mkdir()
    (skills / "a" / "SKILL.md").write_text(
        HEAD.format(n="a") + "# A\n\nSee skills/b and skills/c.\n"
    )
    (skills / "b" / "SKILL.md").write_text(HEAD.format(n="b") + "# B\n")
    want = {"a": [("DEAD_CROSS_REF", "c")]}
    assert _flags(plugin.score([str(skills / "a")], history_path=None)) == want
    monkeypatch.chdir(skills / "a" if where == "skill" else skills / "a" / "docs")
    assert _flags(plugin.score(["." if where == "skill" else ".."], history_path=None)) == want


def test_a_plain_file_named_references_is_no_references_folder(tmp_path: Path) -> None:
    # BLOATED_SKILL: L > 800 and no `references/` folder; a file of that name is none.
    root = tmp_path / "big"
    root.mkdir()
    body = "".join(f"line {i}\n" for i in range(850))
    (root / "SKILL.md").write_text(HEAD.format(n="big") + body)
    (root / "references").write_text("not a folder\n")
    assert _flags(plugin.score([str(root)], history_path=None)) == {
        "big": [("BLOATED_SKILL", None)]
    }
    os.unlink(root / "references")
    (root / "references").mkdir()
    assert _flags(plugin.score([str(root)], history_path=None)) == {"big": []}


@pytest.mark.parametrize("spelling", ["absolute", "dot-slash", "trailing-slash", "dot-dot"])
def test_an_input_line_may_name_its_skill_folder_in_any_spelling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spelling: str
) -> None:
    # §1: `skill` is "<skill path or name>"; the root here is relative, the key not.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "r" / "skills" / "s").mkdir(parents=True)
    (tmp_path / "r" / "skills" / "s" / "SKILL.md").write_text(HEAD.format(n="s") + "# S\n")
    key = {
        "absolute": str(tmp_path / "r" / "skills" / "s"),
        "dot-slash": "./r/skills/s",
        "trailing-slash": "r/skills/s/",
        "dot-dot": "r/skills/../skills/s",
    }[spelling]
    judge = tmp_path / "judge.jsonl"
    scores = {
        "triggering_accuracy": 0.8,
        "orchestration_fitness": 0.7,
        "output_quality": 0.75,
        "scope_calibration": 0.6,
    }
    import json

    judge.write_text(json.dumps({"skill": key, "judge": "j1", "scores": scores}) + "\n")
    res = plugin.score(["r/skills"], judge=str(judge), history_path=None)
    assert res.issues == []
    (row,) = res.report.to_pylist()
    assert row["depth"] == "standard"
    # A key that names no scored skill is still reported, with its line.
    judge.write_text(json.dumps({"skill": "r/skills/t", "judge": "j1", "scores": scores}) + "\n")
    res = plugin.score(["r/skills"], judge=str(judge), history_path=None)
    assert [(i.line, i.reason) for i in res.issues] == [
        (1, 'no scored skill matches skill "r/skills/t"')
    ]


@pytest.mark.parametrize("second", ["same root", "a skill inside it"])
def test_a_root_given_twice_is_no_rejected_input(tmp_path: Path, second: str) -> None:
    # Each skill is scored once; the second root holds SKILL.md files (already found), so
    # it is not "a root without skills": nothing was rejected (exit 0, not 1).
    root = tmp_path / "skills"
    for n in ("a", "b"):
        (root / n).mkdir(parents=True)
        (root / n / "SKILL.md").write_text(HEAD.format(n=n) + "# X\n")
    again = str(root) if second == "same root" else str(root / "b")
    res = plugin.score([str(root), again], history_path=None)
    assert res.issues == []
    assert [r["skill"] for r in res.report.to_pylist()] == ["a", "b"]


def test_a_skill_md_that_is_not_a_regular_file_is_reported(tmp_path: Path) -> None:
    # A device (here /dev/null) or a FIFO named SKILL.md is no skill file: reported, and
    # the other skills scored. A FIFO used to block the run for ever, /dev/zero to read
    # without end; /dev/null was scored as an empty skill.
    root = tmp_path / "skills"
    (root / "dev").mkdir(parents=True)
    (root / "dev" / "SKILL.md").symlink_to("/dev/null")
    (root / "fifo").mkdir()
    os.mkfifo(root / "fifo" / "SKILL.md")
    (root / "ok").mkdir()
    (root / "ok" / "SKILL.md").write_text(HEAD.format(n="ok"))
    res = plugin.score([str(root)], history_path=None)
    assert [r["skill"] for r in res.report.to_pylist()] == ["ok"]
    assert [(i.file, i.line, i.reason) for i in res.issues] == [
        (str(root / n / "SKILL.md"), 0, "cannot read file: not a regular file")
        for n in ("dev", "fifo")
    ]


def test_a_folder_named_skill_md_is_reported_as_a_dangling_link_is(tmp_path: Path) -> None:
    # A folder named SKILL.md (or a link named so to a folder) was walked past without a
    # word: the skill beside it was not scored, and nothing said so. It is reported with
    # the folder, as a SKILL.md link to nowhere is, and the other skills are scored; a
    # skill inside that folder is still found.
    root = tmp_path / "skills"
    (root / "folder" / "SKILL.md" / "inner").mkdir(parents=True)
    (root / "folder" / "SKILL.md" / "inner" / "SKILL.md").write_text(HEAD.format(n="inner"))
    (root / "linked").mkdir()
    (root / "linked" / "SKILL.md").symlink_to(root / "folder")
    (root / "dangling").mkdir()
    (root / "dangling" / "SKILL.md").symlink_to(root / "nowhere.md")
    (root / "ok").mkdir()
    (root / "ok" / "SKILL.md").write_text(HEAD.format(n="ok"))
    res = plugin.score([str(root)], history_path=None)
    assert [r["skill"] for r in res.report.to_pylist()] == ["folder/SKILL.md/inner", "ok"]
    assert [(i.file, i.line, i.reason) for i in res.issues] == [
        (str(root / "dangling" / "SKILL.md"), 0, "cannot read file: No such file or directory"),
        (str(root / "folder" / "SKILL.md"), 0, "cannot read file: Is a directory"),
        (str(root / "linked" / "SKILL.md"), 0, "cannot read file: Is a directory"),
    ]


def test_linked_skill_folders_are_found_once_and_a_link_back_up_ends(tmp_path: Path) -> None:
    # Skills are often linked into a plugin's folder from where they are kept. Such a
    # folder was passed over ("no SKILL.md found"); a link back up must not loop.
    kept = tmp_path / "kept" / "linked"
    kept.mkdir(parents=True)
    (kept / "SKILL.md").write_text(HEAD.format(n="linked"))
    root = tmp_path / "plugin" / "skills"
    (root / "own").mkdir(parents=True)
    (root / "own" / "SKILL.md").write_text(HEAD.format(n="own"))
    (root / "linked").symlink_to(kept)
    (root / "own" / "up").symlink_to(root)  # a cycle
    (root / "again").symlink_to(kept)  # the same skill by a second link
    res = plugin.score([str(root)], history_path=None)
    assert res.issues == []
    assert [r["skill"] for r in res.report.to_pylist()] == ["again", "own"]


@pytest.mark.parametrize(
    "key", ["r/skills/s/SKILL.md", "./r/skills/s/SKILL.md", "absolute", "s/SKILL.md"]
)
def test_an_input_line_may_name_its_skill_by_its_skill_md(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    # §1: `skill` is "<skill path or name>"; the path of the skill's SKILL.md is one (it is
    # what `find -name SKILL.md` lists), and it matched nothing.
    import json

    monkeypatch.chdir(tmp_path)
    (tmp_path / "r" / "skills" / "s").mkdir(parents=True)
    (tmp_path / "r" / "skills" / "s" / "SKILL.md").write_text(HEAD.format(n="s") + "# S\n")
    if key == "absolute":
        key = str(tmp_path / "r" / "skills" / "s" / "SKILL.md")
    judge = tmp_path / "judge.jsonl"
    judge.write_text(
        json.dumps({"skill": key, "judge": "j1", "scores": {"scope_calibration": 0.6}}) + "\n"
    )
    res = plugin.score(["r/skills"], judge=str(judge), history_path=None)
    assert res.issues == []
    (row,) = res.report.to_pylist()
    assert row["depth"] == "standard"
    assert row["dimensions"]["scope_calibration"]["score"] == (0.6 * 0.55) / 0.55


@pytest.mark.parametrize("key", ["s/", "./s", "./s/", "s//", "s/./"])
def test_a_path_relative_to_the_root_may_be_spelled_as_a_folder_path_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key: str
) -> None:
    # The folder's path was taken with `./` or a trailing slash (r/skills/s/), and the
    # path relative to the root with `/SKILL.md` (s/SKILL.md), but that path itself with
    # a trailing slash (s/, as a shell completes a folder) or `./` matched no skill.
    import json

    monkeypatch.chdir(tmp_path)
    (tmp_path / "r" / "skills" / "s").mkdir(parents=True)
    (tmp_path / "r" / "skills" / "s" / "SKILL.md").write_text(HEAD.format(n="s") + "# S\n")
    judge = tmp_path / "judge.jsonl"
    judge.write_text(
        json.dumps({"skill": key, "judge": "j1", "scores": {"scope_calibration": 0.6}}) + "\n"
    )
    res = plugin.score(["r/skills"], judge=str(judge), history_path=None)
    assert res.issues == []
    (row,) = res.report.to_pylist()
    assert row["depth"] == "standard"


def test_ranked_skills_that_share_a_relative_path_are_shown_by_their_folder(
    run_cli: Any, tmp_path: Path
) -> None:
    # x/a and y/a are both skill "a": the ranking's rows read alike ("| 1 | a | a |"), so
    # the user could not tell which skill ranked first. Those rows name the folder; a
    # relative path no other skill has is written as before.
    for folder, text in (("x/a", HEAD.format(n="a") + "## A\n## B\n"), ("y/a", ""), ("y/b", "")):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "SKILL.md").write_text(text)
    ranked = run_cli("plugin", "rank", "x", "y").stdout.splitlines()[2:]
    rows = [ln.split(" | ")[1] for ln in ranked]
    assert rows == ["x/a", "y/a", "b"]
    score = run_cli("plugin", "score", "x", "y", "--no-history").stdout
    assert "| 1 | x/a | a | " in score and "| 2 | y/a | a | " in score
    table = run_cli("plugin", "rank", "x", "y", "--format", "table").stdout.splitlines()
    assert table[0].split()[:4] == ["rank", "skill", "path", "name"]
    assert [ln.split()[1:3] for ln in table[2:]] == [["a", "x/a"], ["a", "y/a"], ["b", "y/b"]]


def test_an_input_line_may_write_its_skill_with_accents_composed_or_not(tmp_path: Path) -> None:
    # A judge run on macOS writes a folder's name as the file system gives it, accents
    # decomposed (NFD); the folder made on Linux has them composed (NFC). Each line was
    # `no scored skill matches skill "résumé"`, naming a skill the report listed as
    # "résumé". Canonically equivalent text names the skill, after every exact match.
    import json
    import unicodedata

    nfc, nfd = (unicodedata.normalize(f, "résumé") for f in ("NFC", "NFD"))
    root = tmp_path / "skills"
    for folder, name in ((nfc, unicodedata.normalize("NFC", "Café")), ("b", "b")):
        (root / folder).mkdir(parents=True)
        (root / folder / "SKILL.md").write_text(HEAD.format(n=name) + "# X\n")
    keys = [nfd, nfd + "/", "./" + nfd + "/SKILL.md", unicodedata.normalize("NFD", "Café")]
    judge = tmp_path / "judge.jsonl"
    judge.write_text(
        "".join(
            json.dumps({"skill": k, "judge": f"j{i}", "scores": {"output_quality": 0.8}}) + "\n"
            for i, k in enumerate(keys)
        )
    )
    res = plugin.score([str(root)], judge=str(judge), history_path=None)
    assert res.issues == []
    rows = {r["skill"]: r for r in res.report.to_pylist()}
    assert rows[nfc]["judges"]["count"] == 4
    # Both spellings as folders: each is its own skill, matched exactly, never ambiguous.
    (root / nfd).mkdir()
    (root / nfd / "SKILL.md").write_text(HEAD.format(n="other") + "# X\n")
    judge.write_text(
        "".join(
            json.dumps({"skill": k, "judge": "j", "scores": {"output_quality": 0.8}}) + "\n"
            for k in (nfc, nfd)
        )
    )
    res = plugin.score([str(root)], judge=str(judge), history_path=None)
    assert res.issues == []
    rows = {r["skill"]: r for r in res.report.to_pylist()}
    assert rows[nfc]["judges"]["count"] == rows[nfd]["judges"]["count"] == 1

"""The history lines are rendered on a thread while the manifest's entries are built.

Both take ~0.03 s of a 10k-run extract, one in DuckDB and one in Python, so ``extract``
renders the new records (``_Rendering``, on its connection) while it builds the entries
(on a cursor). These tests pin what that must not change: the lines and their order, an
error in either raised as it was and nothing appended, and a Ctrl-C stopping the
rendering instead of waiting for it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest
from runscore.engine.packs import effectiveness

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "effectiveness" / "archeflow-fixture"
EVENTS = FIXTURE / "events.jsonl"
#: Long enough that finishing it instead of stopping it shows (seconds on two cores).
LONG_QUERY = "SELECT count(*) FROM range(3000000000) t(i) WHERE i % 7 = 3"


def _lines(path: Path) -> list[dict[str, Any]]:
    out = [json.loads(line) for line in path.read_text().splitlines()]
    for r in out:
        r.pop("ts")
    return out


def test_the_lines_are_those_of_the_records_in_run_order(tmp_path: Path) -> None:
    hist = tmp_path / "h.jsonl"
    result = effectiveness.extract([str(EVENTS)], str(hist), scored_at="2026-12-05T00:00:00Z")
    records = result.records.to_pylist()
    assert result.records_written == len(records) > 0
    written = _lines(hist)
    # the same records, each once, in the order of the runs' first lines, then archetype
    key = ("run_id", "archetype")
    assert sorted((r["run_id"], r["archetype"]) for r in written) == sorted(
        tuple(r[k] for k in key) for r in records
    )
    assert [r["run_id"] for r in written] == sorted(
        (r["run_id"] for r in written), key=[r["run_id"] for r in written].index
    )
    # and a manifest entry for the file read
    manifest = json.loads(Path(effectiveness.manifest_path(str(hist))).read_text())
    assert len(manifest["files"]) == 1


def test_an_error_in_the_rendering_is_raised_and_nothing_is_appended(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hist = tmp_path / "h.jsonl"
    monkeypatch.setattr(effectiveness._Rendering, "SQL", "SELECT * FROM no_such_table")
    with pytest.raises(duckdb.CatalogException, match="no_such_table"):
        effectiveness.extract([str(EVENTS)], str(hist))
    assert not hist.exists() or hist.read_text() == ""
    assert not Path(effectiveness.manifest_path(str(hist))).exists()
    # the lock was released, and the next extract writes
    monkeypatch.undo()
    assert effectiveness.extract([str(EVENTS)], str(hist)).records_written > 0


def test_a_ctrl_c_while_the_entries_are_built_stops_the_rendering(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hist = tmp_path / "h.jsonl"
    seen: list[bool] = []
    real_cancel = effectiveness._Rendering.cancel

    def cancel(self: Any) -> None:
        real_cancel(self)
        seen.append(self.finished)

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        raise KeyboardInterrupt

    monkeypatch.setattr(effectiveness._Rendering, "SQL", LONG_QUERY)
    monkeypatch.setattr(effectiveness._Rendering, "cancel", cancel)
    monkeypatch.setattr(effectiveness, "_manifest_entries", interrupted)
    with pytest.raises(KeyboardInterrupt):
        effectiveness.extract([str(EVENTS)], str(hist))
    # the long query was stopped (interrupted, or never started), not waited for to its end
    assert seen == [False]
    assert not hist.exists() or hist.read_text() == ""

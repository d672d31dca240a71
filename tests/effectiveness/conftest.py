"""Helpers for the effectiveness extract tests (test files cannot import each other).

Expected values in this suite are derived by hand from the spec
(../shared/spec/effectiveness.md §1-§4), never pasted from the engine's output.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import duckdb
import pytest
from runscore.engine import db
from runscore.engine.packs import effectiveness as eff

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden"
SCORED_AT = "2026-05-01T00:00:00Z"

#: Spec §4: the 15 ArcheFlow fields, then the v1 fields, in this order.
ARCHEFLOW_FIELDS = [
    "ts",
    "run_id",
    "archetype",
    "signal_to_noise",
    "fix_rate",
    "cost_efficiency",
    "accuracy",
    "cycle_impact",
    "composite_score",
    "tokens",
    "cost_usd",
    "model",
    "findings_total",
    "findings_useful",
    "fixes_applied",
]
V1_FIELDS = [
    "scoring_version",
    "run_ts",
    "cost_basis",
    "cost_efficiency_norm",
    "findings_contradicted",
    "events_sha256",
    "source",
]
RECORD_FIELDS = ARCHEFLOW_FIELDS + V1_FIELDS
SCORE_FIELDS = [
    "signal_to_noise",
    "fix_rate",
    "cost_efficiency_norm",
    "accuracy",
    "composite_score",
]


def ev(
    seq: int | None,
    type_: str,
    *,
    run: str = "r1",
    parent: Any = ...,
    agent: str | None = None,
    ts: str | None = None,
    **data: Any,
) -> dict[str, Any]:
    """One ArcheFlow event (``seq=None`` leaves the field out; ``parent=...`` too)."""
    e: dict[str, Any] = {"ts": ts or f"2026-04-03T10:00:{(seq or 0) % 60:02d}Z", "run_id": run}
    if seq is not None:
        e["seq"] = seq
    if parent is not ...:
        e["parent"] = parent
    e["type"] = type_
    e["agent"] = agent
    e["data"] = data
    return e


def review_run(run_id: str) -> str:
    """A complete run with one guardian review, three lines, as the text of a run file."""
    return (
        f'{{"run_id":"{run_id}","seq":1,"type":"run.start"}}\n'
        f'{{"run_id":"{run_id}","seq":2,"parent":[1],"type":"review.verdict",'
        '"agent":"guardian","data":{"archetype":"guardian","verdict":"approved",'
        '"findings":[]}}\n'
        f'{{"run_id":"{run_id}","seq":3,"parent":[2],"type":"run.complete"}}\n'
    )


def dumps(e: Any) -> str:
    return json.dumps(e, separators=(",", ":"), ensure_ascii=False)


def write_jsonl(path: Path, events: Iterable[Any]) -> Path:
    """Write events (dicts → JSON; str/bytes written as they are) one per line."""
    path.parent.mkdir(parents=True, exist_ok=True)
    out = bytearray()
    for e in events:
        if isinstance(e, bytes):
            out += e + b"\n"
        elif isinstance(e, str):
            out += e.encode("utf-8") + b"\n"
        else:
            out += dumps(e).encode("utf-8") + b"\n"
    path.write_bytes(bytes(out))
    return path


def build(paths: Sequence[str | Path]) -> duckdb.DuckDBPyConnection:
    con = db.connect()
    eff.build_event_tables(con, [str(p) for p in paths], scored_at=SCORED_AT)
    return con


def rows(con: duckdb.DuckDBPyConnection, sql: str) -> list[dict[str, Any]]:
    return con.sql(sql).to_arrow_table().to_pylist()


def records(paths: Sequence[str | Path]) -> list[dict[str, Any]]:
    """Scored records (history_records) of ``paths``, as dicts in table order, as the
    history line writes them (``score_runs`` types the times as the history views do)."""
    res = eff.extract([str(p) for p in paths], None, write=False, scored_at=SCORED_AT)
    return res.records.to_pylist()


def by_key(recs: Iterable[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    """Records keyed by (run_id, archetype), without ``ts`` and ``source``."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    for r in recs:
        key = (r["run_id"], r["archetype"])
        assert key not in out, f"two records for {key}"
        out[key] = {k: v for k, v in r.items() if k not in ("ts", "source")}
    return out


def assert_close_record(actual: dict[str, Any], expected: dict[str, Any]) -> None:
    """Every key of ``expected`` equals ``actual`` (floats to 1e-12, None stays None)."""
    for k, want in expected.items():
        got = actual[k]
        if isinstance(want, float) and not isinstance(want, bool):
            assert got is not None and not isinstance(got, bool), (k, got, want)
            assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), (k, got, want)
        else:
            assert got == want and type(got) is type(want), (k, got, want)


# --------------------------------------------------------------------------- golden CSV

#: Columns whose list values are sets (order not part of the contract).
SET_COLUMNS = {"parents"}


def canon(col: str, v: Any) -> str:
    """A cell as the string a golden CSV holds."""
    if v is None:
        return ""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, list):
        items = sorted(v) if col in SET_COLUMNS else v
        return json.dumps(items, separators=(",", ":"))
    return str(v)


def norm_cell(cell: str) -> str:
    """Numbers compare by value (10 significant digits): ``1`` = ``1.0``, ``0.3`` = 0.1+0.2."""
    try:
        x = float(cell)
    except ValueError:
        return cell
    if not math.isfinite(x):
        return cell
    return format(x, ".10g")


def read_expected(path: Path) -> tuple[list[str], list[list[str]]]:
    with path.open(newline="", encoding="utf-8") as f:
        reader = csv.reader(f)
        header = next(reader)
        body = [r for r in reader if r]
    return header, body


def compare_table(con: duckdb.DuckDBPyConnection, table: str, expected_csv: Path) -> None:
    """The table's rows, projected to the CSV's columns, equal the CSV (as a multiset)."""
    header, want = read_expected(expected_csv)
    rel = con.sql(f"SELECT * FROM {table}")
    missing = [c for c in header if c not in rel.columns]
    got_rows = rel.to_arrow_table().to_pylist()
    assert not missing, f"{table} has no column(s) {missing}"
    got = sorted([norm_cell(canon(c, r[c])) for c in header] for r in got_rows)
    want = sorted([norm_cell(x) for x in r] for r in want)
    show = "\n".join
    assert got == want, (
        f"{expected_csv.parent.name}/{expected_csv.name} vs table {table}, columns {header}\n"
        f"got:\n{show(','.join(r) for r in got)}\nwant:\n{show(','.join(r) for r in want)}"
    )


class Helpers:
    """The helpers above, as one fixture (``--import-mode=importlib``: no conftest imports)."""

    GOLDEN = GOLDEN
    SCORED_AT = SCORED_AT
    ARCHEFLOW_FIELDS = ARCHEFLOW_FIELDS
    V1_FIELDS = V1_FIELDS
    RECORD_FIELDS = RECORD_FIELDS
    SCORE_FIELDS = SCORE_FIELDS
    ev = staticmethod(ev)
    review_run = staticmethod(review_run)
    dumps = staticmethod(dumps)
    write_jsonl = staticmethod(write_jsonl)
    build = staticmethod(build)
    rows = staticmethod(rows)
    records = staticmethod(records)
    by_key = staticmethod(by_key)
    assert_close_record = staticmethod(assert_close_record)
    compare_table = staticmethod(compare_table)
    read_expected = staticmethod(read_expected)


@pytest.fixture(scope="session")
def h() -> type[Helpers]:
    return Helpers

"""The one writer for tabular results: markdown, json, csv, table.

stdout is data: writers only ever write the result. Messages go to stderr
(``note``). JSON keeps raw numbers (NaN/Infinity become null); markdown escapes
every cell so a hostile name cannot break a table.
"""

from __future__ import annotations

import csv
import decimal
import io
import json
import math
import re
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO, TypeGuard

import click

if TYPE_CHECKING:
    import pyarrow as pa

_CTRL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\x1b]")


def _is_arrow(data: object) -> TypeGuard[pa.Table]:
    """Is ``data`` an Arrow table? Without importing pyarrow: ``extract`` (which only
    writes a summary) never does, and the import is ~0.03 s of a small extract."""
    pa = sys.modules.get("pyarrow")
    return pa is not None and isinstance(data, pa.Table)


def rows_of(data: pa.Table | Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    if _is_arrow(data):
        rows: list[dict[str, Any]] = data.to_pylist()
        return rows
    return [dict(r) for r in data]


def _json_safe(v: Any) -> Any:
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, dict):
        return {str(k): _json_safe(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_json_safe(x) for x in v]
    if hasattr(v, "isoformat"):
        return v.isoformat()
    if isinstance(v, decimal.Decimal):  # DECIMAL columns (e.g. SQL literals like 1.5)
        return int(v) if v == v.to_integral_value() and abs(v) < 2**53 else float(v)
    if isinstance(v, bytes | bytearray):  # BLOB columns
        return v.hex()
    return v


def to_json(data: Any) -> str:
    if _is_arrow(data):
        data = data.to_pylist()
    return json.dumps(_json_safe(data), ensure_ascii=False, indent=2, allow_nan=False) + "\n"


def to_json_line(row: Any) -> str:
    """One JSONL line (keys sorted), with the same safe values as ``to_json`` (no NaN/Infinity)."""
    return json.dumps(_json_safe(row), ensure_ascii=False, sort_keys=True, allow_nan=False) + "\n"


def md_escape(v: Any) -> str:
    """A value as one safe markdown table cell."""
    if v is None:
        return "—"
    s = str(v)
    s = _CTRL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", s)
    s = s.replace("\\", "\\\\").replace("|", "\\|").replace("`", "\\`")
    s = s.replace("\r\n", " ").replace("\n", " ").replace("\r", " ")
    s = s.replace("<", "&lt;").replace(">", "&gt;")
    return s


def fmt_num(v: Any, digits: int = 2) -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "—"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return str(v)


def _columns(
    data: pa.Table | Sequence[Mapping[str, Any]],
    rows: list[dict[str, Any]],
    columns: Sequence[str] | None,
) -> list[str]:
    """The columns to write: as given, else the first row's keys, else the table's names."""
    if columns:
        return list(columns)
    if rows:
        return list(rows[0].keys())
    return data.column_names if _is_arrow(data) else []


def to_markdown(
    data: pa.Table | Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None
) -> str:
    rows = rows_of(data)
    cols = _columns(data, rows, columns)
    out = [
        "| " + " | ".join(md_escape(c) for c in cols) + " |",
        "|" + "|".join("---" for _ in cols) + "|",
    ]
    for r in rows:
        cells = []
        for c in cols:
            v = r.get(c)
            cells.append(md_escape(fmt_num(v, 4)) if isinstance(v, float) else md_escape(v))
        out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"


def _csv_cell(v: Any) -> Any:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return ""
    if isinstance(v, dict | list):
        return json.dumps(_json_safe(v), ensure_ascii=False)
    if isinstance(v, bool):
        return "true" if v else "false"
    return v


def to_csv(
    data: pa.Table | Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None
) -> str:
    rows = rows_of(data)
    cols = _columns(data, rows, columns)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(cols)
    for r in rows:
        w.writerow([_csv_cell(r.get(c)) for c in cols])
    return buf.getvalue()


def to_table(
    data: pa.Table | Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None
) -> str:
    """A plain aligned text table for terminals."""
    rows = rows_of(data)
    cols = _columns(data, rows, columns)
    cells = [
        [
            _CTRL.sub(
                "?",
                ""
                if r.get(c) is None
                else (fmt_num(r.get(c), 4) if isinstance(r.get(c), float) else str(r.get(c))),
            ).replace("\n", " ")
            for c in cols
        ]
        for r in rows
    ]
    widths = [max([len(c)] + [len(row[i]) for row in cells]) for i, c in enumerate(cols)]
    lines = [
        "  ".join(c.ljust(widths[i]) for i, c in enumerate(cols)).rstrip(),
        "  ".join("-" * widths[i] for i in range(len(cols))),
    ]
    lines += [
        "  ".join(row[i].ljust(widths[i]) for i in range(len(cols))).rstrip() for row in cells
    ]
    return "\n".join(lines) + "\n"


def write(
    data: pa.Table | Sequence[Mapping[str, Any]],
    fmt: str,
    *,
    columns: Sequence[str] | None = None,
    stream: TextIO | None = None,
) -> None:
    """Write tabular ``data`` to stdout (or ``stream``) in ``fmt``."""
    if fmt == "json":
        text = to_json(rows_of(data))
    elif fmt == "csv":
        text = to_csv(data, columns)
    elif fmt == "markdown":
        text = to_markdown(data, columns)
    elif fmt == "table":
        text = to_table(data, columns)
    else:
        raise click.UsageError(f"unknown format {fmt!r}")
    click.echo(text, nl=False, file=stream or sys.stdout)


def note(msg: str) -> None:
    """A human message: always stderr, never stdout."""
    click.echo(msg, err=True)

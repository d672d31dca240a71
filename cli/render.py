"""Jinja rendering of reports (templates ship in runscore/cli/templates).

StrictUndefined: a template that names a missing value fails loudly in tests
instead of printing an empty cell. Autoescape is off (this is markdown, not
HTML); every data value of a markdown template (``*.md.j2``: a name, a model, an id, a
task's title, a path) goes through the ``md`` filter instead (``output.md_text``), which
quotes one holding what it writes escaped, so that it reads apart from one holding the
escape's text. A message (an error, a note, a reason, a summary the engine wrote, its
values quoted in it already) goes through ``md_message`` (``output.md_message``), the same
escape unquoted; so does a path or a value the template writes in a message of its own,
after ``path`` or ``quote`` (``engine.quoting``), as stderr writes it. Which fields are
messages is held by ``tests/hardening/test_hostile_values.py``.
A plain-text template (``*.txt.j2``: ``summary``'s run-start block) is no markdown: its
values go through ``txt`` (``output.plain_text``), which writes a name as it is but
quotes one holding a line break, a control or a format character (``quoting.shown``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from runscore.cli.output import (
    SCI_FROM,
    fmt_num,
    fmt_pct,
    fmt_vs,
    md_message,
    md_text,
    plain_text,
)
from runscore.engine import quoting

if TYPE_CHECKING:
    import jinja2

_ENV: jinja2.Environment | None = None


def env() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        import jinja2  # local: ~26 ms, and json/csv output never renders a template

        e = jinja2.Environment(
            loader=jinja2.PackageLoader("runscore.cli", "templates"),
            undefined=jinja2.StrictUndefined,
            autoescape=False,
            keep_trailing_newline=True,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        e.filters["md"] = md_text
        e.filters["md_message"] = md_message
        e.filters["txt"] = plain_text
        e.filters["num"] = lambda v, d=2: fmt_num(v, d)
        e.filters["usd"] = usd
        e.filters["pct"] = fmt_pct
        e.filters["vs"] = lambda v, bounds, d=2: fmt_vs(v, bounds, d)
        # A value or a path a template writes in a message of its own (the run log's "run
        # X: ...", "FILE: empty file"), quoted as stderr quotes it, then ``md_message``.
        e.filters["quote"] = quoting.quote
        e.filters["path"] = quoting.path
        _ENV = e
    return _ENV


def usd(v: float | None, digits: int = 4) -> str:
    """Dollars as the SQL's text says them: ``-$0.0042`` (sign before the $), never
    ``$-0.0000``. As ``summary``'s costs: a nonzero amount that rounds to 0 is a bound
    (``<$0.0001``, ``>-$0.0001``), since ``$0.0000`` means a known nothing; past
    ``SCI_FROM`` three significant digits (``$1e+300``), not 300 of them."""
    if v is None or not math.isfinite(v):
        return "unknown"
    if v != 0 and round(v, digits) == 0:
        return f"{'<' if v > 0 else '>-'}${10.0**-digits:.{digits}f}"
    sign = "-" if v < 0 else ""
    if abs(v) >= SCI_FROM:
        return f"{sign}${abs(v):.3g}"
    return f"{sign}${abs(v):.{digits}f}"


def render(template: str, **ctx: Any) -> str:
    return env().get_template(template).render(**ctx)

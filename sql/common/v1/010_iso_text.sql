-- common/v1 · 010 ISO-8601 text in the one form DuckDB's cast takes (spec README: "Times are
-- UTC ISO-8601")
-- Shared by every pack that reads a time from its input (pipeline/v1 010, routes/v1 010): one
-- rule, so a time one pack reads is not refused by another.
-- Reads: nothing. Produces: macro rs_iso_text(s): s with the ISO-8601 forms DuckDB's
-- TIMESTAMPTZ cast refuses written in the one it takes: a comma as the decimal sign, lowercase
-- t/z (RFC 3339), the basic format (20260202T110000Z, 20260202T130000+0200), and a week or an
-- ordinal date (2026-W06-1, 2026W061, 2026-033, 2026033: ISO 8601's other complete dates, the
-- spec reading times as ISO-8601, not one profile of it; they were refused) written as the
-- calendar date it names, in the same basic or extended format. A week or a day its year does
-- not have (2025-W53: 2025 has 52 ISO weeks; 2026-366) is left as it is, for the cast to
-- refuse. Any other text is returned as it is, upper-cased (the cast reads case alike), for
-- the cast to take or refuse.
-- Macros rs_iso_week_day(y, w, d) (the date of ISO year y, week w, day d: the Monday of week
-- 1 is the one on or before 4 January) and rs_iso_calendar(u) (u with its week or ordinal
-- date, if it starts with one, written as a calendar date).
CREATE OR REPLACE TEMP MACRO rs_iso_week_day(y, w, d) AS
    make_date(y, 1, 4) + CAST((w - 1) * 7 + d - isodow(make_date(y, 1, 4)) AS INTEGER);

CREATE OR REPLACE TEMP MACRO rs_iso_ymd(t, sep) AS
    printf('%04d%s%02d%s%02d', year(t), sep, month(t), sep, day(t));

-- y, w, d (or y, n) are TRY_CASTs of the digits the pattern matched, so never NULL there.
CREATE OR REPLACE TEMP MACRO rs_iso_week_text(u, y, w, d) AS
    CASE WHEN y >= 1 AND w BETWEEN 1 AND 53 AND d BETWEEN 1 AND 7
              AND isoyear(rs_iso_week_day(y, w, d)) = y
         THEN rs_iso_ymd(rs_iso_week_day(y, w, d),
                         CASE WHEN substr(u, 5, 1) = '-' THEN '-' ELSE '' END)
              || regexp_replace(u, '^\d{4}(?:-W\d{2}-\d|W\d{3})', '')
         ELSE u END;

CREATE OR REPLACE TEMP MACRO rs_iso_ordinal_text(u, y, n) AS
    CASE WHEN y >= 1 AND n BETWEEN 1 AND 366
              AND year(make_date(y, 1, 1) + CAST(n - 1 AS INTEGER)) = y
         THEN rs_iso_ymd(make_date(y, 1, 1) + CAST(n - 1 AS INTEGER),
                         CASE WHEN substr(u, 5, 1) = '-' THEN '-' ELSE '' END)
              || regexp_replace(u, '^\d{4}-?\d{3}', '')
         ELSE u END;

CREATE OR REPLACE TEMP MACRO rs_iso_calendar(u) AS
    CASE WHEN regexp_matches(u, '^\d{4}(?:-W\d{2}-\d|W\d{3})(?:T|$)')
             THEN rs_iso_week_text(u, TRY_CAST(left(u, 4) AS INTEGER),
                      TRY_CAST(regexp_extract(u, '^\d{4}-?W(\d{2})', 1) AS INTEGER),
                      TRY_CAST(regexp_extract(u, '^\d{4}-?W\d{2}-?(\d)', 1) AS INTEGER))
         WHEN regexp_matches(u, '^\d{4}-?\d{3}(?:T|$)')
             THEN rs_iso_ordinal_text(u, TRY_CAST(left(u, 4) AS INTEGER),
                      TRY_CAST(regexp_extract(u, '^\d{4}-?(\d{3})', 1) AS INTEGER))
         ELSE u END;

CREATE OR REPLACE TEMP MACRO rs_iso_text(s) AS
    regexp_replace(
        rs_iso_calendar(replace(upper(s), ',', '.')),
        '^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$',
        '\1-\2-\3T\4:\5:\6\7\8');

-- common/v1 · 010 ISO-8601 text in the one form DuckDB's cast takes (spec README: "Times are
-- UTC ISO-8601")
-- Shared by every pack that reads a time from its input (pipeline/v1 010, routes/v1 010): one
-- rule, so a time one pack reads is not refused by another.
-- Reads: nothing. Produces: macro rs_iso_text(s): s with the ISO-8601 forms DuckDB's
-- TIMESTAMPTZ cast refuses written in the one it takes: a comma as the decimal sign, lowercase
-- t/z (RFC 3339), the basic format (20260202T110000Z, 20260202T130000+0200). Any other text
-- is returned as it is, upper-cased (the cast reads case alike), for the cast to take or refuse.
CREATE OR REPLACE TEMP MACRO rs_iso_text(s) AS
    regexp_replace(
        replace(upper(s), ',', '.'),
        '^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})(\.\d+)?(Z|[+-]\d{2}(?::?\d{2})?)?$',
        '\1-\2-\3T\4:\5:\6\7\8');

-- pipeline/v1 · 009 JSON kind names for diagnostics (spec README: errors name file, line, reason)
-- Reads: rs_needs_quote(), rs_show_unseen() (common/v1 000, run by the engine before this
-- pack: the quote of an input value in a message, rs_quote, is shared with routes).
-- Produces: macro pl_json_kind(j): the JSON type of j in JSON's own words (string, number,
-- boolean, object, array, null), not DuckDB's type names; macro pl_shown(s, j): a value as
-- a report's cell shows it, by rs_shown's rule — s, the value as given, unless
-- rs_needs_quote(s) (a control character, C1 too, one that shows blank or not at all, or a
-- leading "): then j, its JSON, with each character that shows blank or not at all \uXXXX
-- as rs_quote writes it, not cut to a message's 80 characters (a report's cell cuts at its
-- own length, 070). The quotes tell it from a value that
-- holds the text \u00a0 (or \x0d, or "PASS\u00a042/42" with its quotes) itself: a value
-- holding a CR was shown as given, the report writing the CR \x0d, as it writes the text
-- \x0d.
CREATE OR REPLACE TEMP MACRO pl_json_kind(j) AS
    CASE json_type(j)
        WHEN 'VARCHAR' THEN 'string'
        WHEN 'BIGINT' THEN 'number'
        WHEN 'UBIGINT' THEN 'number'
        WHEN 'DOUBLE' THEN 'number'
        WHEN 'BOOLEAN' THEN 'boolean'
        WHEN 'OBJECT' THEN 'object'
        WHEN 'ARRAY' THEN 'array'
        ELSE 'null'
    END;

CREATE OR REPLACE TEMP MACRO pl_shown(s, j) AS
    CASE WHEN rs_needs_quote(s) THEN rs_show_unseen(CAST(j AS VARCHAR))
         ELSE s END;

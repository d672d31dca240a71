-- pipeline/v1 · 009 JSON kind names for diagnostics (spec README: errors name file, line, reason)
-- Reads: nothing. Produces: macro pl_json_kind(j): the JSON type of j in JSON's own
-- words (string, number, boolean, object, array, null), not DuckDB's type names; macro
-- pl_quote(j): a JSON value as a message quotes it — its JSON text, its first 80 characters,
-- with each character that shows blank or not at all yet is no ASCII space (no-break and
-- other Unicode spaces, zero-width and bidi marks, the byte-order mark, soft hyphen, line and
-- paragraph separators) written \uXXXX as JSON may write it: "PASS\u00a042/42" is refused,
-- and printed as it is, it read as the "PASS 42/42" it was not. The quote stays JSON that
-- means the same value. Macro pl_shown(s, j): a value as a report's cell shows it — s, the
-- value as given, unless it holds such a character: then j, its JSON, quoted as pl_quote
-- quotes it, whole (a report cuts nothing). The quotes tell it from a value that holds the
-- text \u00a0 itself.
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

CREATE OR REPLACE TEMP MACRO pl_unseen_re() AS
    '[\x{00a0}\x{00ad}\x{1680}\x{180e}\x{2000}-\x{200f}\x{2028}-\x{202f}\x{205f}-\x{2064}'
    || '\x{2066}-\x{206f}\x{3000}\x{feff}]';

CREATE OR REPLACE TEMP MACRO pl_show_unseen(s) AS
    CASE WHEN regexp_matches(s, pl_unseen_re())
         THEN array_to_string(list_transform(string_split(s, ''),
                  lambda c: CASE WHEN regexp_matches(c, pl_unseen_re())
                                 THEN '\u' || lpad(printf('%x', unicode(c)), 4, '0')
                                 ELSE c END), '')
         ELSE s END;

CREATE OR REPLACE TEMP MACRO pl_quote(j) AS pl_show_unseen(left(CAST(j AS VARCHAR), 80));

CREATE OR REPLACE TEMP MACRO pl_shown(s, j) AS
    CASE WHEN regexp_matches(s, pl_unseen_re()) THEN pl_show_unseen(CAST(j AS VARCHAR))
         ELSE s END;

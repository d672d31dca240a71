-- archeflow-legacy · 100 history lines that give a §4 field twice  spec: effectiveness.md §4
-- Same rules as effectiveness/v1 (each version folder is self-contained and frozen).
-- Reads:    _hk_text (content: pieces of whole lines of one history file, as UTF-8 text;
--           base: the number of each piece's first line), $file (the path diagnostics
--           print), $fields (the 22 field names of §4).
-- Produces: history_dup_keys (file, line, keys) — appended to (made by the caller): one
--           row per line that holds one of $fields more than once, with those fields in
--           §4 order ('a, b'); 100_history.sql skips such a line and names them.
-- Why: {"composite_score": 0.9, ..., "composite_score": 0.1} says two things. A parser
-- keeps one of them (DuckDB's the first, others the last) and which one was meant cannot
-- be known. The fast path's read_json refuses such a line; this finds them for the
-- careful one. Fields outside the record are ignored however often they appear, and an
-- escaped spelling ("run\u005fid") is the same key, as every JSON parser reads it.
INSERT INTO history_dup_keys
WITH lines AS (
    SELECT base + generate_subscripts(l, 1) - 1 AS line, unnest(l) AS raw
    FROM (SELECT base, string_split(content, chr(10)) AS l FROM _hk_text)
), keyed AS (
    -- a BOM opening the file is not part of its first line, as the readers take it; a
    -- line that is not JSON has no keys (the reader reports it)
    SELECT line,
           TRY(json_keys(CASE WHEN line = 1 AND starts_with(raw, chr(65279))
                              THEN substr(raw, 2) ELSE raw END)) AS k
    FROM lines
    WHERE raw <> ''
), twice AS (
    SELECT line, unnest(k) AS key
    FROM keyed
    -- the keys of a line as the §4 record writes them (22 fields, or ArcheFlow's first 15)
    -- are distinct: their text is compared first, 7x cheaper than list_distinct on every
    -- line (a comma inside a key cannot make a list that repeats a field look like them)
    WHERE array_to_string(k, ',') NOT IN (array_to_string($fields::VARCHAR[], ','),
                                          array_to_string(($fields::VARCHAR[])[:15], ','))
      AND len(k) <> len(list_distinct(k))
)
SELECT $file::VARCHAR AS file, line,
       string_agg(key, ', ' ORDER BY list_position($fields::VARCHAR[], key)) AS keys
FROM (
    SELECT line, key FROM twice
    WHERE list_contains($fields::VARCHAR[], key)
    GROUP BY line, key
    HAVING count(*) > 1
)
GROUP BY line;

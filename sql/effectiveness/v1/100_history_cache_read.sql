-- effectiveness/v1 · 100 history lines from the cache, plus the lines after it
--                                                                   spec: effectiveness.md §4, §5
-- Reads:    _rs_cache.lines / _rs_cache.issues (the cache 100_history_cache_write.sql
--           wrote, attached read-only; Python has checked its meta and that the file still
--           starts with exactly the bytes it covers); _hc_tail (optional: the `history`
--           rows of the lines after the covered ones, typed by 100_history.sql or
--           100_history_fast.sql from a copy of them, history_line counted from the copy's
--           first line); $display, the path diagnostics print; $offset, the lines the
--           cache covers.
-- Produces: what 100_history.sql produces, with the same columns:
--           history — one row per usable line, §4 fields typed, then history_file,
--           history_line (a view over a union: its scan order is not line order);
--           history_current — one row per (run_id, archetype, scoring_version): the line
--           with the latest ts, ties: the later line (a view);
--           history_issues — empty (Python reports the cached and the new skipped lines);
--           history_version_lines — lines per scoring_version.
-- Only keys that occur in the new lines can change their current line, so the rule is
-- applied to those keys alone, over their covered and new lines; every other covered
-- line keeps the _current the cache stored.
CREATE OR REPLACE TEMP TABLE _hf_file AS SELECT $display::VARCHAR AS history_file;

CREATE TEMP TABLE IF NOT EXISTS _hc_tail AS
SELECT c.* EXCLUDE (_current, history_line), NULL::VARCHAR AS history_file, c.history_line
FROM _rs_cache.lines c
LIMIT 0;

CREATE OR REPLACE TEMP TABLE _hc_new AS
SELECT * EXCLUDE (history_file, history_line), history_line + $offset AS history_line
FROM _hc_tail;

-- Per key of the new lines: its current line over covered and new lines, and its covered
-- current line. The latest (ts, line) of a key's covered lines is the one the cache flags
-- _current, so only those are read (the others can never win), and the covered line that
-- loses its flag comes from here rather than from another join over every covered line.
CREATE OR REPLACE TEMP TABLE _hc_keys AS
SELECT run_id, archetype, scoring_version,
       arg_max(history_line, {'ts': ts, 'line': history_line}) AS current_line,
       max(history_line) FILTER (WHERE covered) AS covered_line
FROM (
    SELECT c.run_id, c.archetype, c.scoring_version, c.ts, c.history_line, true AS covered
    FROM _rs_cache.lines c
    SEMI JOIN _hc_new n USING (run_id, archetype, scoring_version)
    WHERE c._current
    UNION ALL
    SELECT run_id, archetype, scoring_version, ts, history_line, false AS covered
    FROM _hc_new
)
GROUP BY run_id, archetype, scoring_version;

-- Covered lines that were current and are no longer: a new line of theirs is later.
CREATE OR REPLACE TEMP TABLE _hc_demoted AS
SELECT covered_line AS history_line
FROM _hc_keys
WHERE covered_line IS NOT NULL AND covered_line <> current_line;

CREATE OR REPLACE TEMP VIEW history AS
SELECT c.* EXCLUDE (_current, history_line), f.history_file, c.history_line
FROM _rs_cache.lines c, _hf_file f
UNION ALL
SELECT n.* EXCLUDE (history_line), f.history_file, n.history_line
FROM _hc_new n, _hf_file f;

CREATE OR REPLACE TEMP VIEW history_current AS
SELECT c.* EXCLUDE (_current, history_line), f.history_file, c.history_line
FROM _rs_cache.lines c, _hf_file f
WHERE c._current AND c.history_line NOT IN (SELECT history_line FROM _hc_demoted)
UNION ALL
SELECT n.* EXCLUDE (history_line), f.history_file, n.history_line
FROM _hc_new n, _hf_file f
WHERE n.history_line IN (SELECT current_line FROM _hc_keys);

CREATE OR REPLACE TEMP TABLE history_issues (file VARCHAR, line BIGINT, reason VARCHAR);

CREATE OR REPLACE TEMP TABLE history_version_lines AS
SELECT scoring_version, count(*) AS lines FROM history GROUP BY scoring_version;

-- effectiveness/v1 · 100 history lines, fast path for clean files  spec: effectiveness.md §4, §5
-- Reads:    the history file itself ($files: a one-path list), pre-scanned clean by Python
--           (valid UTF-8, no NaN/Infinity, no over-long line); $display, the path that
--           diagnostics print; $max_object_size, read_json's line limit; rs_iso_text
--           (common/v1 010, run by the engine before this file).
-- Produces: history_fast_check — one row: lines (rows read), nonconforming (rows that are not
--           in the plain form this path types; any > 0 means "use 100_history.sql instead");
--           history_issues — empty (same columns as 100's: file, line, reason);
--           history — one row per line, in file order: the §4 fields typed as in 100, then
--           history_file, history_line (a view over _hf_typed, which adds _conforms and
--           _current);
--           history_current — the same columns, one row per (run_id, archetype,
--           scoring_version): the line with the latest ts (ties: the later line) (a view);
--           history_version_lines — lines per scoring_version.
-- Why a second path: 100_history.sql materialises every line's 22 fields as JSON before
-- typing them (measured 17 s on a 1M-line history). Here each line is typed while it is
-- scanned, and never copied again. It is exact only for lines every
-- field of which is null, absent, or in the plain form a writer of the §4 record produces
-- (strings, numbers, integers without fraction or exponent, booleans) and valid per 100's
-- rules; it counts the lines that are not, and the caller then runs 100_history.sql, which
-- names each problem with file and line. So both paths give the same tables on any file.
-- A value's JSON kind from its first byte: 34 '"' string, 110 'n' null, 116/102 true/false,
-- 45 '-' or 48-57 a number; NULL when absent. DuckDB's parser also takes nan, inf, -inf
-- (any case), which are not JSON: the pre-scan sends a file holding them the careful way,
-- and should one get here all the same, it gets kind 0, so such a line never passes.
CREATE OR REPLACE TEMP MACRO _hf_kind(t) AS
    CASE ascii(t)
        WHEN 110 THEN CASE WHEN t = 'null' THEN 110 ELSE 0 END
        WHEN 45 THEN CASE WHEN ascii(substr(t, 2, 1)) BETWEEN 48 AND 57 THEN 45 ELSE 0 END
        ELSE ascii(t) END;
CREATE OR REPLACE TEMP MACRO _hf_num(k) AS k = 45 OR k BETWEEN 48 AND 57;
CREATE OR REPLACE TEMP MACRO _hf_absent(k) AS k IS NULL OR k = 110;
-- A JSON string's value: the text between the quotes unless it has escapes.
CREATE OR REPLACE TEMP MACRO _hf_str(t, k) AS
    CASE WHEN k = 34
         THEN CASE WHEN contains(t, '\') THEN t::JSON ->> '$'
                   ELSE substr(t, 2, length(t) - 2) END END;
-- A time as 100's _h_t_ts (_h_time_cast, then _h_time_wide): text that starts YYYY- and
-- casts to years 1-9999 UTC
-- ('infinity', 'epoch' and later years are not times a history line can hold), as it is
-- or, for a text the cast does not read alone, as rs_iso_text writes it (the ISO-8601
-- forms a run log's time is read in: _hf_time_wide). Such a line stays on this path;
-- rs_iso_text runs only for such rows (the `timed` step's coalesce of a column, below),
-- never for the lines runscore writes: inside lambdas, which DuckDB's common-subexpression
-- pass leaves alone (it lifted a repeated rs_iso_text(s) out of a coalesce into a
-- projection run for every line). The cast is a column of its own: inside the coalesce
-- its three uses of one text were no longer shared (+1 CPU-s over 1M history lines).
CREATE OR REPLACE TEMP MACRO _hf_time_cast(s) AS
    CASE WHEN regexp_matches(s, '^[0-9]{4}-')
          AND TRY_CAST(s AS TIMESTAMPTZ) >= TIMESTAMPTZ '0001-01-01 00:00:00+00'
          AND TRY_CAST(s AS TIMESTAMPTZ) < TIMESTAMPTZ '10000-01-01 00:00:00+00'
         THEN TRY_CAST(s AS TIMESTAMPTZ) END;
CREATE OR REPLACE TEMP MACRO _hf_time_wide(s) AS
    list_transform(list_transform([s], lambda x: rs_iso_text(x)),
                   lambda u: _hf_time_cast(u))[1];
-- Integers in the plain form (no fraction or exponent, at most 15 digits): there DOUBLE
-- and BIGINT agree exactly, as 100's TRY_CAST(TRY_CAST(x AS DOUBLE) AS BIGINT) needs.
CREATE OR REPLACE TEMP MACRO _hf_int(t, k) AS
    _hf_num(k) AND strlen(t) <= 16
    AND NOT contains(t, '.') AND NOT contains(t, 'e') AND NOT contains(t, 'E');

-- The lines, typed, in file order, plus _conforms (false for a line this path cannot
-- vouch for) and _current. A CREATE TABLE AS keeps insertion order, so a row's line number
-- is rowid + 1 (sources.read_jsonl relies on the same); numbering in the scan with
-- row_number() OVER () instead serialised it (measured 7.2 s against 4.0 s for 1M lines).
CREATE OR REPLACE TEMP TABLE _hf_file AS SELECT $display::VARCHAR AS history_file;

CREATE OR REPLACE TEMP TABLE _hf_typed AS
WITH raw AS (
    SELECT *
    FROM read_json($files, format = 'newline_delimited',
                   maximum_object_size = $max_object_size,
                   columns = {
                              ts: 'JSON',
                              run_id: 'JSON',
                              archetype: 'JSON',
                              signal_to_noise: 'JSON',
                              fix_rate: 'JSON',
                              cost_efficiency: 'JSON',
                              accuracy: 'JSON',
                              cycle_impact: 'JSON',
                              composite_score: 'JSON',
                              tokens: 'JSON',
                              cost_usd: 'JSON',
                              model: 'JSON',
                              findings_total: 'JSON',
                              findings_useful: 'JSON',
                              fixes_applied: 'JSON',
                              scoring_version: 'JSON',
                              run_ts: 'JSON',
                              cost_basis: 'JSON',
                              cost_efficiency_norm: 'JSON',
                              findings_contradicted: 'JSON',
                              events_sha256: 'JSON',
                              source: 'JSON'})
), coded AS (
    SELECT
           ts::VARCHAR AS ts,
           run_id::VARCHAR AS run_id,
           archetype::VARCHAR AS archetype,
           signal_to_noise::VARCHAR AS signal_to_noise,
           fix_rate::VARCHAR AS fix_rate,
           cost_efficiency::VARCHAR AS cost_efficiency,
           accuracy::VARCHAR AS accuracy,
           cycle_impact::VARCHAR AS cycle_impact,
           composite_score::VARCHAR AS composite_score,
           tokens::VARCHAR AS tokens,
           cost_usd::VARCHAR AS cost_usd,
           model::VARCHAR AS model,
           findings_total::VARCHAR AS findings_total,
           findings_useful::VARCHAR AS findings_useful,
           fixes_applied::VARCHAR AS fixes_applied,
           scoring_version::VARCHAR AS scoring_version,
           run_ts::VARCHAR AS run_ts,
           cost_basis::VARCHAR AS cost_basis,
           cost_efficiency_norm::VARCHAR AS cost_efficiency_norm,
           findings_contradicted::VARCHAR AS findings_contradicted,
           events_sha256::VARCHAR AS events_sha256,
           source::VARCHAR AS source,
           _hf_kind(ts::VARCHAR) AS k_ts,
           _hf_kind(run_id::VARCHAR) AS k_run_id,
           _hf_kind(archetype::VARCHAR) AS k_archetype,
           _hf_kind(signal_to_noise::VARCHAR) AS k_signal_to_noise,
           _hf_kind(fix_rate::VARCHAR) AS k_fix_rate,
           _hf_kind(cost_efficiency::VARCHAR) AS k_cost_efficiency,
           _hf_kind(accuracy::VARCHAR) AS k_accuracy,
           _hf_kind(cycle_impact::VARCHAR) AS k_cycle_impact,
           _hf_kind(composite_score::VARCHAR) AS k_composite_score,
           _hf_kind(tokens::VARCHAR) AS k_tokens,
           _hf_kind(cost_usd::VARCHAR) AS k_cost_usd,
           _hf_kind(model::VARCHAR) AS k_model,
           _hf_kind(findings_total::VARCHAR) AS k_findings_total,
           _hf_kind(findings_useful::VARCHAR) AS k_findings_useful,
           _hf_kind(fixes_applied::VARCHAR) AS k_fixes_applied,
           _hf_kind(scoring_version::VARCHAR) AS k_scoring_version,
           _hf_kind(run_ts::VARCHAR) AS k_run_ts,
           _hf_kind(cost_basis::VARCHAR) AS k_cost_basis,
           _hf_kind(cost_efficiency_norm::VARCHAR) AS k_cost_efficiency_norm,
           _hf_kind(findings_contradicted::VARCHAR) AS k_findings_contradicted,
           _hf_kind(events_sha256::VARCHAR) AS k_events_sha256,
           _hf_kind(source::VARCHAR) AS k_source
    FROM raw
), valued AS (
    SELECT *,
           _hf_str(ts, k_ts) AS s_ts,
           _hf_str(run_id, k_run_id) AS s_run_id,
           _hf_str(archetype, k_archetype) AS s_archetype,
           _hf_str(model, k_model) AS s_model,
           _hf_str(scoring_version, k_scoring_version) AS s_scoring_version,
           _hf_str(run_ts, k_run_ts) AS s_run_ts,
           _hf_str(cost_basis, k_cost_basis) AS s_cost_basis,
           _hf_str(events_sha256, k_events_sha256) AS s_events_sha256,
           _hf_str(source, k_source) AS s_source,
           _hf_time_cast(_hf_str(ts, k_ts)) AS c_ts,
           _hf_time_cast(_hf_str(run_ts, k_run_ts)) AS c_run_ts
    FROM coded
), timed AS (
    -- The wide reading only where the cast read nothing (a column apart: inside one
    -- coalesce with the cast, the cast's three uses of its text were no longer shared,
    -- +1 CPU-s over a 1M-line history).
    SELECT *,
           coalesce(c_ts, CASE WHEN s_ts IS NOT NULL THEN _hf_time_wide(s_ts) END) AS t_ts,
           coalesce(c_run_ts, CASE WHEN s_run_ts IS NOT NULL THEN _hf_time_wide(s_run_ts) END)
               AS t_run_ts
    FROM valued
)
SELECT t_ts AS ts,
       s_run_id AS run_id,
       s_archetype AS archetype,
       TRY_CAST(signal_to_noise AS DOUBLE) AS signal_to_noise,
       TRY_CAST(fix_rate AS DOUBLE) AS fix_rate,
       TRY_CAST(cost_efficiency AS DOUBLE) AS cost_efficiency,
       TRY_CAST(accuracy AS DOUBLE) AS accuracy,
       TRY_CAST(cycle_impact AS BOOLEAN) AS cycle_impact,
       TRY_CAST(composite_score AS DOUBLE) AS composite_score,
       TRY_CAST(tokens AS BIGINT) AS tokens,
       TRY_CAST(cost_usd AS DOUBLE) AS cost_usd,
       s_model AS model,
       TRY_CAST(findings_total AS BIGINT) AS findings_total,
       TRY_CAST(findings_useful AS BIGINT) AS findings_useful,
       TRY_CAST(fixes_applied AS BIGINT) AS fixes_applied,
       coalesce(s_scoring_version, 'archeflow-legacy') AS scoring_version,
       coalesce(t_run_ts, t_ts) AS run_ts,
       s_cost_basis AS cost_basis,
       TRY_CAST(cost_efficiency_norm AS DOUBLE) AS cost_efficiency_norm,
       TRY_CAST(findings_contradicted AS BIGINT) AS findings_contradicted,
       s_events_sha256 AS events_sha256,
       s_source AS source,
       -- 100_history.sql's rules, for values in the plain form; an absent field makes a
       -- comparison NULL, hence the coalesce (unknown is not "conforms").
       coalesce(k_run_id = 34 AND trim(s_run_id) <> ''
       AND k_archetype = 34 AND trim(s_archetype) <> ''
       AND t_ts IS NOT NULL
       AND _hf_num(k_composite_score) AND isfinite(TRY_CAST(composite_score AS DOUBLE))
       AND (_hf_absent(k_run_ts) OR t_run_ts IS NOT NULL)
       AND (_hf_absent(k_cycle_impact) OR k_cycle_impact IN (116, 102))
       AND (_hf_absent(k_signal_to_noise) OR _hf_num(k_signal_to_noise) AND isfinite(TRY_CAST(signal_to_noise AS DOUBLE)))
       AND (_hf_absent(k_fix_rate) OR _hf_num(k_fix_rate) AND isfinite(TRY_CAST(fix_rate AS DOUBLE)))
       AND (_hf_absent(k_cost_efficiency) OR _hf_num(k_cost_efficiency) AND isfinite(TRY_CAST(cost_efficiency AS DOUBLE)))
       AND (_hf_absent(k_accuracy) OR _hf_num(k_accuracy) AND isfinite(TRY_CAST(accuracy AS DOUBLE)))
       AND (_hf_absent(k_cost_usd) OR _hf_num(k_cost_usd) AND isfinite(TRY_CAST(cost_usd AS DOUBLE)))
       AND (_hf_absent(k_cost_efficiency_norm) OR _hf_num(k_cost_efficiency_norm) AND isfinite(TRY_CAST(cost_efficiency_norm AS DOUBLE)))
       AND (_hf_absent(k_tokens) OR _hf_int(tokens, k_tokens))
       AND (_hf_absent(k_findings_total) OR _hf_int(findings_total, k_findings_total))
       AND (_hf_absent(k_findings_useful) OR _hf_int(findings_useful, k_findings_useful))
       AND (_hf_absent(k_fixes_applied) OR _hf_int(fixes_applied, k_fixes_applied))
       AND (_hf_absent(k_findings_contradicted) OR _hf_int(findings_contradicted, k_findings_contradicted))
       AND (_hf_absent(k_model) OR k_model = 34)
       AND (_hf_absent(k_scoring_version) OR k_scoring_version = 34)
       AND (_hf_absent(k_cost_basis) OR k_cost_basis = 34)
       AND (_hf_absent(k_events_sha256) OR k_events_sha256 = 34)
       AND (_hf_absent(k_source) OR k_source = 34)
       , false) AS _conforms,
       true AS _current
FROM timed;

CREATE OR REPLACE TEMP TABLE history_fast_check AS
SELECT count(*) AS lines, count(*) FILTER (WHERE NOT _conforms) AS nonconforming
FROM _hf_typed;

CREATE OR REPLACE TEMP TABLE history_issues
    (file VARCHAR, line BIGINT, reason VARCHAR);

-- The current line per key: the latest ts, ties to the later line. Most keys have one
-- line, so instead of copying the current lines into a table (1M rows: seconds) the few
-- superseded ones are flagged, and both views are ordered scans of the one table.
UPDATE _hf_typed h SET _current = false
FROM (
    SELECT run_id, archetype, scoring_version,
           arg_max(rowid, {'ts': ts, 'line': rowid}) AS current_row
    FROM _hf_typed
    GROUP BY run_id, archetype, scoring_version
    HAVING count(*) > 1
) d
WHERE h.run_id = d.run_id AND h.archetype = d.archetype
  AND h.scoring_version = d.scoring_version AND h.rowid <> d.current_row;

CREATE OR REPLACE TEMP VIEW history AS
SELECT h.* EXCLUDE (_conforms, _current), f.history_file, h.rowid + 1 AS history_line
FROM _hf_typed h, _hf_file f;

CREATE OR REPLACE TEMP VIEW history_current AS
SELECT h.* EXCLUDE (_conforms, _current), f.history_file, h.rowid + 1 AS history_line
FROM _hf_typed h, _hf_file f
WHERE h._current;

CREATE OR REPLACE TEMP TABLE history_version_lines AS
SELECT scoring_version, count(*) AS lines FROM _hf_typed GROUP BY scoring_version;

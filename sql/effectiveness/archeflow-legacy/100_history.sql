-- archeflow-legacy · 100 history lines, typed and validated     spec: effectiveness.md §4, §5
-- Same rules as effectiveness/v1 (each version folder is self-contained and frozen).
-- Reads:    history_raw (_file, _line, _ord, then the 22 history fields of §4, every one
--           JSON), one row per JSON-object line of the history file (sources.read_jsonl);
--           history_dup_keys (file, line, keys): lines that give a field twice
--           (100_history_keys.sql); rs_iso_text (common/v1 010, run by the engine before this
--           file: the one reading of an ISO-8601 time, a run log's as a history line's).
-- Produces: history_issues (file, line, reason) — lines that cannot be used, and why;
--           history — one row per usable line, the §4 fields in order, typed (ts and run_ts
--           TIMESTAMPTZ, scores DOUBLE, counts BIGINT), then history_file, history_line;
--           history_current — same columns, one row per (run_id, archetype,
--           scoring_version): the line with the latest ts (ties: the later line).
-- Lines written by ArcheFlow's shell scorer carry only the first 15 fields: no
-- scoring_version means 'archeflow-legacy', and a missing run_ts means run_ts = ts.
-- Required: run_id and archetype (non-empty strings), ts (an ISO-8601 time) and
-- composite_score (a number). Any other field that is present must have its type (or be
-- null), and no field may be given twice; a line that breaks a rule is skipped whole, with
-- every broken rule named.
CREATE OR REPLACE TEMP MACRO _h_is_null(j) AS j IS NULL OR json_type(j) = 'NULL';
-- A finite number: DuckDB's JSON parser also reads nan/inf (and 1e400 as inf), which are
-- not JSON numbers; they must not reach a score or a mean.
CREATE OR REPLACE TEMP MACRO _h_is_num(j) AS
    json_type(j) IN ('BIGINT', 'UBIGINT', 'DOUBLE') AND isfinite(TRY_CAST(j ->> '$' AS DOUBLE));
CREATE OR REPLACE TEMP MACRO _h_is_int(j) AS
    json_type(j) IN ('BIGINT', 'UBIGINT') AND TRY_CAST(j ->> '$' AS BIGINT) IS NOT NULL
    OR json_type(j) = 'DOUBLE'
       AND TRY_CAST(j ->> '$' AS DOUBLE) = floor(TRY_CAST(j ->> '$' AS DOUBLE))
       AND abs(TRY_CAST(j ->> '$' AS DOUBLE)) < 9e15;
CREATE OR REPLACE TEMP MACRO _h_text(j) AS
    CASE WHEN json_type(j) = 'VARCHAR' THEN j ->> '$' END;
-- A time that a history line can hold: text that starts as an ISO-8601 date (YYYY-) and
-- casts to a time in years 1-9999 UTC. DuckDB's cast alone also takes 'infinity', 'epoch'
-- and years past 9999: an 'infinity' ts would supersede every later line, and a time past
-- 9999 cannot be shown (`runscore sql` stopped with a traceback).
CREATE OR REPLACE TEMP MACRO _h_time_cast(s) AS
    CASE WHEN regexp_matches(s, '^[0-9]{4}-')
          AND TRY_CAST(s AS TIMESTAMPTZ) >= TIMESTAMPTZ '0001-01-01 00:00:00+00'
          AND TRY_CAST(s AS TIMESTAMPTZ) < TIMESTAMPTZ '10000-01-01 00:00:00+00'
         THEN TRY_CAST(s AS TIMESTAMPTZ) END;
-- Read as a run log's times are, by rs_iso_text (a week or ordinal date, the basic format,
-- a decimal comma, lowercase t/z): a line another tool wrote so was skipped, "ts is not an
-- ISO-8601 time", where the same text in a run log is read. The cast is tried first, and
-- rs_iso_text only for a text it does not read (the `timed` step of _h_checked: a coalesce
-- of the cast's column, whose second argument runs for those rows alone): the lines
-- runscore writes pay nothing more. Inside lambdas, as DuckDB's common-subexpression pass
-- lifts a repeated rs_iso_text(s) (and the repeated parts of it) out of a CASE or coalesce
-- into a projection run for every line, and never out of a lambda; the inner lambda runs
-- rs_iso_text once for such a line. The cast is a column of its own, as in
-- 100_history_fast.sql: inside one coalesce with the wide reading its three uses of one
-- text were no longer shared.
CREATE OR REPLACE TEMP MACRO _h_time_wide(s) AS
    list_transform(list_transform([s], lambda x: rs_iso_text(x)),
                   lambda u: _h_time_cast(u))[1];

CREATE OR REPLACE TEMP TABLE _h_checked AS
WITH cast_ AS (
    SELECT *,
           _h_text(ts) AS _h_s_ts,
           _h_text(run_ts) AS _h_s_run_ts,
           _h_time_cast(_h_text(ts)) AS _h_c_ts,
           _h_time_cast(_h_text(run_ts)) AS _h_c_run_ts
    FROM history_raw
), timed AS (
    -- ts and run_ts as times (NULL: not one), once per line for the checks and the typing.
    SELECT * EXCLUDE (_h_s_ts, _h_s_run_ts, _h_c_ts, _h_c_run_ts),
           coalesce(_h_c_ts, CASE WHEN _h_s_ts IS NOT NULL THEN _h_time_wide(_h_s_ts) END)
               AS _h_t_ts,
           coalesce(_h_c_run_ts,
                    CASE WHEN _h_s_run_ts IS NOT NULL THEN _h_time_wide(_h_s_run_ts) END)
               AS _h_t_run_ts
    FROM cast_
)
SELECT r.*,
       concat_ws('; ',
         CASE WHEN d.keys IS NOT NULL
              THEN CASE WHEN contains(d.keys, ',') THEN 'duplicate keys ' ELSE 'duplicate key ' END
                   || d.keys END,
         CASE WHEN _h_is_null(run_id) THEN 'missing run_id'
              WHEN json_type(run_id) <> 'VARCHAR' THEN 'run_id is not a string'
              -- §5 takes one current line per (run_id, archetype): "" would make every
              -- such run of an archetype one run, all but its latest line dropped unsaid.
              WHEN trim(run_id ->> '$') = ''
              THEN 'run_id is empty (ArcheFlow''s scorer writes "" for a run without a '
                   || 'run.start event): which run it scored is unknown' END,
         CASE WHEN _h_is_null(archetype) THEN 'missing archetype'
              WHEN json_type(archetype) <> 'VARCHAR' THEN 'archetype is not a string'
              WHEN trim(archetype ->> '$') = '' THEN 'archetype is empty' END,
         CASE WHEN _h_is_null(ts) THEN 'missing ts'
              WHEN _h_t_ts IS NULL THEN 'ts is not an ISO-8601 time' END,
         CASE WHEN _h_is_null(composite_score) THEN 'missing composite_score'
              WHEN NOT _h_is_num(composite_score) THEN 'composite_score is not a number' END,
         CASE WHEN NOT _h_is_null(run_ts) AND _h_t_run_ts IS NULL
              THEN 'run_ts is not an ISO-8601 time' END,
         CASE WHEN NOT _h_is_null(scoring_version) AND json_type(scoring_version) <> 'VARCHAR'
              THEN 'scoring_version is not a string' END,
         CASE WHEN NOT _h_is_null(cycle_impact) AND json_type(cycle_impact) <> 'BOOLEAN'
              THEN 'cycle_impact is not a boolean' END,
         CASE WHEN NOT _h_is_null(signal_to_noise) AND NOT _h_is_num(signal_to_noise)
              THEN 'signal_to_noise is not a number' END,
         CASE WHEN NOT _h_is_null(fix_rate) AND NOT _h_is_num(fix_rate)
              THEN 'fix_rate is not a number' END,
         CASE WHEN NOT _h_is_null(cost_efficiency) AND NOT _h_is_num(cost_efficiency)
              THEN 'cost_efficiency is not a number' END,
         CASE WHEN NOT _h_is_null(accuracy) AND NOT _h_is_num(accuracy)
              THEN 'accuracy is not a number' END,
         CASE WHEN NOT _h_is_null(cost_usd) AND NOT _h_is_num(cost_usd)
              THEN 'cost_usd is not a number' END,
         CASE WHEN NOT _h_is_null(cost_efficiency_norm) AND NOT _h_is_num(cost_efficiency_norm)
              THEN 'cost_efficiency_norm is not a number' END,
         CASE WHEN NOT _h_is_null(tokens) AND NOT _h_is_int(tokens)
              THEN 'tokens is not an integer' END,
         CASE WHEN NOT _h_is_null(findings_total) AND NOT _h_is_int(findings_total)
              THEN 'findings_total is not an integer' END,
         CASE WHEN NOT _h_is_null(findings_useful) AND NOT _h_is_int(findings_useful)
              THEN 'findings_useful is not an integer' END,
         CASE WHEN NOT _h_is_null(fixes_applied) AND NOT _h_is_int(fixes_applied)
              THEN 'fixes_applied is not an integer' END,
         CASE WHEN NOT _h_is_null(findings_contradicted) AND NOT _h_is_int(findings_contradicted)
              THEN 'findings_contradicted is not an integer' END,
         CASE WHEN NOT _h_is_null(model) AND json_type(model) <> 'VARCHAR'
              THEN 'model is not a string' END,
         CASE WHEN NOT _h_is_null(cost_basis) AND json_type(cost_basis) <> 'VARCHAR'
              THEN 'cost_basis is not a string' END,
         CASE WHEN NOT _h_is_null(events_sha256) AND json_type(events_sha256) <> 'VARCHAR'
              THEN 'events_sha256 is not a string' END,
         CASE WHEN NOT _h_is_null(source) AND json_type(source) <> 'VARCHAR'
              THEN 'source is not a string' END
       ) AS reason
FROM timed r
LEFT JOIN history_dup_keys d ON d.file = r._file AND d.line = r._line;

CREATE OR REPLACE TEMP TABLE history_issues AS
SELECT _file AS file, _line AS line, 'history line skipped: ' || reason AS reason
FROM _h_checked
WHERE reason <> ''
ORDER BY _ord;

CREATE OR REPLACE TEMP TABLE _h_typed AS
SELECT _h_t_ts AS ts,
       run_id ->> '$' AS run_id,
       archetype ->> '$' AS archetype,
       TRY_CAST(signal_to_noise ->> '$' AS DOUBLE) AS signal_to_noise,
       TRY_CAST(fix_rate ->> '$' AS DOUBLE) AS fix_rate,
       TRY_CAST(cost_efficiency ->> '$' AS DOUBLE) AS cost_efficiency,
       TRY_CAST(accuracy ->> '$' AS DOUBLE) AS accuracy,
       TRY_CAST(cycle_impact ->> '$' AS BOOLEAN) AS cycle_impact,
       TRY_CAST(composite_score ->> '$' AS DOUBLE) AS composite_score,
       TRY_CAST(TRY_CAST(tokens ->> '$' AS DOUBLE) AS BIGINT) AS tokens,
       TRY_CAST(cost_usd ->> '$' AS DOUBLE) AS cost_usd,
       _h_text(model) AS model,
       TRY_CAST(TRY_CAST(findings_total ->> '$' AS DOUBLE) AS BIGINT) AS findings_total,
       TRY_CAST(TRY_CAST(findings_useful ->> '$' AS DOUBLE) AS BIGINT) AS findings_useful,
       TRY_CAST(TRY_CAST(fixes_applied ->> '$' AS DOUBLE) AS BIGINT) AS fixes_applied,
       coalesce(_h_text(scoring_version), 'archeflow-legacy') AS scoring_version,
       coalesce(_h_t_run_ts, _h_t_ts) AS run_ts,
       _h_text(cost_basis) AS cost_basis,
       TRY_CAST(cost_efficiency_norm ->> '$' AS DOUBLE) AS cost_efficiency_norm,
       TRY_CAST(TRY_CAST(findings_contradicted ->> '$' AS DOUBLE) AS BIGINT)
           AS findings_contradicted,
       _h_text(events_sha256) AS events_sha256,
       _h_text(source) AS source,
       _file AS history_file,
       _line AS history_line,
       _ord AS _h_ord
FROM _h_checked
WHERE reason = '';

CREATE OR REPLACE TEMP TABLE history AS
SELECT * EXCLUDE (_h_ord) FROM _h_typed ORDER BY _h_ord;

CREATE OR REPLACE TEMP TABLE history_current AS
SELECT * EXCLUDE (_h_ord)
FROM _h_typed
QUALIFY row_number() OVER (PARTITION BY run_id, archetype, scoring_version
                           ORDER BY ts DESC, _h_ord DESC) = 1
ORDER BY _h_ord;

DROP TABLE _h_checked;
DROP TABLE _h_typed;

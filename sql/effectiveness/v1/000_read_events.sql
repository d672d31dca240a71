-- effectiveness/v1 · 000 read events (the reader's projection)  spec: effectiveness.md §1
-- Reads:    the event log files, via read_json($files, columns=$columns) — run by
--           runscore.engine.sources.read_jsonl as this version's projection, once per
--           batch of clean files and once per spooled dirty file.
-- Produces: _stage — one row per JSON line, in file order: _path, _nonobj (the line gave
--           no object), run_id/type/seq/parent/ts/phase/agent checked and typed, and the
--           few `data` fields later files use, extracted in this one scan so the JSON
--           payload is never kept in memory: archetype (folded), verdict, data_cycle,
--           findings (JSON array, verdicts only), fix_source, fix_finding, fix_loc_key,
--           c_obs, c_est, tok, tok_in, tok_out, model, met, own_seq (integer seq ≥ 1
--           or null), parents BIGINT[] / parent_bad VARCHAR[] (usable and unusable parent
--           parts), content_md5 (identity of the event but for its seq).
-- One json_extract with a list of paths parses `data` once per line.
-- trim as Python's str.strip() does for ASCII: spaces, tabs, newlines, CR, VT, FF.
CREATE OR REPLACE TEMP MACRO eff_trim(s) AS
    trim(s, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13));

CREATE OR REPLACE TEMP TABLE _stage AS
WITH r AS (
    SELECT _path, run_id, type, seq, parent, ts, phase, agent,
           json_type(data) = 'OBJECT' AS data_is_object,
           data::VARCHAR AS data_text,
           json_extract(data, ['$.archetype', '$.verdict', '$.cycle', '$.findings',
                               '$.source', '$.finding', '$.location', '$.file', '$.line',
                               '$.cost_usd', '$.estimated_cost_usd', '$.tokens',
                               '$.tokens_input', '$.tokens_output', '$.model', '$.met']) AS d
    FROM read_json($files, format='newline_delimited', columns=$columns, filename='_path',
                   ignore_errors=true, maximum_object_size=$max_object_size)
), t AS (
    SELECT r.*,
           json_type(run_id) AS run_id_type, json_type(type) AS type_type,
           run_id ->> '$' AS rid, type ->> '$' AS typ,
           list_transform(
               CASE coalesce(json_type(parent), 'NULL')
                 WHEN 'NULL' THEN []::JSON[]
                 WHEN 'ARRAY' THEN json_extract(parent, '$[*]')
                 WHEN 'VARCHAR' THEN
                   list_transform(list_filter(string_split(parent ->> '$', ','),
                                              lambda s: eff_trim(s) <> ''),
                                  lambda s: to_json(eff_trim(s)))
                 ELSE [parent]
               END,
               lambda p: {
                 -- array elements must be JSON integers; the parts of "3,4" are text
                 'is_int': json_type(parent) <> 'ARRAY' AND json_type(p) = 'VARCHAR'
                               AND regexp_full_match(eff_trim(p ->> '$'), '[0-9]{1,18}')
                           OR json_type(p) IN ('BIGINT', 'UBIGINT'),
                 'v': TRY_CAST(eff_trim(p ->> '$') AS BIGINT),
                 'raw': p::VARCHAR}) AS parent_parts
    FROM r
)
SELECT
    _path,
    (run_id IS NULL AND type IS NULL AND seq IS NULL AND parent IS NULL AND ts IS NULL
     AND phase IS NULL AND agent IS NULL AND data_text IS NULL) AS _nonobj,
    CASE WHEN run_id_type = 'VARCHAR' THEN rid END AS run_id,
    CASE WHEN type_type = 'VARCHAR' THEN typ END AS type,
    CASE
      WHEN run_id IS NULL OR run_id_type = 'NULL' THEN 'missing run_id'
      WHEN run_id_type <> 'VARCHAR' THEN 'run_id is not a string'
      WHEN rid = '' THEN 'run_id is empty'
      WHEN type IS NULL OR type_type = 'NULL' THEN 'missing type'
      WHEN type_type <> 'VARCHAR' THEN 'type is not a string'
      WHEN typ = '' THEN 'type is empty'
    END AS problem,
    CASE WHEN json_type(seq) IN ('BIGINT', 'UBIGINT') AND TRY_CAST(seq ->> '$' AS BIGINT) >= 1
         THEN TRY_CAST(seq ->> '$' AS BIGINT) END AS own_seq,
    -- parent: array of integers, one integer, "3,4", "" or absent; integers are kept,
    -- anything else is reported.
    list_distinct(list_transform(list_filter(parent_parts, lambda p: p.is_int), lambda p: p.v))
        AS parents,
    list_transform(list_filter(parent_parts, lambda p: NOT p.is_int), lambda p: p.raw)
        AS parent_bad,
    ts ->> '$' AS ts, phase ->> '$' AS phase, agent ->> '$' AS agent,
    coalesce(nullif(lower(eff_trim(d[1] ->> '$')), ''), nullif(lower(eff_trim(agent ->> '$')), ''),
             'unknown') AS archetype,
    CASE WHEN typ = 'review.verdict' THEN lower(eff_trim(d[2] ->> '$')) END AS verdict,
    CASE WHEN typ = 'review.verdict' AND json_type(d[3]) IN ('BIGINT', 'UBIGINT')
         THEN TRY_CAST(d[3] ->> '$' AS BIGINT) END AS data_cycle,
    CASE WHEN typ = 'review.verdict' AND json_type(d[4]) = 'ARRAY' THEN d[4] END AS findings,
    -- a non-empty string source is authoritative (even one of blanks: it names nobody)
    CASE WHEN typ = 'fix.applied' AND json_type(d[5]) = 'VARCHAR' AND (d[5] ->> '$') <> ''
         THEN lower(eff_trim(d[5] ->> '$')) END AS fix_source,
    -- "present" = given and not null (an empty string is present)
    CASE WHEN typ = 'fix.applied' THEN lower(eff_trim(d[6] ->> '$')) END AS fix_finding,
    CASE WHEN typ = 'fix.applied' THEN coalesce(
           lower(eff_trim(d[7] ->> '$')),
           lower(eff_trim(d[8] ->> '$'))
             || CASE WHEN d[9] IS NOT NULL AND json_type(d[9]) <> 'NULL'
                     THEN ':' || (d[9] ->> '$') ELSE '' END) END AS fix_loc_key,
    CASE WHEN typ = 'agent.complete' AND json_type(d[10]) IN ('BIGINT', 'UBIGINT', 'DOUBLE')
         THEN TRY_CAST(d[10] ->> '$' AS DOUBLE) END AS c_obs,
    CASE WHEN typ = 'agent.complete' AND json_type(d[11]) IN ('BIGINT', 'UBIGINT', 'DOUBLE')
         THEN TRY_CAST(d[11] ->> '$' AS DOUBLE) END AS c_est,
    CASE WHEN typ = 'agent.complete' AND json_type(d[12]) IN ('BIGINT', 'UBIGINT', 'DOUBLE')
         THEN TRY_CAST(d[12] ->> '$' AS DOUBLE) END AS tok,
    CASE WHEN typ = 'agent.complete' AND json_type(d[13]) IN ('BIGINT', 'UBIGINT', 'DOUBLE')
         THEN TRY_CAST(d[13] ->> '$' AS DOUBLE) END AS tok_in,
    CASE WHEN typ = 'agent.complete' AND json_type(d[14]) IN ('BIGINT', 'UBIGINT', 'DOUBLE')
         THEN TRY_CAST(d[14] ->> '$' AS DOUBLE) END AS tok_out,
    CASE WHEN typ IN ('agent.complete', 'agent.start')
         AND eff_trim(d[15] ->> '$') <> '' THEN d[15] ->> '$' END AS model,
    CASE WHEN typ = 'cycle.boundary'
         THEN coalesce(json_type(d[16]) = 'BOOLEAN' AND (d[16] ->> '$') = 'true', false)
    END AS met,
    -- identity of the event but for its seq: envelope, normalised parents, data
    md5(concat_ws(chr(31), coalesce(ts::VARCHAR, 'null'), typ, coalesce(phase::VARCHAR, 'null'),
                  coalesce(agent::VARCHAR, 'null'),
                  list_sort(list_distinct(list_transform(list_filter(parent_parts,
                      lambda p: p.is_int), lambda p: p.v)))::VARCHAR,
                  coalesce(CASE WHEN data_is_object THEN data_text END, 'null'))) AS content_md5
FROM t;

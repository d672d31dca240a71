-- archeflow-legacy · 000 accepted events                        spec: effectiveness.md §1, §8
-- Reads:    raw_events (_file, _line, _ord, ts, run_id, seq, parent, type, phase, agent,
--           data; all JSON but the first three), one row per JSON-object line.
-- Produces: row_issues (file, line, reason) — lines without a non-empty string run_id/type;
--           accepted (one row per accepted line), the columns of effectiveness/v1 000 with
--           the archetype of ArcheFlow's scorer: arch_raw = jq `.data.archetype // .agent`
--           (jq's `//` skips null and false only; no case folding, no trimming; a
--           non-string value is its JSON text) and archetype = arch_raw, else 'unknown';
--           _dup_conflicts (view) — as effectiveness/v1 001's: lines sharing a (run_id, seq)
--           whose content_md5 differ (the hash takes the parents sorted, as v1's).
-- Everything else (seq, parents, content identity, rejected lines) follows the first
-- effectiveness/v1 extract: the scorer's rules of §8 start after the events are accepted.
CREATE OR REPLACE TEMP TABLE row_issues AS
SELECT _file AS file, _line AS line,
       CASE
         WHEN run_id IS NULL OR json_type(run_id) = 'NULL' THEN 'missing run_id'
         WHEN json_type(run_id) <> 'VARCHAR' THEN 'run_id is not a string'
         WHEN run_id ->> '$' = '' THEN 'run_id is empty'
         WHEN type IS NULL OR json_type(type) = 'NULL' THEN 'missing type'
         WHEN json_type(type) <> 'VARCHAR' THEN 'type is not a string'
         ELSE 'type is empty'
       END AS reason
FROM raw_events
WHERE run_id IS NULL OR json_type(run_id) <> 'VARCHAR' OR run_id ->> '$' = ''
   OR type IS NULL OR json_type(type) <> 'VARCHAR' OR type ->> '$' = '';

-- jq truthiness: a value is "present" for `//` unless it is absent, null or false.
CREATE OR REPLACE TEMP MACRO _jq_present(j) AS
    j IS NOT NULL AND json_type(j) <> 'NULL'
    AND NOT (json_type(j) = 'BOOLEAN' AND (j ->> '$') = 'false');
CREATE OR REPLACE TEMP MACRO _jq_text(j) AS
    CASE WHEN json_type(j) = 'VARCHAR' THEN j ->> '$' ELSE j::VARCHAR END;

-- A JSON number that is an integer by its value (2 and 2.0 alike, as effectiveness/v1's
-- jint reads a seq and a parent), as BIGINT; null for any other value.
CREATE OR REPLACE TEMP MACRO _lg_jint(j) AS
    CASE json_type(j)
      WHEN 'BIGINT' THEN TRY_CAST(j ->> '$' AS BIGINT)
      WHEN 'UBIGINT' THEN TRY_CAST(j ->> '$' AS BIGINT)
      WHEN 'DOUBLE' THEN CASE WHEN TRY_CAST(j ->> '$' AS DOUBLE) = trunc(TRY_CAST(j ->> '$' AS DOUBLE))
                              THEN TRY_CAST(TRY_CAST(j ->> '$' AS DOUBLE) AS BIGINT) END
    END;

CREATE OR REPLACE TEMP TABLE accepted AS
WITH ok AS (
    SELECT r.*, r.run_id ->> '$' AS rid, r.type ->> '$' AS typ,
           CASE WHEN json_type(r.data) = 'OBJECT' THEN r.data END AS obj
    FROM raw_events r
    WHERE json_type(r.run_id) = 'VARCHAR' AND r.run_id ->> '$' <> ''
      AND json_type(r.type) = 'VARCHAR' AND r.type ->> '$' <> ''
), positioned AS (
    SELECT ok.*,
           row_number() OVER (PARTITION BY rid ORDER BY _ord) AS pos,
           CASE WHEN _lg_jint(seq) >= 1 THEN _lg_jint(seq) END AS own_seq,
           CASE coalesce(json_type(parent), 'NULL')
             WHEN 'ARRAY' THEN json_extract(parent, '$[*]')
             WHEN 'VARCHAR' THEN
               list_transform(
                 list_filter(string_split(parent ->> '$', ','), lambda s: trim(s) <> ''),
                 lambda s: to_json(trim(s)))
             WHEN 'BIGINT' THEN [parent]
             WHEN 'UBIGINT' THEN [parent]
             WHEN 'NULL' THEN []::JSON[]
             ELSE [parent]
           END AS parent_parts,
           CASE WHEN _jq_present(obj -> '$.archetype') THEN _jq_text(obj -> '$.archetype')
                WHEN _jq_present(agent) THEN _jq_text(agent) END AS arch_raw
    FROM ok
)
-- a parent part is usable when it is an integer (by value: 2.0 is 2) that fits a seq, or
-- a string of digits (after a minus sign or not) that does, as effectiveness/v1 reads it
-- (an integer past a BIGINT is no seq, never a failed cast that stops the extract)
, valued AS (
    SELECT positioned.*,
           list_transform(parent_parts, lambda p: CASE WHEN json_type(p) = 'VARCHAR' THEN
               CASE WHEN regexp_full_match(trim(p ->> '$'), '-?[0-9]+')
                    THEN TRY_CAST(trim(p ->> '$') AS BIGINT) END
             ELSE _lg_jint(p) END) AS part_seqs
    FROM positioned
)
SELECT _file, _line, _ord, rid AS run_id, typ AS type, pos,
       coalesce(own_seq, pos) AS seq,
       own_seq IS NULL AS seq_replaced,
       list_distinct(list_filter(part_seqs, lambda v: v IS NOT NULL)) AS parents,
       list_filter(parent_parts, lambda p, i: part_seqs[i] IS NULL) AS parent_bad,
       ts ->> '$' AS ts, phase ->> '$' AS phase, agent ->> '$' AS agent,
       obj AS data,
       arch_raw,
       coalesce(arch_raw, 'unknown') AS archetype,
       md5(concat_ws(chr(31), coalesce(ts::VARCHAR, 'null'), typ,
                     coalesce(phase::VARCHAR, 'null'), coalesce(agent::VARCHAR, 'null'),
                     list_sort(parents)::VARCHAR, coalesce(data::VARCHAR, 'null')))
           AS content_md5
FROM valued;

-- Keys given by several lines whose hashes differ: extract re-reads those lines and
-- compares them as parsed JSON (member order, 1 vs 1.0), as for effectiveness/v1, and
-- gives equal ones one hash (the least of theirs) before 010 judges duplicates.
CREATE OR REPLACE TEMP VIEW _dup_conflicts AS
SELECT list(_file ORDER BY _ord) AS files, list(_line ORDER BY _ord) AS lines,
       list(_ord ORDER BY _ord) AS ords, list(parents ORDER BY _ord) AS parents,
       list(content_md5 ORDER BY _ord) AS md5s
FROM accepted
GROUP BY run_id, seq
HAVING count(*) > 1 AND count(DISTINCT content_md5) > 1;

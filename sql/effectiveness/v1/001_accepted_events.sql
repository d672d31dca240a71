-- effectiveness/v1 · 001 accepted events                       spec: effectiveness.md §1
-- Reads:    raw_events (000's projection plus _file, _line, _ord), one row per
--           JSON-object line.
-- Produces: row_issues (file, line, reason) — lines without a non-empty string run_id/type;
--           accepted (one row per accepted line): the projected fields plus pos (1-based
--           position among the run's accepted lines in input order, computed only for runs
--           that need it), seq (the line's own integer seq ≥ 1, else pos), seq_replaced,
--           parents BIGINT[] (distinct integer parents), parent_bad VARCHAR[] (unusable
--           parent parts), content_md5 (identity of the whole event, parents normalised).
--           Drops raw_events afterwards (its rows live on in these two tables).
CREATE OR REPLACE TEMP TABLE row_issues AS
SELECT _file AS file, _line AS line, problem AS reason
FROM raw_events
WHERE problem IS NOT NULL;

CREATE OR REPLACE TEMP TABLE accepted AS
WITH ok AS (
    SELECT * EXCLUDE (problem, parent_parts),
           list_distinct(list_transform(
               list_filter(parent_parts, lambda p: json_type(p) IN ('BIGINT', 'UBIGINT')
                   OR (json_type(p) = 'VARCHAR' AND regexp_full_match(trim(p ->> '$'), '[0-9]{1,18}'))),
               lambda p: CAST(trim(p ->> '$') AS BIGINT))) AS parents,
           list_transform(
               list_filter(parent_parts, lambda p: NOT (json_type(p) IN ('BIGINT', 'UBIGINT')
                   OR (json_type(p) = 'VARCHAR' AND regexp_full_match(trim(p ->> '$'), '[0-9]{1,18}')))),
               lambda p: p::VARCHAR) AS parent_bad
    FROM raw_events
    WHERE problem IS NULL
), needs_pos AS (
    -- Positions matter only in runs with a missing/invalid seq; ranking every run's
    -- lines would sort the whole corpus for nothing.
    SELECT DISTINCT run_id FROM ok WHERE own_seq IS NULL
), positioned AS (
    SELECT ok._ord, row_number() OVER (PARTITION BY ok.run_id ORDER BY ok._ord) AS pos
    FROM ok SEMI JOIN needs_pos n ON n.run_id = ok.run_id
)
SELECT ok.* EXCLUDE (own_seq, body_md5), p.pos,
       coalesce(ok.own_seq, p.pos) AS seq,
       ok.own_seq IS NULL AS seq_replaced,
       md5(ok.body_md5 || list_sort(ok.parents)::VARCHAR) AS content_md5
FROM ok LEFT JOIN positioned p ON p._ord = ok._ord;

-- The projected lines are all in `accepted` or `row_issues` now; free them.
DROP TABLE raw_events;

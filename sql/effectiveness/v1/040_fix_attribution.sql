-- effectiveness/v1 · 040 fix attribution (DAG parent chains)    spec: effectiveness.md §3
-- Reads:    events (010), edges (020), verdicts (030).
-- Produces: fixes — one row per fix.applied event: run_id, seq, source (lower/trim of a
--           non-empty string data.source, else null), finding (lower/trim), loc_key
--           (location, else file[:line]; no description fallback), _file, _line;
--           fix_attribution — one row per (run_id, fix_seq, archetype): via 'source' or
--           'dag' (nearest review.verdict ancestors), verdict_seq (null for 'source');
--           fix_warnings (run_id, file, line, reason) for unattributed fixes.
-- The walk is a recursive CTE with UNION (set semantics): each (fix, ancestor) pair is
-- visited once however many paths lead to it (diamonds), it never expands past a
-- verdict, and edges only point to smaller seqs, so it ends on any input.
CREATE OR REPLACE TEMP TABLE fixes AS
SELECT f.run_id, f.seq,
       CASE WHEN json_type(f.data -> '$.source') = 'VARCHAR'
                 AND trim(f.data ->> '$.source') <> ''
            THEN lower(trim(f.data ->> '$.source')) END AS source,
       nullif(lower(trim(f.data ->> '$.finding')), '') AS finding,
       coalesce(
           nullif(lower(trim(f.data ->> '$.location')), ''),
           nullif(lower(trim(f.data ->> '$.file')), '')
               || CASE WHEN (f.data -> '$.line') IS NOT NULL AND json_type(f.data -> '$.line') <> 'NULL'
                       THEN ':' || (f.data ->> '$.line') ELSE '' END
       ) AS loc_key,
       f._file, f._line
FROM events f
WHERE f.type = 'fix.applied';

CREATE OR REPLACE TEMP TABLE _walk AS
WITH RECURSIVE walk(run_id, fix_seq, node) AS (
    SELECT run_id, seq, seq FROM fixes WHERE source IS NULL
    UNION
    SELECT w.run_id, w.fix_seq, e.parent
    FROM walk w
    JOIN edges e ON e.run_id = w.run_id AND e.child = w.node AND NOT e.child_is_verdict
)
SELECT * FROM walk;

CREATE OR REPLACE TEMP TABLE fix_attribution AS
SELECT run_id, seq AS fix_seq, source AS archetype, 'source' AS via, NULL::BIGINT AS verdict_seq
FROM fixes WHERE source IS NOT NULL
UNION ALL
SELECT w.run_id, w.fix_seq, v.archetype, 'dag', min(v.seq)
FROM _walk w
JOIN verdicts v ON v.run_id = w.run_id AND v.seq = w.node
GROUP BY w.run_id, w.fix_seq, v.archetype;

CREATE OR REPLACE TEMP TABLE fix_warnings AS
SELECT f.run_id, f._file AS file, f._line AS line,
       'unattributed_fixes: fix.applied has no source and no review.verdict ancestor' AS reason
FROM fixes f
ANTI JOIN fix_attribution a ON a.run_id = f.run_id AND a.fix_seq = f.seq;
DROP TABLE _walk;

-- effectiveness/v1 · 040 fix attribution (DAG parent chains)    spec: effectiveness.md §3
-- Reads:    events (010), edges (020), verdicts (030).
-- Produces: fixes — one row per fix.applied event: run_id, seq, source (lower/trim of a
--           non-empty string data.source, else null), finding (lower/trim), loc_key
--           (location, else file[:line]; no description fallback), _file, _line;
--           fix_attribution — one row per (run_id, fix_seq, archetype): via 'source' or
--           'dag' (nearest review.verdict ancestors), verdict_seq (always null: kept
--           for the column layout);
--           fix_warnings (run_id, file, line, reason) for unattributed fixes (no source
--           and no verdict ancestor, or a source of blanks).
-- The walk is a recursive CTE with UNION (set semantics) that runs *down* the edges once
-- for the whole run instead of up from every fix: reach(node) = the archetypes of the
-- nearest review.verdict ancestors of a non-verdict node = for each parent p, p's
-- archetype when p is a verdict, else reach(p). Each (event, archetype) pair is visited
-- once however many paths lead to it (diamonds), nothing expands past a verdict, and
-- edges only point to smaller seqs, so it ends on any input. A per-fix upward walk
-- visits O(fixes x chain length) pairs: quadratic, and out of memory on a 50k-event run.
CREATE OR REPLACE TABLE fixes AS
SELECT f.run_id, f.seq,
       f.fix_source AS source, f.fix_finding AS finding, f.fix_loc_key AS loc_key,
       f._file, f._line
FROM events f
WHERE f.type = 'fix.applied';

CREATE OR REPLACE TABLE _reach AS
WITH RECURSIVE reach(run_id, node, archetype) AS (
    SELECT e.run_id, e.child, v.archetype
    FROM edges e
    JOIN verdicts v ON v.run_id = e.run_id AND v.seq = e.parent
    WHERE NOT e.child_is_verdict
    UNION
    SELECT r.run_id, e.child, r.archetype
    FROM reach r
    JOIN edges e ON e.run_id = r.run_id AND e.parent = r.node AND NOT e.child_is_verdict
)
SELECT * FROM reach;

CREATE OR REPLACE TABLE fix_attribution AS
SELECT run_id, seq AS fix_seq, source AS archetype, 'source' AS via, NULL::BIGINT AS verdict_seq
FROM fixes WHERE source IS NOT NULL
UNION ALL
SELECT DISTINCT f.run_id, f.seq, r.archetype, 'dag', NULL::BIGINT
FROM fixes f
JOIN _reach r ON r.run_id = f.run_id AND r.node = f.seq
WHERE f.source IS NULL;

CREATE OR REPLACE TABLE fix_warnings AS
SELECT f.run_id, f._file AS file, f._line AS line,
       'unattributed_fixes: fix.applied has no source and no review.verdict ancestor' AS reason
FROM fixes f
ANTI JOIN fix_attribution a ON a.run_id = f.run_id AND a.fix_seq = f.seq
UNION ALL
-- a source of blanks is authoritative and names nobody ('' after trim): attributed to
-- nobody like the fixes above, so said like them, not dropped without a word
SELECT run_id, _file, _line,
       'unattributed_fixes: fix.applied has a blank source (it names no archetype)'
FROM fixes WHERE source = '';
DROP TABLE _reach;

-- archeflow-legacy · 030 verdicts and findings                  spec: effectiveness.md §8
-- Reads:    events (010).
-- Produces: legacy_verdicts — one row per review.verdict event: run_id, seq, _ord,
--           arch_raw, archetype, approved (data.verdict is exactly "approved"),
--           findings_length (jq `(.data.findings // []) | length`), findings_total (the
--           elements jq `.data.findings // [] | .[]` yields: an array's elements, an object's
--           values), findings_useful (those with severity exactly "warning", "bug" or
--           "critical" and fix_required JSON true).
-- No case folding or trimming anywhere, as in ArcheFlow's jq.
CREATE OR REPLACE TEMP TABLE legacy_verdicts AS
WITH v AS (
    SELECT e.run_id, e.seq, e._ord, e.arch_raw, e.archetype,
           json_type(e.data -> '$.verdict') = 'VARCHAR'
               AND (e.data ->> '$.verdict') = 'approved' AS approved,
           e.data -> '$.findings' AS f
    FROM events e
    WHERE e.type = 'review.verdict'
)
SELECT run_id, seq, _ord, arch_raw, archetype,
       coalesce(approved, false) AS approved,
       CASE coalesce(json_type(f), 'NULL')
         WHEN 'NULL' THEN 0
         WHEN 'ARRAY' THEN json_array_length(f)
         WHEN 'OBJECT' THEN len(json_keys(f))
         WHEN 'VARCHAR' THEN length(f ->> '$')
         WHEN 'BOOLEAN' THEN CASE WHEN (f ->> '$') = 'false' THEN 0 ELSE 1 END
         ELSE abs(TRY_CAST(f ->> '$' AS DOUBLE))
       END AS findings_length,
       len(elems) AS findings_total,
       len(list_filter(elems, lambda x:
           json_type(x -> '$.severity') = 'VARCHAR'
           AND (x ->> '$.severity') IN ('warning', 'bug', 'critical')
           AND json_type(x -> '$.fix_required') = 'BOOLEAN'
           AND (x ->> '$.fix_required') = 'true')) AS findings_useful
FROM (
    -- jq `.[]` iterates an array's elements and an object's values alike
    SELECT v.*,
           CASE json_type(f) WHEN 'ARRAY' THEN json_extract(f, '$[*]')
                             WHEN 'OBJECT' THEN json_extract(f, '$.*')
                             ELSE []::JSON[] END AS elems
    FROM v
);

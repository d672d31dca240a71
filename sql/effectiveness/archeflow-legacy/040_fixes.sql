-- archeflow-legacy · 040 fixes by source                        spec: effectiveness.md §8
-- Reads:    events (010).
-- Produces: legacy_fixes (run_id, source, fixes) — fix.applied events per exact
--           data.source string. Attribution is by data.source only (no DAG walk, no
--           case folding): a fix without a string source counts for nobody.
CREATE OR REPLACE TEMP TABLE legacy_fixes AS
SELECT run_id, data ->> '$.source' AS source, count(*) AS fixes
FROM events
WHERE type = 'fix.applied' AND json_type(data -> '$.source') = 'VARCHAR'
GROUP BY ALL;

-- archeflow-legacy · 145 cost averages that count an unknown cost as 0  spec: effectiveness.md §5, §8
-- Reads:    archetype_recent (125).
-- Produces: unknown_costs — one row per archetype whose window holds a run of unknown cost
--           read as 0, in archetype order: archetype, unknown_cost_runs (those runs),
--           runs_in_window. Such a run's line has cost_usd 0 and cost_basis 'unknown' (this
--           version's extract: §8's "missing → 0") or no cost_basis (ArcheFlow's scorer
--           writes none, and 0 for a missing cost). §5 averages every non-null cost_usd, so
--           130's avg_cost_usd counts them as $0 (a summary's "$0.00/run avg"); the engine
--           says so beside the report and summary, whose output stays as the spec writes it.
-- A known cost of 0 (cost_basis 'observed' or 'estimated') is not one: it is what it says.
CREATE OR REPLACE TEMP TABLE unknown_costs AS
SELECT archetype,
       count(*) FILTER (WHERE cost_usd = 0 AND coalesce(cost_basis, 'unknown') = 'unknown')
           AS unknown_cost_runs,
       count(*) AS runs_in_window
FROM archetype_recent
WHERE in_window
GROUP BY archetype
HAVING unknown_cost_runs > 0
ORDER BY archetype;

-- effectiveness/v1 · 050 cost, tokens, model                    spec: effectiveness.md §3 (Cost)
-- Reads:    events (010; cost/token/model fields extracted by 000).
-- Produces: archetype_costs — one row per (run_id, archetype) having agent.complete or
--           agent.start events: cost_usd (sum of present per-event costs; null when none),
--           cost_basis ('observed' | 'estimated' | 'unknown'), tokens (null without any
--           agent.complete), model (highest-seq non-empty data.model of agent.complete or
--           agent.start); cost_warnings (run_id, file, line, reason) for ignored costs.
-- Per-event cost = data.cost_usd if present, else data.estimated_cost_usd. A value that
-- is not a finite number ≥ 0 is not a cost: it is ignored and warned about (unknown, not 0).
-- The per-event costs are added in seq order (deterministic to the last bit). A sum too
-- large for a double (it would be written as Infinity, which is not JSON, and every
-- reader would skip the record) is unknown, and warned about on the archetype's last
-- agent.complete that has a cost.
-- Token counts likewise: a negative or unrepresentable one makes `tokens` unknown.
CREATE OR REPLACE TABLE _agent_events AS
SELECT e.run_id, e.seq, e.type, e.archetype, e._file, e._line,
       e.c_obs, e.c_est, e.tok, e.tok_in, e.tok_out, e.model
FROM events e
WHERE e.type IN ('agent.complete', 'agent.start');

CREATE OR REPLACE TABLE cost_warnings AS
SELECT run_id, _file AS file, _line AS line,
       'cost ignored: not a finite non-negative number' AS reason
FROM _agent_events
WHERE type = 'agent.complete'
  AND ((c_obs IS NOT NULL AND (c_obs < 0 OR NOT isfinite(c_obs)))
    OR (c_obs IS NULL AND c_est IS NOT NULL AND (c_est < 0 OR NOT isfinite(c_est))))
UNION ALL
SELECT run_id, _file, _line, 'tokens unknown: a token count is negative or too large'
FROM _agent_events
WHERE type = 'agent.complete'
  AND (CASE WHEN tok IS NOT NULL THEN NOT (tok >= 0 AND tok < 9.2e18)
            ELSE coalesce(NOT (tok_in >= 0 AND tok_in < 9.2e18), false)
                 OR coalesce(NOT (tok_out >= 0 AND tok_out < 9.2e18), false) END);

CREATE OR REPLACE TABLE archetype_costs AS
WITH per_event AS (
    SELECT *,
           CASE WHEN c_obs IS NOT NULL THEN c_obs ELSE c_est END AS c_raw,
           c_obs IS NOT NULL AS from_obs
    FROM _agent_events
), valid AS (
    SELECT *, CASE WHEN c_raw >= 0 AND isfinite(c_raw) THEN c_raw END AS c,
           CASE WHEN tok IS NOT NULL THEN NOT (tok >= 0 AND isfinite(tok))
                ELSE coalesce(NOT (tok_in >= 0 AND isfinite(tok_in)), false)
                     OR coalesce(NOT (tok_out >= 0 AND isfinite(tok_out)), false)
           END AS tok_bad
    FROM per_event
)
SELECT run_id, archetype,
       -- in seq order: a float sum in whatever order the threads deliver differs in the
       -- last bit from run to run, and history lines must not depend on the machine
       CASE WHEN isfinite(sum(c ORDER BY seq) FILTER (WHERE type = 'agent.complete'))
            THEN sum(c ORDER BY seq) FILTER (WHERE type = 'agent.complete') END AS cost_usd,
       CASE WHEN count(c) FILTER (WHERE type = 'agent.complete') = 0
              OR NOT isfinite(sum(c ORDER BY seq) FILTER (WHERE type = 'agent.complete'))
              THEN 'unknown'
            WHEN bool_or(NOT from_obs AND c IS NOT NULL) FILTER (WHERE type = 'agent.complete')
              THEN 'estimated'
            ELSE 'observed' END AS cost_basis,
       -- a token count that is negative or not finite makes the total unknown, not 0
       CASE WHEN count(*) FILTER (WHERE type = 'agent.complete') > 0
                 AND NOT coalesce(bool_or(tok_bad) FILTER (WHERE type = 'agent.complete'), false)
            THEN sum(CASE WHEN tok IS NOT NULL THEN tok
                          ELSE coalesce(tok_in, 0) + coalesce(tok_out, 0) END)
                     FILTER (WHERE type = 'agent.complete') END AS tokens,
       arg_max(model, seq) FILTER (WHERE model IS NOT NULL) AS model
FROM valid
GROUP BY run_id, archetype;

INSERT INTO cost_warnings
SELECT run_id, arg_max(_file, seq) AS file, arg_max(_line, seq) AS line,
       'cost unknown: the sum of the costs is too large for a number'
FROM _agent_events
WHERE type = 'agent.complete'
  AND CASE WHEN c_obs IS NOT NULL THEN c_obs ELSE c_est END >= 0
  AND isfinite(CASE WHEN c_obs IS NOT NULL THEN c_obs ELSE c_est END)
GROUP BY run_id, archetype
HAVING NOT isfinite(sum(CASE WHEN c_obs IS NOT NULL THEN c_obs ELSE c_est END ORDER BY seq));
DROP TABLE _agent_events;

-- effectiveness/v1 · 050 cost, tokens, model                    spec: effectiveness.md §3 (Cost)
-- Reads:    events (010; cost/token/model fields extracted by 000).
-- Produces: archetype_costs — one row per (run_id, archetype) having agent.complete or
--           agent.start events: cost_usd (sum of present per-event costs; null when none),
--           cost_basis ('observed' | 'estimated' | 'unknown'), tokens (null without any
--           agent.complete), model (highest-seq non-empty data.model of agent.complete or
--           agent.start other than 'unknown'); cost_warnings (run_id, file, line, reason)
--           for ignored costs, costs too large to add up, unknown token counts and ignored
--           models.
-- Per-event cost = data.cost_usd if present, else data.estimated_cost_usd. A value that
-- is not a finite number ≥ 0 (a string, say: NaN from 000) is not a cost: it is ignored
-- and warned about (unknown, not 0).
-- The per-event costs are added in seq order (deterministic to the last bit).
-- Token counts likewise: a negative, fractional (10.5 is no count of tokens; it was
-- rounded when stored), unrepresentable or non-number one (000 makes a present non-number
-- NaN) makes `tokens` unknown. 1500.0 is a count: 1500 by its value. A model that is not a string names no
-- model (000 leaves it null): skipped for the highest-seq one that does, and warned about.
-- Nor does 'unknown' (any case; 000 trimmed it): ArcheFlow writes it for a model it does
-- not know, and the reports read it as none (130). Taken as a name, an agent.complete's
-- "unknown" hid the model its agent.start named, and the history said unknown of a run
-- whose model was known; with no other it is null, as a missing model is.
CREATE OR REPLACE TABLE _agent_events AS
SELECT e.run_id, e.seq, e.type, e.archetype, e._file, e._line,
       e.c_obs, e.c_est, e.tok, e.tok_in, e.tok_out, e.model, e.model_bad
FROM events e
WHERE e.type IN ('agent.complete', 'agent.start');

CREATE OR REPLACE TABLE _costs_grouped AS
WITH per_event AS (
    SELECT *,
           CASE WHEN c_obs IS NOT NULL THEN c_obs ELSE c_est END AS c_raw,
           c_obs IS NOT NULL AS from_obs
    FROM _agent_events
), valid AS (
    SELECT *, CASE WHEN c_raw >= 0 AND isfinite(c_raw) THEN c_raw END AS c,
           -- the bound of the count warning below: a count past BIGINT (1e20) that passed
           -- here was summed, and warned of again as counts that "add up to more"
           CASE WHEN tok IS NOT NULL THEN NOT (tok >= 0 AND tok < 9.2e18 AND tok = trunc(tok))
                ELSE coalesce(NOT (tok_in >= 0 AND tok_in < 9.2e18 AND tok_in = trunc(tok_in)), false)
                     OR coalesce(NOT (tok_out >= 0 AND tok_out < 9.2e18
                                      AND tok_out = trunc(tok_out)), false)
           END AS tok_bad
    FROM per_event
)
SELECT run_id, archetype,
       -- in seq order: a float sum in whatever order the threads deliver differs in the
       -- last bit from run to run, and history lines must not depend on the machine
       sum(c ORDER BY seq) FILTER (WHERE type = 'agent.complete') AS cost_sum,
       CASE WHEN count(c) FILTER (WHERE type = 'agent.complete') = 0 THEN 'unknown'
            WHEN bool_or(NOT from_obs AND c IS NOT NULL) FILTER (WHERE type = 'agent.complete')
              THEN 'estimated'
            ELSE 'observed' END AS cost_basis,
       -- a token count that is negative or not finite makes the total unknown, not 0
       CASE WHEN count(*) FILTER (WHERE type = 'agent.complete') > 0
                 AND NOT coalesce(bool_or(tok_bad) FILTER (WHERE type = 'agent.complete'), false)
            THEN sum(CASE WHEN tok IS NOT NULL THEN tok
                          ELSE coalesce(tok_in, 0) + coalesce(tok_out, 0) END)
                     FILTER (WHERE type = 'agent.complete') END AS tokens,
       arg_max(model, seq) FILTER (WHERE lower(model) <> 'unknown') AS model
FROM valid
GROUP BY run_id, archetype;

CREATE OR REPLACE TABLE cost_warnings AS
SELECT run_id, _file AS file, _line AS line,
       'cost ignored: not a finite non-negative number' AS reason
FROM _agent_events
WHERE type = 'agent.complete'
  AND ((c_obs IS NOT NULL AND (c_obs < 0 OR NOT isfinite(c_obs)))
    OR (c_obs IS NULL AND c_est IS NOT NULL AND (c_est < 0 OR NOT isfinite(c_est))))
UNION ALL
SELECT run_id, _file, _line, 'tokens unknown: a token count is not a whole non-negative number that fits'
FROM _agent_events
WHERE type = 'agent.complete'
  AND (CASE WHEN tok IS NOT NULL THEN NOT (tok >= 0 AND tok < 9.2e18 AND tok = trunc(tok))
            ELSE coalesce(NOT (tok_in >= 0 AND tok_in < 9.2e18 AND tok_in = trunc(tok_in)), false)
                 OR coalesce(NOT (tok_out >= 0 AND tok_out < 9.2e18
                                  AND tok_out = trunc(tok_out)), false) END)
UNION ALL
SELECT run_id, _file, _line, 'model ignored: not a string'
FROM _agent_events
WHERE model_bad
UNION ALL
-- Sums too large (rare): said on the archetype's last agent.complete with a cost (for the
-- cost) or the last one at all (for the tokens). Found by joining back only those groups,
-- not by carrying four more aggregates through every group of every run.
SELECT a.run_id, arg_max(a._file, a.seq), arg_max(a._line, a.seq),
       'cost unknown: the costs add up to more than can be stored'
FROM _agent_events a
JOIN (SELECT run_id, archetype FROM _costs_grouped WHERE NOT isfinite(cost_sum)) g
  ON g.run_id = a.run_id AND g.archetype IS NOT DISTINCT FROM a.archetype
WHERE a.type = 'agent.complete'
  AND CASE WHEN a.c_obs IS NOT NULL THEN a.c_obs ELSE a.c_est END >= 0
  AND isfinite(CASE WHEN a.c_obs IS NOT NULL THEN a.c_obs ELSE a.c_est END)
GROUP BY a.run_id, a.archetype
UNION ALL
SELECT a.run_id, arg_max(a._file, a.seq), arg_max(a._line, a.seq),
       'tokens unknown: the token counts add up to more than can be stored'
FROM _agent_events a
JOIN (SELECT run_id, archetype FROM _costs_grouped WHERE NOT round(tokens) < 9.2e18) g
  ON g.run_id = a.run_id AND g.archetype IS NOT DISTINCT FROM a.archetype
WHERE a.type = 'agent.complete'
GROUP BY a.run_id, a.archetype;

-- Costs that are each finite but add up to more than a double holds (∞, which no JSON
-- line can carry) make the archetype's cost unknown, as a token count too large does;
-- so do token counts adding up past the history's integer (BIGINT).
CREATE OR REPLACE TABLE archetype_costs AS
SELECT run_id, archetype,
       CASE WHEN isfinite(cost_sum) THEN cost_sum END AS cost_usd,
       CASE WHEN isfinite(cost_sum) THEN cost_basis ELSE 'unknown' END AS cost_basis,
       CASE WHEN round(tokens) < 9.2e18 THEN tokens END AS tokens, model
FROM _costs_grouped;
DROP TABLE _costs_grouped;
DROP TABLE _agent_events;

-- archeflow-legacy · 050 cost, tokens, model                    spec: effectiveness.md §8
-- Reads:    events (010).
-- Produces: legacy_costs (run_id, arch_raw, cost_usd, cost_basis, tokens, model) — from the
--           LAST agent.complete (input order) of each archetype, as ArcheFlow's scorer:
--           cost = estimated_cost_usd // cost_usd // 0 (estimated first; a value jq takes
--           that is not a number, "0.5", stopped the script: the cost is unknown, the
--           default 0), tokens = tokens // (tokens_input // 0) + (tokens_output // 0)
--           (null: a tokens jq takes that is no integer that fits, or parts whose sum is
--           not: a part jq takes that is no number, "400", stopped the script too),
--           model = model // "unknown". cost_basis records which field the cost came from
--           ('unknown' when it is the default 0). An archetype without agent.complete has
--           no row (scored 0/0/unknown).
CREATE OR REPLACE TEMP TABLE legacy_costs AS
WITH last_complete AS (
    -- an event without an object data is still the last one (jq `last`): arg_max would
    -- skip its NULL data and take an earlier event's
    SELECT run_id, arch_raw, arg_max(coalesce(data, '{}'::JSON), _ord) AS d
    FROM events
    WHERE type = 'agent.complete' AND arch_raw IS NOT NULL
    GROUP BY run_id, arch_raw
), parts AS (
    SELECT run_id, arch_raw,
           CASE WHEN json_type(d -> '$.estimated_cost_usd') IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                THEN TRY_CAST(d ->> '$.estimated_cost_usd' AS DOUBLE) END AS est,
           _jq_present(d -> '$.estimated_cost_usd') AS est_given,
           CASE WHEN json_type(d -> '$.cost_usd') IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                THEN TRY_CAST(d ->> '$.cost_usd' AS DOUBLE) END AS obs,
           _jq_present(d -> '$.cost_usd') AS obs_given,
           CASE WHEN json_type(d -> '$.tokens') IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                THEN TRY_CAST(round(TRY_CAST(d ->> '$.tokens' AS DOUBLE)) AS BIGINT) END AS tok,
           _jq_present(d -> '$.tokens') AS tok_given,
           -- a part jq takes that is no number is no count (null), not the 0 of a missing one
           CASE WHEN json_type(d -> '$.tokens_input') IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                THEN TRY_CAST(round(TRY_CAST(d ->> '$.tokens_input' AS DOUBLE)) AS BIGINT)
                WHEN NOT _jq_present(d -> '$.tokens_input') THEN 0 END AS tok_in,
           CASE WHEN json_type(d -> '$.tokens_output') IN ('BIGINT', 'UBIGINT', 'DOUBLE')
                THEN TRY_CAST(round(TRY_CAST(d ->> '$.tokens_output' AS DOUBLE)) AS BIGINT)
                WHEN NOT _jq_present(d -> '$.tokens_output') THEN 0 END AS tok_out,
           CASE WHEN _jq_present(d -> '$.model') THEN _jq_text(d -> '$.model') END AS model
    FROM last_complete
)
SELECT run_id, arch_raw,
       -- the first value jq's `//` takes decides: one that is no number does not fall
       -- back to the next field (a cost neither the log nor the scorer gives)
       CASE WHEN est_given THEN coalesce(est, 0.0)
            WHEN obs_given THEN coalesce(obs, 0.0)
            ELSE 0.0 END AS cost_usd,
       CASE WHEN est_given THEN CASE WHEN est IS NOT NULL THEN 'estimated' ELSE 'unknown' END
            WHEN obs_given THEN CASE WHEN obs IS NOT NULL THEN 'observed' ELSE 'unknown' END
            ELSE 'unknown' END AS cost_basis,
       -- jq's `//` falls back to input + output only when tokens is absent, null or
       -- false: a tokens it takes that no integer holds (1e20, "900", which the script
       -- writes as given) is unknown, not the sum of the other two. A sum past BIGINT is
       -- unknown too (summed as HUGEINT: the overflow error stopped the whole extract).
       CASE WHEN tok_given THEN tok
            ELSE TRY_CAST(tok_in::HUGEINT + tok_out AS BIGINT) END AS tokens,
       coalesce(model, 'unknown') AS model
FROM parts;

-- routes/v1 · rows a learned router can train on (runscore itself is not a learned router).
-- Reads: routes_ep, routes_matrix.
-- Produces: routes_router_rows (grain: labelled episode with a known model), its columns
--   in three groups, so that a router is trained only on what it has when it picks:
--   * known before the pick: activity, task_fingerprint, features (struct: complexity,
--     harness_fingerprint, reasoning_effort, source_kind, quota_pressure — usage.quotaPressure
--     as given: the spec gives it no scale, and a router choosing under a tight quota needs
--     it);
--   * the pick: host, inference_provider, provider_provenance, model (spec §3: a route is
--     host x provider x model);
--   * what the run did, known only after it: outcome (struct: tokens in/out/cache read/cache
--     write, duration_ms, retries, repairs, escalated, escalated_to_model — toModel as the
--     episode gives it, never inferred from escalated: §1 keeps fields apart), quality_label (BIGINT 1 = labelled
--     success, 0 = labelled failure: a class label a learner reads as a number, not a flag,
--     so not BOOLEAN), cost (on its own basis; NULL when unknown), cost_basis.
--   The token counts are outcomes, not prompt size: usage covers the attempt with its retries
--   (spec §6), so they grow with what the run did. Outcomes were features once, and a router
--   trained on them learned from what it cannot know when it picks (target leakage).
--   evidence_grade is the grade of that activity x route cell of the matrix (a weight, made
--   from the cell's outcomes, this row's among them: not a feature either).
--   Every value is NULL when the episode does not report it. No prompt or transcript text
--   exists in any table this reads.
-- Spec: routes.md §2 (labels), §3 (routes), §4 (grades); issue "export-router-rows".
CREATE OR REPLACE TEMP TABLE routes_router_rows AS
SELECT e.episode_id, e.activity, e.fingerprint AS task_fingerprint,
    {'complexity': e.complexity, 'harness_fingerprint': e.harness,
     'reasoning_effort': e.reasoning_effort, 'source_kind': e.kind,
     'quota_pressure': e.quota_pressure} AS features,
    e.host, e.provider AS inference_provider, e.provider_provenance, e.model,
    {'tokens_input': e.tok_input, 'tokens_output': e.tok_output,
     'tokens_cache_read': e.tok_cache_read, 'tokens_cache_write': e.tok_cache_write,
     'duration_ms': e.duration_ms, 'retries': e.retries, 'repairs': e.repairs,
     'escalated': e.escalated, 'escalated_to_model': e.to_model} AS outcome,
    CASE e.label WHEN 'success' THEN 1 ELSE 0 END::BIGINT AS quality_label,
    CAST(e.cost AS DOUBLE) AS cost, e.cost_basis,
    m.grade AS evidence_grade
FROM routes_ep e
JOIN routes_matrix m ON m.activity = e.activity
    AND m.host IS NOT DISTINCT FROM e.host AND m.provider IS NOT DISTINCT FROM e.provider
    AND m.model = e.model
WHERE e.label IS NOT NULL AND e.model IS NOT NULL
ORDER BY e.activity, e.episode_id;

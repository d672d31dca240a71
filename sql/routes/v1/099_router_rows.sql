-- routes/v1 · rows a learned router can train on (runscore itself is not a learned router).
-- Reads: routes_ep, routes_matrix.
-- Produces: routes_router_rows (grain: labelled episode with a known model): episode_id,
--   activity, task_fingerprint, features (struct: complexity, host, inference_provider,
--   provider_provenance, reasoning_effort, harness_fingerprint, source_kind, tokens in/out/
--   cache read/cache write, quota_pressure (usage.quotaPressure as given: the spec gives it
--   no scale, and a router choosing under a tight quota needs it), duration_ms, retries,
--   repairs, escalated — NULL when the episode does not report it, as every feature), model,
--   quality_label
--   (BIGINT 1 = labelled success, 0 = labelled failure: a class label a learner reads as a
--   number, not a flag, so not BOOLEAN), cost (on its own basis; NULL when unknown),
--   cost_basis, evidence_grade (the grade of that activity x route cell of the matrix).
--   No prompt or transcript text exists in any table this reads.
-- Spec: routes.md §2 (labels), §4 (grades); issue "export-router-rows".
CREATE OR REPLACE TEMP TABLE routes_router_rows AS
SELECT e.episode_id, e.activity, e.fingerprint AS task_fingerprint,
    {'complexity': e.complexity, 'host': e.host, 'inference_provider': e.provider,
     'provider_provenance': e.provider_provenance, 'reasoning_effort': e.reasoning_effort,
     'harness_fingerprint': e.harness, 'source_kind': e.kind,
     'tokens_input': e.tok_input, 'tokens_output': e.tok_output,
     'tokens_cache_read': e.tok_cache_read, 'tokens_cache_write': e.tok_cache_write,
     'quota_pressure': e.quota_pressure,
     'duration_ms': e.duration_ms, 'retries': e.retries, 'repairs': e.repairs,
     'escalated': e.escalated} AS features,
    e.model,
    CASE e.label WHEN 'success' THEN 1 ELSE 0 END::BIGINT AS quality_label,
    CAST(e.cost AS DOUBLE) AS cost, e.cost_basis,
    m.grade AS evidence_grade
FROM routes_ep e
JOIN routes_matrix m ON m.activity = e.activity
    AND m.host IS NOT DISTINCT FROM e.host AND m.provider IS NOT DISTINCT FROM e.provider
    AND m.model = e.model
WHERE e.label IS NOT NULL AND e.model IS NOT NULL
ORDER BY e.activity, e.episode_id;

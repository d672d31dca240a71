-- pipeline/v1 · 100 the per-pipeline JSON report (spec pipeline.md §6;
-- validates against pipeline-evaluation.schema.json in this folder)
-- Reads: pl_pipeline, pl_recommendation, pl_dimension; $evaluated_at (ISO-8601
--   date-time string of the evaluation). Produces (SELECT): pipeline_id,
--   document (JSON text), one row per scored pipeline, in pl_pipeline_order (000).
-- `scores`: taskCompletionRate is the raw completion %, testPassRate the D3
-- score (the verified rate, or 50), the other keys the dimension scores.
WITH w AS (
    SELECT to_json(map_from_entries(list((json_key, weight) ORDER BY ord))) AS weights
    FROM pl_dimension
), r AS (
    SELECT pipeline_id, list(sentence ORDER BY rank) AS sentences
    FROM pl_recommendation GROUP BY pipeline_id
)
SELECT p.pipeline_id,
       json_object(
           'pipelineId', p.pipeline_id,
           'evaluatedAt', $evaluated_at::VARCHAR,
           'taskCount', p.task_count,
           -- An unknown deviation count (031) is left out, as the schema lets it be: its
           -- null is no integer >= 0, and 0 would say there were none.
           'scores', json_merge_patch(json_object(
               'taskCompletionRate', p.completion_rate,
               'deviationCount', p.deviation_count,
               'deviationScore', p.deviation_score,
               'testPassRate', p.test_score,
               'timeEfficiency', p.time_efficiency,
               'qualityScore', p.quality_score),
               CASE WHEN p.deviation_count IS NULL THEN '{"deviationCount": null}'
                    ELSE '{}' END),
           'compositeScore', p.composite_score,
           'verdict', p.verdict,
           'recommendations', coalesce(r.sentences, []::VARCHAR[]),
           'dimensionWeights', w.weights
       )::VARCHAR AS document
FROM pl_pipeline p
CROSS JOIN w
LEFT JOIN r ON r.pipeline_id = p.pipeline_id
WHERE p.status = 'scored'
ORDER BY pl_pipeline_order(p.pipeline_id);

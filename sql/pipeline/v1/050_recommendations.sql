-- pipeline/v1 · 050 ranked recommendations (spec pipeline.md §5)
-- Reads: pl_state, pl_dim_score, pl_d1..pl_d5, pl_constant, pl_recommendation_rule.
-- Produces: pl_recommendation, one row per (scored pipeline, triggered rule):
--   pipeline_id, rank (1 = first), code, label, score (the dimension's score),
--   sentence (the rule's text with its {placeholders} filled in).
-- Order: dimension score ascending (rounded to 6 decimals), ties in D1..D5 order.
-- The sentence variant follows the evidence: D3 'verified'/'unverified', D5
-- 'signals'/'no_signal' (no task reported any quality data), else 'default'.
CREATE OR REPLACE TEMP TABLE pl_recommendation AS
WITH facts AS (
    SELECT st.pipeline_id, st.task_count, st.completed, st.failed, st.cancelled,
           d1.completion_rate, d2.deviation_count,
           d3.verified, d3.passed, d3.total, d3.pass_rate,
           d4.actual_minutes, d4.estimate_minutes,
           d5.reporting_tasks
    FROM pl_state st
    JOIN pl_d1 d1 USING (pipeline_id)
    JOIN pl_d2 d2 USING (pipeline_id)
    JOIN pl_d3 d3 USING (pipeline_id)
    JOIN pl_d4 d4 USING (pipeline_id)
    JOIN pl_d5 d5 USING (pipeline_id)
    WHERE st.status = 'scored'
), cand AS (
    SELECT f.*, ds.ord, ds.code, ds.label, ds.score, r.sentence
    FROM facts f
    JOIN pl_dim_score ds ON ds.pipeline_id = f.pipeline_id
    JOIN pl_recommendation_rule r
      ON r.code = ds.code
     AND r.variant = CASE
             WHEN r.code = 'D3' THEN CASE WHEN f.verified THEN 'verified' ELSE 'unverified' END
             WHEN r.code = 'D5' THEN CASE WHEN f.reporting_tasks > 0 THEN 'signals'
                                          ELSE 'no_signal' END
             ELSE 'default'
         END
    WHERE CASE r.op
              WHEN '<' THEN (CASE r.metric WHEN 'score' THEN round(ds.score, 6)
                                           WHEN 'deviation_count' THEN f.deviation_count
                             END) < r.threshold
              WHEN '>' THEN (CASE r.metric WHEN 'score' THEN round(ds.score, 6)
                                           WHEN 'deviation_count' THEN f.deviation_count
                             END) > r.threshold
          END
)
SELECT pipeline_id,
       row_number() OVER (PARTITION BY pipeline_id ORDER BY round(score, 6), ord) AS rank,
       code, label, score,
       replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
       replace(replace(replace(sentence,
           '{completion_rate}', printf('%.2f', completion_rate)),
           '{completed}', completed::VARCHAR),
           '{tasks}', task_count::VARCHAR),
           '{failed}', failed::VARCHAR),
           '{cancelled}', cancelled::VARCHAR),
           '{deviations}', deviation_count::VARCHAR),
           '{passed}', coalesce(passed::VARCHAR, '—')),
           '{total}', coalesce(total::VARCHAR, '—')),
           '{pass_rate}', coalesce(printf('%.2f', pass_rate), '—')),
           '{actual_minutes}', coalesce(printf('%.2f', actual_minutes), '—')),
           '{estimate_minutes}', coalesce(printf('%.2f', estimate_minutes), '—')),
           '{quality_base}', (SELECT printf('%.0f', value) FROM pl_constant
                              WHERE name = 'quality_base')),
           '{score}', printf('%.2f', score)) AS sentence
FROM cand;

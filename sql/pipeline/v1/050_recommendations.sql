-- pipeline/v1 · 050 ranked recommendations (spec pipeline.md §5)
-- Reads: pl_state, pl_dim_score, pl_d1..pl_d5, pl_constant, pl_recommendation_rule,
--        pl_quality_finding, pl_completion_bucket.
-- Produces: pl_recommendation, one row per (scored pipeline, triggered rule):
--   pipeline_id, rank (1 = first), code, label, score (the dimension's score),
--   sentence (the rule's text with its {placeholders} filled in).
-- Order: dimension score ascending (rounded to 6 decimals), ties in D1..D5 order.
-- The sentence variant follows the evidence: D3 'verified'/'unverified'/'unknown', D5
-- 'issues' (what was found listed, 007's pl_quality_finding), 'no_issue' (quality
-- reported, no issue), 'no_signal' (no task reported any quality data), else 'default'.
-- Also the macro pl_num_text(x, d): x as the markdown report writes numbers
-- (runscore.cli.output.fmt_float): d decimals, but a nonzero x that would read as 0, and
-- an |x| >= 1e15, in three significant digits (0.0001, 1e+300); zero unsigned.
-- And pl_num_vs(x, bounds, d): x written beside the bounds it was judged against
-- (runscore.cli.output.fmt_vs): a value that would read as one of them at d decimals while
-- it differs at 6 (the precision every trigger compares at) keeps the fewest decimals, up
-- to 6, that tell them apart. A test pass rate of 79.996 under "D3 < 80" reads "79.996",
-- not "80.00"; one of 79.9999996 was judged 80 (no trigger) and reads "80.00".
CREATE OR REPLACE TEMP MACRO pl_num_text(x, d) AS
    CASE WHEN x IS NULL THEN NULL
         WHEN x = 0 THEN format('{:.{}f}', 0.0::DOUBLE, d)
         WHEN abs(x) >= 1e15 OR NOT regexp_matches(format('{:.{}f}', x, d), '[1-9]')
             THEN format('{:.3g}', x)
         ELSE format('{:.{}f}', x, d) END;

CREATE OR REPLACE TEMP MACRO pl_num_vs(x, bounds, d) AS
    pl_num_text(x, CASE WHEN x IS NULL OR abs(x) >= 1e15 THEN d ELSE coalesce(list_max(
        list_transform(bounds, lambda b:
            CASE WHEN format('{:.{}f}', x, d) = format('{:.{}f}', b, d)
                      AND pl_cmp(x) <> pl_cmp(b)
                 THEN coalesce(list_filter(range(d, 7), lambda k:
                          format('{:.{}f}', x, k) <> format('{:.{}f}', b, k))[1], d)
                 ELSE d END)), d) END);

CREATE OR REPLACE TEMP TABLE pl_recommendation AS
WITH found AS (
    SELECT c.pipeline_id,
           list(replace(CASE WHEN c.n = 1 THEN f.one ELSE f.many END, '{n}', c.n::VARCHAR)
                ORDER BY f.ord) AS phrases
    FROM (SELECT pipeline_id, 'lint_errors' AS signal, lint_errors AS n FROM pl_d5
          UNION ALL SELECT pipeline_id, 'todos_open', todos_open FROM pl_d5
          UNION ALL SELECT pipeline_id, 'format_changed', format_changed FROM pl_d5) c
    JOIN pl_quality_finding f USING (signal)
    WHERE c.n > 0
    GROUP BY c.pipeline_id
), facts AS (
    SELECT st.pipeline_id, st.task_count, st.completed, st.failed, st.cancelled,
           d1.completion_rate,
           -- unknown (031): the items counted, which the count is at least
           coalesce(d2.deviation_count, d2.deviations_known) AS deviation_count,
           d2.deviation_count IS NULL AS deviations_unknown,
           d3.verified, d3.counts_unknown, d3.passed, d3.total, d3.pass_rate,
           d4.actual_minutes, d4.estimate_minutes,
           d5.reporting_tasks, d5.lint_clean, d5.format_clean,
           CASE WHEN len(fd.phrases) = 1 THEN fd.phrases[1]
                ELSE array_to_string(fd.phrases[1:-2], ', ') || ' and ' || fd.phrases[-1]
           END AS quality_findings
    FROM pl_state st
    JOIN pl_d1 d1 USING (pipeline_id)
    JOIN pl_d2 d2 USING (pipeline_id)
    JOIN pl_d3 d3 USING (pipeline_id)
    JOIN pl_d4 d4 USING (pipeline_id)
    JOIN pl_d5 d5 USING (pipeline_id)
    LEFT JOIN found fd USING (pipeline_id)
    WHERE st.status = 'scored'
), cand AS (
    SELECT f.*, ds.ord, ds.code, ds.label, ds.score, r.metric, r.threshold, r.sentence
    FROM facts f
    JOIN pl_dim_score ds ON ds.pipeline_id = f.pipeline_id
    JOIN pl_recommendation_rule r
      ON r.code = ds.code
     AND r.variant = CASE
             WHEN r.code = 'D3' THEN CASE WHEN f.verified THEN 'verified'
                                          WHEN f.counts_unknown THEN 'unknown'
                                          ELSE 'unverified' END
             WHEN r.code = 'D5' THEN CASE WHEN f.quality_findings IS NOT NULL THEN 'issues'
                                          WHEN f.reporting_tasks > 0 THEN 'no_issue'
                                          ELSE 'no_signal' END
             ELSE 'default'
         END
    WHERE CASE r.op
              WHEN '<' THEN (CASE r.metric WHEN 'score' THEN pl_cmp(ds.score)
                                           WHEN 'deviation_count' THEN f.deviation_count
                             END) < r.threshold
              WHEN '>' THEN (CASE r.metric WHEN 'score' THEN pl_cmp(ds.score)
                                           WHEN 'deviation_count' THEN f.deviation_count
                             END) > r.threshold
          END
)
SELECT pipeline_id,
       row_number() OVER (PARTITION BY pipeline_id ORDER BY pl_cmp(score), ord) AS rank,
       code, label, score,
       replace(replace(replace(replace(replace(replace(replace(replace(replace(replace(
       replace(replace(replace(replace(replace(replace(sentence,
           -- D1 scores the completion rate by its buckets: written apart from their
           -- minimums (and the scale's ends), as the report's completion rate is.
           '{completion_rate}', pl_num_vs(completion_rate,
                                          (SELECT list(min_rate) || [0.0, 100.0]
                                           FROM pl_completion_bucket), 2)),
           '{completed}', completed::VARCHAR),
           '{tasks}', task_count::VARCHAR),
           '{failed}', failed::VARCHAR),
           '{cancelled}', cancelled::VARCHAR),
           '{deviations}', CASE WHEN deviations_unknown THEN 'At least ' ELSE '' END
                           || deviation_count::VARCHAR),
           '{passed}', coalesce(passed::VARCHAR, '—')),
           '{total}', coalesce(total::VARCHAR, '—')),
           -- D3's score is the pass rate (verified): judged by this rule's threshold.
           '{pass_rate}', coalesce(pl_num_vs(pass_rate, [threshold, 0.0, 100.0], 2), '—')),
           '{actual_minutes}', coalesce(pl_num_text(actual_minutes, 2), '—')),
           '{estimate_minutes}', coalesce(pl_num_text(estimate_minutes, 2), '—')),
           '{quality_base}', (SELECT printf('%.0f', value) FROM pl_constant
                              WHERE name = 'quality_base')),
           '{quality_findings}', coalesce(quality_findings, '—')),
           '{lint_clean}', lint_clean::VARCHAR),
           '{format_clean}', format_clean::VARCHAR),
           '{score}', CASE WHEN metric = 'score' THEN pl_num_vs(score, [threshold], 2)
                           ELSE pl_num_text(score, 2) END) AS sentence
FROM cand;

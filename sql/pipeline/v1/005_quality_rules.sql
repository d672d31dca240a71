-- pipeline/v1 · 005 D5 quality signals (spec pipeline.md §3 D5)
-- Reads: nothing. Produces: pl_quality_rule(signal, points): points added to the
-- base (pl_constant.quality_base) once per task that shows the signal.
--   lint_clean     metadata.quality.lintFix.ran = true and errors = 0    → +10
--   lint_errors    metadata.quality.lintFix.ran = true and errors > 0    → −5
--   format_clean   metadata.quality.format.ran = true and changed = false → +5
--   todos_open     metadata.quality.unresolvedTodos > 0                   → −10
CREATE OR REPLACE TEMP TABLE pl_quality_rule AS
SELECT * FROM (VALUES
    ('lint_clean',    10.0::DOUBLE),
    ('lint_errors',   -5.0::DOUBLE),
    ('format_clean',   5.0::DOUBLE),
    ('todos_open',   -10.0::DOUBLE)
) AS t(signal, points);

-- pipeline/v1 · 008 task statuses (spec pipeline.md §1, §2)
-- Reads: nothing. Produces: pl_status(status, terminal): the known statuses in
-- lower case (input is matched case-insensitively after trimming). A pipeline is
-- scored only when every task's latest status is terminal. A status not in this
-- table (or none) is not terminal and is reported as a warning.
CREATE OR REPLACE TEMP TABLE pl_status AS
SELECT * FROM (VALUES
    ('pending',     false),
    ('in_progress', false),
    ('blocked',     false),
    ('completed',   true),
    ('failed',      true),
    ('cancelled',   true)
) AS t(status, terminal);

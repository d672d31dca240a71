-- pipeline/v1 · 008 task statuses (spec pipeline.md §1, §2)
-- Reads: nothing. Produces: pl_status(status, terminal): the known statuses in
-- lower case; macro pl_status_of(j): a task's status JSON as it is looked up here (010
-- types each snapshot's by it), and macro pl_trim_ws, the trim it and the ids use (010,
-- 013). A pipeline is scored only when every task's latest status is terminal. A status
-- not in this table (or none, or not a string) is not terminal and is reported as a
-- warning (011).
-- The spec lists the statuses case-insensitive and is silent on blanks around them:
-- trimmed as the ids are (ASCII whitespace, " p1" is "p1") and as effectiveness §1 compares
-- its strings, "lower-cased and trimmed", so "Completed " is completed, without a warning
-- (an export's padding, not another status). A blank inside ("in progress") or another
-- kind of blank (a no-break space) is no known status: unknown, with a warning.
CREATE OR REPLACE TEMP MACRO pl_trim_ws(s) AS
    trim(s, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13));
CREATE OR REPLACE TEMP MACRO pl_status_of(j) AS
    CASE WHEN json_type(j) = 'VARCHAR' THEN lower(pl_trim_ws(json_extract_string(j, '$'))) END;
CREATE OR REPLACE TEMP TABLE pl_status AS
SELECT * FROM (VALUES
    ('pending',     false),
    ('in_progress', false),
    ('blocked',     false),
    ('completed',   true),
    ('failed',      true),
    ('cancelled',   true)
) AS t(status, terminal);

-- effectiveness/v1 · 020 parent edges                           spec: effectiveness.md §1, §3
-- Reads:    events (010: parents, parent_bad), accepted (001: the replaced seqs);
--           rs_quote (common/v1 000, run by the engine on every connection that scores:
--           the one quote of an input value in a message).
-- Produces: edges (run_id, child, parent, child_is_verdict) — the usable parent edges:
--           the parent exists in the run and is < the child's seq (this makes every walk
--           finite, whatever the input); edge_warnings (run_id, file, line, reason) for
--           ignored edges, unusable parent values and replaced seqs.
-- Every parent reference, with whether it is usable: one join with the events decides
-- both the edges and the warnings (events are unique per (run_id, seq)).
-- An unusable parent value (000's parent_bad) that is an integer, too big for a seq: a
-- string's digits (000 drops the quotes), or a number integral by its value (finite:
-- 1e400 is no integer, as for a seq). Every other value's JSON text is neither.
CREATE OR REPLACE MACRO parent_is_int(p) AS
    regexp_full_match(p, '-?[0-9]+')
    OR coalesce(ord(p) NOT IN (34, 116, 102, 110, 91, 123)
                AND isfinite(TRY_CAST(p AS DOUBLE))
                AND TRY_CAST(p AS DOUBLE) = trunc(TRY_CAST(p AS DOUBLE)), false);

CREATE OR REPLACE TABLE _edges_all AS
WITH refs AS (
    SELECT e.run_id, e.seq AS child, p.parent, e._file, e._line,
           e.type = 'review.verdict' AS child_is_verdict
    FROM events e, unnest(e.parents) AS p(parent)
)
SELECT a.*, a.parent < a.child AND x.seq IS NOT NULL AS usable
FROM refs a
LEFT JOIN (SELECT run_id, seq FROM events) x ON x.run_id = a.run_id AND x.seq = a.parent;

CREATE OR REPLACE TABLE edges AS
SELECT run_id, child, parent, child_is_verdict
FROM _edges_all
WHERE usable;

CREATE OR REPLACE TABLE edge_warnings AS
SELECT a.run_id, a._file AS file, a._line AS line,
       CASE WHEN a.parent >= a.child
              THEN 'parent edge to seq ' || a.parent || ' ignored: not before seq ' || a.child
            ELSE 'parent edge to seq ' || a.parent || ' ignored: no such event in the run'
       END AS reason
FROM _edges_all a
WHERE NOT a.usable
UNION ALL
SELECT run_id, _file, _line,
       -- parent_bad holds each value's JSON text: quoted only on the lines warned of
       'parent value ' || array_to_string(list_transform(bad, lambda p: rs_quote(p)), ', ')
           || ' ignored: not an integer seq'
FROM (SELECT run_id, _file, _line,
             list_filter(parent_bad, lambda p: NOT parent_is_int(p)) AS bad
      FROM events WHERE len(parent_bad) > 0)
WHERE len(bad) > 0
UNION ALL
-- An integer too big for a seq is an edge to a seq the run lacks, whether written as a
-- number or as text: warned of as one that fits is, after every seq or (negative)
-- before them all.
SELECT run_id, _file, _line,
       'parent edge to seq ' || p || ' ignored: '
           || CASE WHEN starts_with(p, '-') THEN 'no such event in the run'
                   ELSE 'not before seq ' || seq END
FROM (SELECT run_id, _file, _line, seq, unnest(parent_bad) AS p
      FROM events WHERE len(parent_bad) > 0)
WHERE parent_is_int(p)
UNION ALL
-- From every accepted line, not only the kept events: spec §1 reports each replaced seq,
-- and in an invalid run (which keeps none) a position that is another line's seq is the
-- very conflict its reason names; without this line nothing said why a line that gives
-- no seq had that one.
SELECT run_id, _file, _line,
       'missing or invalid seq: using position ' || pos || ' in the run'
FROM accepted WHERE seq_replaced;

-- Kept until its warnings are out: one row per parent reference, with the file of
-- its line (3.3 M rows, ~0.5 GB at 100k runs), which no later file reads.
DROP TABLE _edges_all;

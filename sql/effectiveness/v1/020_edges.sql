-- effectiveness/v1 · 020 parent edges                           spec: effectiveness.md §1, §3
-- Reads:    events (010).
-- Produces: edges (run_id, child, parent, child_is_verdict) — the usable parent edges:
--           the parent exists in the run and is < the child's seq (this makes every walk
--           finite, whatever the input); edge_warnings (run_id, file, line, reason) for
--           ignored edges, unusable parent values and replaced seqs.
CREATE OR REPLACE TEMP TABLE _edges_all AS
SELECT e.run_id, e.seq AS child, p.parent, e._file, e._line,
       e.type = 'review.verdict' AS child_is_verdict
FROM events e, unnest(e.parents) AS p(parent);

CREATE OR REPLACE TEMP TABLE edges AS
SELECT a.run_id, a.child, a.parent, a.child_is_verdict
FROM _edges_all a
SEMI JOIN events e ON e.run_id = a.run_id AND e.seq = a.parent
WHERE a.parent < a.child;

CREATE OR REPLACE TEMP TABLE edge_warnings AS
SELECT a.run_id, a._file AS file, a._line AS line,
       CASE WHEN a.parent >= a.child
              THEN 'parent edge to seq ' || a.parent || ' ignored: not before seq ' || a.child
            ELSE 'parent edge to seq ' || a.parent || ' ignored: no such event in the run'
       END AS reason
FROM _edges_all a
WHERE a.parent >= a.child
   OR NOT EXISTS (SELECT 1 FROM events e WHERE e.run_id = a.run_id AND e.seq = a.parent)
UNION ALL
SELECT run_id, _file, _line,
       'parent value ' || array_to_string(list_transform(parent_bad, lambda p: p::VARCHAR), ', ')
           || ' ignored: not an integer seq'
FROM events WHERE len(parent_bad) > 0
UNION ALL
SELECT run_id, _file, _line,
       'missing or invalid seq: using position ' || pos || ' in the run'
FROM events WHERE seq_replaced;

-- archeflow-legacy · 020 event warnings                         spec: effectiveness.md §1, §8
-- Reads:    accepted (000): every accepted line, not only the kept events, as
--           effectiveness/v1 020 (an invalid run keeps none, and a position that is
--           another line's seq is the conflict that made it invalid).
-- Produces: seq_warnings (run_id, file, line, reason) — events whose seq was missing or
--           invalid and was replaced by their position. ArcheFlow's scorer does not walk
--           parent edges, so this version neither checks nor warns about them.
CREATE OR REPLACE TEMP TABLE seq_warnings AS
SELECT run_id, _file AS file, _line AS line,
       'missing or invalid seq: using position ' || pos || ' in the run' AS reason
FROM accepted WHERE seq_replaced;

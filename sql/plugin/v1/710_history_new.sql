-- plugin/v1 · 710 which history records are new                      spec: plugin-eval.md §8
-- Reads:    plugin_history_records, plugin_history_in (the existing history file as read by
--           sources.read_jsonl: skill, scoring_version, content_hash as JSON; empty when the
--           file does not exist yet). Runs under the history lock.
-- Produces: plugin_history_new (seq, record) — the records whose (skill, scoring_version,
--             content_hash) is not in the history yet: appending only these keeps the store
--             append-only and idempotent.
CREATE OR REPLACE TEMP TABLE plugin_history_new AS
SELECT r.seq, r.record
FROM plugin_history_records r
WHERE NOT EXISTS (
    SELECT 1 FROM plugin_history_in h
    WHERE h.skill ->> '$' = r.record.skill
      AND h.scoring_version ->> '$' = r.record.scoring_version
      AND h.content_hash ->> '$' = r.record.content_hash
)
ORDER BY r.seq;

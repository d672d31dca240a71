-- effectiveness/v1 · 100 history cache, written after a read        spec: effectiveness.md §4, §5
-- Reads:    history (one row per usable line, from any of the 100_history* files),
--           _hc_issues_in (line, reason: every line the reader skipped, from Python);
--           $lines (how many lines of the file the cache covers: it ends at a newline),
--           $format, $key, $size, $sha256 (what a later read checks before trusting it);
--           $dev, $ino, $mtime_ns, $ctime_ns, $read_ns (the file's identity when it was
--           read, and the clock when that read began: see effectiveness_cache.py).
-- Produces, in the attached database _rs_cache_new (a new file; Python renames it into
--           place only when every statement succeeded):
--           lines  — one row per usable line ≤ $lines: the §4 fields typed as in 100, then
--                    history_line, then _current (the line with the latest ts of its
--                    (run_id, archetype, scoring_version), ties: the later line); line order;
--           issues — (line, reason), one row per skipped line ≤ $lines;
--           meta   — one row: format, key, size, sha256, lines, dev, ino, mtime_ns, ctime_ns,
--                    read_ns.
-- Why: the cache holds what typing the file produced, so a later read of the same bytes
-- (checked by SHA-256, or by the file's unchanged identity) skips the JSON scan. It is derived and disposable: it is
-- never the only copy of anything, and any doubt about it means reading the file again.
-- Python writes only after a read of exactly the covered lines (the file did not change
-- while it was read), so history_current is the covered lines' own; a line past $lines
-- would mean otherwise, and fails the write rather than cache a wrong _current.
SELECT error('history cache: lines past the covered ones were read')
FROM history WHERE history_line > $lines LIMIT 1;

-- history is already in line order (both readers keep file order): no ORDER BY, which
-- would sort 1M wide rows for nothing.
CREATE TABLE _rs_cache_new.lines AS
SELECT h.* EXCLUDE (history_file),
       h.history_line IN (SELECT history_line FROM history_current) AS _current
FROM history h;

CREATE TABLE _rs_cache_new.issues AS
SELECT line::BIGINT AS line, reason::VARCHAR AS reason
FROM _hc_issues_in
WHERE line <= $lines
ORDER BY line, reason;

CREATE TABLE _rs_cache_new.meta AS
SELECT $format::INTEGER AS format,
       $key::VARCHAR AS key,
       $size::BIGINT AS size,
       $sha256::VARCHAR AS sha256,
       $lines::BIGINT AS lines,
       $dev::UBIGINT AS dev,
       $ino::UBIGINT AS ino,
       $mtime_ns::BIGINT AS mtime_ns,
       $ctime_ns::BIGINT AS ctime_ns,
       $read_ns::BIGINT AS read_ns;

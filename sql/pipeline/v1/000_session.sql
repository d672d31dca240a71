-- pipeline/v1 · 000 session settings
-- Reads: nothing. Produces: nothing (connection settings only).
-- Why: every timestamp in this pack is compared and printed in UTC (spec README,
-- "Times are UTC ISO-8601"); a timestamp without an offset is read as UTC, so a
-- user's local time zone can never change a duration or a snapshot order.
SET TimeZone = 'UTC';

-- routes/v1 · operation episodes: typed, validated, normalised.
-- Reads: routes_policy (as_of), routes_raw (_file, _line, _ord and the JSON columns episodeId, source, project,
--   activity, task, execution, usage, outcome, as declared by the reader; nothing else of the
--   input line is ever read, so prompt/transcript text never enters any table).
-- Produces: routes_parsed (one row per input line: typed fields + reject_reason),
--   routes_rejects(file, line, reason) for lines that cannot be scored, and
--   routes_valid (the rows with reject_reason NULL; dated_at the episode's time, endedAt
--   else startedAt, and evidence_at the same but NULL when dated after the as-of date:
--   routes_after_as_of_from), routes_after_as_of(file, line, reason) for those, said as
--   warnings (spec-silent: §6 measures freshness against --as-of and says nothing of
--   evidence dated after it; one such episode made old evidence fresh). A reason quotes the input value it
--   refuses with rs_quote (common/v1 000, run by the engine first: the one quote of an
--   input value in a message), as JSON with blank-looking characters \uXXXX: a value
--   holding a line break read as the start of another message, one holding a no-break or
--   zero-width space hid it; a duplicate episodeId's first line is named with its path as
--   rs_path writes a file:line: prefix (common/v1 000). Host, inference provider, provider
--   provenance, model, reasoning effort and harness stay separate columns; unknown stays NULL.
--   retries and repairs are NULL when outcome.retries / outcome.repairs is absent or null
--   (unknown, never 0); escalated is true or false only as outcome.escalation.escalated says,
--   NULL when it is absent or null (so is a missing or null outcome.escalation): unknown,
--   never "not escalated".
--   cost is the episode's cost on its own basis (observed -> observedCostUsd;
--   api_equivalent and subscription -> apiEquivalentCostUsd; no costBasis: observed when
--   observedCostUsd is the only cost given, routes_basis_in); NULL when unknown.
--   Numbers and times outside what can be stored and printed are rejected with their reason,
--   never crash the run: a cost must be finite and below 1e15 USD (its DECIMAL(38, 9) sums
--   stay exact), retries/repairs at most 2147483647, a time finite and in the years 1-9999 UTC,
--   token counts and durationMs non-negative and finite, activity.confidence from 0 to 1,
--   usage.quotaPressure non-negative and finite, endedAt not before startedAt.
--   A section that is not an object (outcome: "succeeded") or any field of §1 of the wrong
--   JSON kind (source.kind: 5, escalated: "true", pairId: 5, model: {"name": "x"},
--   confidence: "high") is rejected too, with the first such field, never read as missing:
--   strings (ids, host, provider, model, harness, times, toModel), numbers (confidence,
--   quotaPressure, amounts, costs, counts), escalated true/false, signals a list of objects
--   (a null entry is no signal) whose kind and value are strings (outcome.signals[0] is not
--   a JSON object: the first by its JSON index, from 0). A prospective
--   episode needs both source.runId and task.fingerprint (they name its operation).
--   A repeated episodeId is a duplicate of the first line that passes every other check.
-- Spec: routes.md §1 (input), §3 "Cost basis", §6 "Operations and attempts". A missing
--   source.kind reads as historical (observational data is what a log is unless it says
--   otherwise).
-- Times are read by common/v1's rs_iso_text (every ISO-8601 form, as the pipeline pack reads
--   them), then cast to a UTC TIMESTAMPTZ (no offset: UTC).
-- Each JSON column is parsed once: one multi-path json_type list and one multi-path
-- json_extract_string list per column (t = types, s = strings), indexed below.
CREATE OR REPLACE TEMP MACRO routes_s(t, s, i) AS
    CASE WHEN t[i] = 'VARCHAR' THEN nullif(trim(s[i]), '') END;

CREATE OR REPLACE TEMP MACRO routes_n(t, s, i) AS
    CASE WHEN t[i] IN ('DOUBLE', 'BIGINT', 'UBIGINT', 'HUGEINT') THEN CAST(s[i] AS DOUBLE) END;

-- A field that is present, not null and not a number (so it cannot be read).
CREATE OR REPLACE TEMP MACRO routes_badn(t, i) AS
    coalesce(t[i] NOT IN ('DOUBLE', 'BIGINT', 'UBIGINT', 'HUGEINT', 'NULL'), false);

-- A token count or duration: a non-negative finite number, or absent/null (unknown).
CREATE OR REPLACE TEMP MACRO routes_amount_reason(bad, v, name) AS
    CASE WHEN bad OR v < 0 THEN name || ' is not a non-negative number'
         WHEN NOT isfinite(v) THEN name || ' is out of range (a finite number)' END;

-- Present, not null and not of the JSON kind the spec gives it (so it cannot be read).
CREATE OR REPLACE TEMP MACRO routes_badkind(t, kinds) AS
    coalesce(NOT list_contains(kinds || ['NULL'], t), false);

-- The JSON index (from 0, as a JSON path counts) of the first signal that is not an object,
-- or whose field at `path` is present, not null and not a string; NULL: none. A null entry
-- is no signal, as a null field is absent.
CREATE OR REPLACE TEMP MACRO routes_sig_not_object_at(sigs) AS
    list_position(list_transform(sigs,
        lambda g: coalesce(json_type(g) NOT IN ('OBJECT', 'NULL'), false)), true) - 1;

CREATE OR REPLACE TEMP MACRO routes_sig_not_string_at(sigs, path) AS
    list_position(list_transform(sigs,
        lambda g: routes_badkind(json_type(g, path), ['VARCHAR'])), true) - 1;

-- The basis an episode's cost is on: usage.costBasis as given, else (absent or null) the one
-- its cost fields allow alone. observedCostUsd holds observed cash and nothing else, so a line
-- giving it with no apiEquivalentCostUsd is observed: its cost is stated, not assumed, and
-- left unknown it claimed no $ where the input gave one. apiEquivalentCostUsd alone is read
-- by api_equivalent and subscription alike, and both figures leave the choice open: unknown.
CREATE OR REPLACE TEMP MACRO routes_basis_in(raw, observed, api) AS
    coalesce(raw, CASE WHEN observed IS NOT NULL AND api IS NULL THEN 'observed' END, 'unknown');

CREATE OR REPLACE TEMP TABLE routes_parsed AS
WITH r AS (
    SELECT _file, _line, _ord,
        [json_type(source), json_type(project), json_type(activity), json_type(task),
         json_type(execution), json_type(usage), json_type(outcome)] AS sec_t,
        json_type(episodeId) AS it, json_extract_string(episodeId, '$') AS i_s,
        json_type(source, ['$.kind', '$.host', '$.sessionKey', '$.runId', '$.workerId', '$.pairId'])
            AS st,
        json_extract_string(source,
            ['$.kind', '$.host', '$.sessionKey', '$.runId', '$.workerId', '$.pairId']) AS ss,
        json_type(project, ['$.id', '$.revision']) AS pt,
        json_extract_string(project, ['$.id', '$.revision']) AS ps,
        json_type(activity, ['$.id', '$.provenance', '$.confidence']) AS act_t,
        json_extract_string(activity, ['$.id', '$.provenance', '$.confidence']) AS act_s,
        json_type(task, ['$.fingerprint', '$.complexity']) AS tt,
        json_extract_string(task, ['$.fingerprint', '$.complexity']) AS ts,
        json_type(execution, ['$.host', '$.inferenceProvider', '$.providerProvenance', '$.model',
            '$.reasoningEffort', '$.harnessFingerprint', '$.startedAt', '$.endedAt',
            '$.durationMs']) AS et,
        json_extract_string(execution, ['$.host', '$.inferenceProvider', '$.providerProvenance',
            '$.model', '$.reasoningEffort', '$.harnessFingerprint', '$.startedAt', '$.endedAt',
            '$.durationMs']) AS es,
        json_type(usage, ['$.input', '$.output', '$.cacheRead', '$.cacheWrite', '$.observedCostUsd',
            '$.apiEquivalentCostUsd', '$.costBasis', '$.quotaPressure']) AS ut,
        json_extract_string(usage, ['$.input', '$.output', '$.cacheRead', '$.cacheWrite',
            '$.observedCostUsd', '$.apiEquivalentCostUsd', '$.costBasis', '$.quotaPressure']) AS us,
        json_type(outcome, ['$.status', '$.retries', '$.repairs', '$.escalation.escalated',
            '$.escalation.toModel', '$.signals', '$.escalation']) AS ot,
        json_extract_string(outcome, ['$.status', '$.retries', '$.repairs',
            '$.escalation.escalated', '$.escalation.toModel', '$.signals']) AS os
    FROM routes_raw
),
x AS (
    SELECT
        _file, _line, _ord,
        CASE WHEN it = 'VARCHAR' THEN nullif(trim(i_s), '') END AS episode_id,
        -- The first section or field whose JSON kind is wrong (NULL: none). Token counts and
        -- durationMs are checked with their range below; costs and counts in `v`.
        CASE
            WHEN routes_badkind(sec_t[1], ['OBJECT']) THEN 'source is not a JSON object'
            WHEN routes_badkind(sec_t[2], ['OBJECT']) THEN 'project is not a JSON object'
            WHEN routes_badkind(sec_t[3], ['OBJECT']) THEN 'activity is not a JSON object'
            WHEN routes_badkind(sec_t[4], ['OBJECT']) THEN 'task is not a JSON object'
            WHEN routes_badkind(sec_t[5], ['OBJECT']) THEN 'execution is not a JSON object'
            WHEN routes_badkind(sec_t[6], ['OBJECT']) THEN 'usage is not a JSON object'
            WHEN routes_badkind(sec_t[7], ['OBJECT']) THEN 'outcome is not a JSON object'
            WHEN routes_badkind(st[1], ['VARCHAR']) THEN 'source.kind is not a string'
            WHEN routes_badkind(st[2], ['VARCHAR']) THEN 'source.host is not a string'
            WHEN routes_badkind(st[3], ['VARCHAR']) THEN 'source.sessionKey is not a string'
            WHEN routes_badkind(st[4], ['VARCHAR']) THEN 'source.runId is not a string'
            WHEN routes_badkind(st[5], ['VARCHAR']) THEN 'source.workerId is not a string'
            WHEN routes_badkind(st[6], ['VARCHAR']) THEN 'source.pairId is not a string'
            WHEN routes_badkind(pt[1], ['VARCHAR']) THEN 'project.id is not a string'
            WHEN routes_badkind(pt[2], ['VARCHAR']) THEN 'project.revision is not a string'
            WHEN routes_badkind(act_t[1], ['VARCHAR']) THEN 'activity.id is not a string'
            WHEN routes_badkind(act_t[2], ['VARCHAR']) THEN 'activity.provenance is not a string'
            WHEN routes_badkind(act_t[3], ['DOUBLE', 'BIGINT', 'UBIGINT', 'HUGEINT'])
                THEN 'activity.confidence is not a number'
            WHEN routes_badkind(tt[1], ['VARCHAR']) THEN 'task.fingerprint is not a string'
            WHEN routes_badkind(tt[2], ['VARCHAR']) THEN 'task.complexity is not a string'
            WHEN routes_badkind(et[1], ['VARCHAR']) THEN 'execution.host is not a string'
            WHEN routes_badkind(et[2], ['VARCHAR'])
                THEN 'execution.inferenceProvider is not a string'
            WHEN routes_badkind(et[3], ['VARCHAR'])
                THEN 'execution.providerProvenance is not a string'
            WHEN routes_badkind(et[4], ['VARCHAR']) THEN 'execution.model is not a string'
            WHEN routes_badkind(et[5], ['VARCHAR'])
                THEN 'execution.reasoningEffort is not a string'
            WHEN routes_badkind(et[6], ['VARCHAR'])
                THEN 'execution.harnessFingerprint is not a string'
            WHEN routes_badkind(et[7], ['VARCHAR']) THEN 'execution.startedAt is not a string'
            WHEN routes_badkind(et[8], ['VARCHAR']) THEN 'execution.endedAt is not a string'
            WHEN routes_badkind(ut[7], ['VARCHAR']) THEN 'usage.costBasis is not a string'
            WHEN routes_badkind(ut[8], ['DOUBLE', 'BIGINT', 'UBIGINT', 'HUGEINT'])
                THEN 'usage.quotaPressure is not a number'
            WHEN routes_badkind(ot[1], ['VARCHAR']) THEN 'outcome.status is not a string'
            WHEN routes_badkind(ot[7], ['OBJECT']) THEN 'outcome.escalation is not a JSON object'
            WHEN routes_badkind(ot[4], ['BOOLEAN'])
                THEN 'outcome.escalation.escalated is not true or false'
            WHEN routes_badkind(ot[5], ['VARCHAR'])
                THEN 'outcome.escalation.toModel is not a string'
        END AS bad_kind,
        lower(routes_s(st, ss, 1)) AS kind_raw,
        routes_s(st, ss, 2) AS source_host,
        routes_s(st, ss, 3) AS session_key,
        routes_s(st, ss, 4) AS run_id,
        routes_s(st, ss, 5) AS worker_id,
        routes_s(st, ss, 6) AS pair_id,
        routes_s(pt, ps, 1) AS project_id,
        routes_s(pt, ps, 2) AS project_revision,
        routes_s(act_t, act_s, 1) AS activity,
        routes_s(act_t, act_s, 2) AS activity_provenance,
        routes_n(act_t, act_s, 3) AS activity_confidence,
        routes_s(tt, ts, 1) AS fingerprint,
        lower(routes_s(tt, ts, 2)) AS complexity,
        routes_s(et, es, 1) AS host,
        routes_s(et, es, 2) AS provider,
        routes_s(et, es, 3) AS provider_provenance,
        routes_s(et, es, 4) AS model,
        routes_s(et, es, 5) AS reasoning_effort,
        routes_s(et, es, 6) AS harness,
        routes_s(et, es, 7) AS started_raw,
        routes_s(et, es, 8) AS ended_raw,
        routes_n(et, es, 9) AS duration_ms,
        routes_n(ut, us, 1) AS tok_input,
        routes_n(ut, us, 2) AS tok_output,
        routes_n(ut, us, 3) AS tok_cache_read,
        routes_n(ut, us, 4) AS tok_cache_write,
        [routes_badn(ut, 1), routes_badn(ut, 2), routes_badn(ut, 3), routes_badn(ut, 4),
         routes_badn(et, 9)] AS bad_amounts,
        routes_n(ut, us, 5) AS observed_cost_usd,
        routes_n(ut, us, 6) AS api_cost_usd,
        routes_badn(ut, 5) OR routes_badn(ut, 6) AS bad_cost,
        lower(routes_s(ut, us, 7)) AS cost_basis_raw,
        routes_n(ut, us, 8) AS quota_pressure,
        lower(routes_s(ot, os, 1)) AS status,
        routes_n(ot, os, 2) AS retries_raw,
        routes_n(ot, os, 3) AS repairs_raw,
        routes_badn(ot, 2) OR routes_badn(ot, 3) AS bad_counts,
        CASE WHEN ot[4] = 'BOOLEAN' THEN os[4] = 'true' END AS escalated,
        routes_s(ot, os, 5) AS to_model,
        ot[6] AS signals_type,
        CASE WHEN ot[6] = 'ARRAY' THEN CAST(CAST(os[6] AS JSON) AS JSON[]) END AS signals
    FROM r
),
t AS (
    SELECT *,
        coalesce(kind_raw, 'historical') AS kind,
        -- common/v1's rs_iso_text: the ISO-8601 forms DuckDB's cast refuses (lowercase t/z, a
        -- decimal comma, the basic format) were "not an ISO date-time", the episode lost.
        CASE WHEN started_raw IS NOT NULL
             THEN CAST(TRY_CAST(rs_iso_text(started_raw) AS TIMESTAMPTZ) AS TIMESTAMP)
        END AS started_at,
        CASE WHEN ended_raw IS NOT NULL
             THEN CAST(TRY_CAST(rs_iso_text(ended_raw) AS TIMESTAMPTZ) AS TIMESTAMP)
        END AS ended_at,
        coalesce(
            routes_amount_reason(bad_amounts[1], tok_input, 'usage.input'),
            routes_amount_reason(bad_amounts[2], tok_output, 'usage.output'),
            routes_amount_reason(bad_amounts[3], tok_cache_read, 'usage.cacheRead'),
            routes_amount_reason(bad_amounts[4], tok_cache_write, 'usage.cacheWrite'),
            routes_amount_reason(bad_amounts[5], duration_ms, 'execution.durationMs')
        ) AS bad_amount
    FROM x
),
v AS (
    SELECT * EXCLUDE (signals_type, bad_kind, bad_amounts, bad_amount),
    CASE
        WHEN episode_id IS NULL THEN 'lacks episodeId (a non-empty string)'
        -- Before the checks for missing fields: `"id": 5` is not a missing id.
        WHEN bad_kind IS NOT NULL THEN bad_kind
        WHEN activity IS NULL THEN 'lacks activity.id'
        WHEN kind NOT IN ('historical', 'paired', 'prospective')
            THEN 'unknown source.kind ' || rs_quote(to_json(kind_raw)) || ' (historical, paired or prospective)'
        WHEN kind = 'paired' AND pair_id IS NULL THEN 'paired episode lacks source.pairId'
        WHEN kind = 'prospective' AND run_id IS NULL THEN 'prospective episode lacks source.runId'
        -- An operation is the episodes sharing runId and fingerprint (§6): without one, an
        -- episode cannot be placed, and NULL would group unrelated tasks of a run as one.
        WHEN kind = 'prospective' AND fingerprint IS NULL
            THEN 'prospective episode lacks task.fingerprint'
        WHEN complexity IS NOT NULL AND complexity NOT IN ('low', 'medium', 'high')
            THEN 'unknown task.complexity ' || rs_quote(to_json(complexity)) || ' (low, medium or high)'
        WHEN status IS NOT NULL
             AND status NOT IN ('succeeded', 'failed', 'cancelled', 'timed_out', 'blocked')
            THEN 'unknown outcome.status ' || rs_quote(to_json(status))
        WHEN bad_cost OR observed_cost_usd < 0 OR api_cost_usd < 0
            THEN 'usage cost is not a non-negative number'
        WHEN NOT coalesce(isfinite(observed_cost_usd) AND observed_cost_usd < 1e15, true)
             OR NOT coalesce(isfinite(api_cost_usd) AND api_cost_usd < 1e15, true)
            THEN 'usage cost is out of range (finite and below 1e15 USD)'
        WHEN cost_basis_raw IS NOT NULL
             AND cost_basis_raw NOT IN ('observed', 'api_equivalent', 'subscription', 'unknown')
            THEN 'unknown usage.costBasis ' || rs_quote(to_json(cost_basis_raw))
        WHEN bad_counts OR retries_raw < 0 OR repairs_raw < 0
             OR retries_raw <> floor(retries_raw) OR repairs_raw <> floor(repairs_raw)
            THEN 'outcome.retries/repairs is not a non-negative integer'
        WHEN retries_raw > 2147483647 OR repairs_raw > 2147483647
            THEN 'outcome.retries/repairs is out of range (at most 2147483647)'
        WHEN bad_amount IS NOT NULL THEN bad_amount
        -- confidence is a fraction (§1 gives 0.9). quotaPressure's scale is not given (a
        -- fraction or a percentage): only what no scale allows is refused, a negative or
        -- non-finite value. BETWEEN and >= are false for inf and NaN.
        WHEN NOT coalesce(activity_confidence BETWEEN 0 AND 1, true)
            THEN 'activity.confidence is out of range (a number from 0 to 1)'
        WHEN NOT coalesce(quota_pressure >= 0 AND isfinite(quota_pressure), true)
            THEN 'usage.quotaPressure is out of range (a finite number, at least 0)'
        WHEN signals_type IS NOT NULL AND signals_type NOT IN ('ARRAY', 'NULL')
            THEN 'outcome.signals is not a list'
        -- A signal that cannot be read (["pass"], {"kind": "gate", "value": true}) could be
        -- the one that labels the episode: scoring it without would change its label.
        WHEN routes_sig_not_object_at(signals) IS NOT NULL
            THEN 'outcome.signals[' || routes_sig_not_object_at(signals) || '] is not a JSON object'
        WHEN routes_sig_not_string_at(signals, '$.kind') IS NOT NULL
            THEN 'outcome.signals[' || routes_sig_not_string_at(signals, '$.kind')
                 || '].kind is not a string'
        WHEN routes_sig_not_string_at(signals, '$.value') IS NOT NULL
            THEN 'outcome.signals[' || routes_sig_not_string_at(signals, '$.value')
                 || '].value is not a string'
        WHEN started_raw IS NOT NULL AND started_at IS NULL
            THEN 'execution.startedAt is not an ISO date-time: ' || rs_quote(to_json(started_raw))
        WHEN ended_raw IS NOT NULL AND ended_at IS NULL
            THEN 'execution.endedAt is not an ISO date-time: ' || rs_quote(to_json(ended_raw))
        WHEN NOT coalesce(isfinite(started_at) AND year(started_at) BETWEEN 1 AND 9999, true)
            THEN 'execution.startedAt is outside the years 1 to 9999 (UTC): '
                 || rs_quote(to_json(started_raw))
        WHEN NOT coalesce(isfinite(ended_at) AND year(ended_at) BETWEEN 1 AND 9999, true)
            THEN 'execution.endedAt is outside the years 1 to 9999 (UTC): '
                 || rs_quote(to_json(ended_raw))
        -- The evidence date is endedAt: one before its start would date the episode wrongly.
        WHEN ended_at < started_at
            THEN 'execution.endedAt ' || rs_quote(to_json(ended_raw))
                 || ' is before execution.startedAt ' || rs_quote(to_json(started_raw))
    END AS other_reason
    FROM t
),
d AS (
    -- Duplicates are judged among the lines that pass every other check: a good line whose id
    -- a rejected line also carries is that episode's only scorable record, not a copy.
    SELECT *,
        row_number() OVER (PARTITION BY episode_id, other_reason IS NULL ORDER BY _ord) AS id_rank,
        first({'file': _file, 'line': _line}) OVER (
            PARTITION BY episode_id, other_reason IS NULL ORDER BY _ord
            ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS id_first_at
    FROM v
)
SELECT * EXCLUDE (other_reason, id_first_at),
    CASE
        WHEN other_reason IS NOT NULL THEN other_reason
        -- the first line's path as a file:line: prefix writes it (rs_path), on these rows only
        WHEN id_rank > 1
            THEN 'duplicate episodeId ' || rs_quote(to_json(episode_id)) || ' (first at '
                 || rs_path(id_first_at.file) || ':' || id_first_at.line || ')'
    END AS reject_reason
FROM d;

CREATE OR REPLACE TEMP TABLE routes_rejects AS
SELECT _file AS file, _line AS line, reject_reason AS reason
FROM routes_parsed WHERE reject_reason IS NOT NULL
ORDER BY _ord;

-- The first instant after the as-of date: its UTC day's end. An episode of the as-of date
-- itself counts whatever its hour (the default clock is today at 00:00, and today's episodes
-- are evidence as of today); one dated on a later day cannot be evidence as of that date.
CREATE OR REPLACE TEMP MACRO routes_after_as_of_from(as_of) AS date_trunc('day', as_of) + INTERVAL 1 DAY;

CREATE OR REPLACE TEMP TABLE routes_valid AS
SELECT
    episode_id, _file, _line, _ord, kind, source_host, session_key, run_id, worker_id, pair_id,
    project_id, project_revision, activity, activity_provenance, activity_confidence,
    fingerprint, complexity, host, provider, provider_provenance, model, reasoning_effort,
    harness, started_at, ended_at, duration_ms,
    coalesce(ended_at, started_at) AS dated_at,
    -- The time that dates the episode as evidence (freshness, the activity's current harness,
    -- the order harnesses appeared in): none for one dated after the as-of date, read as an
    -- undated one's. One episode dated next year made 200-day-old evidence fresh.
    CASE WHEN coalesce(ended_at, started_at) < (SELECT routes_after_as_of_from(as_of) FROM routes_policy)
         THEN coalesce(ended_at, started_at) END AS evidence_at,
    tok_input, tok_output, tok_cache_read, tok_cache_write, observed_cost_usd, api_cost_usd,
    quota_pressure, status,
    CAST(retries_raw AS BIGINT) AS retries,
    CAST(repairs_raw AS BIGINT) AS repairs,
    escalated, to_model, signals,
    -- The cost of the episode on its declared basis; any gap leaves it unknown (NULL).
    CASE routes_basis_in(cost_basis_raw, observed_cost_usd, api_cost_usd)
        WHEN 'observed' THEN CAST(observed_cost_usd AS DECIMAL(38, 9))
        WHEN 'api_equivalent' THEN CAST(api_cost_usd AS DECIMAL(38, 9))
        WHEN 'subscription' THEN CAST(api_cost_usd AS DECIMAL(38, 9))
    END AS cost,
    CASE
        WHEN routes_basis_in(cost_basis_raw, observed_cost_usd, api_cost_usd) = 'observed'
             AND observed_cost_usd IS NOT NULL
            THEN 'observed'
        WHEN cost_basis_raw IN ('api_equivalent', 'subscription') AND api_cost_usd IS NOT NULL
            THEN cost_basis_raw
        ELSE 'unknown'
    END AS cost_basis
FROM routes_parsed
WHERE reject_reason IS NULL;

-- Episodes dated after the as-of date: read and counted, their time not used (evidence_at
-- NULL); each said as a warning with its file and line (not rejected input: exit 0).
CREATE OR REPLACE TEMP TABLE routes_after_as_of AS
SELECT v._file AS file, v._line AS line,
    'dated ' || routes_iso(v.dated_at) || ', after the as-of date '
        || strftime(p.as_of, '%Y-%m-%d') || ': its time is not used (read as undated: it '
        || 'makes no evidence fresh)' AS reason
FROM routes_valid v CROSS JOIN routes_policy p
WHERE v.dated_at IS NOT NULL AND v.evidence_at IS NULL
ORDER BY v._ord;

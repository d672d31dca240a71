-- effectiveness/v1 · 000 read events (the reader's projection)  spec: effectiveness.md §1
-- Reads:    the event log lines, via raw_input($files, $columns, $max_object_size)
--           (read_json with the declared columns, defined by runscore.engine.sources)
--           — run by read_jsonl as this version's projection, once per batch of clean
--           files and once per spooled dirty file.
-- Produces: _stage — one row per JSON line, in file order: _file_index, _nonobj (the line gave
--           no object), run_id/type/seq/parent/ts/phase/agent checked and typed, and the
--           few `data` fields later files use, extracted in this one scan so the JSON
--           payload is never kept in memory: archetype (folded), verdict, data_cycle,
--           findings (JSON array, verdicts only), fix_source, fix_finding, fix_loc_key,
--           c_obs, c_est, tok, tok_in, tok_out (NaN when present but not a number),
--           cycle_bad (a verdict's cycle given but not an integer by value: 2.0 is 2),
--           findings_bad (a verdict's findings given, not null, but not a list),
--           model (a non-empty string, outer whitespace trimmed), model_bad (an agent
--           event's model given but not a string), names_bad
--           (VARCHAR[] of 'archetype', 'agent', 'source': a name a verdict, agent or fix
--           event gives but not as a string, which names nobody; null when none), met (cycle
--           boundaries: null when not a boolean), own_seq (seq ≥ 1, an integer by value, or null), parents BIGINT[] /
--           parent_bad VARCHAR[] (usable and unusable parent parts: the JSON text of each
--           unusable one, a string's digits unquoted), content_md5
--           (identity of the event but for its seq), problem (why a line is not an
--           event, or null).
-- Speed: `data` is parsed once (one json_extract with a list of paths). Scalars are
-- then read from their JSON text without parsing again — DuckDB hands JSON values over
-- minified, so the first character tells the kind and a string without a backslash is
-- its text between the quotes; only strings with escapes are parsed (jstr).
-- trim as Python's str.strip() does for ASCII: spaces, tabs, newlines, CR, VT, FF.
-- Most values need no trimming (first and last character above the space), and trim
-- with a character list is slow, so it is only called for the others. s is expanded
-- several times: pass a column, not an expression.
CREATE OR REPLACE MACRO eff_trim(s) AS
    CASE WHEN ord(s) > 32 AND ord(right(s, 1)) > 32 THEN s
         ELSE trim(s, ' ' || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)) END;
-- JSON kind of a minified JSON text: VARCHAR, BOOLEAN, NULL, ARRAY, OBJECT, INTEGER, DOUBLE
CREATE OR REPLACE MACRO jkind(t) AS
    CASE left(t, 1)
      WHEN '"' THEN 'VARCHAR' WHEN 't' THEN 'BOOLEAN' WHEN 'f' THEN 'BOOLEAN'
      WHEN 'n' THEN 'NULL' WHEN '[' THEN 'ARRAY' WHEN '{' THEN 'OBJECT'
      ELSE CASE WHEN contains(t, '.') OR contains(t, 'e') OR contains(t, 'E')
                THEN 'DOUBLE' ELSE 'INTEGER' END
    END;
-- The text between a JSON text's first and last characters (a string's quotes, an
-- array's brackets): substring, not slicing (t[2:-2]), which cost ~2.6x as much (18.8
-- against 7.2 ms over 335k values; per row, for run_id, type, ts, phase, agent and
-- archetype). Both count characters, so they agree on every text (a JSON text's first
-- and last characters are one byte each).
CREATE OR REPLACE MACRO jinner(t) AS substring(t, 2, length(t) - 2);
-- The value of a JSON string (null for any other kind).
CREATE OR REPLACE MACRO jstr(t) AS
    CASE WHEN NOT starts_with(t, '"') THEN NULL
         WHEN contains(t, '\') THEN json_extract_string(t, '$')
         ELSE jinner(t) END;
-- The text a scalar stands for: a string's value, a number's or boolean's literal.
CREATE OR REPLACE MACRO jtext(t) AS
    CASE WHEN starts_with(t, '"') AND NOT contains(t, '\') THEN jinner(t)
         WHEN t = 'null' THEN NULL
         WHEN starts_with(t, '"') THEN json_extract_string(t, '$')
         ELSE t END;
-- The text a scalar stands for in a match or location key (§3): jtext, but a number by
-- its value, as the duplicate check compares it (010): 42.0, 4.2e1 and 42 are line 42,
-- so two lines equal but for that spelling score alike, and a finding at a.py:42.0 is
-- the one its fix at a.py:42 names. An integral double prints as an integer; an
-- integer's JSON text is already its canonical form (no leading zeros or +) but for -0.
CREATE OR REPLACE MACRO jkeytext(t) AS
    CASE jkind(t)
      WHEN 'INTEGER' THEN CASE WHEN t = '-0' THEN '0' ELSE t END
      WHEN 'DOUBLE' THEN coalesce(
          CASE WHEN TRY_CAST(t AS DOUBLE) = trunc(TRY_CAST(t AS DOUBLE))
                    AND abs(TRY_CAST(t AS DOUBLE)) < 1e30
               THEN TRY_CAST(TRY_CAST(t AS DOUBLE) AS HUGEINT)::VARCHAR
               ELSE TRY_CAST(t AS DOUBLE)::VARCHAR END, t)
      ELSE jtext(t) END;
-- A JSON number that is an integer by its value, as BIGINT (2 and 2.0 alike, as the
-- duplicate check compares them: else two lines equal but for that spelling, one event,
-- scored by whichever came first); null for any other value or one that does not fit.
CREATE OR REPLACE MACRO jint(t) AS
    CASE jkind(t)
      WHEN 'INTEGER' THEN TRY_CAST(t AS BIGINT)
      WHEN 'DOUBLE' THEN CASE WHEN TRY_CAST(t AS DOUBLE) = trunc(TRY_CAST(t AS DOUBLE))
                              THEN TRY_CAST(TRY_CAST(t AS DOUBLE) AS BIGINT) END
    END;
-- A parent part (020): its seq, or null when it is no seq a run can have, and raw: the
-- value's JSON text, or a string's digits (as a number's, unquoted: leading zeros
-- dropped) when it holds an integer. An integer is one by its value, however written:
-- "1234567890123456789" and 1234567890123456789 are the same parent, and one too big for
-- a seq is, text or number, an integer all the same (020 warns of it as an edge).
-- t: a string's trimmed value (raw: its JSON text); pass a column, not an expression.
CREATE OR REPLACE MACRO parent_text_part(t, raw) AS
    CASE WHEN regexp_full_match(t, '-?[0-9]+')
           THEN {'v': TRY_CAST(t AS BIGINT),
                 'raw': CASE WHEN starts_with(t, '-') THEN '-' || ltrim(substring(t, 2), '0')
                             ELSE ltrim(t, '0') END}
         ELSE {'v': NULL::BIGINT, 'raw': raw} END;
-- A JSON number as DOUBLE (null for any other kind: the first character tells, as in jkind).
-- A number too big for a double (1e400, which is JSON) becomes ±inf here (not null, which
-- would hide it), so the checks downstream warn about it as not finite. (nan/inf, which
-- DuckDB's parser also takes, never get here: the reader refuses their lines as not JSON.)
CREATE OR REPLACE MACRO jnum(t) AS
    CASE WHEN ord(t) NOT IN (34, 116, 102, 91, 123) AND t <> 'null' THEN TRY_CAST(t AS DOUBLE) END;

-- A JSON value as a number: null when absent or JSON null, NaN when present but not a
-- number (a string "0.05", a boolean, an object).
CREATE OR REPLACE MACRO jpresent_num(t) AS
    CASE WHEN t IS NOT NULL AND t <> 'null' THEN coalesce(jnum(t), 'NaN'::DOUBLE) END;

CREATE OR REPLACE TABLE _stage AS
WITH r AS (
    SELECT _file_index,
           run_id::VARCHAR AS run_id_t, type::VARCHAR AS type_t, seq::VARCHAR AS seq_t,
           parent, parent::VARCHAR AS parent_t, ts::VARCHAR AS ts_t,
           phase::VARCHAR AS phase_t, agent::VARCHAR AS agent_t,
           data::VARCHAR AS data_text,
           json_extract(data, ['$.archetype', '$.verdict', '$.cycle', '$.findings',
                               '$.source', '$.finding', '$.location', '$.file', '$.line',
                               '$.cost_usd', '$.estimated_cost_usd', '$.tokens',
                               '$.tokens_input', '$.tokens_output', '$.model', '$.met'])
               AS dj
    FROM raw_input($files, $columns, $max_object_size)
), f AS (
    -- the usual parent, an array of at most 18-digit integers, is split as text; the
    -- pieces of data are read as text (d), but findings is kept as the JSON it already is
    -- (a cast back from text would parse it again)
    SELECT r.* EXCLUDE (dj), dj::VARCHAR[] AS d, dj[4] AS findings_j,
           regexp_full_match(parent_t, '\[(-?[0-9]{1,18}(,-?[0-9]{1,18})*)?\]') AS parent_plain
    FROM r
), t AS (
    SELECT f.*,
           jstr(run_id_t) AS rid, jstr(type_t) AS typ,
           CASE WHEN parent_plain THEN
             CASE WHEN contains(parent_t, ',')
                    THEN list_distinct(string_split(jinner(parent_t), ',')::BIGINT[])
                  WHEN parent_t = '[]' THEN []::BIGINT[]
                  ELSE [jinner(parent_t)::BIGINT] END
           END AS plain_parents,
           -- parent: array of integers, one integer, "3,4", "" or absent. Array elements
           -- are JSON integers, or strings holding one, read as a part of "3,4" is (a seq
           -- written as text: ["2"] is what jq's --arg makes of a shell variable, and "2"
           -- alone is a parent already); a number is read by its value, as a seq is (2.0 is
           -- seq 2); any other element ("x", "2,3", 2.5, true) is no seq. An integer too big
           -- for a BIGINT is a seq no run has, as a negative one is, text or not (020
           -- warns of both as edges: "not before", "no such event").
           CASE
             WHEN parent_plain THEN NULL
             WHEN parent_t IS NULL OR parent_t = 'null' THEN []::STRUCT(v BIGINT, raw VARCHAR)[]
             WHEN left(parent_t, 1) = '[' THEN
               list_transform(list_transform(json_extract(parent, '$[*]')::VARCHAR[],
                                             lambda p: {'p': p, 's': eff_trim(jstr(p))}),
                              lambda x: CASE WHEN left(x.p, 1) = '"' THEN parent_text_part(x.s, x.p)
                                             ELSE {'v': jint(x.p), 'raw': x.p} END)
             WHEN left(parent_t, 1) = '"' THEN
               list_transform(
                 list_filter(list_transform(string_split(jstr(parent_t), ','), lambda s: eff_trim(s)),
                             lambda s: s <> ''),
                 lambda s: parent_text_part(s, to_json(s)::VARCHAR))
             ELSE [{'v': jint(parent_t), 'raw': parent_t}]
           END AS parent_parts
    FROM f
), u AS (
    -- each JSON piece's text, once (macros expand inline: a text used twice would be
    -- computed twice); type-specific fields only for their type
    SELECT t.* EXCLUDE (parent_parts, plain_parents),
           CASE WHEN parent_plain THEN plain_parents
                ELSE list_distinct(list_transform(list_filter(parent_parts, lambda p: p.v IS NOT NULL),
                                                  lambda p: p.v)) END AS parents,
           CASE WHEN parent_plain THEN []::VARCHAR[]
                ELSE list_transform(list_filter(parent_parts, lambda p: p.v IS NULL),
                                    lambda p: p.raw) END AS parent_bad,
           -- a name is a string: a number or an object names nobody (§1: agent is a
           -- string or null), as a model is (below); its JSON text ('5',
           -- '{"name":"skeptic"}') would be scored as a reviewer of that name
           jtext(ts_t) AS ts, jtext(phase_t) AS phase, jstr(agent_t) AS agent,
           jstr(d[1]) AS archetype_t,
           -- which names of an event whose archetype (or source) is used were given but
           -- not as strings: 090 warns of each (null, the usual case, costs no list)
           CASE WHEN typ IN ('review.verdict', 'agent.start', 'agent.complete')
                     AND ((d[1] <> 'null' AND NOT starts_with(d[1], '"'))
                       OR (agent_t <> 'null' AND NOT starts_with(agent_t, '"')))
                  THEN list_filter([CASE WHEN d[1] <> 'null' AND NOT starts_with(d[1], '"')
                                         THEN 'archetype' END,
                                    CASE WHEN agent_t <> 'null' AND NOT starts_with(agent_t, '"')
                                         THEN 'agent' END], lambda x: x IS NOT NULL)
                WHEN typ = 'fix.applied' AND d[5] <> 'null' AND NOT starts_with(d[5], '"')
                  THEN ['source'] END AS names_bad,
           CASE WHEN typ = 'review.verdict' THEN jtext(d[2]) END AS verdict_t,
           CASE WHEN typ = 'fix.applied' THEN jstr(d[5]) END AS source_s,
           CASE WHEN typ = 'fix.applied' THEN jtext(d[6]) END AS finding_t,
           CASE WHEN typ = 'fix.applied' THEN jtext(d[7]) END AS location_t,
           CASE WHEN typ = 'fix.applied' THEN jtext(d[8]) END AS file_t,
           -- a model is a string: a number or an object names none (§3), and its JSON
           -- text ('{"name":"claude-haiku"}') would be taken for a model (and a tier)
           CASE WHEN typ IN ('agent.complete', 'agent.start') THEN jstr(d[15]) END AS model_t,
           CASE WHEN typ IN ('agent.complete', 'agent.start') AND d[15] <> 'null'
                     AND NOT starts_with(d[15], '"') THEN true END AS model_bad
    FROM t
), w AS (
    SELECT u.*,
           nullif(lower(eff_trim(archetype_t)), '') AS archetype_f,
           nullif(lower(eff_trim(agent)), '') AS agent_f,
           eff_trim(model_t) AS model_trim
    FROM u
)
SELECT
    _file_index,
    (run_id_t IS NULL AND type_t IS NULL AND seq_t IS NULL AND parent_t IS NULL
     AND ts_t IS NULL AND phase_t IS NULL AND agent_t IS NULL AND data_text IS NULL) AS _nonobj,
    rid AS run_id,
    typ AS type,
    CASE
      WHEN run_id_t IS NULL OR run_id_t = 'null' THEN 'missing run_id'
      WHEN rid IS NULL THEN 'run_id is not a string'
      WHEN rid = '' THEN 'run_id is empty'
      WHEN type_t IS NULL OR type_t = 'null' THEN 'missing type'
      WHEN typ IS NULL THEN 'type is not a string'
      WHEN typ = '' THEN 'type is empty'
    END AS problem,
    -- a seq is an integer by its value, as a cycle is (5.0 is seq 5: two lines equal but
    -- for that spelling are one event, §1); an integer's text is cast as before, no more
    CASE WHEN jint(seq_t) >= 1 THEN jint(seq_t) END AS own_seq,
    parents,
    parent_bad,
    ts, phase, agent,
    coalesce(archetype_f, agent_f, 'unknown') AS archetype,
    lower(eff_trim(verdict_t)) AS verdict,
    CASE WHEN typ = 'review.verdict' THEN jint(d[3]) END AS data_cycle,
    -- a cycle given but not as an integer ("2", 2.5): ignored, and 030 warns (verdicts only)
    CASE WHEN typ = 'review.verdict' AND d[3] <> 'null' AND jint(d[3]) IS NULL
         THEN true END AS cycle_bad,
    CASE WHEN typ = 'review.verdict' AND left(d[4], 1) = '[' THEN findings_j END AS findings,
    -- findings given but not as a list (an object, "bug", 3): no finding, and 090 warns
    -- (absent or null is the empty list, §3)
    CASE WHEN typ = 'review.verdict' AND d[4] <> 'null' AND left(d[4], 1) <> '['
         THEN true END AS findings_bad,
    -- a non-empty string source is authoritative (even one of blanks: it names nobody)
    CASE WHEN source_s <> '' THEN lower(eff_trim(source_s)) END AS fix_source,
    -- "present" = given and not null (an empty string is present)
    lower(eff_trim(finding_t)) AS fix_finding,
    CASE WHEN typ = 'fix.applied' THEN coalesce(
           lower(eff_trim(location_t)),
           lower(eff_trim(file_t))
             || CASE WHEN d[9] IS NOT NULL AND d[9] <> 'null'
                     THEN ':' || jkeytext(d[9]) ELSE '' END) END AS fix_loc_key,
    -- a cost or token field that is present (not null) but not a number is NaN: not a
    -- cost or a count, so 050 warns and ignores it (unknown, not 0), as a negative one
    CASE WHEN typ = 'agent.complete' THEN jpresent_num(d[10]) END AS c_obs,
    CASE WHEN typ = 'agent.complete' THEN jpresent_num(d[11]) END AS c_est,
    CASE WHEN typ = 'agent.complete' THEN jpresent_num(d[12]) END AS tok,
    CASE WHEN typ = 'agent.complete' THEN jpresent_num(d[13]) END AS tok_in,
    CASE WHEN typ = 'agent.complete' THEN jpresent_num(d[14]) END AS tok_out,
    -- outer whitespace is no part of a model's name (" sonnet" is sonnet, as an
    -- archetype's is trimmed, §1): stored trimmed, so history counts one model, not two
    CASE WHEN model_trim <> '' THEN model_trim END AS model,
    model_bad,
    names_bad,
    -- true only for JSON true; absent or null is not met. Any other value ("yes", 1) is
    -- not met either, but null here, so that 080 can warn that it was ignored.
    CASE WHEN typ = 'cycle.boundary' THEN CASE coalesce(d[16], 'null')
         WHEN 'true' THEN true WHEN 'false' THEN false WHEN 'null' THEN false END END AS met,
    -- identity of the event but for its seq: envelope, normalised parents, data. Only a
    -- list of two or more parents is sorted: list_sort on every row's one parent cost
    -- ~0.015 s of the projection over 10k run files, for the same text.
    md5(concat_ws(chr(31), coalesce(ts_t, 'null'), typ, coalesce(phase_t, 'null'),
                  coalesce(agent_t, 'null'),
                  (CASE WHEN len(parents) > 1 THEN list_sort(parents) ELSE parents END)::VARCHAR,
                  coalesce(CASE WHEN left(data_text, 1) = '{' THEN data_text END, 'null')))
        AS content_md5
FROM w;

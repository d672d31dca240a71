-- plugin/v1 · 020 skill keys and input issues                         spec: plugin-eval.md §1
-- Reads:    plugin_features (one row per scored skill: skill, path, skill_md, name, …);
--           plugin_judge_in, plugin_mc_in, plugin_matchups_in (one row per JSON-object line
--           of --judge / --mc / --matchups; `skill` is raw JSON); plugin_path_keys (key,
--           path): keys that name a skill folder as another spelling of its path (absolute,
--           ./, trailing slash, …/SKILL.md; made by the engine, which knows the working
--           directory); plugin_relative_keys (key, skill): keys that are a path relative
--           to a root spelled otherwise (s/, ./s), normalised by the engine.
--           common/v1's rs_quote (a skill value in a message, as every pack quotes it).
-- Produces: plugin_key_map (key, sid, candidates) — how a `skill` value of an input line
--             finds its skill: first the skill folder as found (`path`, in any spelling
--             of it, or its SKILL.md), then the path relative to its root (`skill`, or
--             `skill`/SKILL.md), then the frontmatter/folder `name`, then those two
--             again on canonically equivalent text (NFC); the first
--             rule with any match decides, and it must match exactly one skill
--             (candidates = 1), else the line is reported as ambiguous.
--           plugin_input_issues (file, line, reason) — empty here; later files add the
--             lines they reject (and why);
--           plugin_input_warnings (file, line, reason) — empty here; later files add what
--             they used but not all of (a judge's score key no dimension takes).
-- sid (the internal skill id) is the display path of the skill's SKILL.md: unique even
-- when two roots hold the same relative path.
CREATE OR REPLACE TEMP TABLE plugin_input_keys AS
SELECT DISTINCT skill ->> '$' AS key FROM (
    SELECT skill FROM plugin_judge_in
    UNION ALL SELECT skill FROM plugin_mc_in
    UNION ALL SELECT skill FROM plugin_matchups_in
) WHERE json_type(skill) = 'VARCHAR';

CREATE OR REPLACE TEMP TABLE plugin_key_map AS
WITH cand AS (
    SELECT k.key, 1 AS rule, f.skill_md AS sid
    FROM plugin_input_keys k JOIN plugin_features f ON f.path = k.key
    UNION ALL
    SELECT k.key, 1, f.skill_md
    FROM plugin_input_keys k JOIN plugin_path_keys p ON p.key = k.key
    JOIN plugin_features f ON f.path = p.path
    UNION ALL
    SELECT k.key, 2, f.skill_md FROM plugin_input_keys k JOIN plugin_features f ON f.skill = k.key
    UNION ALL
    SELECT k.key, 2, f.skill_md
    FROM plugin_input_keys k JOIN plugin_features f ON f.skill || '/SKILL.md' = k.key
    UNION ALL
    -- that path spelled otherwise (s/, ./s): normalised by the engine
    SELECT k.key, 2, f.skill_md
    FROM plugin_input_keys k JOIN plugin_relative_keys r ON r.key = k.key
    JOIN plugin_features f ON r.skill IN (f.skill, f.skill || '/SKILL.md')
    UNION ALL
    SELECT k.key, 3, f.skill_md FROM plugin_input_keys k JOIN plugin_features f ON f.name = k.key
    UNION ALL
    -- Rules 2 and 3 again, on text canonically equivalent (NFC) rather than equal: macOS
    -- writes a path's accents decomposed. Only where no exact rule matched, so two skills
    -- whose names differ only so are each still found by their own spelling. Each an
    -- equality (a hash join): `x IN (a, b)` joined every key with every skill.
    SELECT k.key, 4, f.skill_md
    FROM plugin_input_keys k JOIN plugin_features f ON nfc_normalize(f.skill) = nfc_normalize(k.key)
    UNION ALL
    SELECT k.key, 4, f.skill_md
    FROM plugin_input_keys k JOIN plugin_features f
      ON nfc_normalize(f.skill || '/SKILL.md') = nfc_normalize(k.key)
    UNION ALL
    SELECT r.key, 4, f.skill_md
    FROM plugin_relative_keys r JOIN plugin_features f ON nfc_normalize(f.skill) = nfc_normalize(r.skill)
    UNION ALL
    SELECT r.key, 4, f.skill_md
    FROM plugin_relative_keys r JOIN plugin_features f
      ON nfc_normalize(f.skill || '/SKILL.md') = nfc_normalize(r.skill)
    UNION ALL
    SELECT k.key, 5, f.skill_md
    FROM plugin_input_keys k JOIN plugin_features f ON nfc_normalize(f.name) = nfc_normalize(k.key)
), best AS (
    SELECT key, min(rule) AS rule FROM cand GROUP BY key
)
SELECT c.key, any_value(c.sid) AS sid, count(DISTINCT c.sid) AS candidates
FROM cand c JOIN best b ON b.key = c.key AND b.rule = c.rule
GROUP BY c.key;

CREATE OR REPLACE TEMP TABLE plugin_input_issues (file VARCHAR, line BIGINT, reason VARCHAR);
CREATE OR REPLACE TEMP TABLE plugin_input_warnings (file VARCHAR, line BIGINT, reason VARCHAR);

-- Why an input line's `skill` cannot be used (NULL when it can). `candidates` comes from
-- `LEFT JOIN plugin_key_map m ON m.key = <skill> ->> '$'` (NULL = no match).
CREATE OR REPLACE TEMP MACRO plugin_skill_problem(skill_json, candidates) AS
    CASE
        WHEN skill_json IS NULL OR json_type(skill_json) = 'NULL' THEN 'missing skill'
        WHEN json_type(skill_json) <> 'VARCHAR' THEN 'skill is not a string'
        WHEN candidates IS NULL
            THEN 'no scored skill matches skill ' || rs_quote(to_json(skill_json ->> '$'))
        WHEN candidates > 1
            THEN 'skill ' || rs_quote(to_json(skill_json ->> '$'))
                 || ' matches several skills; give its path relative to the root'
    END;

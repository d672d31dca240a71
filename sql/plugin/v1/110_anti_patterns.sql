-- plugin/v1 · 110 anti-patterns with evidence                         spec: plugin-eval.md §4
-- Reads:    plugin_features, plugin_links (sid=skill_md, ord, target, line, exists — every
--           `(references/…)` link), plugin_xrefs (skill_md, ord, target, written, line,
--           exists — every cross-reference), plugin_params.
-- Produces: plugin_anti (sid, flag, flag_ord, ord, target, line, evidence) — one row per
--             flag raised, in PluginEval's order (flag_ord, then position in the text);
--             `target` is the link or cross-reference for ORPHAN_REFERENCE/DEAD_CROSS_REF;
--             `line` the SKILL.md line that triggered it (NULL for whole-file counts): for
--             EMPTY_DESCRIPTION and MISSING_TRIGGER the frontmatter's `description:` line,
--             else the line that says why the frontmatter was not read (fm_unread: not
--             valid YAML, not a mapping, a byte-order mark, no closing ---: "the frontmatter
--             has no description" was false of a file whose description is there, unread),
--             else line 1 (where the frontmatter opens, or would);
--           plugin_penalty (sid, flags, penalty) — penalty = max(floor, 1 − 0.05 × flags).
--           plugin_strip(s) macro — `s` without the whitespace str.strip() takes.
-- An evidence text names a link or cross-reference as rs_shown (common/v1) shows it, and
-- quotes the description with what shows blank or steers the line written \uXXXX
-- (rs_show_unseen): written as it was, a link holding U+202E or ESC read alike with one
-- holding the text "\u202e", and a right-to-left override turned the rest of the line around.
-- The description as its length is counted (plugin_features: Python's str.strip(), which
-- takes every Unicode whitespace from both ends): trim() takes only spaces, so a folded
-- `description: >` was quoted with its line break ("short\n") beside "5 characters".
CREATE OR REPLACE TEMP MACRO plugin_strip(s) AS regexp_replace(
    s,
    '^[\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+'
    || '|[\t\n\x0b\x0c\r\x1c-\x1f \x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+$',
    '', 'g');
CREATE OR REPLACE TEMP TABLE plugin_anti AS
WITH f AS (SELECT * FROM plugin_features, plugin_params)
SELECT skill_md AS sid, 'OVER_CONSTRAINED' AS flag, 1 AS flag_ord, 0 AS ord,
       NULL::VARCHAR AS target, must_lines[1] AS line,
       format('{} MUST/NEVER/ALWAYS directives (more than {}); first on line(s) {}',
              must_count, over_constrained_above, array_to_string(must_lines, ', ')) AS evidence
FROM f WHERE must_count > over_constrained_above
UNION ALL
SELECT skill_md, 'EMPTY_DESCRIPTION', 2, 0, NULL, coalesce(desc_line, fm_unread_line, 1),
       CASE WHEN desc_line IS NULL AND fm_unread IS NOT NULL
            THEN format('line {}: {}: no description is read (fewer than {} characters)',
                        fm_unread_line, fm_unread, empty_description_below)
            WHEN desc_line IS NULL
            THEN format('line 1: {} (fewer than {} characters)',
                        CASE WHEN has_frontmatter THEN 'the frontmatter has no description'
                             ELSE 'no frontmatter, so no description' END,
                        empty_description_below)
            ELSE format('line {}: description is {} character{} (fewer than {})', desc_line,
                        desc_len, CASE WHEN desc_len = 1 THEN '' ELSE 's' END,
                        empty_description_below)
       END
FROM f WHERE desc_len < empty_description_below
UNION ALL
SELECT skill_md, 'MISSING_TRIGGER', 3, 0, NULL, coalesce(desc_line, fm_unread_line, 1),
       CASE WHEN desc_line IS NULL AND fm_unread IS NOT NULL
            THEN format('line {}: {}: no description is read, so no trigger phrase ("Use when …")',
                        fm_unread_line, fm_unread)
            WHEN desc_line IS NULL
            THEN format('line 1: {}, so no trigger phrase ("Use when …")',
                        CASE WHEN has_frontmatter THEN 'the frontmatter has no description'
                             ELSE 'no frontmatter, so no description' END)
            WHEN desc_len = 0
            THEN format('line {}: description is empty, so no trigger phrase ("Use when …")',
                        desc_line)
            ELSE format('line {}: description has no trigger phrase ("Use when …"): ', desc_line)
                 || rs_show_unseen(to_json(CASE WHEN length(plugin_strip(description)) > 120
                                 THEN left(plugin_strip(description), 117) || '…'
                                 ELSE plugin_strip(description) END)::VARCHAR)
       END
FROM f
WHERE NOT desc_trigger AND NOT disable_model_invocation AND NOT paths_trigger
UNION ALL
SELECT skill_md, 'BLOATED_SKILL', 4, 0, NULL, NULL,
       format('{} lines (more than {}) and no references/ folder', line_count, bloated_lines_above)
FROM f WHERE line_count > bloated_lines_above AND NOT has_references_dir
UNION ALL
SELECT l.skill_md, 'ORPHAN_REFERENCE', 5, l.ord, l.target, l.line,
       format('line {}: link ({}) names no file in references/', l.line, rs_shown(l.target))
FROM plugin_links l JOIN plugin_features f USING (skill_md)
WHERE f.has_references_dir AND NOT l.exists
UNION ALL
SELECT x.skill_md, 'DEAD_CROSS_REF', 6, x.ord, x.target, x.line,
       format('line {}: {} resolves to no folder next to this skill', x.line, rs_shown(x.written))
FROM plugin_xrefs x
WHERE NOT x.exists;

CREATE OR REPLACE TEMP TABLE plugin_penalty AS
SELECT f.skill_md AS sid, count(a.flag) AS flags,
       greatest(p.penalty_floor, 1.0::DOUBLE - p.penalty_per_flag * count(a.flag)::DOUBLE)
           AS penalty
FROM plugin_features f
CROSS JOIN plugin_params p
LEFT JOIN plugin_anti a ON a.sid = f.skill_md
GROUP BY f.skill_md, p.penalty_floor, p.penalty_per_flag;

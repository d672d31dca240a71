-- plugin/v1 · 520 weakest dimensions and improvement tips             spec: plugin-eval.md §8
-- Reads:    plugin_dims, plugin_features, plugin_anti, plugin_static_sub, plugin_mc,
--           plugin_judge_dims, plugin_params.
-- Produces: plugin_tips (sid, rank, dimension, score, weight, lost, tip) — per skill the
--             measured dimensions that cost the composite most, lost = w_d × (1 − score)
--             (ties: dimension order), at most tips_per_skill of them and only those with
--             lost > 0, each with one concrete tip: the first rule of that dimension whose
--             condition holds, from the static evidence first, then judge / Monte Carlo.
-- lost is ranked at 6 decimals (plugin_cmp), as every score comparison is: the blend's
-- float noise (0.8 × 0.1 / 0.1 = 0.8000000000000002) split an exact tie, so a dimension
-- losing 0.04 at weight 0.10 was tipped before one losing 0.04 at weight 0.20.
CREATE OR REPLACE TEMP TABLE plugin_tips AS
WITH ranked AS (
    SELECT d.sid, d.dimension, d.score, d.weight, d.weight * (1.0 - d.score) AS lost,
           row_number() OVER (PARTITION BY d.sid
                              ORDER BY plugin_cmp(d.weight * (1.0 - d.score)) DESC, d.ord)
               AS rank
    FROM plugin_dims d
    WHERE d.score IS NOT NULL AND d.weight * (1.0 - d.score) > 0
), ctx AS (
    SELECT r.*, f.*, mc.activation_rate, mc.failure_rate, mc.median_tokens, mc.mean_quality,
           jd.score AS judge_score, p.token_cap,
           (SELECT count(*) FROM plugin_anti a
             WHERE a.sid = r.sid AND a.flag = 'DEAD_CROSS_REF') AS dead_refs,
           (SELECT count(*) FROM plugin_anti a
             WHERE a.sid = r.sid AND a.flag = 'ORPHAN_REFERENCE') AS orphan_links
    FROM ranked r
    JOIN plugin_features f ON f.skill_md = r.sid
    CROSS JOIN plugin_params p
    LEFT JOIN plugin_mc mc ON mc.sid = r.sid
    LEFT JOIN plugin_judge_dims jd ON jd.sid = r.sid AND jd.dimension = r.dimension
    WHERE r.rank <= p.tips_per_skill
)
SELECT sid, rank, dimension, score, weight, lost,
  CASE dimension
    WHEN 'triggering_accuracy' THEN CASE
        -- "no description: add one" to a file whose description is there, but unread.
        WHEN desc_len = 0 AND fm_unread IS NOT NULL
            THEN format('line {}: {}: fix it, and its name and description count',
                        fm_unread_line, fm_unread)
        WHEN desc_len = 0
            THEN 'no description: add one to the frontmatter that says what the skill does and "Use when …"'
        WHEN NOT desc_trigger
            THEN 'description has no trigger phrase: add "Use when …"'
        WHEN desc_len < 100
            THEN format('description is {} characters: expand it to 100+ with the situations it covers', desc_len)
        WHEN desc_use_cases < 3
            THEN format('description lists {} comma-separated contexts: name 3+ (", when …", ", for …", ", debugging …")', desc_use_cases)
        WHEN NOT desc_ing_context
            THEN 'describe the context as an activity ("when reviewing …", "for deploying …")'
        WHEN NOT desc_trigger_words AND NOT desc_proactively
            THEN 'say when the model should pick it up unprompted ("Use proactively when …")'
        -- Each point frontmatter_quality (100) can still earn has its own rule, then the
        -- other layers': one catch-all told a skill with a name of its own to give itself one.
        WHEN NOT name_present
            THEN 'give the skill a name in the frontmatter (its name: is empty)'
        WHEN name_is_folder
            THEN 'give the skill a name of its own in the frontmatter, not its folder''s'
        WHEN NOT desc_proactively
            THEN 'add "Use proactively when …" to the description'
        WHEN NOT desc_trigger_words
            THEN 'say in the description how it is invoked ("invoke it …", "triggers automatically …")'
        WHEN activation_rate IS NOT NULL AND activation_rate < 1
            THEN format('Monte Carlo activation is {}%: sharpen the trigger phrases to the prompts that missed',
                        plugin_num_text(activation_rate * 100,
                                        plugin_dec_vs(activation_rate * 100, 100, 1)))
        WHEN judge_score IS NOT NULL AND judge_score < 1
            THEN 'judges rate triggering accuracy low: make the description name the requests it is for'
        ELSE 'the frontmatter earns every point static analysis gives: sharpen the trigger phrases to the prompts that should pick it up'
    END
    WHEN 'orchestration_fitness' THEN CASE
        WHEN orchestrates
            THEN 'remove orchestration wording ("orchestrate", "coordinate", "dispatch"): a skill should be a worker'
        WHEN NOT has_output_format
            THEN 'document the output format (an "## Output format" section, or what JSON it returns)'
        WHEN NOT has_inputs
            THEN 'document the inputs: which parameters or arguments the skill accepts'
        WHEN fences < 2
            THEN format('{} code fence(s): add at least one complete code example', fences)
        WHEN NOT has_returns
            THEN 'say what the skill returns or produces'
        ELSE 'judges rate orchestration fitness low: make inputs and outputs explicit contracts'
    END
    WHEN 'output_quality' THEN CASE
        -- A mean of 1 is not what holds the score down (the judges are); a mean under 1 is
        -- written apart from 1 (0.996 is not "1.0") and from 0 as the report writes numbers.
        WHEN mean_quality IS NOT NULL AND mean_quality < 1
            THEN format('mean output quality is {}: add a worked example of the expected output',
                        plugin_num_text(mean_quality, plugin_dec_vs(mean_quality, 1, 2)))
        ELSE 'judges rate output quality low: add a worked example of the expected output'
    END
    WHEN 'scope_calibration' THEN
        'judges rate scope calibration low: cover one coherent domain, split out unrelated tasks'
    WHEN 'progressive_disclosure' THEN CASE
        -- The length a tip names is the one that scores best for the skill: with a file in
        -- references/ that is 401–600 lines (.60 + .25; 200–400 gets .60 + .15), without
        -- one any of 200–600 (.60). "keep 200–600 lines" told a skill moving detail into
        -- references/ that 250 lines were as good as 500.
        WHEN line_count > 600
            THEN format('SKILL.md has {} lines: move detail into references/ and keep 401–600 lines (the best score with references/)', line_count)
        WHEN line_count < 100 AND reference_files > 0
            THEN format('SKILL.md has only {} lines: flesh it out to 401–600 lines of guidance (the best score with references/)', line_count)
        WHEN line_count < 100
            THEN format('SKILL.md has only {} lines: flesh it out to 200–600 lines of guidance', line_count)
        WHEN NOT has_references_dir OR reference_files = 0
            THEN 'add a references/ folder with the deep-dive material, linked from SKILL.md'
        WHEN NOT has_assets_dir OR asset_files = 0
            THEN 'add an assets/ folder with templates or examples'
        WHEN line_count < 200
            THEN format('SKILL.md has {} lines: 401–600 lines score best with references/', line_count)
        -- Left: 200–400 lines with both folders (.90); 401–600 scores 1, and judges score
        -- no progressive_disclosure. What is missing is the references/ bonus above 400
        -- lines (.25, not .15): "keep SKILL.md a summary" told it to do what it does.
        ELSE format('SKILL.md has {} lines: references/ earns its full bonus above 400 lines (401–600 scores best)', line_count)
    END
    WHEN 'token_efficiency' THEN CASE
        WHEN must_count::DOUBLE / greatest(line_count, 1) > 0.1
            THEN format('{} MUST/NEVER/ALWAYS in {} lines: state rules once, without capitals', must_count, line_count)
        WHEN rep_total > rep_distinct
            THEN format('{} repeated lines: remove the duplicates', rep_total - rep_distinct)
        WHEN median_tokens IS NOT NULL
            THEN format('median run uses {} tokens (cap {}): trim what the model reads',
                        plugin_num_text(median_tokens, 0), plugin_num_text(token_cap, 0))
        ELSE 'cut repeated or boilerplate text'
    END
    WHEN 'robustness' THEN CASE
        WHEN failure_rate IS NOT NULL
            THEN format('Monte Carlo failure rate is {}%: find what makes runs error and guard against it',
                        plugin_num_text(failure_rate * 100,
                                        plugin_dec_vs(failure_rate * 100, 100, 1)))
        ELSE 'judges rate robustness low: cover error cases and what to do when inputs are missing'
    END
    WHEN 'structural_completeness' THEN CASE
        WHEN headings < 6
            THEN format('{} ## / ### headings: structure it into 6+ sections', headings)
        WHEN NOT has_examples
            THEN 'add an "## Examples" section'
        WHEN NOT has_troubleshooting
            THEN 'add a "## Troubleshooting" section'
        WHEN fences < 5
            THEN format('{} code fence(s): add code examples (5+ fences)', fences)
        WHEN languages < 3
            THEN format('code examples use {} language(s): tag fences (```bash, ```json, …)', languages)
        WHEN NOT has_table
            THEN 'add a comparison or decision table'
        ELSE 'add a "when to use" / decision section'
    END
    WHEN 'code_template_quality' THEN 'judges rate the code templates low: make them complete and runnable'
    WHEN 'ecosystem_coherence' THEN CASE
        WHEN dead_refs > 0
            THEN format('{} cross-reference(s) point nowhere: fix or remove them', dead_refs)
        WHEN NOT has_related
            THEN 'add a "Related skills" / "See also" section'
        WHEN cross_refs < 4
            THEN 'link related skills by path (skills/<name>)'
        ELSE 'name the companion skills it works with'
    END
  END AS tip
FROM ctx;

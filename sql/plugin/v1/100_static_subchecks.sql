-- plugin/v1 · 100 static sub-checks                                  spec: plugin-eval.md §3
-- Reads:    plugin_features (one row per skill; raw counts and regex flags, see
--           engine/plugin_features.py), plugin_params.
-- Produces: plugin_static_sub (sid, frontmatter_quality, orchestration_wiring,
--             progressive_disclosure, structural_completeness, token_efficiency,
--             ecosystem_coherence, harness_portability, pushiness) — one row per skill, each
--             sub-check in [0, 1].
-- Bonuses are added left to right in the order PluginEval adds them (`score += …`): an
-- absent bonus adds 0.0, which leaves a double unchanged, so the result is bit-identical.
CREATE OR REPLACE TEMP TABLE plugin_static_sub AS
WITH f AS (
    SELECT f.*, p.*,
        -- description pushiness, capped at 1
        least(1.0::DOUBLE,
            ((((( 0.0::DOUBLE
              + CASE WHEN desc_trigger THEN 0.25::DOUBLE ELSE 0.0 END)
              + CASE WHEN desc_proactively THEN 0.15::DOUBLE ELSE 0.0 END)
              + CASE WHEN desc_trigger_words THEN 0.10::DOUBLE ELSE 0.0 END)
              + CASE WHEN desc_use_cases >= 3 THEN 0.20::DOUBLE
                     WHEN desc_use_cases >= 1 THEN 0.10::DOUBLE ELSE 0.0 END)
              + CASE WHEN desc_ing_context THEN 0.15::DOUBLE ELSE 0.0 END)
              + CASE WHEN desc_len >= 40 THEN 0.10::DOUBLE ELSE 0.0 END
        ) AS pushiness
    FROM plugin_features f, plugin_params p
)
SELECT
    skill_md AS sid,
    -- frontmatter_quality: name + description length + 0.60 × pushiness
    least(1.0::DOUBLE,
          ((0.0::DOUBLE
            + CASE WHEN name_present AND NOT name_is_folder THEN 0.15::DOUBLE
                   WHEN name_present THEN 0.10::DOUBLE ELSE 0.0 END)
            + CASE WHEN desc_len >= 100 THEN 0.25::DOUBLE
                   WHEN desc_len >= 60 THEN 0.20::DOUBLE
                   WHEN desc_len >= 30 THEN 0.15::DOUBLE
                   WHEN desc_len >= 10 THEN 0.05::DOUBLE ELSE 0.0 END)
          + pushiness * 0.60::DOUBLE
    ) AS frontmatter_quality,
    -- orchestration_wiring: workers start at 0.70
    plugin_clamp01(
        ((((0.70::DOUBLE
          + CASE WHEN has_output_format THEN 0.10::DOUBLE ELSE 0.0 END)
          + CASE WHEN has_returns THEN 0.05::DOUBLE ELSE 0.0 END)
          + CASE WHEN has_inputs THEN 0.10::DOUBLE ELSE 0.0 END)
          + CASE WHEN fences >= 2 THEN 0.05::DOUBLE ELSE 0.0 END)
          - CASE WHEN orchestrates THEN 0.15::DOUBLE ELSE 0.0 END
    ) AS orchestration_wiring,
    -- progressive_disclosure: size sweet spot + references/ + assets/
    least(1.0::DOUBLE,
          ((0.0::DOUBLE
            + CASE WHEN line_count BETWEEN 200 AND 600 THEN 0.60::DOUBLE
                   WHEN line_count >= 100 AND line_count < 200 THEN 0.50::DOUBLE
                   WHEN line_count > 600 AND line_count <= 800 THEN 0.40::DOUBLE
                   WHEN line_count < 100 THEN 0.20::DOUBLE
                   ELSE 0.15::DOUBLE END)
            + CASE WHEN has_references_dir AND reference_files > 0
                   THEN CASE WHEN line_count > 400 THEN 0.25::DOUBLE ELSE 0.15::DOUBLE END
                   ELSE 0.0 END)
          + CASE WHEN has_assets_dir AND asset_files > 0 THEN 0.15::DOUBLE ELSE 0.0 END
    ) AS progressive_disclosure,
    -- structural_completeness
    least(1.0::DOUBLE,
          ((((((0.0::DOUBLE
            + CASE WHEN headings >= 6 THEN 0.20::DOUBLE
                   WHEN headings >= 4 THEN 0.15::DOUBLE
                   WHEN headings >= 2 THEN 0.10::DOUBLE ELSE 0.0 END)
            + CASE WHEN fences >= 5 THEN 0.20::DOUBLE
                   WHEN fences >= 3 THEN 0.15::DOUBLE
                   WHEN fences >= 1 THEN 0.10::DOUBLE ELSE 0.0 END)
            + CASE WHEN languages >= 3 THEN 0.15::DOUBLE
                   WHEN languages >= 2 THEN 0.10::DOUBLE ELSE 0.0 END)
            + CASE WHEN has_examples THEN 0.15::DOUBLE ELSE 0.0 END)
            + CASE WHEN has_troubleshooting THEN 0.15::DOUBLE ELSE 0.0 END)
            + CASE WHEN has_table THEN 0.10::DOUBLE ELSE 0.0 END)
          + CASE WHEN has_decision THEN 0.05::DOUBLE ELSE 0.0 END
    ) AS structural_completeness,
    -- token_efficiency: directive density and repeated lines
    plugin_clamp01(
        (1.0::DOUBLE
          - CASE WHEN must_count::DOUBLE / greatest(line_count, 1)::DOUBLE > 0.5 THEN 0.4::DOUBLE
                 WHEN must_count::DOUBLE / greatest(line_count, 1)::DOUBLE > 0.2 THEN 0.2::DOUBLE
                 WHEN must_count::DOUBLE / greatest(line_count, 1)::DOUBLE > 0.1 THEN 0.1::DOUBLE
                 ELSE 0.0 END)
          - CASE WHEN rep_total > 0
                 THEN (1.0::DOUBLE - rep_distinct::DOUBLE / rep_total::DOUBLE) * 0.4::DOUBLE
                 ELSE 0.0 END
    ) AS token_efficiency,
    -- ecosystem_coherence: baseline 0.50
    least(1.0::DOUBLE,
          (0.50::DOUBLE
            + CASE WHEN cross_refs > 0
                   THEN least(0.25::DOUBLE, cross_refs::DOUBLE * 0.08::DOUBLE) ELSE 0.0 END)
          + CASE WHEN has_related THEN 0.25::DOUBLE ELSE 0.0 END
    ) AS ecosystem_coherence,
    -- harness_portability: 1 − the sum (Python sum()) of the findings' severities
    CASE WHEN byte_count > codex_byte_cap AND NOT has_references_dir
              OR len(tool_names) > 0 OR tool_prose
         THEN greatest(0.0::DOUBLE, 1.0::DOUBLE - plugin_fsum(list_filter([
                  CASE WHEN byte_count > codex_byte_cap AND NOT has_references_dir
                       THEN 0.15::DOUBLE END,
                  CASE WHEN len(tool_names) > 0
                       THEN least(0.10::DOUBLE, 0.02::DOUBLE * len(tool_names)::DOUBLE) END,
                  CASE WHEN tool_prose THEN 0.05::DOUBLE END
              ], lambda x: x IS NOT NULL)))
         ELSE 1.0::DOUBLE
    END AS harness_portability,
    pushiness
FROM f;

-- Long form (one row per skill and sub-check, in weight order) for the score and reports.
CREATE OR REPLACE TEMP TABLE plugin_static_sub_long AS
SELECT s.sid, w.sub, w.ord, w.weight,
       CASE w.sub
           WHEN 'frontmatter_quality' THEN s.frontmatter_quality
           WHEN 'orchestration_wiring' THEN s.orchestration_wiring
           WHEN 'progressive_disclosure' THEN s.progressive_disclosure
           WHEN 'structural_completeness' THEN s.structural_completeness
           WHEN 'token_efficiency' THEN s.token_efficiency
           WHEN 'ecosystem_coherence' THEN s.ecosystem_coherence
           WHEN 'harness_portability' THEN s.harness_portability
       END AS score
FROM plugin_static_sub s CROSS JOIN plugin_static_weights w;

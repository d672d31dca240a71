-- plugin/v1 · 010 policy tables and constants          spec: plugin-eval.md §3–§7
-- Reads:    nothing.
-- Produces: plugin_static_weights (sub, ord, weight) — the static layer's sub-check weights,
--             in the order PluginEval sums them (§3);
--           plugin_dimensions (dimension, ord, weight, static_sub, judge_feeds, mc_feeds,
--             b_static, b_judge, b_mc) — the ten dimensions, their composite weights, what
--             feeds each (static sub-check; whether judges score it; the Monte Carlo statistic)
--             and the per-layer blend weights (§5);
--           plugin_layers (layer, ord) — blend order static, judge, mc (§5);
--           plugin_badges (badge, ord, min_composite, min_elo) (§5);
--           plugin_depths (depth, ord, label) (§5);
--           plugin_params (one row) — every other constant of §4, §6 and §7;
--           plugin_grade_cut (grade, min_score) — the letter grades of a 0–100 value (§5);
--           macros plugin_grade(v: 0–100) → letter, plugin_band(x: 0–1) → anchor band.
-- All numbers are DOUBLE (a DECIMAL literal would add in decimal, not in float).
CREATE OR REPLACE TEMP TABLE plugin_static_weights AS
SELECT sub, ord, weight::DOUBLE AS weight FROM (VALUES
    ('frontmatter_quality',     1, 0.32),
    ('orchestration_wiring',    2, 0.23),
    ('progressive_disclosure',  3, 0.14),
    ('structural_completeness', 4, 0.10),
    ('token_efficiency',        5, 0.09),
    ('ecosystem_coherence',     6, 0.06),
    ('harness_portability',     7, 0.06)
) AS t(sub, ord, weight);

CREATE OR REPLACE TEMP TABLE plugin_dimensions AS
SELECT dimension, ord, weight::DOUBLE AS weight, static_sub, judge_feeds, mc_feeds,
       b_static::DOUBLE AS b_static, b_judge::DOUBLE AS b_judge, b_mc::DOUBLE AS b_mc
FROM (VALUES
    ('triggering_accuracy',      1, 0.25, 'frontmatter_quality',     true,  'activation_rate',
                                    0.15, 0.25, 0.60),
    ('orchestration_fitness',    2, 0.20, 'orchestration_wiring',    true,  NULL,
                                    0.10, 0.70, 0.20),
    ('output_quality',           3, 0.15, NULL,                      true,  'mean_quality',
                                    0.00, 0.40, 0.60),
    ('scope_calibration',        4, 0.12, NULL,                      true,  NULL,
                                    0.30, 0.55, 0.15),
    ('progressive_disclosure',   5, 0.10, 'progressive_disclosure',  false, NULL,
                                    0.80, 0.20, 0.00),
    ('token_efficiency',         6, 0.06, 'token_efficiency',        false, 'efficiency_norm',
                                    0.40, 0.10, 0.50),
    ('robustness',               7, 0.05, NULL,                      false, '1 - failure_rate',
                                    0.00, 0.20, 0.80),
    ('structural_completeness',  8, 0.03, 'structural_completeness', false, NULL,
                                    0.90, 0.10, 0.00),
    ('code_template_quality',    9, 0.02, NULL,                      false, NULL,
                                    0.30, 0.70, 0.00),
    ('ecosystem_coherence',     10, 0.02, 'ecosystem_coherence',     false, NULL,
                                    0.85, 0.15, 0.00)
) AS t(dimension, ord, weight, static_sub, judge_feeds, mc_feeds, b_static, b_judge, b_mc);

CREATE OR REPLACE TEMP TABLE plugin_layers AS
SELECT * FROM (VALUES ('static', 1), ('judge', 2), ('mc', 3)) AS t(layer, ord);

-- First tier (by ord) whose composite minimum holds and whose Elo minimum holds or Elo
-- is unknown; no tier → 'none'.
CREATE OR REPLACE TEMP TABLE plugin_badges AS
SELECT badge, ord, min_composite::DOUBLE AS min_composite, min_elo::DOUBLE AS min_elo
FROM (VALUES
    ('Platinum', 1, 90, 1600),
    ('Gold',     2, 80, 1500),
    ('Silver',   3, 70, 1400),
    ('Bronze',   4, 60, 1300)
) AS t(badge, ord, min_composite, min_elo);

-- Depth is the deepest rung whose layers were all supplied for the skill (a ladder: judge
-- results for standard, judge results and Monte Carlo runs for deep).
CREATE OR REPLACE TEMP TABLE plugin_depths AS
SELECT * FROM (VALUES
    ('quick',    1, 'Estimated'),
    ('standard', 2, 'Assessed'),
    ('deep',     3, 'Certified')
) AS t(depth, ord, label);

CREATE OR REPLACE TEMP TABLE plugin_params AS
SELECT
    'plugin/v1' AS scoring_version,         -- names this folder in every record written
    -- §4 anti-patterns and penalty
    15         AS over_constrained_above,   -- OVER_CONSTRAINED: must > this
    20         AS empty_description_below,  -- EMPTY_DESCRIPTION: d < this
    800        AS bloated_lines_above,      -- BLOATED_SKILL: L > this without references/
    0.05::DOUBLE AS penalty_per_flag,
    0.5::DOUBLE  AS penalty_floor,
    -- §3 harness portability
    8192       AS codex_byte_cap,
    -- §6 Monte Carlo
    1.96::DOUBLE AS wilson_z,
    0.95::DOUBLE AS cp_confidence,          -- Clopper–Pearson level (quantiles in Python)
    8000.0::DOUBLE AS token_cap,            -- efficiency_norm = max(0, 1 − median/token_cap)
    1.5::DOUBLE  AS outlier_iqr_factor,
    0.40::DOUBLE AS mc_w_activation,
    0.30::DOUBLE AS mc_w_consistency,
    0.20::DOUBLE AS mc_w_reliability,
    0.10::DOUBLE AS mc_w_efficiency,
    -- §7 Elo
    1500.0::DOUBLE AS elo_start,
    32.0::DOUBLE   AS elo_k,
    400.0::DOUBLE  AS elo_scale,
    500        AS boot_resamples,
    12         AS boot_low_index,           -- 0-based index into the sorted resample ratings
    486        AS boot_high_index,
    -- Resample i of bootstrap b for skill s draws matchup
    -- md5_number('<boot_seed>|<s>|<b>|<i>') mod n: deterministic, independent of the other
    -- skills in the run and of the DuckDB version (MD5 is a fixed standard).
    'runscore-plugin-v1' AS boot_seed,
    -- §8 tips: how many of the weakest weighted dimensions get a tip
    3          AS tips_per_skill;

-- Grades of a 0–100 value (§5): the first row, best first, whose min_score it reaches;
-- under every row, F. A table, not only a CASE: the reports print a score beside its
-- grade apart from these cut-offs (runscore.cli.output.fmt_vs), read from here.
CREATE OR REPLACE TEMP TABLE plugin_grade_cut AS
SELECT * FROM (VALUES
    ('A+', 97.0::DOUBLE), ('A', 93.0::DOUBLE), ('A-', 90.0::DOUBLE),
    ('B+', 87.0::DOUBLE), ('B', 83.0::DOUBLE), ('B-', 80.0::DOUBLE),
    ('C+', 77.0::DOUBLE), ('C', 73.0::DOUBLE), ('C-', 70.0::DOUBLE),
    ('D+', 67.0::DOUBLE), ('D', 63.0::DOUBLE), ('D-', 60.0::DOUBLE)
) AS t(grade, min_score);

CREATE OR REPLACE TEMP MACRO plugin_grade(v) AS
    CASE
        WHEN v IS NULL THEN NULL
        ELSE coalesce((SELECT max_by(g.grade, g.min_score) FROM plugin_grade_cut g
                       WHERE plugin_cmp(v) >= g.min_score), 'F')
    END;

-- Anchor bands of judge scores (§1): F < .20 ≤ D < .40 ≤ C < .60 ≤ B < .80 ≤ A.
CREATE OR REPLACE TEMP MACRO plugin_band(x) AS
    CASE
        WHEN x IS NULL THEN NULL
        WHEN plugin_cmp(x) >= 0.80 THEN 'A'
        WHEN plugin_cmp(x) >= 0.60 THEN 'B'
        WHEN plugin_cmp(x) >= 0.40 THEN 'C'
        WHEN plugin_cmp(x) >= 0.20 THEN 'D'
        ELSE 'F'
    END;

-- routes/v1 · interval methods (documented here; the markdown "Method" note repeats them).
-- Reads: common/v1's rs_shown (defines macros).
-- Produces: macros
--   routes_wilson_lo(p, n, z) / routes_wilson_hi(p, n, z): Wilson score interval of a
--     proportion p observed on n trials (n may be an effective, non-integer sample size).
--   routes_newcombe_lo(p1, n1, p0, n0, z) / routes_newcombe_hi(...): Newcombe's hybrid score
--     interval (method 10, 1998) for p1 - p0 from two Wilson intervals:
--       lo = d - sqrt((p1 - l1)^2 + (u0 - p0)^2),  hi = d + sqrt((u1 - p1)^2 + (p0 - l0)^2).
--   Stratified difference (spec §3 "Effect"): the Mantel-Haenszel risk difference
--     d = sum(w_i (p1_i - p0_i)) / sum(w_i), w_i = n1_i n0_i / (n1_i + n0_i),
--     written as p1* - p0* with p*_g = sum(w_i p_g,i) / sum(w_i). Its interval is the Newcombe
--     hybrid above applied to p1* and p0* with Kish effective sizes
--     n*_g = (sum w_i)^2 / sum(w_i^2 / n_g,i) (stratified Newcombe with MH weights). With one
--     stratum it is exactly Newcombe method 10. Unlike the Sato/Greenland-Robins variance it
--     never collapses to a zero-width interval when every episode succeeded.
--   routes_paired_lo(a, b, c, d, z) / routes_paired_hi(...): Newcombe method 10 for paired
--     proportions (a both succeed, b candidate only, c incumbent only, d both fail); the
--     effect (b - c) / n rests on the discordant pairs, the phi correlation enters the interval.
--   Display: routes_signed(x), routes_pct(x), routes_usd(x) as the reports write numbers;
--     routes_iso(ts) a time as the JSON writes it (engine/packs/routes.py iso());
--     routes_dec_vs(x, b, d), routes_num_vs(x, b, d), routes_signed_vs(x, b),
--     routes_pct_vs(x, b) for a value printed beside the bound it was judged against;
--     routes_days(n) a day count (text), routes_age_days(age) an age as whole days counted
--     up, and routes_count(n, one, many) a count with its noun, singular for 1;
--     routes_shown_label(host, provider, model) and routes_shown_list(l), names as the
--     sentences (headline, why, reasons) write them, each through rs_shown.
--   Statistics written: routes_stat(x), an effect or interval end as routes_cmp rounds it
--     (never -0.0), so what is shown is what was judged.
--   Comparisons: routes_cmp(x), x rounded to 6 decimals, as every threshold comparison
--     rounds it (spec README "Conventions for all numbers"), by the display's rule: the
--     nearest, an exact tie to the even digit, from the double as stored (the value as
--     printf prints it at 6 decimals, read back; README "Rounding for reading"). DuckDB's
--     round() sends a tie away from zero: 0.0078125, an exact double, is 0.007813 there and
--     0.007812 printed, so a value was judged as one number and printed as another.
-- Spec: routes.md §3 "Effect", "Paired evidence".
CREATE OR REPLACE TEMP MACRO routes_cmp(x) AS CAST(printf('%.6f', x::DOUBLE) AS DOUBLE);

-- An effect, an interval bound or width as the routes write it: at the 6 decimals every
-- comparison rounds to (routes_cmp), so a value is judged as JSON and markdown show it, and
-- float noise never shows: two equal rates MH-weighted differed by -1.1e-16, written as the
-- effect. Adding 0.0 turns the -0.0 a tiny negative rounds to into 0.0.
CREATE OR REPLACE TEMP MACRO routes_stat(x) AS routes_cmp(x) + 0.0;

CREATE OR REPLACE TEMP MACRO routes_wilson_lo(p, n, z) AS
    CASE WHEN n > 0 THEN
        greatest(0.0, (p + z * z / (2 * n)
            - z * sqrt(greatest(0.0, p * (1 - p) / n + z * z / (4 * n * n)))) / (1 + z * z / n))
    END;

CREATE OR REPLACE TEMP MACRO routes_wilson_hi(p, n, z) AS
    CASE WHEN n > 0 THEN
        least(1.0, (p + z * z / (2 * n)
            + z * sqrt(greatest(0.0, p * (1 - p) / n + z * z / (4 * n * n)))) / (1 + z * z / n))
    END;

CREATE OR REPLACE TEMP MACRO routes_newcombe_lo(p1, n1, p0, n0, z) AS
    (p1 - p0) - sqrt(pow(p1 - routes_wilson_lo(p1, n1, z), 2)
                     + pow(routes_wilson_hi(p0, n0, z) - p0, 2));

CREATE OR REPLACE TEMP MACRO routes_newcombe_hi(p1, n1, p0, n0, z) AS
    (p1 - p0) + sqrt(pow(routes_wilson_hi(p1, n1, z) - p1, 2)
                     + pow(p0 - routes_wilson_lo(p0, n0, z), 2));

CREATE OR REPLACE TEMP MACRO routes_phi(a, b, c, d) AS
    CASE WHEN (a + b) * (c + d) * (a + c) * (b + d) > 0
         THEN (a * d - b * c) / sqrt(CAST((a + b) AS DOUBLE) * (c + d) * (a + c) * (b + d))
         ELSE 0.0 END;

CREATE OR REPLACE TEMP MACRO routes_paired_lo(a, b, c, d, z) AS
    CASE WHEN a + b + c + d > 0 THEN
        (b - c) / CAST(a + b + c + d AS DOUBLE) - sqrt(greatest(0.0,
            pow((a + b) / CAST(a + b + c + d AS DOUBLE)
                - routes_wilson_lo((a + b) / CAST(a + b + c + d AS DOUBLE), a + b + c + d, z), 2)
            - 2 * routes_phi(a, b, c, d)
                * ((a + b) / CAST(a + b + c + d AS DOUBLE)
                   - routes_wilson_lo((a + b) / CAST(a + b + c + d AS DOUBLE), a + b + c + d, z))
                * (routes_wilson_hi((a + c) / CAST(a + b + c + d AS DOUBLE), a + b + c + d, z)
                   - (a + c) / CAST(a + b + c + d AS DOUBLE))
            + pow(routes_wilson_hi((a + c) / CAST(a + b + c + d AS DOUBLE), a + b + c + d, z)
                  - (a + c) / CAST(a + b + c + d AS DOUBLE), 2)))
    END;

CREATE OR REPLACE TEMP MACRO routes_paired_hi(a, b, c, d, z) AS
    CASE WHEN a + b + c + d > 0 THEN
        (b - c) / CAST(a + b + c + d AS DOUBLE) + sqrt(greatest(0.0,
            pow(routes_wilson_hi((a + b) / CAST(a + b + c + d AS DOUBLE), a + b + c + d, z)
                - (a + b) / CAST(a + b + c + d AS DOUBLE), 2)
            - 2 * routes_phi(a, b, c, d)
                * (routes_wilson_hi((a + b) / CAST(a + b + c + d AS DOUBLE), a + b + c + d, z)
                   - (a + b) / CAST(a + b + c + d AS DOUBLE))
                * ((a + c) / CAST(a + b + c + d AS DOUBLE)
                   - routes_wilson_lo((a + c) / CAST(a + b + c + d AS DOUBLE), a + b + c + d, z))
            + pow((a + c) / CAST(a + b + c + d AS DOUBLE)
                  - routes_wilson_lo((a + c) / CAST(a + b + c + d AS DOUBLE), a + b + c + d, z), 2)))
    END;

-- Display helpers: a route as people read it, a signed effect, a percentage, dollars.
-- Numbers as the markdown report writes them (runscore.cli.output.fmt_float, render.usd):
-- a nonzero value that would read as zero keeps three significant digits (+0.0004, 0.4%),
-- or is a bound for dollars (<$0.0001); from 1e15 on, three significant digits (1e+300).
CREATE OR REPLACE TEMP MACRO routes_route_label(host, provider, model) AS
    coalesce(model, 'unknown model') || ' via ' || coalesce(host, 'unknown host')
    || '/' || coalesce(provider, 'unknown provider');

-- A route as a sentence names it: routes_route_label with each name through common/v1's
-- rs_shown, as every name the routes SQL writes into a headline, why or reason is shown
-- (quoted whole when it holds what would be written escaped): a model holding a
-- right-to-left override read alike with one holding the six characters \u202e. An
-- ordinary name reads as in the label.
CREATE OR REPLACE TEMP MACRO routes_shown_label(host, provider, model) AS
    coalesce(rs_shown(model), 'unknown model') || ' via ' || coalesce(rs_shown(host), 'unknown host')
    || '/' || coalesce(rs_shown(provider), 'unknown provider');

-- Names as a sentence lists them: each through rs_shown, comma-separated.
CREATE OR REPLACE TEMP MACRO routes_shown_list(l) AS
    array_to_string(list_transform(l, lambda x: rs_shown(x)), ', ');

CREATE OR REPLACE TEMP MACRO routes_signed(x) AS
    CASE WHEN x IS NULL THEN 'unknown'
         WHEN x = 0 THEN '0.000'
         WHEN abs(x) >= 1e15 OR NOT regexp_matches(printf('%.3f', x), '[1-9]')
             THEN format('{:+.3g}', x)
         ELSE printf('%+.3f', x) END;

-- A value printed beside the bound it was judged against (a CI width and max_ci_width, an
-- overlap and min_stratum_overlap, a lower bound and -tolerance; an age beside freshness_days
-- needs none: routes_age_days)
-- must never read as that bound, or as on its other side: a width of 0.3004 printed
-- "0.300 exceeds max_ci_width 0.300", an overlap of 49.6% "50% ... below 50%". Both are
-- printed with the fewest decimals from d on at which their texts differ; up to 6, the
-- precision every comparison rounds to, so a value judged different always differs. Equal
-- at 6 decimals (judged equal): d.
CREATE OR REPLACE TEMP MACRO routes_dec_vs(x, b, d) AS
    coalesce(list_filter(range(d, 7),
                         lambda k: printf('%.*f', k, x::DOUBLE) <> printf('%.*f', k, b::DOUBLE))[1],
             d);

-- x beside b, unsigned, with routes_dec_vs(x, b, d) decimals (print b with the same).
CREATE OR REPLACE TEMP MACRO routes_num_vs(x, b, d) AS
    printf('%.*f', routes_dec_vs(x, b, d), x::DOUBLE);

-- A number of days as a sentence writes it ("1 day", "30 days"), from its text: every age
-- (routes_age_days) and freshness_days a reason, headline or why writes goes through it
-- (" days" appended by hand wrote "1 days old").
CREATE OR REPLACE TEMP MACRO routes_days(n) AS n || CASE WHEN n = '1' THEN ' day' ELSE ' days' END;

-- An age in days (before the as-of date: not negative) as every reason, headline, why and
-- Freshness line writes it: whole days counted up, from the age as judged (routes_cmp), so
-- "N days" is more than an integer freshness_days exactly when routes_cmp(age) is, and is the
-- count of dates from the evidence's to the as-of date under the default clock (00:00).
-- Rounded to the nearest (a tie to the even day), 0.29 and 0.5 days read "0 days", beside
-- "later on the as-of date" for a time after the clock (090 routes_age_said).
CREATE OR REPLACE TEMP MACRO routes_age_days(age) AS
    routes_days(CAST(CAST(ceil(routes_cmp(age)) AS BIGINT) AS VARCHAR));

-- A whole count and its noun, singular for 1 ("1 episode", "0 episodes", "2 operations").
CREATE OR REPLACE TEMP MACRO routes_count(n, one, many) AS
    CAST(n AS VARCHAR) || ' ' || CASE WHEN n = 1 THEN one ELSE many END;

-- A percentage of x (a share), beside the share b it was judged against. A share just under
-- 1 is not "100%" either (routes_pct compares with 1): 0.996 is "99.6%".
CREATE OR REPLACE TEMP MACRO routes_pct_vs(x, b) AS
    CASE WHEN x IS NULL THEN 'unknown'
         WHEN x <> 0 AND (abs(100 * x) >= 1e15
                          OR NOT regexp_matches(printf('%.0f', 100 * x), '[1-9]'))
             THEN format('{:.3g}%', 100 * x)
         ELSE printf('%.*f%%', routes_dec_vs(100 * x, 100 * b, 0), 100 * abs(x::DOUBLE) * sign(x)) END;

CREATE OR REPLACE TEMP MACRO routes_pct(x) AS
    routes_pct_vs(x, CASE WHEN x < 0 THEN -1.0 ELSE 1.0 END);

-- A signed value beside the bound b it was judged against (routes_signed's tiny and huge
-- values already read apart from any bound printed with three decimals).
CREATE OR REPLACE TEMP MACRO routes_signed_vs(x, b) AS
    CASE WHEN x IS NULL OR x = 0 OR abs(x) >= 1e15
              OR NOT regexp_matches(printf('%.3f', x), '[1-9]') THEN routes_signed(x)
         ELSE printf('%+.*f', routes_dec_vs(x, b, 3), x::DOUBLE) END;

-- A time (UTC, naive) as the JSON writes it (iso() in engine/packs/routes.py): the year in
-- four digits, and the fraction of a second, six digits, only when there is one
-- (2025-02-20T00:00:01.500000Z; 2025-02-20T00:00:01Z). NULL stays NULL.
CREATE OR REPLACE TEMP MACRO routes_iso(ts) AS
    strftime(ts, '%Y-%m-%dT%H:%M:%S')
    || CASE WHEN strftime(ts, '%f') <> '000000' THEN '.' || strftime(ts, '%f') ELSE '' END
    || 'Z';

-- A time the routes compute with (TIMESTAMP: UTC, naive, as the clock and the episodes' times
-- are read) as a result column gives it: TIMESTAMPTZ, the same instant, as every other time
-- runscore returns (the history's ts and run_ts, a pipeline's started_at). Naive, it read in
-- Arrow and Polars as a time of no zone, beside the history's UTC ones.
CREATE OR REPLACE TEMP MACRO routes_utc(ts) AS timezone('UTC', ts);

CREATE OR REPLACE TEMP MACRO routes_usd(x) AS
    CASE WHEN x IS NULL OR NOT isfinite(x) THEN 'unknown'
         WHEN x <> 0 AND round(x, 4) = 0 THEN CASE WHEN x > 0 THEN '<$0.0001' ELSE '>-$0.0001' END
         WHEN abs(x) >= 1e15 THEN CASE WHEN x < 0 THEN '-' ELSE '' END || format('${:.3g}', abs(x))
         WHEN x < 0 THEN printf('-$%.4f', -x)
         ELSE printf('$%.4f', abs(x)) END;

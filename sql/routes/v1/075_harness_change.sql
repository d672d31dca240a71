-- routes/v1 · harness shifts: does quality move with the harness rather than the model?
-- Reads: routes_harness_steps, routes_mh (analysis 'harness'), routes_activity_routes,
--   routes_policy.
-- Produces: routes_harness_shifts (grain: harness step x route): the within-complexity
--   (Mantel-Haenszel) change in success rate of one route across one fingerprint change,
--   with its interval, direction ('up' | 'down' | NULL) and moved (|effect| > tolerance, the
--   interval excludes 0, and both sides have at least harness_min_labelled_side labelled
--   episodes);
--   routes_harness_changes (grain: step x direction with at least two distinct models that
--   moved that way): activity, harness_from, harness_to, changed_at, direction, models,
--   routes, shifts (list of structs; route_shown: the route as a sentence names it,
--   routes_shown_label), grade ('correlated' when every moving route has at least
--   min_labelled_per_route labelled episodes on both sides, else 'observed').
-- Spec: routes.md §5 harness_change, §6 "harness_change" (at least two models moving the same
--   way by more than the tolerance across one harness-fingerprint change; graded observed or
--   correlated).
CREATE OR REPLACE TEMP TABLE routes_harness_shifts AS
SELECT s.step_id, s.activity, s.harness_from, s.harness_to, s.changed_at,
    r.route_key, r.model, r.route_label,
    routes_shown_label(r.host, r.provider, r.model) AS route_shown,
    m.n1 AS n_to, m.x1 AS succ_to, m.n0 AS n_from, m.x0 AS succ_from,
    m.effect, m.ci_low, m.ci_high,
    CASE WHEN routes_cmp(m.effect) > pol.tolerance AND routes_cmp(m.ci_low) > 0 THEN 'up'
         WHEN routes_cmp(m.effect) < -pol.tolerance AND routes_cmp(m.ci_high) < 0 THEN 'down'
    END AS direction,
    (m.n1 >= pol.harness_min_labelled_side AND m.n0 >= pol.harness_min_labelled_side) AS enough,
    (m.n1 >= pol.min_labelled_per_route AND m.n0 >= pol.min_labelled_per_route) AS full_evidence
FROM routes_harness_steps s
JOIN routes_mh m ON m.analysis = 'harness' AND split_part(m.key, '|', 1) = CAST(s.step_id AS VARCHAR)
JOIN routes_activity_routes r ON r.activity = s.activity
    AND r.route_key = substr(m.key, length(CAST(s.step_id AS VARCHAR)) + 2)
CROSS JOIN routes_policy pol;

CREATE OR REPLACE TEMP TABLE routes_harness_changes AS
SELECT step_id, activity, harness_from, harness_to, changed_at, direction,
    list_sort(list(DISTINCT model)) AS models,
    list(route_label ORDER BY route_key) AS routes,
    list({'route': route_label, 'route_shown': route_shown, 'model': model, 'n_from': n_from, 'succ_from': succ_from,
          'n_to': n_to, 'succ_to': succ_to, 'effect': effect, 'ci_low': ci_low,
          'ci_high': ci_high} ORDER BY route_key) AS shifts,
    CASE WHEN bool_and(full_evidence) THEN 'correlated' ELSE 'observed' END AS grade
FROM routes_harness_shifts
WHERE direction IS NOT NULL AND enough
GROUP BY step_id, activity, harness_from, harness_to, changed_at, direction
HAVING count(DISTINCT model) >= 2;

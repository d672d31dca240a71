-- routes/v1 · the outcome evidence hierarchy as data.
-- Reads: nothing (constants).
-- Produces: routes_signal_strength(kind, strength, counts_for_label):
--   strength in strong | strong_negative | medium_negative | medium | weak | none.
--   routes_signal_values(value, polarity): how a signal `value` reads (positive | negative).
--   routes_negation_values(value): values that say a strong-negative kind did NOT happen
--   (e.g. {"kind": "regression", "value": "none"}).
-- Spec: routes.md §2 (table of signal kinds). assistant_done is listed so it is counted as
--   "seen but never counts"; unknown kinds behave like `none`.
CREATE OR REPLACE TEMP TABLE routes_signal_strength AS
SELECT * FROM (VALUES
    ('gate', 'strong'), ('qe', 'strong'), ('review', 'strong'), ('user', 'strong'),
    ('repair', 'strong_negative'), ('revert', 'strong_negative'),
    ('regression', 'strong_negative'), ('reopened', 'strong_negative'),
    ('retry', 'medium_negative'), ('escalation', 'medium_negative'),
    ('handoff', 'medium'),
    ('session_end', 'weak'),
    ('assistant_done', 'none')
) t(kind, strength);

CREATE OR REPLACE TEMP TABLE routes_signal_values AS
SELECT * FROM (VALUES
    ('pass', 'positive'), ('passed', 'positive'), ('accept', 'positive'),
    ('accepted', 'positive'), ('approve', 'positive'), ('approved', 'positive'),
    ('success', 'positive'), ('succeeded', 'positive'), ('ok', 'positive'),
    ('green', 'positive'), ('merged', 'positive'),
    ('fail', 'negative'), ('failed', 'negative'), ('failure', 'negative'),
    ('reject', 'negative'), ('rejected', 'negative'), ('error', 'negative'),
    ('red', 'negative'), ('changes_requested', 'negative')
) t(value, polarity);

CREATE OR REPLACE TEMP TABLE routes_negation_values AS
SELECT * FROM (VALUES ('none'), ('false'), ('no'), ('absent'), ('clear')) t(value);

-- common/v1 · 000 the quote of an input value in a message (spec README, "The shape every
-- pack shares": a bad line is reported with its path, line number and reason)
-- Shared by every pack that names an input value in a message (pipeline/v1, routes/v1): one
-- definition, so a value reads alike in every pack's messages.
-- Reads: nothing. Produces: macro rs_quote(j): a JSON value as a message quotes it — its
-- JSON text, with each character that shows blank or not at all yet is no ASCII space, or
-- steers how the text around it is drawn (no-break and other Unicode spaces, line and
-- paragraph separators, and every format character, category Cf as of Unicode 15: soft
-- hyphen, zero-width and bidi marks, overrides and isolates, the Arabic letter mark, the
-- byte-order mark, the tags that hide ASCII text, ...) written \uXXXX as JSON may write it
-- (one past U+FFFF as its UTF-16 surrogate pair, \udb40\udc41):
-- "PASS\u00a042/42" is refused, and printed as it is, it read as the "PASS 42/42" it was
-- not. The quote stays JSON that means the same value, unless the JSON text is longer than
-- 80 characters: then it is cut, visibly, to 80 — its first 78 and …" for a string (the
-- closing quote kept: "abc…"), its first 79 and … for any other value — and never inside an
-- escape (\n, \u00e9: the escape is left out whole). Macros rs_unseen_re() (the characters
-- written \uXXXX, as a regular expression) and rs_show_unseen(s) (s with each written so),
-- for a pack's own quote of a whole value (pipeline/v1 009 pl_shown). Macro rs_shown(s): a
-- text as a message or report shows it when it is not quoted anyway, the rule of
-- runscore.engine.quoting.shown: as it is, unless rs_needs_quote(s) (it holds a control
-- character, C1 too, or one rs_unseen_re finds, or starts with "); then quoted as rs_quote
-- quotes a value, but never cut. Every character written escaped (\t, \u202e) is so inside
-- a quote whose own backslashes are escaped (\\), as JSON writes them: "a\u202eb" is a
-- right-to-left override, a\u202eb the six characters, where an escape written in place
-- read alike with them. Macro rs_path(p): a path as a message's file:line writes it
-- (runscore.engine.quoting.path), by rs_shown's rule: as it is, so that tools parsing
-- file:line: keep working, unless it needs the quote (then never cut: a cut path names no
-- file).
CREATE OR REPLACE TEMP MACRO rs_unseen_re() AS
    '[\x{00a0}\x{00ad}\x{0600}-\x{0605}\x{061c}\x{06dd}\x{070f}\x{0890}\x{0891}\x{08e2}'
    || '\x{1680}\x{180e}\x{2000}-\x{200f}\x{2028}-\x{202f}\x{205f}-\x{2064}'
    || '\x{2066}-\x{206f}\x{3000}\x{feff}\x{fff9}-\x{fffb}\x{110bd}\x{110cd}'
    || '\x{13430}-\x{1343f}\x{1bca0}-\x{1bca3}\x{1d173}-\x{1d17a}\x{e0001}'
    || '\x{e0020}-\x{e007f}]';

CREATE OR REPLACE TEMP MACRO rs_show_unseen(s) AS
    CASE WHEN regexp_matches(s, rs_unseen_re())
         THEN array_to_string(list_transform(string_split(s, ''),
                  lambda c: CASE WHEN NOT regexp_matches(c, rs_unseen_re()) THEN c
                                 WHEN unicode(c) < 65536
                                 THEN '\u' || lpad(printf('%x', unicode(c)), 4, '0')
                                 ELSE '\u' || printf('%x', 55296 + ((unicode(c) - 65536) >> 10))
                                      || '\u' || printf('%x', 56320 + ((unicode(c) - 65536) & 1023))
                                 END), '')
         ELSE s END;

-- The longest head of JSON text made of whole characters and whole escapes: a cut never
-- leaves "\u00" or a lone "\" before the ellipsis.
CREATE OR REPLACE TEMP MACRO rs_whole_escapes(t) AS
    regexp_extract(t, '^(?:[^\\]|\\u[0-9A-Fa-f]{4}|\\[^u])*');

CREATE OR REPLACE TEMP MACRO rs_cut(t) AS
    CASE WHEN length(t) <= 80 THEN t
         WHEN starts_with(t, '"') THEN rs_whole_escapes(left(t, 78)) || '…"'
         ELSE rs_whole_escapes(left(t, 79)) || '…' END;

CREATE OR REPLACE TEMP MACRO rs_quote(j) AS rs_show_unseen(rs_cut(CAST(j AS VARCHAR)));

CREATE OR REPLACE TEMP MACRO rs_needs_quote(s) AS
    starts_with(s, '"') OR regexp_matches(s, '[\x00-\x1f\x{7f}-\x{9f}]|' || rs_unseen_re());

CREATE OR REPLACE TEMP MACRO rs_shown(s) AS
    CASE WHEN NOT rs_needs_quote(s) THEN s
         ELSE rs_show_unseen(CAST(to_json(s) AS VARCHAR)) END;

CREATE OR REPLACE TEMP MACRO rs_path(p) AS rs_shown(p);

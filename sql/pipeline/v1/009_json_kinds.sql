-- pipeline/v1 · 009 JSON kind names for diagnostics (spec README: errors name file, line, reason)
-- Reads: nothing. Produces: macro pl_json_kind(j): the JSON type of j in JSON's own
-- words (string, number, boolean, object, array, null), not DuckDB's type names.
CREATE OR REPLACE TEMP MACRO pl_json_kind(j) AS
    CASE json_type(j)
        WHEN 'VARCHAR' THEN 'string'
        WHEN 'BIGINT' THEN 'number'
        WHEN 'UBIGINT' THEN 'number'
        WHEN 'DOUBLE' THEN 'number'
        WHEN 'BOOLEAN' THEN 'boolean'
        WHEN 'OBJECT' THEN 'object'
        WHEN 'ARRAY' THEN 'array'
        ELSE 'null'
    END;

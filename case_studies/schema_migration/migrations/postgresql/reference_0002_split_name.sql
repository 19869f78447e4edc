-- PostgreSQL spelling of ../reference_0002_split_name.sql (strpos for SQLite's instr).
-- Reference migration v1 -> v2: split the name at its first space, centimetres to millimetres, and the
-- default country 'ZZ' (unknown region, ISO 3166 user-assigned) for a missing one.
CREATE TABLE users_v2 (
    id        INTEGER PRIMARY KEY,
    first     TEXT    NOT NULL,
    last      TEXT    NOT NULL,
    height_mm INTEGER NOT NULL,
    country   TEXT    NOT NULL
);
INSERT INTO users_v2 (id, first, last, height_mm, country)
SELECT id,
       CASE WHEN strpos(name, ' ') > 0 THEN substr(name, 1, strpos(name, ' ') - 1) ELSE name END,
       CASE WHEN strpos(name, ' ') > 0 THEN substr(name, strpos(name, ' ') + 1) ELSE '' END,
       height_cm * 10,
       CASE WHEN country = '' THEN 'ZZ' ELSE country END
FROM users;
DROP TABLE users;
ALTER TABLE users_v2 RENAME TO users;

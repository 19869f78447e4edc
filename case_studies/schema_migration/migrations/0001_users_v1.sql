-- Schema v1 of the user table (the migration's own DDL: what production holds before 0002 runs).
-- country = '' means the field is missing.
CREATE TABLE users (
    id        INTEGER PRIMARY KEY,
    name      TEXT    NOT NULL,
    height_cm INTEGER NOT NULL,
    country   TEXT    NOT NULL DEFAULT ''
);

-- The service's own database: customer events (pii = 1: the event holds personal data), their nightly
-- backup copy, and the export support staff read (refreshed by the nightly job from the access rules).
CREATE TABLE events (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL,
    pii INTEGER NOT NULL,
    age_days INTEGER NOT NULL
);
CREATE TABLE event_backups (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL,
    pii INTEGER NOT NULL,
    age_days INTEGER NOT NULL
);
CREATE TABLE support_export (
    event_id INTEGER NOT NULL,
    path TEXT NOT NULL,
    pii INTEGER NOT NULL
);

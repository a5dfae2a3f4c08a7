-- Version 11: longer definition options (an endpoint's client certificate and key, sealed, are a few
-- thousand characters each); NoticeDefinition bounds them (16,000 per value, 64,000 together).
ALTER TABLE herald_definition ALTER COLUMN options TYPE TEXT;

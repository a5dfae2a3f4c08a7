-- Version 3: channel options on definitions (e.g. an HTTP timeout or expected body), as key=value lines.
-- TEXT rather than VARCHAR(8000): 8000 utf8mb4 characters would take half of InnoDB's row size limit.
ALTER TABLE herald_definition ADD COLUMN options TEXT;

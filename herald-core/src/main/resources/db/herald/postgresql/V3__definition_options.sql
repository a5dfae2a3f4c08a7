-- Version 3: channel options on definitions (e.g. an HTTP timeout or expected body), as key=value lines.
ALTER TABLE herald_definition ADD COLUMN options VARCHAR(8000);

-- Version 2: shards, for node affinity (a node may claim only some shards).
ALTER TABLE herald_notice ADD COLUMN shard INT NOT NULL DEFAULT 0;
ALTER TABLE herald_notice_history ADD COLUMN shard INT NOT NULL DEFAULT 0;

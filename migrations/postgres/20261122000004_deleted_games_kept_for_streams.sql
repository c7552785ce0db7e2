-- A deleted game is first only marked deleted, at a version of its own (its
-- `deleted` event, in game_events), and keeps its history a few minutes, so
-- that event streams can still send the changes they had not sent yet, then
-- `deleted`. The store purges marked games with their history afterwards
-- (see `KEEP_DELETED` in src/store.rs). Every read of a game skips marked ones.
ALTER TABLE games ADD COLUMN deleted_at TEXT;
CREATE INDEX games_deleted ON games (deleted_at) WHERE deleted_at IS NOT NULL;

-- Two people, one game: seat names, private games with an invite code,
-- offers (takeback, draw, restart) and clocks. What no query filters on goes
-- into `meta`, one JSON object (names, the invite code's hash, an ending
-- other than resignation, the pending offer, the clock); `private` keeps a
-- game out of listings; `deadline` is when the running side's time runs out,
-- for the sweeper that ends overdue games. An event's `detail` is the
-- offer's type, or the number of moves a takeback leaves.
ALTER TABLE games ADD COLUMN private BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE games ADD COLUMN meta TEXT;
ALTER TABLE games ADD COLUMN deadline TEXT;
CREATE INDEX games_by_deadline ON games (deadline) WHERE deadline IS NOT NULL;
ALTER TABLE game_events ADD COLUMN detail TEXT;

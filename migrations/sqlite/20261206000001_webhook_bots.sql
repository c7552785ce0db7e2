-- Webhook bots (issue 78): a bot player's move URL and the secret its move
-- requests are signed with (`PATCH /v1/players/me`), one row per bot that
-- has set one. The service calls the URL when it is such a bot's turn.
CREATE TABLE bot_hooks (
    player_id TEXT PRIMARY KEY,
    url       TEXT NOT NULL,
    secret    TEXT NOT NULL
);

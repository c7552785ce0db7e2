-- Webhook events record what happened, not their body: `facts` holds the
-- game as the change left it and the move (JSON), and the body is rendered
-- when a delivery is claimed. `body` stays for the events that earlier
-- builds stored rendered (LZ4-compressed); new events leave it empty.
ALTER TABLE webhook_events ADD COLUMN facts TEXT;

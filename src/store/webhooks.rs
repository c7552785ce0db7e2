//! The webhook tables as the service uses them: endpoints, the outbox of
//! deliveries (recorded with each change, see `outbox.rs`), claims of the
//! deliveries due, their results and the attempts' log.
//!
//! Every write goes through a write job (on SQLite, the writer); the reads
//! and, on PostgreSQL, the claims use the pool. A claim on PostgreSQL is a
//! lease (`lease_until`) taken with `FOR UPDATE SKIP LOCKED`, so that of
//! several instances one delivers each event, and another takes it over
//! when the lease runs out (an instance that died); on SQLite (one process)
//! the deliverer keeps its claims in memory.

use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::QueryBuilder;
use uuid::Uuid;

use super::db::{Backend, on_conn, on_reader};
use super::outbox::Subscription;
use super::{Store, StoreError, WriteTx, parse_ts, ts};
use crate::domain::webhook::{EventSet, WebhookEvent};

/// An endpoint as stored.
#[derive(Clone, Debug)]
pub struct WebhookRecord {
    pub id: Uuid,
    pub url: String,
    pub events: Vec<WebhookEvent>,
    /// `whsec_<base64>`.
    pub secret: String,
    pub created_at: DateTime<Utc>,
    /// Sent nothing while set (by `PATCH`, or by the service after a day of
    /// failures); its events wait, then fail.
    pub disabled: bool,
    /// Why the service disabled it; none when it did not.
    pub disabled_reason: Option<String>,
}

/// One attempt to deliver an event, as logged.
#[derive(Clone, Debug)]
pub struct AttemptRecord {
    pub event_id: String,
    pub event_type: String,
    pub attempt: i64,
    /// The HTTP status, if an answer came.
    pub status: Option<i64>,
    pub error: Option<String>,
    pub at: DateTime<Utc>,
    /// When the next attempt is due; none once delivered or given up.
    pub next_attempt_at: Option<DateTime<Utc>>,
}

/// A delivery claimed for sending.
#[derive(Clone, Debug, sqlx::FromRow)]
pub struct Claimed {
    pub seq: i64,
    pub webhook_id: String,
    pub event_id: String,
    pub game_id: String,
    #[sqlx(rename = "type")]
    pub event_type: String,
    /// The body to send, as signed (rendered when claimed).
    #[sqlx(skip)]
    pub body: String,
    /// Attempts made before this one.
    pub attempts: i64,
    pub url: String,
    pub secret: String,
    /// What the body is made of: the facts recorded with the change, or
    /// the body as earlier builds stored it (empty since).
    facts: Option<String>,
    stored: Vec<u8>,
}

/// Where a delivery stands after an attempt.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    /// To be tried again at `next_attempt_at`.
    Pending,
    Delivered,
    /// No retry left.
    Failed,
}

/// The result of one attempt, to record.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub seq: i64,
    pub webhook_id: String,
    pub event_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    /// This attempt's number (1 for the first).
    pub attempt: i64,
    pub status: Option<i64>,
    pub error: Option<String>,
    pub at: String,
    pub next_attempt_at: Option<String>,
    pub state: DeliveryState,
}

impl Outcome {
    /// An attempt at `at`; `next`: when to try again (none: delivered, or
    /// no retry left, as `state` says).
    #[must_use]
    pub fn of(
        claimed: &Claimed,
        at: DateTime<Utc>,
        status: Option<u16>,
        error: Option<String>,
        state: DeliveryState,
        next: Option<DateTime<Utc>>,
    ) -> Outcome {
        Outcome {
            seq: claimed.seq,
            webhook_id: claimed.webhook_id.clone(),
            event_id: claimed.event_id.clone(),
            event_type: claimed.event_type.clone(),
            attempt: claimed.attempts + 1,
            status: status.map(i64::from),
            error,
            at: ts(at),
            next_attempt_at: next.map(ts),
            state,
        }
    }
}

#[derive(sqlx::FromRow)]
struct WebhookRow {
    id: String,
    url: String,
    events: String,
    secret: String,
    created_at: String,
    disabled: bool,
    disabled_reason: Option<String>,
}

impl WebhookRow {
    fn into_record(self) -> Result<WebhookRecord, StoreError> {
        let corrupt = |what: &str| StoreError::Corrupt(format!("webhook {}: {what}", self.id));
        let names: Vec<String> =
            serde_json::from_str(&self.events).map_err(|_| corrupt("events"))?;
        Ok(WebhookRecord {
            id: Uuid::parse_str(&self.id).map_err(|_| corrupt("id"))?,
            events: names
                .iter()
                .map(|n| WebhookEvent::parse(n).ok_or_else(|| corrupt("events")))
                .collect::<Result<_, _>>()?,
            url: self.url.clone(),
            secret: self.secret.clone(),
            created_at: parse_ts(&self.created_at)?,
            disabled: self.disabled,
            disabled_reason: self.disabled_reason.clone(),
        })
    }
}

#[derive(sqlx::FromRow)]
struct AttemptRow {
    event_id: String,
    #[sqlx(rename = "type")]
    event_type: String,
    attempt: i64,
    status: Option<i64>,
    error: Option<String>,
    at: String,
    next_attempt_at: Option<String>,
}

const WEBHOOK_COLUMNS: &str = "id, url, events, secret, created_at, disabled, disabled_reason";

/// Why the service disables an endpoint.
pub const FAILING_REASON: &str = "every delivery failed for longer than --webhook-disable-after";

/// A pending delivery of the window.
#[derive(sqlx::FromRow)]
struct PendingRow {
    seq: i64,
    webhook_id: String,
    game_id: String,
    next_attempt_at: String,
    lease_until: Option<String>,
}

/// What a claim returns of each delivery (`c` the delivery, `w` its
/// endpoint, `e` its event).
const CLAIMED_COLUMNS: &str = "c.seq, c.webhook_id, c.event_id, c.game_id, e.type, e.body AS stored, e.facts, c.attempts, w.url, w.secret";

/// Of the pending deliveries (in the order recorded), those to claim: the
/// first of each game and endpoint, if it is due, not leased, not `held`
/// and not of an endpoint in `full`; at most `limit`.
fn choose(
    pending: &[PendingRow],
    now: &str,
    held: &std::collections::HashSet<i64>,
    full: &[String],
    limit: usize,
) -> Vec<i64> {
    let mut seen = std::collections::HashSet::new();
    let mut chosen = Vec::new();
    for row in pending {
        if !seen.insert((row.webhook_id.as_str(), row.game_id.as_str())) {
            continue;
        }
        let leased = row.lease_until.as_deref().is_some_and(|until| until >= now);
        if row.next_attempt_at.as_str() <= now
            && !leased
            && !held.contains(&row.seq)
            && !full.contains(&row.webhook_id)
        {
            chosen.push(row.seq);
            if chosen.len() >= limit {
                break;
            }
        }
    }
    chosen
}

/// `$1`: deliveries done before it go, and events no delivery refers to;
/// `$2`: the log before it; and what belongs to endpoints that are gone.
const PRUNE: [&str; 5] = [
    "DELETE FROM webhook_deliveries WHERE state <> 'pending' AND done_at < $1",
    "DELETE FROM webhook_attempts WHERE at < $1",
    "DELETE FROM webhook_deliveries WHERE webhook_id NOT IN (SELECT id FROM webhooks)",
    "DELETE FROM webhook_attempts WHERE webhook_id NOT IN (SELECT id FROM webhooks)",
    "DELETE FROM webhook_events WHERE created_at < $1 \
       AND seq NOT IN (SELECT event_seq FROM webhook_deliveries)",
];

/// An endpoint's attempts, newest first (`$1` the endpoint, `$2` how
/// many): the failed ones from the log, the delivered ones from their row.
const ATTEMPTS: &str = "\
SELECT event_id, type, attempt, status, error, at, next_attempt_at FROM ( \
  SELECT a.event_id, a.type, a.attempt, a.status, a.error, a.at, a.next_attempt_at \
    FROM webhook_attempts a WHERE a.webhook_id = $1 \
  UNION ALL \
  SELECT d.event_id, ev.type, d.attempts AS attempt, d.status, NULL AS error, d.done_at AS at, \
      NULL AS next_attempt_at \
    FROM webhook_deliveries d JOIN webhook_events ev ON ev.seq = d.event_seq \
    WHERE d.webhook_id = $1 AND d.state = 'delivered' \
) AS log ORDER BY at DESC, attempt DESC LIMIT $2";

const DELETE: [&str; 3] = [
    "DELETE FROM webhooks WHERE id = $1",
    "DELETE FROM webhook_deliveries WHERE webhook_id = $1",
    "DELETE FROM webhook_attempts WHERE webhook_id = $1",
];

/// What is left of a deleted endpoint: its deliveries and their log.
const LEFT_OF_DELETED: [&str; 2] = [DELETE[1], DELETE[2]];

impl Store {
    /// Every endpoint, oldest first.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn webhooks(&self) -> Result<Vec<WebhookRecord>, StoreError> {
        let sql = format!("SELECT {WEBHOOK_COLUMNS} FROM webhooks ORDER BY created_at, id");
        let rows: Vec<WebhookRow> = on_reader!(self, |c| sqlx::query_as(&sql).fetch_all(c).await)?;
        rows.into_iter().map(WebhookRow::into_record).collect()
    }

    /// One endpoint.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn webhook(&self, id: Uuid) -> Result<Option<WebhookRecord>, StoreError> {
        let sql = format!("SELECT {WEBHOOK_COLUMNS} FROM webhooks WHERE id = $1");
        let row: Option<WebhookRow> = on_reader!(self, |c| sqlx::query_as(&sql)
            .bind(id.to_string())
            .fetch_optional(c)
            .await)?;
        row.map(WebhookRow::into_record).transpose()
    }

    /// Reads the endpoints again, so that events are recorded for those
    /// there are now (a disabled one's too: they wait for it).
    ///
    /// # Errors
    /// Database errors.
    pub async fn reload_webhooks(&self) -> Result<(), StoreError> {
        let subscriptions = self
            .webhooks()
            .await?
            .into_iter()
            .map(|w| Subscription {
                id: w.id,
                events: EventSet::of(w.events),
                disabled: w.disabled,
            })
            .collect();
        self.outbox.set_subscriptions(subscriptions);
        Ok(())
    }

    /// Stores a new endpoint; events are recorded for it from now on.
    ///
    /// # Errors
    /// Database errors.
    pub async fn add_webhook(&self, w: WebhookRecord) -> Result<(), StoreError> {
        let events: Vec<&str> = w.events.iter().map(|e| e.as_str()).collect();
        let events = serde_json::to_string(&events)
            .map_err(|e| StoreError::Corrupt(format!("events as JSON: {e}")))?;
        self.write_webhooks(move |tx| {
            Box::pin(async move {
                tx.direct().await?;
                on_conn!(tx, |c| sqlx::query(
                    "INSERT INTO webhooks (id, url, events, secret, created_at, disabled) \
                     VALUES ($1, $2, $3, $4, $5, $6)"
                )
                .bind(w.id.to_string())
                .bind(&w.url)
                .bind(&events)
                .bind(&w.secret)
                .bind(ts(w.created_at))
                .bind(w.disabled)
                .execute(c)
                .await
                .map(|r| r.rows_affected()))?;
                Ok(())
            })
        })
        .await?;
        self.reload_webhooks().await
    }

    /// Switches an endpoint off or on (by hand: no reason kept, and its
    /// failures counted afresh); none when there is no such endpoint.
    ///
    /// # Errors
    /// Database errors.
    pub async fn set_webhook_disabled(
        &self,
        id: Uuid,
        disabled: bool,
    ) -> Result<Option<WebhookRecord>, StoreError> {
        if self.webhook(id).await?.is_none() {
            return Ok(None);
        }
        let id_text = id.to_string();
        self.write_webhooks(move |tx| {
            Box::pin(async move {
                tx.direct().await?;
                on_conn!(tx, |c| sqlx::query(
                    "UPDATE webhooks SET disabled = $1, disabled_reason = NULL, \
                       failing_since = NULL WHERE id = $2"
                )
                .bind(disabled)
                .bind(&id_text)
                .execute(c)
                .await
                .map(|r| r.rows_affected()))?;
                Ok(())
            })
        })
        .await?;
        self.reload_webhooks().await?;
        self.webhook(id).await
    }

    /// Fails the pending deliveries to disabled endpoints of events recorded
    /// before `before`: they waited as long as retries would have.
    ///
    /// # Errors
    /// Database errors.
    pub async fn fail_disabled(&self, before: DateTime<Utc>) -> Result<(), StoreError> {
        if !self.outbox.any_disabled() {
            return Ok(());
        }
        let (before, now) = (ts(before), ts(Utc::now()));
        self.write_webhooks(move |tx| {
            Box::pin(async move {
                tx.direct().await?;
                on_conn!(tx, |c| sqlx::query(
                    "UPDATE webhook_deliveries SET state = 'failed', done_at = $2, \
                       lease_until = NULL \
                     WHERE state = 'pending' \
                       AND webhook_id IN (SELECT id FROM webhooks WHERE disabled) \
                       AND event_seq IN (SELECT seq FROM webhook_events WHERE created_at < $1)"
                )
                .bind(&before)
                .bind(&now)
                .execute(c)
                .await
                .map(|r| r.rows_affected()))?;
                Ok(())
            })
        })
        .await
    }

    /// Deletes an endpoint with its deliveries and their log; false when
    /// there was none. Transactions that begin from the call on record
    /// nothing for it; those that began before commit before the deletion
    /// (SQLite has one writer), so nothing of it is left. On PostgreSQL,
    /// other instances record for it until they next read the endpoints:
    /// [`Store::drop_deliveries`] a little later removes what they did.
    ///
    /// # Errors
    /// Database errors.
    pub async fn delete_webhook(&self, id: Uuid) -> Result<bool, StoreError> {
        if self.webhook(id).await?.is_none() {
            return Ok(false);
        }
        self.outbox.forget(id);
        let result = self.run_for(id, &DELETE).await;
        self.reload_webhooks().await?;
        result.map(|()| true)
    }

    /// Deletes what is left of a deleted endpoint `id`: deliveries recorded
    /// for it (by transactions that began before its deletion) and their
    /// log.
    ///
    /// # Errors
    /// Database errors.
    pub async fn drop_deliveries(&self, id: Uuid) -> Result<(), StoreError> {
        self.run_for(id, &LEFT_OF_DELETED).await
    }

    /// Runs `statements`, each with the endpoint `id` as `$1`, in one write.
    async fn run_for(&self, id: Uuid, statements: &[&'static str]) -> Result<(), StoreError> {
        let id = id.to_string();
        let statements = statements.to_vec();
        self.write_webhooks(move |tx| {
            Box::pin(async move {
                tx.direct().await?;
                for sql in statements {
                    on_conn!(tx, |c| sqlx::query(sql)
                        .bind(&id)
                        .execute(c)
                        .await
                        .map(|r| r.rows_affected()))?;
                }
                Ok(())
            })
        })
        .await
    }

    /// The attempts to deliver to an endpoint, newest first.
    ///
    /// # Errors
    /// Database errors, or a row that does not decode.
    pub async fn webhook_attempts(
        &self,
        id: Uuid,
        limit: u32,
    ) -> Result<Vec<AttemptRecord>, StoreError> {
        let rows: Vec<AttemptRow> = on_reader!(self, |c| sqlx::query_as(ATTEMPTS)
            .bind(id.to_string())
            .bind(i64::from(limit))
            .fetch_all(c)
            .await)?;
        rows.into_iter()
            .map(|r| {
                Ok(AttemptRecord {
                    at: parse_ts(&r.at)?,
                    next_attempt_at: r.next_attempt_at.as_deref().map(parse_ts).transpose()?,
                    event_id: r.event_id,
                    event_type: r.event_type,
                    attempt: r.attempt,
                    status: r.status,
                    error: r.error,
                })
            })
            .collect()
    }

    /// Up to `limit` deliveries due at `now`, the first pending one of each
    /// game and endpoint among the `window` first pending (in the order
    /// recorded: a game's later events wait for its first, so those past
    /// the window wait for it to move), skipping those in `held` (claimed
    /// already by this instance) and the endpoints in `full`; each with its
    /// body rendered. On PostgreSQL they are leased to this instance until
    /// `lease_until`.
    ///
    /// # Errors
    /// Database errors, or an event that does not decode.
    pub async fn claim_deliveries(
        &self,
        now: DateTime<Utc>,
        lease_until: DateTime<Utc>,
        limit: usize,
        window: usize,
        held: &std::collections::HashSet<i64>,
        full: &[String],
    ) -> Result<Vec<Claimed>, StoreError> {
        let now = ts(now);
        let window = i64::try_from(window).unwrap_or(i64::MAX);
        let pending: Vec<PendingRow> = on_reader!(self, |c| sqlx::query_as(
            "SELECT c.seq, c.webhook_id, c.game_id, c.next_attempt_at, c.lease_until \
             FROM webhook_deliveries c JOIN webhooks w ON w.id = c.webhook_id \
             WHERE c.state = 'pending' AND NOT w.disabled ORDER BY c.seq LIMIT $1"
        )
        .bind(window)
        .fetch_all(c)
        .await)?;
        let chosen = choose(&pending, &now, held, full, limit);
        if chosen.is_empty() {
            return Ok(Vec::new());
        }
        let mut rows: Vec<Claimed> = match &self.backend {
            Backend::Sqlite(sqlite) => {
                let mut q = QueryBuilder::new(format!(
                    "SELECT {CLAIMED_COLUMNS} FROM webhook_deliveries c \
                     JOIN webhooks w ON w.id = c.webhook_id \
                     JOIN webhook_events e ON e.seq = c.event_seq WHERE c.seq IN ("
                ));
                let mut seqs = q.separated(", ");
                for seq in &chosen {
                    seqs.push_bind(*seq);
                }
                q.push(")");
                q.build_query_as().fetch_all(&sqlite.reader).await?
            }
            Backend::Postgres(postgres) => {
                // Leased only if still pending and not leased by another
                // instance meanwhile; rows another instance is leasing
                // right now are skipped, not waited for.
                let sql = format!(
                    "UPDATE webhook_deliveries c SET lease_until = $3 \
                     FROM webhooks w, webhook_events e \
                     WHERE w.id = c.webhook_id AND e.seq = c.event_seq \
                       AND c.seq IN (SELECT seq FROM webhook_deliveries \
                         WHERE seq = ANY($1) AND state = 'pending' \
                           AND (lease_until IS NULL OR lease_until < $2) \
                         FOR UPDATE SKIP LOCKED) \
                     RETURNING {CLAIMED_COLUMNS}"
                );
                sqlx::query_as(&sql)
                    .bind(&chosen)
                    .bind(&now)
                    .bind(ts(lease_until))
                    .fetch_all(&postgres.pool)
                    .await?
            }
        };
        rows.sort_by_key(|c| c.seq);
        let render = self
            .outbox
            .render()
            .ok_or_else(|| StoreError::Corrupt("no renderer for webhook events".into()))?;
        for r in &mut rows {
            r.body = super::outbox::body(&**render, &r.event_type, r.facts.as_deref(), &r.stored)?;
        }
        Ok(rows)
    }

    /// Records attempts' outcomes: each delivery's new state (a delivered
    /// one keeps its status and time on its row), a failed attempt in the
    /// log, and each endpoint's run of failures: one whose every delivery
    /// has failed since before `disable_before` is disabled
    /// ([`FAILING_REASON`]). True when one was.
    ///
    /// # Errors
    /// Database errors.
    pub async fn record_outcomes(
        &self,
        outcomes: &[Outcome],
        disable_before: DateTime<Utc>,
    ) -> Result<bool, StoreError> {
        let outcomes = outcomes.to_vec();
        let disable_before = ts(disable_before);
        let disabled = self.write_webhooks(move |tx| {
            Box::pin(async move {
                tx.direct().await?;
                for o in &outcomes {
                    let state = match o.state {
                        DeliveryState::Pending => "pending",
                        DeliveryState::Delivered => "delivered",
                        DeliveryState::Failed => "failed",
                    };
                    let delivered = o.state == DeliveryState::Delivered;
                    on_conn!(tx, |c| sqlx::query(
                        "UPDATE webhook_deliveries SET state = $1, attempts = $2, \
                           next_attempt_at = coalesce($3, next_attempt_at), lease_until = NULL, \
                           status = $4, done_at = $5 WHERE seq = $6"
                    )
                    .bind(state)
                    .bind(o.attempt)
                    .bind(&o.next_attempt_at)
                    .bind(o.status.filter(|_| delivered))
                    .bind((o.state != DeliveryState::Pending).then_some(&o.at))
                    .bind(o.seq)
                    .execute(c)
                    .await
                    .map(|r| r.rows_affected()))?;
                }
                let failed: Vec<&Outcome> = outcomes
                    .iter()
                    .filter(|o| o.state != DeliveryState::Delivered)
                    .collect();
                if !failed.is_empty() {
                    on_conn!(tx, |c| {
                        let mut q = QueryBuilder::new(
                            "INSERT INTO webhook_attempts \
                             (webhook_id, event_id, type, attempt, status, error, at, next_attempt_at) ",
                        );
                        q.push_values(&failed, |mut b, o| {
                            b.push_bind(&o.webhook_id)
                                .push_bind(&o.event_id)
                                .push_bind(&o.event_type)
                                .push_bind(o.attempt)
                                .push_bind(o.status)
                                .push_bind(&o.error)
                                .push_bind(&o.at)
                                .push_bind(&o.next_attempt_at);
                        });
                        q.build().execute(c).await.map(|r| r.rows_affected())
                    })?;
                }
                let mut disabled = 0;
                for o in &outcomes {
                    let failed = o.state != DeliveryState::Delivered;
                    let sql = if failed {
                        "UPDATE webhooks SET failing_since = coalesce(failing_since, $2) \
                         WHERE id = $1"
                    } else {
                        "UPDATE webhooks SET failing_since = NULL WHERE id = $1"
                    };
                    on_conn!(tx, |c| {
                        let query = sqlx::query(sql).bind(&o.webhook_id);
                        let query = if failed { query.bind(&o.at) } else { query };
                        query.execute(c).await.map(|r| r.rows_affected())
                    })?;
                    if failed {
                        disabled += on_conn!(tx, |c| sqlx::query(
                            "UPDATE webhooks SET disabled = TRUE, disabled_reason = $3 \
                             WHERE id = $1 AND NOT disabled AND failing_since < $2"
                        )
                        .bind(&o.webhook_id)
                        .bind(&disable_before)
                        .bind(FAILING_REASON)
                        .execute(c)
                        .await
                        .map(|r| r.rows_affected()))?;
                    }
                }
                Ok(disabled > 0)
            })
        })
        .await?;
        if disabled {
            self.reload_webhooks().await?;
        }
        Ok(disabled)
    }

    /// Deletes deliveries done before `done_before`, attempts logged before
    /// `logged_before`, and what belongs to endpoints that are gone.
    ///
    /// # Errors
    /// Database errors.
    pub async fn prune_webhooks(
        &self,
        done_before: DateTime<Utc>,
        logged_before: DateTime<Utc>,
    ) -> Result<(), StoreError> {
        let (done, logged) = (ts(done_before), ts(logged_before));
        self.write_webhooks(move |tx| {
            Box::pin(async move {
                tx.direct().await?;
                for (i, sql) in PRUNE.into_iter().enumerate() {
                    on_conn!(tx, |c| {
                        let query = sqlx::query(sql);
                        let query = match i {
                            1 => query.bind(&logged),
                            _ if sql.contains("$1") => query.bind(&done),
                            _ => query,
                        };
                        query.execute(c).await.map(|r| r.rows_affected())
                    })?;
                }
                Ok(())
            })
        })
        .await
    }

    /// Deliveries waiting to be made (due or not).
    ///
    /// # Errors
    /// Database errors.
    pub async fn outbox_depth(&self) -> Result<i64, StoreError> {
        let sql = "SELECT count(*) FROM webhook_deliveries WHERE state = 'pending'";
        Ok(on_reader!(self, |c| sqlx::query_scalar::<_, i64>(sql)
            .fetch_one(c)
            .await)?)
    }

    /// Resolves after a commit that recorded events (or at once if one did
    /// since the last call).
    pub async fn events_recorded(&self) {
        self.outbox.recorded.notified().await;
    }

    /// The outbox: where the layer that renders games sets its renderer.
    #[must_use]
    pub fn outbox(&self) -> &super::Outbox {
        &self.outbox
    }

    /// Runs a write of the webhook tables.
    async fn write_webhooks<T, F>(&self, f: F) -> Result<T, StoreError>
    where
        T: Send + 'static,
        F: for<'t> FnOnce(
                &'t mut WriteTx,
            )
                -> futures_util::future::BoxFuture<'t, Result<T, StoreError>>
            + Send
            + 'static,
    {
        self.write::<T, StoreError>(None, Box::new(f)).await
    }
}

//! Webhooks: the operators' endpoints, and the deliverer that sends the
//! events the writer recorded in the outbox (see `store/db/outbox.rs`).
//!
//! Delivery: at least once, in order per game and endpoint. The deliverer
//! claims the first pending delivery of each game and endpoint that is due
//! (a game's next event waits until its last is delivered or given up), sends
//! it signed as the Standard Webhooks specification says, and records the
//! outcome: delivered on a 2xx; otherwise tried again after the next wait
//! of the schedule (`--webhook-retry`), and marked failed after the last.
//! Each endpoint has at most [`PER_ENDPOINT`] requests in flight, each task
//! its own, so a slow endpoint delays no other. Redirects are not followed.
//!
//! The address guard: an endpoint whose host resolves to a loopback,
//! private, link-local or unspecified address is refused at registration and
//! again at each delivery (the resolver the HTTP client uses drops such
//! addresses, so what DNS says at the moment of connecting counts), unless
//! `--webhook-allow-private`.

use std::collections::{HashMap, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD as BASE64;
use chrono::Utc;
use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use tokio::sync::{Semaphore, mpsc};
use uuid::Uuid;

use super::{Result, Service, ServiceError};
use crate::domain::webhook::WebhookEvent;
use crate::store::{AttemptRecord, Claimed, DeliveryState, FAILING_REASON, Outcome, WebhookRecord};

/// Requests in flight to one endpoint at most.
pub const PER_ENDPOINT: usize = 8;
/// Deliveries this instance holds (claimed, in flight or waiting for an
/// endpoint's turn) at most, in all and per endpoint. Claims are made for
/// many at a time, and at most every [`CLAIM_EVERY`] (each looks through
/// the pending deliveries), so that under a backlog the deliverer costs
/// the moves little.
const MAX_HELD: usize = 1024;
const HOLD_PER_ENDPOINT: usize = 64;
const CLAIM_EVERY: Duration = Duration::from_millis(20);
/// While the writer has taken a busy batch (see `Store::busy_within`)
/// within [`BUSY_WINDOW`], the deliverer makes one round of claims a
/// [`BUSY_ROUND`] only (its claims and outcomes are reads and writes of the
/// same database, and its sending takes the same cores), and catches up when
/// the moves let it.
const BUSY_WINDOW: Duration = Duration::from_millis(250);
const BUSY_ROUND: Duration = Duration::from_millis(250);
/// Pending deliveries a claim looks through (in the order recorded) for
/// the first of each game and endpoint: a game's later events wait for its
/// first, so those past the window wait for it to move. While the writer is
/// busy, a round claims [`HOLD_PER_ENDPOINT`] per endpoint at most, which a
/// smaller window finds as well, for less of the database's time.
const WINDOW_ROWS: usize = 2048;
const BUSY_WINDOW_ROWS: usize = 512;
/// How long a claim on PostgreSQL lasts: another instance takes the
/// delivery over after it (the one that claimed it died).
const LEASE: Duration = Duration::from_mins(1);
/// A delivery's answer must come within this.
pub const TIMEOUT: Duration = Duration::from_secs(10);
/// How often the deliverer looks for due deliveries when nothing wakes it
/// (retries falling due, other instances' events).
const POLL: Duration = Duration::from_millis(250);
/// The deliverer's first and longest wait after a database error.
const FAILING_FIRST: Duration = Duration::from_millis(500);
const FAILING_MOST: Duration = Duration::from_secs(8);
/// How long the deliverer gathers what woke it before acting on it.
const GATHER: Duration = Duration::from_millis(5);
/// How often the endpoints are read again (another instance's changes) and
/// the outbox counted.
const RELOAD: Duration = Duration::from_secs(1);
/// Done deliveries are kept this long, the attempts' log longer.
const KEEP_DONE: Duration = Duration::from_hours(24);
const KEEP_LOG: Duration = Duration::from_hours(24 * 7);
const PRUNE_EVERY: Duration = Duration::from_mins(10);
/// The longest URL accepted.
const MAX_URL: usize = 2000;

/// How webhooks behave (`--webhook-*`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookSettings {
    /// The waits before each retry; after the last, a delivery is failed.
    pub retry: Vec<Duration>,
    /// Deliver to loopback and private addresses too (tests, a backend on
    /// the same network).
    pub allow_private: bool,
    /// An endpoint whose every delivery has failed for this long is
    /// disabled.
    pub disable_after: Duration,
}

/// The waits before each retry of a delivery, by default (`--webhook-retry`).
pub const DEFAULT_RETRY: [Duration; 6] = [
    Duration::from_secs(5),
    Duration::from_secs(30),
    Duration::from_mins(2),
    Duration::from_mins(10),
    Duration::from_hours(1),
    Duration::from_hours(6),
];

/// How long an endpoint's deliveries may all fail before the service
/// disables it, by default (`--webhook-disable-after`).
pub const DEFAULT_DISABLE_AFTER: Duration = Duration::from_hours(24);

impl Default for WebhookSettings {
    fn default() -> WebhookSettings {
        WebhookSettings {
            retry: DEFAULT_RETRY.to_vec(),
            allow_private: false,
            disable_after: DEFAULT_DISABLE_AFTER,
        }
    }
}

impl WebhookSettings {
    /// How long a delivery is retried in all: how long a disabled
    /// endpoint's events wait for it.
    fn retry_total(&self) -> Duration {
        self.retry.iter().sum()
    }
}

/// Whether the guard refuses to deliver to `ip`: every address that is not
/// global unicast in IANA's special-purpose registries, in every spelling.
///
/// IPv4: not global by the `ip_network` crate's reading of the registry
/// (private, shared, loopback, link-local, "this network", IETF protocol
/// assignments, documentation, benchmarking, reserved, broadcast), or
/// multicast. IPv6: an IPv4 address inside it (mapped `::ffff:0:0/96`, or
/// NAT64 `64:ff9b::/96`) is judged as that address; otherwise only global
/// unicast `2000::/3` passes, and of it not documentation (`2001:db8::/32`,
/// `3fff::/20`), nor the IETF protocol assignments `2001::/23` (Teredo,
/// benchmarking, ORCHID), nor 6to4 `2002::/16`: whatever is outside
/// `2000::/3` (loopback, unspecified, IPv4-compatible, unique and site
/// local, link-local, multicast, discard) is refused by that.
#[must_use]
pub fn refused_address(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => !global_v4(a),
        IpAddr::V6(a) => !global_v6(a),
    }
}

fn global_v4(a: std::net::Ipv4Addr) -> bool {
    ip_network::Ipv4Network::from(a).is_global() && !a.is_multicast()
}

fn global_v6(a: std::net::Ipv6Addr) -> bool {
    let s = a.segments();
    let nat64 = s[..6] == [0x64, 0xff9b, 0, 0, 0, 0];
    if let Some(v4) = a.to_ipv4_mapped() {
        return global_v4(v4);
    }
    if nat64 {
        let [.., hi, lo] = s;
        return global_v4(std::net::Ipv4Addr::from(
            (u32::from(hi) << 16) | u32::from(lo),
        ));
    }
    (s[0] & 0xe000) == 0x2000
        && ip_network::Ipv6Network::from(a).is_unicast_global()
        && !(s[0] == 0x2001 && s[1] < 0x0200)
        && s[0] != 0x2002
        && !(s[0] == 0x3fff && s[1] < 0x1000)
}

/// The Standard Webhooks signature of a delivery: `v1,` and the base64 of
/// the HMAC-SHA256 of `<id>.<timestamp>.<body>`, keyed by the secret's
/// bytes (the base64 after `whsec_`).
#[must_use]
pub fn sign(secret: &str, id: &str, timestamp: i64, body: &str) -> Option<String> {
    let key = BASE64.decode(secret.strip_prefix("whsec_")?).ok()?;
    let mut mac = Hmac::<Sha256>::new_from_slice(&key).ok()?;
    mac.update(format!("{id}.{timestamp}.").as_bytes());
    mac.update(body.as_bytes());
    Some(format!("v1,{}", BASE64.encode(mac.finalize().into_bytes())))
}

/// A new endpoint secret: `whsec_` and 32 random bytes in base64.
pub(super) fn new_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    format!("whsec_{}", BASE64.encode(bytes))
}

/// Checks an endpoint's URL: absolute `http` or `https` with a host, and,
/// unless `allow_private`, a host whose every address the guard accepts.
pub(super) async fn check_url(url: &str, allow_private: bool) -> Result<reqwest::Url> {
    let refused = |why: String| ServiceError::WebhookUrlRefused(why);
    if url.len() > MAX_URL {
        return Err(refused(format!(
            "the URL is longer than {MAX_URL} characters"
        )));
    }
    let parsed = reqwest::Url::parse(url).map_err(|e| refused(format!("not a URL: {e}")))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(refused("the URL must be http or https".into()));
    }
    let Some(host) = parsed.host_str().map(str::to_owned) else {
        return Err(refused("the URL has no host".into()));
    };
    if allow_private {
        return Ok(parsed);
    }
    let port = parsed.port_or_known_default().unwrap_or(443);
    let host = host
        .trim_start_matches('[')
        .trim_end_matches(']')
        .to_owned();
    let addresses: Vec<SocketAddr> = match host.parse::<IpAddr>() {
        Ok(ip) => vec![SocketAddr::new(ip, port)],
        Err(_) => tokio::net::lookup_host((host.as_str(), port))
            .await
            .map_err(|e| refused(format!("{host} does not resolve: {e}")))?
            .collect(),
    };
    if addresses.is_empty() {
        return Err(refused(format!("{host} does not resolve")));
    }
    if let Some(a) = addresses.iter().find(|a| refused_address(a.ip())) {
        return Err(refused(format!(
            "{host} resolves to {}, a loopback, private, link-local or unspecified address",
            a.ip()
        )));
    }
    Ok(parsed)
}

/// The HTTP client's resolver: drops the addresses the guard refuses.
struct GuardedResolver;

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        Box::pin(async move {
            let all: Vec<SocketAddr> = tokio::net::lookup_host((name.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = all
                .into_iter()
                .filter(|a| !refused_address(a.ip()))
                .collect();
            if kept.is_empty() {
                return Err(format!(
                    "{} resolves only to loopback, private, link-local or unspecified addresses",
                    name.as_str()
                )
                .into());
            }
            Ok(Box::new(kept.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The HTTP client of calls to the URLs people give (webhook endpoints,
/// webhook bots): redirects not followed, [`TIMEOUT`] for an answer at
/// most, and unless `allow_private` the guard's resolver.
pub(super) fn client(allow_private: bool, user_agent: &str) -> reqwest::Result<reqwest::Client> {
    let mut client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT)
        .connect_timeout(TIMEOUT)
        .pool_max_idle_per_host(PER_ENDPOINT)
        .user_agent(user_agent);
    if !allow_private {
        client = client.dns_resolver(Arc::new(GuardedResolver));
    }
    client.build()
}

/// `url` parsed, unless the address written in it is one the guard refuses
/// (the resolver guards the names).
pub(super) fn guarded_url(
    url: &str,
    allow_private: bool,
) -> std::result::Result<reqwest::Url, String> {
    let url = reqwest::Url::parse(url).map_err(|e| format!("bad URL: {e}"))?;
    if !allow_private
        && let Some(ip) = url
            .host_str()
            .map(|h| h.trim_start_matches('[').trim_end_matches(']'))
            .and_then(|h| h.parse::<IpAddr>().ok())
        && refused_address(ip)
    {
        return Err(format!(
            "{ip} is a loopback, private, link-local or unspecified address"
        ));
    }
    Ok(url)
}

impl Service {
    /// Registers an endpoint for `events`; answers it with its secret.
    ///
    /// # Errors
    /// `WebhookUrlRefused`, `InvalidOption` (no event, an unknown one),
    /// store errors.
    pub async fn add_webhook(&self, url: &str, events: &[String]) -> Result<WebhookRecord> {
        let mut wanted = Vec::new();
        for name in events {
            let event = WebhookEvent::parse(name).ok_or_else(|| {
                ServiceError::InvalidOption(format!(
                    "`{name}` is not an event: use {}",
                    WebhookEvent::ALL.map(WebhookEvent::as_str).join(", ")
                ))
            })?;
            if !wanted.contains(&event) {
                wanted.push(event);
            }
        }
        if wanted.is_empty() {
            return Err(ServiceError::InvalidOption(
                "`events` must name at least one event".into(),
            ));
        }
        let url = check_url(url, self.webhooks.allow_private).await?;
        let record = WebhookRecord {
            id: Uuid::now_v7(),
            url: url.to_string(),
            events: wanted,
            secret: new_secret(),
            // Stored to the microsecond: answered as it will be read back.
            created_at: chrono::SubsecRound::trunc_subsecs(self.clock.now(), 6),
            disabled: false,
            disabled_reason: None,
        };
        self.store.add_webhook(record.clone()).await?;
        Ok(record)
    }

    /// Every endpoint, oldest first.
    ///
    /// # Errors
    /// Store errors.
    pub async fn webhooks(&self) -> Result<Vec<WebhookRecord>> {
        Ok(self.store.webhooks().await?)
    }

    /// Deletes an endpoint, with its pending deliveries and their log.
    /// Other instances (PostgreSQL) may record events for it until they
    /// next read the endpoints (every `RELOAD`): what they recorded is
    /// deleted once that has passed twice over (and the deliverer's prune
    /// removes any delivery whose endpoint is gone, should this instance
    /// stop before).
    ///
    /// # Errors
    /// `WebhookNotFound`, store errors.
    pub async fn delete_webhook(&self, id: Uuid) -> Result<()> {
        if !self.store.delete_webhook(id).await? {
            return Err(ServiceError::WebhookNotFound);
        }
        let store = self.store.clone();
        tokio::spawn(async move {
            tokio::time::sleep(2 * RELOAD).await;
            if let Err(e) = store.drop_deliveries(id).await
                && !store.is_closed()
            {
                tracing::warn!(error = %e, webhook = %id, "dropping a deleted endpoint's deliveries failed");
            }
        });
        Ok(())
    }

    /// Switches an endpoint off (it is sent nothing; its events wait at most
    /// as long as retries would, then fail) or on again.
    ///
    /// # Errors
    /// `WebhookNotFound`, store errors.
    pub async fn set_webhook_disabled(&self, id: Uuid, disabled: bool) -> Result<WebhookRecord> {
        self.store
            .set_webhook_disabled(id, disabled)
            .await?
            .ok_or(ServiceError::WebhookNotFound)
    }

    /// An endpoint's delivery attempts, newest first.
    ///
    /// # Errors
    /// `WebhookNotFound`, store errors.
    pub async fn webhook_attempts(&self, id: Uuid, limit: u32) -> Result<Vec<AttemptRecord>> {
        if self.store.webhook(id).await?.is_none() {
            return Err(ServiceError::WebhookNotFound);
        }
        Ok(self.store.webhook_attempts(id, limit).await?)
    }

    /// Starts the deliverer (one per instance): its loop on the service's
    /// runtime, and the thread that sends.
    ///
    /// # Errors
    /// When the sending thread cannot be started.
    pub fn spawn_deliverer(&self) -> anyhow::Result<()> {
        let (sending, to_send) = mpsc::unbounded_channel();
        let allow_private = self.webhooks.allow_private;
        std::thread::Builder::new()
            .name("webhook-sender".into())
            .spawn(move || sender(to_send, allow_private))?;
        let deliverer = Deliverer {
            service: self.clone(),
            sending,
            held: HashSet::new(),
            endpoints: HashMap::new(),
        };
        tokio::spawn(deliverer.run());
        Ok(())
    }
}

/// A delivery handed to the sending thread.
struct Sending {
    claimed: Claimed,
    /// Its endpoint's turns: held while the request is in flight.
    turns: Arc<Semaphore>,
    retry: Arc<[Duration]>,
    done: mpsc::UnboundedSender<Outcome>,
}

/// The sending thread: a runtime of its own at the lowest scheduling
/// priority (nice 19), where the HTTP client and its connections live.
/// Deliveries take what CPU the moves leave: under a load that uses every
/// core they fall behind (the outbox holds them, durably) and catch up when
/// it eases, rather than slowing the moves down.
fn sender(mut to_send: mpsc::UnboundedReceiver<Sending>, allow_private: bool) {
    if let Err(e) = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 19) {
        tracing::info!(error = %e, "the webhook sender runs at normal priority");
    }
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(e) => {
            tracing::error!(error = %e, "webhooks cannot be sent: no runtime for the sender");
            return;
        }
    };
    runtime.block_on(async move {
        let client = match client(
            allow_private,
            concat!("Tabula-Webhooks/", env!("CARGO_PKG_VERSION")),
        ) {
            Ok(client) => client,
            Err(e) => {
                tracing::error!(error = %e, "webhooks cannot be sent: no HTTP client");
                return;
            }
        };
        while let Some(job) = to_send.recv().await {
            let client = client.clone();
            tokio::spawn(async move {
                let Ok(_turn) = job.turns.acquire_owned().await else {
                    return;
                };
                let outcome = deliver(&client, &job.claimed, &job.retry, allow_private).await;
                let _ = job.done.send(outcome);
            });
        }
    });
}

/// The deliverer's state: what it holds, and each endpoint's turns.
struct Deliverer {
    service: Service,
    /// To the sending thread.
    sending: mpsc::UnboundedSender<Sending>,
    /// Deliveries claimed and not yet recorded as tried.
    held: HashSet<i64>,
    /// Per endpoint: its turns (requests in flight) and how many it holds.
    endpoints: HashMap<String, (Arc<Semaphore>, usize)>,
}

impl Deliverer {
    async fn run(mut self) {
        let (done_tx, mut done_rx) = mpsc::unbounded_channel::<Outcome>();
        let mut outcomes: Vec<Outcome> = Vec::new();
        let mut reloaded = tokio::time::Instant::now();
        let mut pruned = tokio::time::Instant::now();
        let mut claimed = tokio::time::Instant::now() - CLAIM_EVERY;
        let mut failing = Duration::ZERO;
        let store = self.service.store.clone();
        loop {
            if store.is_closed() {
                return;
            }
            while let Ok(o) = done_rx.try_recv() {
                outcomes.push(o);
            }
            // After a database error the deliverer waits before its next
            // query (longer each time, up to a few seconds): while the
            // database is away its polls would only take the pool's
            // connection attempts from the writes that answer users.
            if failing > Duration::ZERO {
                tokio::time::sleep(failing).await;
            }
            let mut failed = false;
            let busy = store.busy_within(BUSY_WINDOW);
            let due = if busy { BUSY_ROUND } else { CLAIM_EVERY };
            let round = claimed.elapsed() >= due;
            // While the writer is busy, outcomes wait for the round's claim
            // and go in one write (as they come, they took a write each
            // few milliseconds, each a transaction of its own on the
            // writer's path); the deliveries stay held meanwhile.
            if !outcomes.is_empty() && (!busy || round) {
                failed |= !self.record(&mut outcomes).await;
            }
            if reloaded.elapsed() >= RELOAD && !failed {
                reloaded = tokio::time::Instant::now();
                if let Err(e) = store.reload_webhooks().await {
                    tracing::warn!(error = %e, "reading the webhook endpoints failed");
                    failed = true;
                }
                if let Ok(depth) = store.outbox_depth().await {
                    self.service.metrics.set_outbox_depth(depth);
                }
                // A disabled endpoint's events wait as long as retries would.
                let waited = chrono::Duration::from_std(self.service.webhooks.retry_total())
                    .unwrap_or_default();
                if let Err(e) = store.fail_disabled(Utc::now() - waited).await {
                    tracing::warn!(error = %e, "failing a disabled endpoint's deliveries failed");
                    failed = true;
                }
            }
            if pruned.elapsed() >= PRUNE_EVERY {
                pruned = tokio::time::Instant::now();
                let now = Utc::now();
                let done = now - chrono::Duration::from_std(KEEP_DONE).unwrap_or_default();
                let logged = now - chrono::Duration::from_std(KEEP_LOG).unwrap_or_default();
                if let Err(e) = store.prune_webhooks(done, logged).await {
                    tracing::warn!(error = %e, "pruning webhook deliveries failed");
                }
            }
            if !failed && ((self.held.is_empty() && !busy) || round) {
                claimed = tokio::time::Instant::now();
                failed |= !self.claim(&done_tx, busy).await;
            }
            failing = if failed {
                (failing * 2).clamp(FAILING_FIRST, FAILING_MOST)
            } else {
                Duration::ZERO
            };
            tokio::select! {
                () = store.events_recorded() => {}
                Some(o) = done_rx.recv() => outcomes.push(o),
                () = tokio::time::sleep(POLL) => {}
            }
            // What comes meanwhile is taken in the same round: one claim
            // and one write of outcomes for many deliveries.
            tokio::time::sleep(GATHER).await;
        }
    }

    /// Claims what is due and starts sending it; false when the database
    /// failed.
    async fn claim(&mut self, done: &mpsc::UnboundedSender<Outcome>, busy: bool) -> bool {
        let room = MAX_HELD.saturating_sub(self.held.len());
        if room == 0 {
            return true;
        }
        let full: Vec<String> = self
            .endpoints
            .iter()
            .filter(|(_, (_, held))| *held >= HOLD_PER_ENDPOINT)
            .map(|(id, _)| id.clone())
            .collect();
        let now = Utc::now();
        let lease_until = now + chrono::Duration::from_std(LEASE).unwrap_or_default();
        let claimed = match self
            .service
            .store
            .claim_deliveries(
                now,
                lease_until,
                room.min(256),
                if busy { BUSY_WINDOW_ROWS } else { WINDOW_ROWS },
                &self.held,
                &full,
            )
            .await
        {
            Ok(claimed) => claimed,
            Err(e) => {
                if !self.service.store.is_closed() {
                    tracing::warn!(error = %e, "claiming webhook deliveries failed; retrying");
                }
                return false;
            }
        };
        let retry: Arc<[Duration]> = self.service.webhooks.retry.clone().into();
        for claimed in claimed {
            self.held.insert(claimed.seq);
            let (turns, held) = self
                .endpoints
                .entry(claimed.webhook_id.clone())
                .or_insert_with(|| (Arc::new(Semaphore::new(PER_ENDPOINT)), 0));
            *held += 1;
            let job = Sending {
                claimed,
                turns: turns.clone(),
                retry: retry.clone(),
                done: done.clone(),
            };
            if self.sending.send(job).is_err() {
                // The sending thread is gone (it logged why): the claims
                // stay held, so nothing is claimed again in a loop.
                return true;
            }
        }
        true
    }

    /// Records outcomes; kept to try again if the database cannot take
    /// them now (the deliveries stay held meanwhile): false then.
    async fn record(&mut self, outcomes: &mut Vec<Outcome>) -> bool {
        let settings = &self.service.webhooks;
        let disable_before =
            Utc::now() - chrono::Duration::from_std(settings.disable_after).unwrap_or_default();
        match self
            .service
            .store
            .record_outcomes(outcomes, disable_before)
            .await
        {
            Ok(disabled) => {
                if disabled {
                    tracing::warn!("a webhook endpoint was disabled: {FAILING_REASON}");
                }
            }
            Err(e) => {
                if !self.service.store.is_closed() {
                    tracing::warn!(error = %e, "recording webhook outcomes failed; retrying");
                }
                return false;
            }
        }
        for o in outcomes.drain(..) {
            self.held.remove(&o.seq);
            if let Some((_, held)) = self.endpoints.get_mut(&o.webhook_id) {
                *held = held.saturating_sub(1);
            }
            self.service.metrics.count_delivery(match o.state {
                DeliveryState::Delivered => "delivered",
                DeliveryState::Pending => "retry",
                DeliveryState::Failed => "failed",
            });
            if o.state == DeliveryState::Failed {
                tracing::warn!(
                    webhook = %o.webhook_id, event = %o.event_id, attempts = o.attempt,
                    "webhook delivery failed for good: no retry left"
                );
            }
        }
        self.endpoints
            .retain(|_, (turns, held)| *held > 0 || turns.available_permits() < PER_ENDPOINT);
        true
    }
}

/// Sends one delivery and says what came of it.
async fn deliver(
    client: &reqwest::Client,
    c: &Claimed,
    retry: &[Duration],
    allow_private: bool,
) -> Outcome {
    let at = Utc::now();
    let (status, error) = match send(client, c, at.timestamp(), allow_private).await {
        Ok(status) if (200..300).contains(&status) => (Some(status), None),
        Ok(status) => (
            Some(status),
            Some(format!("the endpoint answered {status}")),
        ),
        Err(e) => (None, Some(e)),
    };
    let (state, next) = if error.is_none() {
        (DeliveryState::Delivered, None)
    } else {
        match usize::try_from(c.attempts)
            .ok()
            .and_then(|made| retry.get(made))
        {
            Some(wait) => (
                DeliveryState::Pending,
                Some(at + chrono::Duration::from_std(*wait).unwrap_or_default()),
            ),
            None => (DeliveryState::Failed, None),
        }
    };
    Outcome::of(c, at, status, error, state, next)
}

async fn send(
    client: &reqwest::Client,
    c: &Claimed,
    timestamp: i64,
    allow_private: bool,
) -> std::result::Result<u16, String> {
    let url = guarded_url(&c.url, allow_private)?;
    let signature =
        sign(&c.secret, &c.event_id, timestamp, &c.body).ok_or("the secret does not decode")?;
    let answer = client
        .post(url)
        .header("content-type", "application/json")
        .header("webhook-id", &c.event_id)
        .header("webhook-timestamp", timestamp.to_string())
        .header("webhook-signature", signature)
        .body(c.body.clone())
        .send()
        .await
        .map_err(|e| crate::telemetry::error_chain(&e))?;
    Ok(answer.status().as_u16())
}

#[cfg(test)]
mod tests;

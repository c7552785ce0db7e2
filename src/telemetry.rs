//! Logging setup, the per-request log line and Prometheus metrics.

use std::time::Instant;

use actix_web::body::MessageBody;
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::http::header::{HeaderName, HeaderValue};
use actix_web::middleware::Next;
use actix_web::web;
use prometheus::{
    Encoder, HistogramOpts, HistogramVec, IntCounterVec, Opts, Registry, TextEncoder,
};
use tracing::{Event, Instrument};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::Targets;
use tracing_subscriber::layer::{Context, Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

/// How log lines are written (`--log-format`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Human-readable single lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// Keeps the log's writer thread; dropping it writes what is left.
pub type LogGuard = tracing_appender::non_blocking::WorkerGuard;

/// Installs the global tracing subscriber, writing each line to stdout as
/// it is made (tests, examples). `filter` is an env-filter directive;
/// `RUST_LOG` wins when it is set and `filter` is the default.
pub fn init(filter: &str, format: LogFormat) {
    install(filter, format, std::io::stdout);
}

/// As [`init`], for the service: lines are written by a thread of their
/// own (`tracing-appender`'s non-blocking writer, which waits rather than
/// drop a line when stdout falls behind, and flushes whenever it has
/// written all it was given); keep the guard until the end (it writes what
/// is left).
#[must_use = "dropping the guard stops the log's writer"]
pub fn init_service(filter: &str, format: LogFormat) -> Option<LogGuard> {
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .lossy(false)
        .thread_name("log-writer")
        // Buffered: the writer thread writes what it has taken at once, one
        // system call for many lines, rather than one a line.
        .finish(std::io::BufWriter::with_capacity(
            1 << 16,
            std::io::stdout(),
        ));
    install(filter, format, writer);
    Some(guard)
}

/// Whether lines get colours: only for a person at a terminal, not in files
/// or collectors.
fn colours() -> bool {
    std::io::IsTerminal::is_terminal(&std::io::stdout())
}

fn install<W>(filter: &str, format: LogFormat, writer: W)
where
    W: for<'a> tracing_subscriber::fmt::MakeWriter<'a> + Send + Sync + 'static,
{
    let filter = match std::env::var("RUST_LOG") {
        Ok(rust_log) if filter == "info" && !rust_log.is_empty() => rust_log,
        _ => filter.to_owned(),
    };
    let ansi = colours();
    // A list of targets and levels (all the service's own settings are) is
    // filtered by `Targets`, whose verdicts are fixed per call site; other
    // directives (spans, fields) need `EnvFilter`, which also looks each
    // span up as it is entered and left, a measurable cost for the request's
    // span alone.
    let levels: Box<dyn Layer<tracing_subscriber::Registry> + Send + Sync> = match filter
        .parse::<Targets>()
    {
        Ok(targets) => Box::new(targets),
        Err(_) => Box::new(EnvFilter::try_new(&filter).unwrap_or_else(|_| EnvFilter::new("info"))),
    };
    let registry = tracing_subscriber::registry().with(levels);
    let layer = tracing_subscriber::fmt::layer()
        .with_ansi(ansi)
        .with_writer(writer);
    // A second init (tests) is harmless: try_init fails and the first stays.
    let registry = registry.with(NotClientMistakes);
    let _ = match format {
        LogFormat::Text => registry.with(layer).try_init(),
        LogFormat::Json => registry.with(layer.json().flatten_event(true)).try_init(),
    };
}

/// Leaves out actix's ERROR line for a request it could not parse (a header
/// that is not one, a request line or head over its limit): that is the
/// client's mistake, already answered 400 or 431, and any client could fill
/// the log with ERROR lines by sending them. Other lines of actix's
/// connection handling are kept.
struct NotClientMistakes;

impl<S: tracing::Subscriber> Layer<S> for NotClientMistakes {
    fn event_enabled(&self, event: &Event<'_>, _: Context<'_, S>) -> bool {
        if event.metadata().target() != "actix_http::h1::dispatcher" {
            return true;
        }
        let mut message = Message(String::new());
        event.record(&mut message);
        !message.0.contains("request parse error")
    }
}

/// An event's `message` field, as text.
struct Message(String);

impl tracing::field::Visit for Message {
    fn record_debug(&mut self, field: &tracing::field::Field, value: &dyn std::fmt::Debug) {
        if field.name() == "message" {
            self.0 = format!("{value:?}");
        }
    }
}

/// The service's metrics, registered in their own registry.
#[derive(Clone)]
pub struct Metrics {
    registry: Registry,
    requests: IntCounterVec,
    latency: HistogramVec,
    moves: IntCounterVec,
    expired: IntCounterVec,
    deliveries: IntCounterVec,
    outbox: prometheus::IntGauge,
}

/// The results of a webhook delivery attempt, the closed set of
/// `tabula_webhook_deliveries_total`'s `result` label: `delivered` (a 2xx),
/// `retry` (failed, to be tried again), `failed` (failed, no retry left).
pub const DELIVERY_RESULTS: [&str; 3] = ["delivered", "retry", "failed"];

/// The reasons a game expires, the closed set of `tabula_games_expired_total`'s
/// `reason` label.
pub const EXPIRY_REASONS: [&str; 3] = ["waiting", "finished", "idle"];

impl Metrics {
    /// Creates and registers the metrics.
    ///
    /// # Panics
    /// Never in practice: the names are static and registered once per registry.
    #[must_use]
    pub fn new() -> Metrics {
        let registry = Registry::new();
        let requests = IntCounterVec::new(
            Opts::new(
                "tabula_http_requests_total",
                "HTTP requests by route, method and status",
            ),
            &["route", "method", "status"],
        )
        .expect("valid metric");
        let latency = HistogramVec::new(
            HistogramOpts::new(
                "tabula_http_request_duration_seconds",
                "HTTP request latency by route",
            )
            .buckets(vec![
                0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5,
            ]),
            &["route"],
        )
        .expect("valid metric");
        let moves = IntCounterVec::new(
            Opts::new(
                "tabula_moves_total",
                "Moves by game kind and result (accepted, refused)",
            ),
            &["kind", "result"],
        )
        .expect("valid metric");
        let expired = IntCounterVec::new(
            Opts::new(
                "tabula_games_expired_total",
                "Games deleted by expiry, by reason (waiting, finished, idle)",
            ),
            &["reason"],
        )
        .expect("valid metric");
        // Every reason from the start, at 0: a rate over a series that
        // appears only with its first expiry misses that one.
        for reason in EXPIRY_REASONS {
            expired.with_label_values(&[reason]);
        }
        let deliveries = IntCounterVec::new(
            Opts::new(
                "tabula_webhook_deliveries_total",
                "Webhook delivery attempts by result (delivered, retry, failed)",
            ),
            &["result"],
        )
        .expect("valid metric");
        for result in DELIVERY_RESULTS {
            deliveries.with_label_values(&[result]);
        }
        let outbox = prometheus::IntGauge::new(
            "tabula_webhook_outbox_depth",
            "Webhook deliveries waiting to be made (due or retrying), as last counted (every second)",
        )
        .expect("valid metric");
        for m in [
            Box::new(requests.clone()) as Box<dyn prometheus::core::Collector>,
            Box::new(latency.clone()),
            Box::new(moves.clone()),
            Box::new(expired.clone()),
            Box::new(deliveries.clone()),
            Box::new(outbox.clone()),
        ] {
            registry.register(m).expect("registered once");
        }
        Metrics {
            registry,
            requests,
            latency,
            moves,
            expired,
            deliveries,
            outbox,
        }
    }

    /// Counts a webhook delivery attempt; `result` is one of
    /// [`DELIVERY_RESULTS`].
    pub fn count_delivery(&self, result: &str) {
        if DELIVERY_RESULTS.contains(&result) {
            self.deliveries.with_label_values(&[result]).inc();
        }
    }

    /// Sets the outbox depth (deliveries waiting).
    pub fn set_outbox_depth(&self, depth: i64) {
        self.outbox.set(depth);
    }

    /// Counts a move of `kind` as accepted or refused.
    pub fn count_move(&self, kind: &str, accepted: bool) {
        let result = if accepted { "accepted" } else { "refused" };
        self.moves.with_label_values(&[kind, result]).inc();
    }

    /// Counts a game deleted by expiry; `reason` is one of [`EXPIRY_REASONS`]
    /// (any other is not counted, so the label's set stays closed).
    pub fn count_expired(&self, reason: &str) {
        if EXPIRY_REASONS.contains(&reason) {
            self.expired.with_label_values(&[reason]).inc();
        }
    }

    /// The metrics in Prometheus text format.
    #[must_use]
    pub fn render(&self) -> String {
        let mut buf = Vec::new();
        // Encoding into a Vec cannot fail for well-formed metric families.
        let _ = TextEncoder::new().encode(&self.registry.gather(), &mut buf);
        String::from_utf8(buf).unwrap_or_default()
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::new()
    }
}

/// The method as a metric label: the standard ones by name, any other as
/// `other`, so a client cannot create series at will.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        Method::CONNECT => "CONNECT",
        Method::TRACE => "TRACE",
        _ => "other",
    }
}

/// Why a request failed on the server's side, for its log line: the error
/// chain, and whether it was a fault (logged at ERROR) or a refusal for
/// load such as `busy` (at WARN).
#[derive(Clone, Debug)]
pub struct Failure {
    pub cause: String,
    pub fault: bool,
}

static REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// Middleware: gives each request an id (or keeps a sane `X-Request-Id` the
/// client sent), writes one log line per request and records its metrics.
///
/// # Errors
/// Passes on the inner service's error.
pub async fn observe(
    req: ServiceRequest,
    next: Next<impl MessageBody>,
) -> Result<ServiceResponse<impl MessageBody>, actix_web::Error> {
    let started = Instant::now();
    let request_id = req
        .headers()
        .get(&REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 64 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map_or_else(
            // From the thread's generator, not the system's: `new_v4` asks
            // the kernel for 16 bytes, a system call on every request.
            || {
                uuid::Builder::from_random_bytes(rand::random())
                    .into_uuid()
                    .to_string()
            },
            str::to_owned,
        );
    let metrics = req.app_data::<web::Data<Metrics>>().cloned();
    let method = req.method().clone();
    let path = req.path().to_owned();
    // The span is attached to the request's future, entered only while it
    // is polled: a guard held across `.await` would leak into whatever else
    // the worker thread polls meanwhile (other requests' log lines).
    let span = tracing::info_span!("request", request_id = %request_id);
    let mut res = next.call(req).instrument(span).await?;
    let status = res.status().as_u16();
    let route = res
        .request()
        .match_pattern()
        .unwrap_or_else(|| "unmatched".to_owned());
    let elapsed = started.elapsed();
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        res.headers_mut().insert(REQUEST_ID.clone(), value);
    }
    if let Some(m) = metrics {
        m.requests
            .with_label_values(&[&route, method_label(&method), res.status().as_str()])
            .inc();
        m.latency
            .with_label_values(&[&route])
            .observe(elapsed.as_secs_f64());
    }
    let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
    // One line per request: a failure's cause goes on it, at ERROR for a
    // fault and WARN for a refusal for load, never on a line of its own.
    let failure = res.response().extensions().get::<Failure>().cloned();
    macro_rules! line {
        ($level:ident $(, $field:ident = $value:expr)?) => {
            tracing::$level!(
                request_id = %request_id,
                method = %method,
                path = %path,
                route = %route,
                status,
                micros,
                $($field = %$value,)?
                "request"
            )
        };
    }
    match failure {
        None => line!(info),
        Some(Failure { cause, fault: true }) => line!(error, error = cause),
        Some(Failure {
            cause,
            fault: false,
        }) => line!(warn, error = cause),
    }
    Ok(res)
}

/// Runs blocking work (bot searches) on tokio's blocking pool, inside the
/// caller's tracing span.
///
/// # Errors
/// When the blocking task panicked or was cancelled.
pub async fn spawn_blocking_with_tracing<F, R>(f: F) -> Result<R, tokio::task::JoinError>
where
    F: FnOnce() -> R + Send + 'static,
    R: Send + 'static,
{
    let span = tracing::Span::current();
    tokio::task::spawn_blocking(move || span.in_scope(f)).await
}

/// The error and every source below it, for the log (`outer: inner: …`).
#[must_use]
pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        out.push_str(": ");
        out.push_str(&c.to_string());
        cause = c.source();
    }
    out
}

//! Builds the actix app (routes, limits, middleware), binds, serves, and
//! stops gracefully on SIGTERM/SIGINT.

use std::net::{SocketAddr, TcpListener};
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::{App, HttpServer, middleware, web};
use anyhow::Context;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::api::{self, AppState, BodyLimit, BodyTimeout};
use crate::config::Settings;
use crate::service::Service;
use crate::store::Store;
use crate::telemetry::{self, Metrics};
use crate::web as browser;

/// A bound, not yet running server.
pub struct Application {
    server: Server,
    local_addr: SocketAddr,
    store: Store,
    service: Service,
}

impl Application {
    /// Binds the listener, opens and migrates the database, and builds the
    /// server.
    ///
    /// The address is bound first: a port in use (or a bad address) is
    /// refused before anything is written, so a mistyped `--addr` never
    /// leaves a new, migrated SQLite file behind. Each error names the
    /// setting to change.
    ///
    /// # Errors
    /// When the address cannot be bound, or the database cannot be opened or
    /// migrated.
    pub async fn build(settings: &Settings) -> anyhow::Result<Application> {
        let listener = TcpListener::bind(&settings.addr).with_context(|| {
            format!("cannot listen on {} (--addr / TABULA_ADDR)", settings.addr)
        })?;
        let local_addr = listener.local_addr()?;
        let store = Store::open(&settings.database_url, settings.read_pool)
            .await
            .with_context(|| {
                format!(
                    "cannot open the database {} (--database-url / DATABASE_URL)",
                    settings.database_url_redacted()
                )
            })?;
        let capacity = Capacity::of(settings);
        tracing::info!(
            open_files = capacity.open_files,
            max_streams = capacity.streams,
            max_connections_per_worker = capacity.connections_per_worker,
            "connection limits"
        );
        // The opening book, read and checked now rather than by the first
        // perfect Connect Four move.
        let book = crate::ai::connect_four_solver::Book::embedded();
        tracing::info!(
            depth = crate::ai::connect_four_solver::Openings::depth(book),
            positions = book.len(),
            "connect four opening book"
        );
        let metrics = Metrics::new();
        let service = Service::new(
            store.clone(),
            settings.bot_budget(),
            metrics.clone(),
            settings.max_searches(),
            settings.clock.clone(),
        )
        .with_expiry(settings.expiry())
        .with_match_wait(settings.match_wait)
        .with_game_life(settings.first_move_window, settings.claim_after)
        .with_round_pause(settings.round_pause)
        .with_challenge_expiry(settings.challenge_expiry)
        .with_max_analysis_work(settings.max_analysis_work)
        .with_webhooks(settings.webhooks())
        .with_players(player_settings(settings)?);
        service.spawn_expiry(settings.expire_sweep);
        // Events are written as the API writes games; the deliverer sends them.
        store.outbox().set_render(Arc::new(api::EventData));
        service.spawn_deliverer()?;
        // Webhook bots are asked for their moves on their turns.
        service.spawn_webhook_bots(Arc::new(api::MoveRequestBody))?;
        let state = web::Data::new(AppState {
            service: service.clone(),
            metrics: metrics.clone(),
            heartbeat: Duration::from_secs(settings.sse_heartbeat_secs.max(1)),
            streams: Arc::new(tokio::sync::Semaphore::new(capacity.streams)),
            stream_clients: api::StreamClients::new(
                settings.max_streams_per_client,
                settings.trusted_proxies.clone(),
            ),
            proxies: settings.trusted_proxies.clone(),
            admin_key: settings.admin_key.clone().filter(|k| !k.is_empty()),
            // Batches built on half the cores at most: the rest serve moves.
            rules: Arc::new(api::RulesLimits::new(
                settings.rules_rate,
                workers(settings) / 2,
            )),
        });
        tokio::spawn(state.service.clone().sweep_timeouts());
        tokio::spawn(
            state
                .service
                .clone()
                .sweep_tournaments(std::time::Duration::from_millis(200)),
        );
        // The bot replies a stopped server did not make.
        let resumed = state.service.resume_bot_replies().await?;
        if resumed > 0 {
            tracing::info!(games = resumed, "bot replies resumed");
        }
        let metrics = web::Data::new(metrics);
        let limiter = web::Data::new(api::RateLimiter::new(
            settings.rate_limit,
            settings.rate_burst,
            settings.trusted_proxies.clone(),
        ));
        let body_timeout = BodyTimeout(Duration::from_secs(settings.body_timeout_secs.max(1)));
        let limit = settings.body_limit;
        // The served document is the committed one (see `api::document`).
        let document = api::document();
        let cors_origins = settings.cors_origins.clone();
        let mut server = HttpServer::new(move || {
            let app = App::new()
                .into_utoipa_app()
                .app_data(state.clone())
                .app_data(metrics.clone())
                .app_data(limiter.clone())
                .app_data(BodyLimit(limit))
                .app_data(body_timeout)
                .app_data(api::path_config())
                .configure(api::configure)
                .into_app();
            app.service(
                SwaggerUi::new("/docs/{_:.*}")
                    .external_url_unchecked("/openapi.json", document.clone()),
            )
            .service(web::redirect("/docs", "/docs/"))
            .configure(browser::play::configure)
            .default_service(web::to(browser::play::fallback))
            .wrap(middleware::from_fn(api::close_stalled))
            .wrap(middleware::from_fn(api::not_modified))
            .wrap(middleware::from_fn(api::head_as_get))
            .wrap(middleware::from_fn(browser::docs::headers))
            .wrap(middleware::from_fn(api::rate_limit))
            .wrap(middleware::from_fn(api::refuse_duplicates))
            // Outside the rate limiter and every handler, so that 429s and
            // errors carry the CORS headers too (a page must be able to read
            // a 409's `code`); inside telemetry, so preflights are logged.
            .wrap(browser::cors::layer(&cors_origins))
            .wrap(middleware::from_fn(browser::cors::preflight_problem))
            .wrap(middleware::from_fn(telemetry::observe))
        })
        // A client that closes its connection is seen at once, also while
        // an event stream is being sent to it, so its place frees then.
        .h1_allow_half_closed(false)
        .listen(listener)?
        .max_connections(capacity.connections_per_worker)
        .shutdown_timeout(settings.shutdown_timeout);
        if settings.workers > 0 {
            server = server.workers(settings.workers);
        }
        Ok(Application {
            server: server.run(),
            local_addr,
            store,
            service,
        })
    }

    /// The use cases the server runs (tests drive the expiry sweeper's
    /// steps through it).
    #[must_use]
    pub fn service(&self) -> Service {
        self.service.clone()
    }

    /// The bound address (useful with port 0).
    #[must_use]
    pub fn local_addr(&self) -> SocketAddr {
        self.local_addr
    }

    /// The port the server listens on.
    #[must_use]
    pub fn port(&self) -> u16 {
        self.local_addr.port()
    }

    /// A handle to stop the server from elsewhere (tests).
    #[must_use]
    pub fn handle(&self) -> actix_web::dev::ServerHandle {
        self.server.handle()
    }

    /// Serves until SIGTERM/SIGINT (or a stop through the handle), lets
    /// in-flight requests finish, then closes the database.
    ///
    /// # Errors
    /// I/O errors of the server.
    pub async fn run_until_stopped(self) -> std::io::Result<()> {
        let result = self.server.await;
        tokio::time::timeout(Duration::from_secs(5), self.store.close())
            .await
            .ok();
        result
    }
}

/// How many connections and event streams the process can hold with the
/// file descriptors it has.
///
/// Many systems start a process with a soft limit of 1,024 open files: a few
/// hundred event streams then exhaust it, and SQLite, which opens files as
/// it goes, fails with "unable to open database file" while accepts fail
/// with `EMFILE`. So the soft limit is raised to the hard one, a reserve is
/// kept for the database and the process itself, connections are capped
/// below the rest (past the cap, new connections wait in the listen
/// backlog instead of failing), and event streams may take half of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Capacity {
    /// The soft open-file limit in force.
    open_files: u64,
    /// Event streams that may be open at once.
    streams: usize,
    /// Connections each HTTP worker accepts at once.
    connections_per_worker: usize,
}

/// The HTTP workers (`--workers`, else one per core).
fn workers(settings: &Settings) -> usize {
    if settings.workers > 0 {
        settings.workers
    } else {
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    }
}

impl Capacity {
    fn of(settings: &Settings) -> Capacity {
        let open_files = raise_open_file_limit();
        let usable = open_files
            .saturating_sub(fd_reserve(settings.read_pool))
            .max(2);
        let usable = usize::try_from(usable).unwrap_or(usize::MAX);
        let workers = workers(settings);
        Capacity {
            open_files,
            streams: if settings.max_streams > 0 {
                settings.max_streams
            } else {
                usable / 2
            },
            connections_per_worker: (usable / workers).max(1),
        }
    }
}

/// File descriptors kept back from connections: the database's (an SQLite
/// connection holds the file, its WAL and its shared memory; there are the
/// read pool, the writer and the checkpointer, or as many sockets on
/// PostgreSQL), the listener, the log, and room for migrations and the odd
/// file.
fn fd_reserve(read_pool: u32) -> u64 {
    64 + 3 * (u64::from(read_pool) + 2)
}

/// Raises the soft open-file limit to the hard limit and returns the soft
/// limit in force.
fn raise_open_file_limit() -> u64 {
    match rlimit::increase_nofile_limit(u64::MAX) {
        Ok(limit) => limit,
        Err(e) => {
            let (soft, _) = rlimit::getrlimit(rlimit::Resource::NOFILE).unwrap_or((1024, 1024));
            tracing::warn!(error = %e, soft, "the open-file limit could not be raised");
            soft
        }
    }
}

/// How players sign in (`--jwt-*`) and rated quick match pairs them.
///
/// # Errors
/// A public key that is neither a PEM nor a readable file holding one, an
/// empty secret.
fn player_settings(settings: &Settings) -> anyhow::Result<crate::service::PlayerSettings> {
    use crate::service::JwtVerifier;
    let (issuer, audience) = (
        settings.jwt_issuer.as_deref(),
        settings.jwt_audience.as_deref(),
    );
    let jwt = match (&settings.jwt_secret, &settings.jwt_public_key) {
        (Some(secret), _) => Some(JwtVerifier::hs256(secret, issuer, audience)),
        (None, Some(key)) => {
            let pem = if key.trim_start().starts_with("-----BEGIN") {
                key.clone()
            } else {
                std::fs::read_to_string(key)
                    .map_err(|e| anyhow::anyhow!("--jwt-public-key {key:?}: {e}"))?
            };
            Some(JwtVerifier::public_key(&pem, issuer, audience))
        }
        (None, None) => None,
    }
    .transpose()
    .map_err(anyhow::Error::msg)?;
    Ok(
        crate::service::PlayerSettings::new(jwt, f64::from(settings.match_window))
            .with_creation_rate(settings.player_rate),
    )
}

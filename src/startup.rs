//! Builds the actix app (routes, limits, middleware), binds, serves, and
//! stops gracefully on SIGTERM/SIGINT.

use std::net::{SocketAddr, TcpListener};
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::{App, HttpServer, middleware, web};
use anyhow::Context;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::api::{self, AppState, BodyLimit};
use crate::config::Settings;
use crate::service::Service;
use crate::store::Store;
use crate::telemetry::{self, Metrics};

/// A bound, not yet running server.
pub struct Application {
    server: Server,
    local_addr: SocketAddr,
    store: Store,
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
        let metrics = Metrics::new();
        let state = web::Data::new(AppState {
            service: Service::new(
                store.clone(),
                settings.bot_budget(),
                metrics.clone(),
                settings.max_searches(),
            ),
            metrics: metrics.clone(),
            heartbeat: Duration::from_secs(settings.sse_heartbeat_secs.max(1)),
        });
        let metrics = web::Data::new(metrics);
        let limiter = web::Data::new(api::RateLimiter::new(
            settings.rate_limit,
            settings.rate_burst,
        ));
        let limit = settings.body_limit;
        // The served document is the committed one (see `api::document`).
        let document = api::document();
        let mut server = HttpServer::new(move || {
            let app = App::new()
                .into_utoipa_app()
                .app_data(state.clone())
                .app_data(metrics.clone())
                .app_data(limiter.clone())
                .app_data(BodyLimit(limit))
                .app_data(api::query_config())
                .app_data(api::path_config())
                .configure(api::configure)
                .into_app();
            app.service(
                SwaggerUi::new("/docs/{_:.*}")
                    .external_url_unchecked("/openapi.json", document.clone()),
            )
            .service(web::redirect("/docs", "/docs/"))
            .default_service(web::to(api::not_found))
            .wrap(middleware::from_fn(api::head_as_get))
            .wrap(middleware::from_fn(api::rate_limit))
            .wrap(middleware::from_fn(telemetry::observe))
        })
        .listen(listener)?
        .shutdown_timeout(settings.shutdown_timeout);
        if settings.workers > 0 {
            server = server.workers(settings.workers);
        }
        Ok(Application {
            server: server.run(),
            local_addr,
            store,
        })
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

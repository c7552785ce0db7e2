//! One typed settings struct: every setting is a flag and an environment
//! variable, with a default that runs out of the box.

use std::time::Duration;

use clap::{Parser, ValueEnum};

/// How log lines are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum LogFormat {
    /// Human-readable single lines.
    Text,
    /// One JSON object per line.
    Json,
}

/// The service's settings.
#[derive(Clone, Debug, Parser)]
#[command(
    name = "tabula",
    version,
    about = "Tabula: a REST/JSON game-state service for tic-tac-toe, Connect Four, Gomoku and Ultimate tic-tac-toe"
)]
pub struct Settings {
    /// Address and port to listen on (use 0.0.0.0:8080 inside containers; port 0 picks a free port).
    #[arg(long, env = "TABULA_ADDR", default_value = "127.0.0.1:8080")]
    pub addr: String,

    /// Database URL. An SQLite file is created and migrated if missing.
    #[arg(long, env = "DATABASE_URL", default_value = "sqlite://tabula.db")]
    pub database_url: String,

    /// Log filter, e.g. `info`, `debug`, `tabula=debug,sqlx=warn` (RUST_LOG is read too when this is unset).
    #[arg(long = "log", env = "TABULA_LOG", default_value = "info")]
    pub log: String,

    /// Log line format.
    #[arg(long, env = "TABULA_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Largest accepted request body, in bytes; larger bodies get 413 payload_too_large.
    #[arg(long, env = "TABULA_BODY_LIMIT", default_value_t = 4096)]
    pub body_limit: usize,

    /// Time a bot may think for one move, in milliseconds (hard levels use all of it).
    #[arg(long, env = "TABULA_BOT_BUDGET_MS", default_value_t = 300)]
    pub bot_budget_ms: u64,

    /// Bot searches that may run at once (0: one per CPU core); more wait their turn.
    #[arg(long, env = "TABULA_BOT_THREADS", default_value_t = 0)]
    pub bot_threads: usize,

    /// HTTP worker threads (0: one per CPU core).
    #[arg(long, env = "TABULA_WORKERS", default_value_t = 0)]
    pub workers: usize,

    /// Connections in the read pool (writes go through one connection).
    #[arg(long, env = "TABULA_READ_POOL", default_value_t = 4)]
    pub read_pool: u32,

    /// Requests per second allowed per client IP (0: no limit). Over it: 429 rate_limited.
    #[arg(long, env = "TABULA_RATE_LIMIT", default_value_t = 0)]
    pub rate_limit: u32,

    /// Burst size of the per-client limit (0: the same as --rate-limit).
    #[arg(long, env = "TABULA_RATE_BURST", default_value_t = 0)]
    pub rate_burst: u32,

    /// Seconds between keep-alive comments on idle event streams.
    #[arg(long, env = "TABULA_SSE_HEARTBEAT_SECS", default_value_t = 15)]
    pub sse_heartbeat_secs: u64,

    /// Seconds to let in-flight requests finish after SIGTERM/SIGINT.
    #[arg(long, env = "TABULA_SHUTDOWN_TIMEOUT", default_value_t = 10)]
    pub shutdown_timeout: u64,

    /// Print the OpenAPI document to standard output and exit.
    #[arg(long)]
    pub print_openapi: bool,
}

impl Settings {
    /// Settings with every default, as if no flag or variable were given
    /// (environment variables are ignored): the starting point for tests.
    #[must_use]
    pub fn defaults() -> Settings {
        Settings {
            addr: "127.0.0.1:8080".into(),
            database_url: "sqlite://tabula.db".into(),
            log: "info".into(),
            log_format: LogFormat::Text,
            body_limit: 4096,
            bot_budget_ms: 300,
            bot_threads: 0,
            workers: 0,
            read_pool: 4,
            shutdown_timeout: 10,
            sse_heartbeat_secs: 15,
            rate_limit: 0,
            rate_burst: 0,
            print_openapi: false,
        }
    }

    /// The bot budget as a duration.
    #[must_use]
    pub fn bot_budget(&self) -> Duration {
        Duration::from_millis(self.bot_budget_ms)
    }

    /// How many bot searches may run at once.
    #[must_use]
    pub fn max_searches(&self) -> usize {
        if self.bot_threads > 0 {
            self.bot_threads
        } else {
            std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
        }
    }

    /// The database URL without any password, for logs.
    #[must_use]
    pub fn database_url_redacted(&self) -> String {
        match (self.database_url.find("://"), self.database_url.rfind('@')) {
            (Some(scheme), Some(at)) if at > scheme => {
                format!(
                    "{}://***{}",
                    &self.database_url[..scheme],
                    &self.database_url[at..]
                )
            }
            _ => self.database_url.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_cli_definition_is_consistent() {
        Settings::command().debug_assert();
    }

    #[test]
    fn defaults_match_the_parsed_defaults() {
        let parsed = Settings::try_parse_from(["tabula"]).expect("parses");
        let d = Settings::defaults();
        // Environment variables of the test runner may override; compare what they cannot.
        assert_eq!(d.body_limit, 4096);
        assert!(!parsed.print_openapi);
    }

    #[test]
    fn passwords_are_redacted() {
        let mut s = Settings::defaults();
        s.database_url = "postgres://user:secret@db:5432/tabula".into();
        assert_eq!(s.database_url_redacted(), "postgres://***@db:5432/tabula");
    }
}

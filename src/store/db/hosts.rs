//! PostgreSQL on several machines: a libpq-style host list in the URL
//! (`postgres://user@h1:5432,h2:5432/db?target_session_attrs=read-write`),
//! which sqlx does not read (launchbadge/sqlx#179), and following a
//! failover.
//!
//! The pool connects to one host at a time, the one chosen last. With
//! `read-write`, a connection is used only if its server accepts writes
//! (not in recovery): one to a standby is refused as it is made. A watcher
//! asks the chosen host every [`WATCH`] whether it still is the primary;
//! when it is not (gone, or a standby now), it tries the hosts in the order
//! listed and points the pool at the first that is, without a restart.
//! Connections to a dead host fail their ping and are dropped; a write
//! caught in between fails with a connection error (503 `Retry-After`).

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgConnection, PgPool};
use sqlx::{Connection, Executor};

use crate::store::StoreError;

/// How often the watcher asks the chosen host whether it is the primary.
const WATCH: Duration = Duration::from_millis(250);
/// How long a probe of one host may take.
const PROBE_TIMEOUT: Duration = Duration::from_secs(1);

/// What a URL names: one host's connection options per host listed, in
/// order, and whether only a host that accepts writes will do.
#[derive(Clone, Debug)]
pub(super) struct Hosts {
    pub(super) options: Vec<PgConnectOptions>,
    pub(super) read_write: bool,
}

fn bad(why: String) -> StoreError {
    StoreError::from(sqlx::Error::Configuration(why.into()))
}

impl Hosts {
    /// Reads `url`: its hosts (`h`, `h:port`, `[v6]:port`, comma-separated)
    /// and `target_session_attrs` (`any`, the default, or `read-write`;
    /// `primary` means the same here); every other part as sqlx reads it.
    ///
    /// # Errors
    /// A URL sqlx does not read, or another `target_session_attrs`.
    pub(super) fn parse(url: &str) -> Result<Hosts, StoreError> {
        let (scheme, rest) = url
            .split_once("://")
            .ok_or_else(|| bad("the database URL has no `://`".into()))?;
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        let (user, hosts) = match authority.rfind('@') {
            Some(at) => (&authority[..=at], &authority[at + 1..]),
            None => ("", authority),
        };
        // The query without `target_session_attrs` (sqlx does not know it).
        let (path, query) = tail.split_once('?').unwrap_or((tail, ""));
        let mut read_write = false;
        let mut kept = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            match pair.split_once('=') {
                Some(("target_session_attrs", value)) => {
                    read_write = match value {
                        "any" => false,
                        "read-write" | "primary" => true,
                        other => {
                            return Err(bad(format!(
                                "target_session_attrs={other} is not supported: use any or read-write"
                            )));
                        }
                    };
                }
                _ => kept.push(pair),
            }
        }
        let query = if kept.is_empty() {
            String::new()
        } else {
            format!("?{}", kept.join("&"))
        };
        let mut options = Vec::new();
        for host in hosts.split(',') {
            if host.is_empty() {
                return Err(bad("the database URL lists an empty host".into()));
            }
            let one = format!("{scheme}://{user}{host}{path}{query}");
            options.push(PgConnectOptions::from_str(&one)?);
        }
        Ok(Hosts {
            options,
            read_write,
        })
    }

    /// Whether there is anything to follow: several hosts, or a single one
    /// that must accept writes.
    pub(super) fn watched(&self) -> bool {
        self.options.len() > 1 || self.read_write
    }

    /// The first host, in the order listed, that answers and (with
    /// `read-write`) accepts writes.
    pub(super) async fn choose(&self) -> Option<PgConnectOptions> {
        for options in &self.options {
            if probe(options)
                .await
                .is_some_and(|writable| writable || !self.read_write)
            {
                return Some(options.clone());
            }
        }
        None
    }
}

/// Whether the server `options` names accepts writes (`None`: it does not
/// answer).
async fn probe(options: &PgConnectOptions) -> Option<bool> {
    let attempt = async {
        let mut conn = PgConnection::connect_with(options).await.ok()?;
        let writable = accepts_writes(&mut conn).await.ok();
        let _ = conn.close().await;
        writable
    };
    tokio::time::timeout(PROBE_TIMEOUT, attempt)
        .await
        .ok()
        .flatten()
}

/// Whether the server of `conn` accepts writes: not a standby in recovery.
pub(super) async fn accepts_writes<'c, E>(conn: E) -> Result<bool, sqlx::Error>
where
    E: Executor<'c, Database = sqlx::Postgres>,
{
    let in_recovery: bool = sqlx::query_scalar("SELECT pg_is_in_recovery()")
        .fetch_one(conn)
        .await?;
    Ok(!in_recovery)
}

/// Follows a failover for the life of `pool`: asks the chosen host every
/// [`WATCH`] whether it still is what the URL asks for, and if not points
/// the pool at the first host that is.
pub(super) async fn watch(pool: PgPool, hosts: Hosts) {
    loop {
        tokio::time::sleep(WATCH).await;
        if pool.is_closed() {
            return;
        }
        // Asked through the pool: no new connection while all is well (one
        // to a standby is refused as it is made, with `read-write`).
        let fine = match tokio::time::timeout(PROBE_TIMEOUT, pool.acquire()).await {
            Ok(Ok(mut conn)) => accepts_writes(&mut *conn)
                .await
                .is_ok_and(|writable| writable || !hosts.read_write),
            _ => false,
        };
        if fine {
            continue;
        }
        let current = pool.connect_options();
        let Some(chosen) = hosts.choose().await else {
            continue;
        };
        if (chosen.get_host(), chosen.get_port()) != (current.get_host(), current.get_port()) {
            tracing::warn!(
                from = %format!("{}:{}", current.get_host(), current.get_port()),
                to = %format!("{}:{}", chosen.get_host(), chosen.get_port()),
                "the database moved (a failover): new connections go to the new host"
            );
            pool.set_connect_options(chosen);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_host_list_gives_one_host_each_in_order_and_target_session_attrs_is_read() {
        let hosts = Hosts::parse(
            "postgres://tabula:pw@db1:5432,db2:5433,[::1]:5434/game?sslmode=disable&target_session_attrs=read-write",
        )
        .unwrap();
        assert!(hosts.read_write);
        let named: Vec<(String, u16)> = hosts
            .options
            .iter()
            .map(|o| (o.get_host().to_owned(), o.get_port()))
            .collect();
        assert_eq!(
            named,
            [
                ("db1".to_owned(), 5432),
                ("db2".to_owned(), 5433),
                // As sqlx reads a bracketed address.
                ("[::1]".to_owned(), 5434)
            ]
        );
        for o in &hosts.options {
            assert_eq!(o.get_database(), Some("game"));
            assert_eq!(o.get_username(), "tabula");
        }
        assert!(hosts.watched());
    }

    #[test]
    fn one_host_without_attributes_is_not_watched_and_unknown_attributes_are_refused() {
        let hosts = Hosts::parse("postgres://tabula@localhost/postgres").unwrap();
        assert_eq!(hosts.options.len(), 1);
        assert!(!hosts.read_write && !hosts.watched());
        assert!(Hosts::parse("postgres://u@h/db?target_session_attrs=any").is_ok());
        assert!(Hosts::parse("postgres://u@h/db?target_session_attrs=standby").is_err());
        assert!(Hosts::parse("postgres://u@h1,,h2/db").is_err());
    }
}

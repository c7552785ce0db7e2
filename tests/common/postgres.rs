//! A database of a test's own on the PostgreSQL server named by
//! `TABULA_TEST_POSTGRES`, dropped when the test is done with it (a run of
//! the suites would otherwise leave ~2.5 GB on the server).

/// A fresh database, dropped (its connections ended) when this is dropped.
#[derive(Debug)]
pub struct Database {
    /// Its URL, on the server's address.
    pub url: String,
    server: String,
    name: String,
}

impl Database {
    /// Creates a database with a fresh name on `server` (a URL of the
    /// server's maintenance database, e.g. `postgres://tabula@127.0.0.1:54329/postgres`).
    ///
    /// # Panics
    /// When the server cannot be reached or refuses (the test cannot run).
    pub async fn create(server: &str) -> Database {
        use sqlx::Connection;
        let name = format!("t_{}", uuid::Uuid::new_v4().simple());
        let mut admin = sqlx::PgConnection::connect(server).await.expect("postgres");
        sqlx::query(&format!("CREATE DATABASE {name}"))
            .execute(&mut admin)
            .await
            .expect("create database");
        let base = server.rsplit_once('/').map_or(server, |(b, _)| b);
        Database {
            url: format!("{base}/{name}"),
            server: server.to_owned(),
            name,
        }
    }
}

impl Drop for Database {
    fn drop(&mut self) {
        let (server, name) = (self.server.clone(), self.name.clone());
        // On a thread of its own: the test's runtime may be the one dropping.
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            runtime.block_on(async {
                use sqlx::Connection;
                let mut admin = sqlx::PgConnection::connect(&server).await?;
                // FORCE ends the connections the test's apps still hold.
                sqlx::query(&format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)"))
                    .execute(&mut admin)
                    .await?;
                Ok::<_, Box<dyn std::error::Error + Send + Sync>>(())
            })
        })
        .join();
        if let Ok(Err(e)) = dropped {
            eprintln!("could not drop test database {}: {e}", self.name);
        }
    }
}

//! The `tabula` binary: settings → telemetry → serve.

use clap::Parser;
use tabula::{Application, Settings, telemetry};

/// mimalloc rather than the system's allocator: an answered move makes and
/// frees a few dozen small allocations on three threads, and glibc's
/// malloc and free took a measurable share of a move's CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let settings = Settings::parse();
    if settings.print_openapi {
        println!("{}", tabula::api::openapi_json());
        return Ok(());
    }
    // Held to the end: dropping it writes the lines still buffered.
    let _log = telemetry::init_service(&settings.log, settings.log_format);
    let app = Application::build(&settings).await?;
    tracing::info!(addr = %app.local_addr(), database = %settings.database_url_redacted(), "tabula is serving");
    app.run_until_stopped().await?;
    Ok(())
}

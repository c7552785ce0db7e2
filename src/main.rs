//! The `tabula` binary: settings → telemetry → serve.

use clap::Parser;
use tabula::{Application, Settings, telemetry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let settings = Settings::parse();
    if settings.print_openapi {
        println!("{}", tabula::api::openapi_json());
        return Ok(());
    }
    telemetry::init(&settings.log, settings.log_format);
    let app = Application::build(&settings).await?;
    tracing::info!(addr = %app.local_addr(), database = %settings.database_url_redacted(), "tabula is serving");
    app.run_until_stopped().await?;
    Ok(())
}

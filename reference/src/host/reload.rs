//! Reloading on SIGHUP, as operators expect of a server: the configuration,
//! every document, credential file and keys file read again, and the table
//! replaced only when all of it can be used.

use std::sync::Arc;

use super::errors::HostError;
use super::settings::Settings;
use super::table::Table;

/// On each SIGHUP, reads the settings again with `read` and replaces the
/// table with them; a reload that fails is logged with its error, and the
/// table serves on as it was.
pub async fn reload_on_hangup(table: Arc<Table>, read: impl Fn() -> Result<Settings, HostError>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(mut hangups) = signal(SignalKind::hangup()) else {
            tracing::warn!("cannot listen for SIGHUP: reloading needs a restart");
            return;
        };
        while hangups.recv().await.is_some() {
            reload(&table, &read);
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (table, read);
        std::future::pending::<()>().await;
    }
}

/// One reload, logged.
pub fn reload(table: &Table, read: &impl Fn() -> Result<Settings, HostError>) {
    let reloaded = read().and_then(|settings| Ok(table.reload(&settings)?));
    table.metrics().reloaded(reloaded.is_ok());
    match reloaded {
        Ok(changes) => tracing::info!(
            version = changes.version,
            added = %changes.added.join(","),
            removed = %changes.removed.join(","),
            replaced = %changes.replaced.join(","),
            kept = %changes.kept.join(","),
            "reloaded"
        ),
        Err(error) => tracing::error!(
            version = table.routes().version,
            "reload refused, serving on unchanged: {error}"
        ),
    }
}

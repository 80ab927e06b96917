//! The gateway as a server: the table of APIs, the listener's limits, and
//! what it says when it starts, reloads and stops. Assembled here, not in
//! `main`, so that tests drive a whole gateway (start, reload, stop) in
//! their own process.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;

use super::api::Summary;
use super::connections::{ConnectionLimits, Connections, Descriptors};
use super::errors::HostError;
use super::listener;
use super::settings::{ApiSettings, Settings};
use super::table::{self, Changes, Routes, Table};
use crate::gateway::Limits;
use crate::mcp::HttpOptions;
use crate::watch::{BeforeScrape, Metrics};

/// How a server serves, besides its APIs.
#[derive(Debug, Clone)]
pub struct ServerOptions {
    pub http: HttpOptions,
    /// Each API's calls: their deadline, and how many at once.
    pub limits: Limits,
    pub connections: ConnectionLimits,
    /// How long a request's body may take to arrive.
    pub body_timeout: Duration,
    /// The process's descriptor limit, for the start-up line.
    pub descriptors: Option<Descriptors>,
    /// The gateway's URL when the configuration gives none.
    pub listen_url: Option<String>,
    pub census_interval: Duration,
}

/// A gateway serving the APIs of its settings.
pub struct Server {
    table: Arc<Table>,
    connections: Arc<Connections>,
    descriptors: Option<Descriptors>,
    census_interval: Duration,
}

impl Server {
    /// Builds every API of `settings`: documents read, credentials and keys
    /// files read, gateways made. Nothing is served yet.
    pub fn new(
        settings: &Settings,
        options: ServerOptions,
        metrics: Arc<Metrics>,
    ) -> Result<Server, HostError> {
        let table = Table::load(
            settings,
            options.http,
            options.limits,
            options.body_timeout,
            options.listen_url,
            Arc::clone(&metrics),
        )?;
        Ok(Server {
            table: Arc::new(table),
            connections: Connections::new(options.connections, metrics),
            descriptors: options.descriptors,
            census_interval: options.census_interval,
        })
    }

    /// The APIs served now.
    pub fn routes(&self) -> Arc<Routes> {
        self.table.routes()
    }

    pub fn metrics(&self) -> &Arc<Metrics> {
        self.table.metrics()
    }

    /// Brings the metrics of things alive up to date, for the admin
    /// listener's scrapes.
    pub fn before_scrape(&self) -> BeforeScrape {
        table::before_scrape(&self.table)
    }

    /// Replaces the APIs with those of `settings` in one swap, or serves on
    /// unchanged; logged and counted either way.
    pub fn reload(&self, settings: &Settings) -> Result<Changes, HostError> {
        let reloaded = self.table.reload(settings);
        self.metrics().reloaded(reloaded.is_ok());
        match &reloaded {
            Ok(changes) => tracing::info!(
                version = changes.version,
                added = %changes.added.join(","),
                removed = %changes.removed.join(","),
                replaced = %changes.replaced.join(","),
                kept = %changes.kept.join(","),
                "reloaded"
            ),
            Err(error) => tracing::error!(
                version = self.routes().version,
                "reload refused, serving on unchanged: {error}"
            ),
        }
        reloaded
    }

    /// Serves over HTTP on `listener` until `shutdown` completes, then
    /// drains: the start-up lines first, who is let in and what the
    /// listener holds.
    pub async fn serve(
        &self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()>,
    ) -> std::io::Result<()> {
        let address = listener.local_addr()?;
        self.say_serving(address);
        self.metrics().set_ready(true);
        listener::serve(
            listener,
            Arc::clone(&self.table),
            Arc::clone(&self.connections),
            self.census_interval,
            shutdown,
        )
        .await
    }

    fn say_serving(&self, address: SocketAddr) {
        let routes = self.routes();
        for hosted in routes.apis() {
            let url = format!("http://{address}{}", hosted.settings.path());
            log_serving(
                &hosted.settings,
                &hosted.summary,
                "serving over HTTP",
                Some(&url),
            );
            tracing::info!(
                api = hosted.settings.name.as_deref(),
                agents = %hosted.gate.describe(),
                limits = %describe_limits(&hosted.settings),
                "letting in"
            );
        }
        let limits = self.connections.limits();
        tracing::info!(
            descriptor_limit = self.descriptors.map(|d| d.now),
            descriptor_limit_was = self.descriptors.map(|d| d.before),
            max_connections = limits.max_open,
            max_connections_per_client = limits.per_client,
            head_timeout_s = limits.head_timeout.as_secs(),
            keep_alive_timeout_s = limits.idle_timeout.as_secs(),
            send_timeout_s = limits.send_timeout.as_secs(),
            "holding connections"
        );
        warn_if_open(&routes, address);
    }
}

/// The start-up line of one API: what it serves, from where, and where its
/// credential goes.
pub fn log_serving(settings: &ApiSettings, summary: &Summary, message: &str, url: Option<&str>) {
    tracing::info!(
        api = settings.name.as_deref(),
        tools = summary.tools,
        deprecated_left_out = summary.deprecated_left_out,
        not_chosen = summary.not_chosen,
        document = %settings.openapi.display(),
        base_url = %settings.base_url,
        credential = %summary.credential,
        url = url.map(tracing::field::display),
        "{message}"
    );
}

/// What each agent may make of the API, for the start-up line.
fn describe_limits(settings: &ApiSettings) -> String {
    let limits = &settings.limits;
    let mut said = Vec::new();
    if let Some(rate) = limits.calls_per_second {
        let burst = limits.burst.map_or_else(
            || rate.max(1.0).ceil().to_string(),
            |burst| burst.to_string(),
        );
        said.push(format!("{rate} calls a second (burst {burst})"));
    }
    if let Some(calls) = limits.calls_in_flight {
        said.push(format!("{calls} calls in flight"));
    }
    if said.is_empty() {
        "no per-agent limit".to_owned()
    } else {
        format!("each agent {}", said.join(", "))
    }
}

/// Once at start-up: anyone who reaches an address that is not loopback
/// can spend the stored credentials of the APIs that let anyone in.
fn warn_if_open(routes: &Routes, address: SocketAddr) {
    if address.ip().is_loopback() {
        return;
    }
    let open: Vec<String> = routes
        .apis()
        .iter()
        .filter(|hosted| !hosted.gate.checks())
        .map(|hosted| hosted.settings.path())
        .collect();
    if !open.is_empty() {
        tracing::warn!(
            endpoints = %open.join(", "),
            "anyone who can reach {address} can call these APIs with their stored credentials: \
             let in only your agents with --agent-keys FILE or --oauth-issuer URL"
        );
    }
}

/// On each SIGHUP, reads the settings again with `read` and reloads
/// `server` with them; a failed read is logged as a refused reload.
pub async fn reload_on_hangup(server: Arc<Server>, read: impl Fn() -> Result<Settings, HostError>) {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let Ok(mut hangups) = signal(SignalKind::hangup()) else {
            tracing::warn!("cannot listen for SIGHUP: reloading needs a restart");
            return;
        };
        while hangups.recv().await.is_some() {
            match read() {
                Ok(settings) => {
                    let _ = server.reload(&settings);
                }
                Err(error) => {
                    server.metrics().reloaded(false);
                    tracing::error!(
                        version = server.routes().version,
                        "reload refused, serving on unchanged: {error}"
                    );
                }
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (server, read);
        std::future::pending::<()>().await;
    }
}

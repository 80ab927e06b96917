//! The APIs being served, found by their endpoint's path, and replaced
//! whole when the configuration is read again.
//!
//! A reload builds every API of the new configuration before it touches
//! the running ones: one that cannot be built refuses the whole reload, and
//! the table serves on unchanged. Reloads take one lock, so two never
//! interleave; once all is built, the new routes, each API's stack with
//! its gateway, take the old ones' place in one swap. An API whose tools
//! are the same keeps its endpoint, and so its sessions, and its agents'
//! limits where they are the same; calls in flight finish with the gateway
//! they started with. The endpoints left behind answer their calls in
//! flight, then end their sessions.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, RwLock};
use std::time::Duration;

use super::api::{self, Built, Summary};
use super::errors::{ApiError, HostError};
use super::message::ApiService;
use super::settings::{ApiSettings, Key, Settings};
use super::stack;
use crate::agents::{
    self, AgentLimits, Authorities, Gate, LimitSettings, Refusals, Resource, SessionOwners,
    SharedRate,
};
use crate::gateway::{Gateway, Limits};
use crate::mcp::{self, HttpEndpoint, HttpOptions, McpServer};
use crate::watch::Metrics;

/// How long an endpoint left behind by a reload waits for its calls in
/// flight before it ends its sessions: the upstream deadline and a margin.
const RETIRE_AFTER_CALLS: Duration = Duration::from_secs(20);

/// The live table.
pub struct Table {
    routes: RwLock<Arc<Routes>>,
    /// Held through a reload, so that reloads never interleave.
    reloading: Mutex<()>,
    options: HttpOptions,
    limits: Limits,
    body_timeout: Duration,
    /// The gateway's URL when the configuration gives none: the address it
    /// listens on, when that is one agents can reach it at.
    listen_url: Option<String>,
    /// The authorization servers agents' tokens come from, kept across
    /// reloads with the keys they hold.
    authorities: Authorities,
    authority_client: reqwest::Client,
    metrics: Arc<Metrics>,
}

/// One version of the table.
pub struct Routes {
    /// 1 for the configuration read at start-up, one more for each reload.
    pub version: u64,
    apis: Vec<Arc<Hosted>>,
    by_path: HashMap<String, usize>,
}

/// One API being served.
pub struct Hosted {
    pub settings: ApiSettings,
    pub summary: Summary,
    /// Who may use it.
    pub gate: Arc<Gate>,
    pub endpoint: Arc<HttpEndpoint>,
    /// Its stack of layers in front of the endpoint, with this version's
    /// gateway.
    pub service: ApiService,
    /// The agent each of the endpoint's sessions belongs to; kept with it.
    owners: Arc<SessionOwners>,
    /// Its agents' limits, kept across reloads that do not change them.
    limits: Option<(Limiting, Arc<AgentLimits>)>,
    /// The SHA-256 of the tools as MCP lists them, and whether read-only
    /// tools are also listed alone: an endpoint is kept across a reload
    /// only for the very same lists.
    tools: ([u8; 32], bool),
}

/// What an API's agents' limits were made of.
#[derive(PartialEq)]
struct Limiting {
    settings: LimitSettings,
    store: Option<String>,
}

/// What a reload changed, for its log line.
#[derive(Debug, Default)]
pub struct Changes {
    pub version: u64,
    pub added: Vec<String>,
    pub removed: Vec<String>,
    /// APIs whose tools changed: their sessions end.
    pub replaced: Vec<String>,
    /// APIs whose tools stayed: their sessions live on.
    pub kept: Vec<String>,
}

/// An API built, with its agents' checks, not yet served.
struct Ready {
    built: Built,
    gate: Arc<Gate>,
    limiting: Limiting,
}

impl Table {
    /// The table of `settings` for a gateway listening at `listen_url`, or
    /// the first error met building it.
    pub fn load(
        settings: &Settings,
        options: HttpOptions,
        limits: Limits,
        body_timeout: Duration,
        listen_url: Option<String>,
        metrics: Arc<Metrics>,
    ) -> Result<Table, HostError> {
        let table = Table {
            routes: RwLock::new(Arc::new(Routes::new(0, Vec::new()))),
            reloading: Mutex::new(()),
            options,
            limits,
            body_timeout,
            listen_url,
            authorities: Authorities::default(),
            authority_client: agents::authority_client()?,
            metrics,
        };
        let mut apis: Vec<Arc<Hosted>> = Vec::new();
        for ready in table.build(settings)? {
            let tools = (tools_digest(&ready.built, &apis), ready.gate.limits_tools());
            let endpoint = table.new_endpoint(&ready, &apis);
            apis.push(Arc::new(table.hosted(ready, endpoint, tools, None, None)?));
        }
        *table.routes.write().unwrap_or_else(PoisonError::into_inner) =
            Arc::new(Routes::new(1, apis));
        Ok(table)
    }

    /// Every API of `settings` built, with its agents' checks.
    fn build(&self, settings: &Settings) -> Result<Vec<Ready>, ApiError> {
        let public_url = settings.public_url.as_ref().or(self.listen_url.as_ref());
        let built = build_all(settings, self.limits, &self.metrics)?;
        built
            .into_iter()
            .map(|built| {
                let public_url = match (public_url, &built.settings.agents.oauth) {
                    (Some(url), _) => url.as_str(),
                    (None, None) => "http://localhost",
                    (None, Some(_)) => {
                        return Err(ApiError::NoPublicUrl {
                            api: built.settings.label(),
                        })
                    }
                };
                let resource = Resource::at(public_url, &built.settings.path());
                let gate = Gate::build(
                    &built.settings.agents,
                    resource,
                    &self.authorities,
                    &self.authority_client,
                )
                .map_err(|source| ApiError::Agents {
                    at: built.settings.written(Key::Agents),
                    source,
                })?;
                let limiting = Limiting {
                    settings: built.settings.limits.clone(),
                    store: settings.limits_store.clone(),
                };
                Ok(Ready {
                    built,
                    gate: Arc::new(gate),
                    limiting,
                })
            })
            .collect()
    }

    /// Where the gateway's metrics are recorded.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// The table as it is now.
    pub fn routes(&self) -> Arc<Routes> {
        Arc::clone(&self.routes.read().unwrap_or_else(PoisonError::into_inner))
    }

    /// Replaces the table with `settings`' APIs, all built before any is
    /// served; on an error nothing changes.
    pub fn reload(&self, settings: &Settings) -> Result<Changes, HostError> {
        let _reloading = self
            .reloading
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let ready = self.build(settings)?;
        let old = self.routes();
        let mut changes = Changes {
            version: old.version + 1,
            ..Changes::default()
        };
        let mut apis: Vec<Arc<Hosted>> = Vec::with_capacity(ready.len());
        for ready in ready {
            let path = ready.built.settings.path();
            let tools = (tools_digest(&ready.built, &apis), ready.gate.limits_tools());
            let name = ready
                .built
                .settings
                .name
                .clone()
                .unwrap_or_else(|| path.clone());
            let before = old.find(&path);
            let kept = before.filter(|hosted| hosted.tools == tools);
            let (endpoint, owners) = match kept {
                Some(kept) => {
                    changes.kept.push(name);
                    (Arc::clone(&kept.endpoint), Some(Arc::clone(&kept.owners)))
                }
                None => {
                    if before.is_some() {
                        changes.replaced.push(name);
                    } else {
                        changes.added.push(name);
                    }
                    (self.new_endpoint(&ready, &apis), None)
                }
            };
            let limits = before
                .and_then(|hosted| hosted.limits.as_ref())
                .filter(|(limiting, _)| *limiting == ready.limiting)
                .map(|(_, limits)| Arc::clone(limits));
            apis.push(Arc::new(
                self.hosted(ready, endpoint, tools, owners, limits)?,
            ));
        }
        let routes = Arc::new(Routes::new(changes.version, apis));
        for left in old.apis() {
            let path = left.settings.path();
            let still = routes
                .find(&path)
                .is_some_and(|hosted| Arc::ptr_eq(&hosted.endpoint, &left.endpoint));
            if !still {
                if routes.find(&path).is_none() {
                    changes
                        .removed
                        .push(left.settings.name.clone().unwrap_or(path));
                }
                retire(Arc::clone(&left.endpoint));
            }
        }
        *self.routes.write().unwrap_or_else(PoisonError::into_inner) = routes;
        // Operators expect a reload to read everything again: the issuers'
        // keys too, fetched in the background.
        self.authorities.refresh_all_soon();
        Ok(changes)
    }

    /// An endpoint of its own for `ready`, sharing the tool list of one of
    /// `siblings` that serves the same tools.
    fn new_endpoint(&self, ready: &Ready, siblings: &[Arc<Hosted>]) -> Arc<HttpEndpoint> {
        let limitable = ready.gate.limits_tools();
        let gateway = Arc::clone(&ready.built.gateway);
        let shared = siblings.iter().find_map(|sibling| {
            McpServer::beside(Arc::clone(&gateway), sibling.endpoint.server(), limitable)
        });
        let server = match shared {
            Some(server) => server,
            None if limitable => McpServer::limitable(gateway),
            None => McpServer::new(gateway),
        };
        Arc::new(HttpEndpoint::new(server, &self.options))
    }

    /// `ready` served at `endpoint`, its sessions' owners and its agents'
    /// limits kept from before where given.
    fn hosted(
        &self,
        ready: Ready,
        endpoint: Arc<HttpEndpoint>,
        tools: ([u8; 32], bool),
        owners: Option<Arc<SessionOwners>>,
        limits: Option<Arc<AgentLimits>>,
    ) -> Result<Hosted, ApiError> {
        let Ready {
            built,
            gate,
            limiting,
        } = ready;
        let settings = built.settings;
        let owners = owners.unwrap_or_default();
        let limits = match limits {
            Some(kept) => Some(kept),
            None => {
                let shared = limiting
                    .store
                    .as_deref()
                    .map(|url| {
                        SharedRate::new(url, settings.metric_name(), Arc::clone(&self.metrics))
                    })
                    .transpose()
                    .map_err(|source| ApiError::Agents {
                        at: settings.written(Key::Agents),
                        source,
                    })?;
                AgentLimits::new(&limiting.settings, shared)
            }
        };
        let refusals = Refusals::new(
            Arc::clone(&self.metrics),
            settings.metric_name(),
            settings.name.as_deref(),
        );
        let service = stack::api_service(stack::Parts {
            gate: Arc::clone(&gate),
            endpoint: Arc::clone(&endpoint),
            gateway: Arc::clone(&built.gateway),
            owners: Arc::clone(&owners),
            limits: limits.clone(),
            refusals,
            body_timeout: self.body_timeout,
        });
        Ok(Hosted {
            settings,
            summary: built.summary,
            gate,
            endpoint,
            service,
            owners,
            limits: limits.map(|limits| (limiting, limits)),
            tools,
        })
    }
}

impl Routes {
    fn new(version: u64, apis: Vec<Arc<Hosted>>) -> Routes {
        let by_path = apis
            .iter()
            .enumerate()
            .map(|(position, hosted)| (hosted.settings.path(), position))
            .collect();
        Routes {
            version,
            apis,
            by_path,
        }
    }

    /// The API served at `path`.
    pub fn find(&self, path: &str) -> Option<&Arc<Hosted>> {
        self.by_path.get(path).map(|&position| &self.apis[position])
    }

    /// Every API, in the configuration's order.
    pub fn apis(&self) -> &[Arc<Hosted>] {
        &self.apis
    }
}

/// The SHA-256 of the tools as MCP lists them: a sibling's when it serves
/// the same compiled tools, else worked out.
fn tools_digest(built: &Built, siblings: &[Arc<Hosted>]) -> [u8; 32] {
    let same = siblings.iter().find(|sibling| {
        Arc::ptr_eq(
            sibling.endpoint.server().gateway().compiled(),
            built.gateway.compiled(),
        )
    });
    match same {
        Some(sibling) => sibling.tools.0,
        None => tools_digest_of(&built.gateway),
    }
}

fn tools_digest_of(gateway: &Gateway) -> [u8; 32] {
    let json = serde_json::to_vec(&mcp::tools_list_json(gateway.tools())).unwrap_or_default();
    let digest = ring::digest::digest(&ring::digest::SHA256, &json);
    let mut sha256 = [0u8; 32];
    sha256.copy_from_slice(digest.as_ref());
    sha256
}

/// Every API of `settings` built, each masking every stored credential and
/// counting its calls in `metrics`.
pub fn build_all(
    settings: &Settings,
    limits: Limits,
    metrics: &Arc<Metrics>,
) -> Result<Vec<Built>, ApiError> {
    let mut documents = api::Documents::read_all(&settings.apis);
    let prepared = settings
        .apis
        .iter()
        .map(|settings| api::prepare(settings, &mut documents))
        .collect::<Result<Vec<_>, _>>()?;
    let masked: Vec<Vec<String>> = prepared.iter().map(api::Prepared::secret_forms).collect();
    prepared
        .into_iter()
        .map(|prepared| {
            let meter = metrics.api(prepared.settings.metric_name());
            api::build(prepared, masked.clone(), limits, meter)
        })
        .collect()
}

/// An endpoint no longer in the table: its calls in flight are answered,
/// then its sessions end.
fn retire(endpoint: Arc<HttpEndpoint>) {
    tokio::spawn(async move {
        let _ = tokio::time::timeout(RETIRE_AFTER_CALLS, endpoint.calls_answered()).await;
        endpoint.end_sessions();
    });
}

/// Brings the metrics of things alive (the APIs, their sessions, the
/// configuration's version) up to date, for a scrape.
pub fn before_scrape(table: &Arc<Table>) -> crate::watch::BeforeScrape {
    let table = Arc::clone(table);
    Arc::new(move || {
        let table = Arc::clone(&table);
        Box::pin(async move {
            let routes = table.routes();
            let mut sessions = Vec::with_capacity(routes.apis().len());
            for hosted in routes.apis() {
                let alive = hosted.endpoint.sessions_alive().await;
                sessions.push((hosted.settings.metric_name().to_owned(), alive));
            }
            table.metrics().serving(routes.version, &sessions);
        })
    })
}

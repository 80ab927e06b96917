//! One hosted API made ready: its document read into tools, its stored
//! credential read, and the gateway that calls its host built.
//!
//! Made in two steps, so that every API's answers can mask every stored
//! credential of the process: [`prepare`] reads what the operator named,
//! [`build`] makes the gateway once all credentials are known. APIs that
//! serve the same document with the same choice of tools share its tools,
//! loaded and compiled once ([`Documents`]).

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use super::errors::ApiError;
use super::settings::{ApiSettings, CredentialSource, ExchangeSettings, Key, Origin};
use crate::answer;
use crate::cleartext::Cleartext;
use crate::convert::{self, Catalogue, CredentialPlacement};
use crate::exchange::ExchangeConfig;
use crate::gateway::{self, CompiledTools, Gateway, Limits, UpstreamConfig};
use crate::load::{self, LoadError};
use crate::request::DestinationError;
use crate::secret::Secret;
use crate::watch::ApiMeter;

/// A document read, or why it could not be: shared by the APIs that serve it.
type Read = Result<(Arc<CompiledTools>, usize), Arc<LoadError>>;

/// Below this many characters a credential is likely to stand in ordinary
/// text (a credential `e` masks `method` as `m[credential]thod`).
const SHORT_CREDENTIAL: usize = 8;

/// The documents read for one build of the APIs, by path and choice of
/// tools: an API of a document read already shares its tools. Made afresh
/// for each build, so a reload reads every document again.
#[derive(Default)]
pub struct Documents {
    read: HashMap<String, Read>,
}

impl Documents {
    /// Reads every document `apis` name, each once, on as many threads as
    /// the machine has cores: hundreds of APIs start in the time their
    /// distinct documents take to load.
    pub fn read_all(apis: &[ApiSettings]) -> Documents {
        let mut wanted: Vec<(String, &ApiSettings)> = Vec::new();
        for api in apis {
            let key = document_key(api);
            if !wanted.iter().any(|(seen, _)| *seen == key) {
                wanted.push((key, api));
            }
        }
        let next = std::sync::atomic::AtomicUsize::new(0);
        let threads = std::thread::available_parallelism()
            .map_or(1, usize::from)
            .min(wanted.len().max(1));
        let read = std::sync::Mutex::new(HashMap::with_capacity(wanted.len()));
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| loop {
                    let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((key, api)) = wanted.get(at) else {
                        break;
                    };
                    let loaded = catalogue(&api.openapi, &api.tools)
                        .map(|(catalogue, deprecated)| {
                            (Arc::new(CompiledTools::new(catalogue)), deprecated)
                        })
                        .map_err(Arc::new);
                    read.lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner)
                        .insert(key.clone(), loaded);
                });
            }
        });
        Documents {
            read: read
                .into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner),
        }
    }
}

/// What makes two APIs' tools the same: the document and the choice.
fn document_key(api: &ApiSettings) -> String {
    format!("{}\n{:?}", api.openapi.display(), api.tools)
}

/// An API whose document and credential were read.
pub struct Prepared {
    pub settings: ApiSettings,
    compiled: Arc<CompiledTools>,
    /// Operations left out as deprecated (TC-NAME-010).
    deprecated: usize,
    credential: Option<Secret>,
    trusted_ca_pem: Option<Vec<u8>>,
}

/// An API ready to serve.
pub struct Built {
    pub settings: ApiSettings,
    pub gateway: Arc<Gateway>,
    /// What the start-up line says of it.
    pub summary: Summary,
}

/// What the start-up line says of an API.
#[derive(Debug, Clone)]
pub struct Summary {
    pub tools: usize,
    pub deprecated_left_out: usize,
    pub not_chosen: usize,
    /// Where the credential goes and why.
    pub credential: String,
}

/// Reads the API's document into tools, and its credential and CA file.
/// An error names where the setting at fault is written.
pub fn prepare(settings: &ApiSettings, documents: &mut Documents) -> Result<Prepared, ApiError> {
    let key = document_key(settings);
    let read = match documents.read.get(&key) {
        Some(read) => read.clone(),
        None => {
            let read = catalogue(&settings.openapi, &settings.tools)
                .map(|(catalogue, deprecated)| {
                    (Arc::new(CompiledTools::new(catalogue)), deprecated)
                })
                .map_err(Arc::new);
            documents.read.insert(key, read.clone());
            read
        }
    };
    let (compiled, deprecated) = read.map_err(|error| document_error(settings, &error))?;
    let credential = read_credential(settings)?;
    let trusted_ca_pem = match &settings.ca_file {
        Some(path) => Some(std::fs::read(path).map_err(|source| ApiError::Unreadable {
            at: settings.written(Key::CaFile),
            source,
        })?),
        None => None,
    };
    Ok(Prepared {
        settings: settings.clone(),
        compiled,
        deprecated,
        credential,
        trusted_ca_pem,
    })
}

/// Why the API's document cannot be used. A file the config file names
/// and that cannot be read is named by its key, not its path: the path is
/// a value of the file.
fn document_error(settings: &ApiSettings, error: &Arc<LoadError>) -> ApiError {
    let at = settings.written(Key::OpenApi);
    match (&settings.origin, error.as_ref()) {
        (Origin::Config { .. }, LoadError::Read { source, .. }) => ApiError::Unreadable {
            at,
            source: std::io::Error::new(source.kind(), source.to_string()),
        },
        (Origin::Config { .. }, LoadError::Url { .. }) => ApiError::DocumentIsUrl { at },
        (Origin::Config { .. }, _) => ApiError::Document {
            at,
            source: Arc::clone(error),
        },
        (Origin::Flags, _) => ApiError::Load(Arc::clone(error)),
    }
}

/// The document's tools, and how many of its operations were left out as
/// deprecated (TC-NAME-010).
pub fn catalogue(
    openapi: &Path,
    options: &convert::Options,
) -> Result<(Catalogue, usize), LoadError> {
    let document = load::load_path(openapi)?;
    // What was passed over (an external `$ref`, a parameter in an unknown place)
    // is said in the log on stderr, which stays free of MCP traffic even over stdio.
    for warning in &document.warnings {
        tracing::warn!("{warning}");
    }
    let deprecated = document
        .operations
        .iter()
        .filter(|op| op.deprecated)
        .count();
    let catalogue = convert::convert_with(&document, options)?;
    for selector in &catalogue.unmatched_selectors {
        tracing::warn!("{selector} names no operation of the document: nothing is chosen by it");
    }
    Ok((catalogue, deprecated))
}

impl Prepared {
    /// The forms of its credential that every API masks.
    pub fn secret_forms(&self) -> Vec<String> {
        let placement = self.settings.placement.as_ref().or(self
            .compiled
            .catalogue()
            .default_credential
            .as_ref());
        self.credential
            .as_ref()
            .map(|credential| answer::secret_forms(credential.expose(), placement))
            .unwrap_or_default()
    }
}

/// Builds the API's gateway, masking `also_masked` (the other APIs'
/// credentials) besides its own, its calls counted by `meter`, and warns
/// once of what its operator should fix first.
pub fn build(
    prepared: Prepared,
    also_masked: Vec<Vec<String>>,
    limits: Limits,
    meter: ApiMeter,
) -> Result<Built, ApiError> {
    let Prepared {
        settings,
        compiled,
        deprecated,
        credential,
        trusted_ca_pem,
    } = prepared;
    let catalogue = compiled.catalogue();
    let exchange = settings
        .exchange
        .as_ref()
        .map(|exchange| exchange_config(exchange, catalogue, &settings))
        .transpose()?;
    let upstream = UpstreamConfig {
        base_url: settings.base_url.clone(),
        credential,
        placement: settings.placement.clone(),
        trusted_ca_pem,
        also_masked,
        exchange,
    };
    let summary = Summary {
        tools: catalogue.tools.len(),
        deprecated_left_out: deprecated,
        not_chosen: catalogue.left_out_by_selection,
        credential: review(catalogue, &upstream, &settings),
    };
    let gateway = Gateway::with_tools(compiled, upstream, limits).map_err(|source| {
        let key = match &source {
            gateway::ConfigError::Destination(
                DestinationError::NotAHeaderValue | DestinationError::NotAHeaderName,
            ) => Key::Credential,
            gateway::ConfigError::Destination(_) => Key::BaseUrl,
            gateway::ConfigError::Client(_) => Key::CaFile,
            gateway::ConfigError::NoClientSecret => Key::Credential,
        };
        ApiError::Gateway {
            at: settings.written(key),
            source,
        }
    })?;
    Ok(Built {
        settings,
        gateway: Arc::new(gateway.metered(meter)),
        summary,
    })
}

/// Where the API's tokens are asked for: the configured token URL, else
/// the document's client-credentials flow's, taken from the base URL when
/// it is relative. The client's secret goes there, so a configured one is
/// spoken to over plain http on loopback only (unless allowed), and the
/// document's over https only.
fn exchange_config(
    exchange: &ExchangeSettings,
    catalogue: &Catalogue,
    settings: &ApiSettings,
) -> Result<ExchangeConfig, ApiError> {
    let at = settings.written(Key::TokenUrl);
    let (written, rule) = match (&exchange.token_url, &catalogue.token_url) {
        (Some(configured), _) => (configured, exchange.cleartext),
        (None, Some(documented)) => (documented, Cleartext::LoopbackOnly),
        (None, None) => return Err(ApiError::NoTokenUrl { at }),
    };
    let token_url = url::Url::parse(&settings.base_url)
        .and_then(|base| base.join(written))
        .map_err(|_| ApiError::TokenUrl {
            at: at.clone(),
            why: crate::cleartext::UrlRefused::NotAUrl,
        })?;
    if exchange.token_url.is_none() && token_url.scheme() != "https" {
        return Err(ApiError::DocumentTokenUrlNotHttps { at });
    }
    rule.check(token_url.as_str())
        .map_err(|why| ApiError::TokenUrl { at, why })?;
    Ok(ExchangeConfig {
        token_url: token_url.to_string(),
        client_id: exchange.client_id.clone(),
        scopes: exchange.scopes.clone(),
    })
}

/// Where the credential goes and why, for the start-up line; and, once
/// each, the warnings an operator should act on before the first call.
fn review(catalogue: &Catalogue, upstream: &UpstreamConfig, settings: &ApiSettings) -> String {
    let api = settings.name.as_deref();
    if catalogue.tools.is_empty() {
        tracing::warn!(
            api,
            document = %settings.openapi.display(),
            "the document gives no tool: it has no operation that is not deprecated"
        );
    }
    let not_json: Vec<&str> = catalogue
        .tools
        .iter()
        .filter(|tool| {
            tool.plan
                .body
                .as_ref()
                .is_some_and(|body| !is_json(&body.content_type))
        })
        .map(|tool| tool.name.as_str())
        .collect();
    if let Some(first) = not_json.first() {
        tracing::warn!(
            api,
            operations = not_json.len(),
            first = %first,
            "operations whose request body the document gives only in a media type that is not \
             JSON: the gateway sends their body as JSON with that type, which the API may refuse"
        );
    }
    let Some(credential) = &upstream.credential else {
        tracing::warn!(
            api,
            "no credential is set ({}): requests go to the API without one",
            credential_names(&settings.credential)
        );
        return "none".to_owned();
    };
    let length = credential.expose().chars().count();
    if length < SHORT_CREDENTIAL {
        tracing::warn!(
            api,
            "the credential is only {length} characters long: every occurrence of it in an answer \
             is masked as [credential], which garbles ordinary text"
        );
    }
    if let Some(exchange) = &upstream.exchange {
        return format!(
            "Authorization: Bearer, tokens from {} for the client {}",
            exchange.token_url, exchange.client_id
        );
    }
    let (placement, why) = match (&upstream.placement, &catalogue.default_credential) {
        (Some(placement), _) => (placement, "--credential-in".to_owned()),
        (None, Some(placement)) => (
            placement,
            format!(
                "the document's security scheme {}",
                catalogue.credential_scheme.as_deref().unwrap_or_default()
            ),
        ),
        (None, None) => (
            &CredentialPlacement::Bearer,
            "the default: the document names no usable security scheme".to_owned(),
        ),
    };
    let place = match placement {
        CredentialPlacement::Header(name) => format!("header {name}"),
        CredentialPlacement::Bearer => "Authorization: Bearer".to_owned(),
        CredentialPlacement::Basic => "Authorization: Basic".to_owned(),
        CredentialPlacement::Query(name) => format!("query parameter {name}"),
    };
    format!("{place}, from {why}")
}

/// How the operator gives the credential, for the warning that none is set.
fn credential_names(source: &CredentialSource) -> String {
    match source {
        CredentialSource::None => "its configuration gives no `credential`".to_owned(),
        CredentialSource::Env { name, .. } => format!("{name} or --credential-file"),
        CredentialSource::File(path) => path.display().to_string(),
    }
}

/// `application/json` or a `+json` type, whatever its parameters.
fn is_json(content_type: &str) -> bool {
    let essence = content_type.split(';').next().unwrap_or_default().trim();
    essence.eq_ignore_ascii_case("application/json")
        || essence.to_ascii_lowercase().ends_with("+json")
}

/// The credential from a file or the environment, never from the command
/// line, where the process list would show it.
fn read_credential(settings: &ApiSettings) -> Result<Option<Secret>, ApiError> {
    let raw = match &settings.credential {
        CredentialSource::None => return Ok(None),
        CredentialSource::File(path) => {
            std::fs::read_to_string(path).map_err(|source| ApiError::Unreadable {
                at: settings.written(Key::CredentialFile),
                source,
            })?
        }
        CredentialSource::Env { name, required } => match std::env::var(name) {
            Ok(value) => value,
            Err(std::env::VarError::NotPresent) if !required => return Ok(None),
            Err(std::env::VarError::NotPresent) => {
                return Err(ApiError::EnvUnset {
                    at: settings.written(Key::CredentialEnv),
                })
            }
            Err(std::env::VarError::NotUnicode(_)) => {
                return Err(ApiError::EnvNotText {
                    at: settings.written(Key::CredentialEnv),
                })
            }
        },
    };
    let credential = raw.strip_suffix('\n').unwrap_or(&raw);
    let credential = credential.strip_suffix('\r').unwrap_or(credential);
    Ok((!credential.is_empty()).then(|| Secret::new(credential)))
}

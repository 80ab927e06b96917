//! What the operator asks of the gateway, before anything is read: the APIs
//! to host and how, from the command line's flags (one API) or a config
//! file (many).

use std::path::PathBuf;

use crate::agents::AgentsSettings;
use crate::convert::{self, CredentialPlacement};

/// Every API the gateway hosts.
#[derive(Debug, Clone)]
pub struct Settings {
    pub apis: Vec<ApiSettings>,
    /// The scheme and authority agents reach the gateway at
    /// (`https://mcp.example.com`), for access tokens' audience; `None` for
    /// the address it listens on.
    pub public_url: Option<String>,
}

/// One API: its document, the tools chosen from it, its verified host and
/// its stored credential.
#[derive(Debug, Clone)]
pub struct ApiSettings {
    /// `None` for the one API of the flags, served at `/mcp`; a named API is
    /// served at `/mcp/{name}`.
    pub name: Option<String>,
    /// The OpenAPI document.
    pub openapi: PathBuf,
    /// Which operations become tools, and how long their names may be.
    pub tools: convert::Options,
    /// The API owner's verified host.
    pub base_url: String,
    pub credential: CredentialSource,
    /// Where the credential goes, when not where the document says.
    pub placement: Option<CredentialPlacement>,
    /// PEM certificates of private CAs trusted for the host.
    pub ca_file: Option<PathBuf>,
    /// Who may use it.
    pub agents: AgentsSettings,
    /// For an API that takes tokens of its own OAuth server: the client the
    /// stored credential is the secret of.
    pub exchange: Option<ExchangeSettings>,
}

/// The API's own OAuth client: the stored credential is its secret,
/// exchanged for access tokens by the client-credentials grant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExchangeSettings {
    pub client_id: String,
    /// Where tokens are asked for; `None` for the document's
    /// client-credentials flow's `tokenUrl`.
    pub token_url: Option<String>,
    pub scopes: Vec<String>,
}

/// Where the stored credential is read from: never the command line or the
/// config file itself, which others can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CredentialSource {
    /// No credential: requests go without one.
    None,
    /// An environment variable; when it is unset, an error if `required`,
    /// else no credential.
    Env { name: String, required: bool },
    /// A file; one trailing newline is ignored.
    File(PathBuf),
}

impl ApiSettings {
    /// The path its MCP endpoint is served at.
    pub fn path(&self) -> String {
        match &self.name {
            None => "/mcp".to_owned(),
            Some(name) => format!("/mcp/{name}"),
        }
    }

    /// How metrics name it: its name, or `default` for the one API of the
    /// flags.
    pub fn metric_name(&self) -> &str {
        self.name.as_deref().unwrap_or("default")
    }

    /// How messages name it: `the API` when it is the only one.
    pub fn label(&self) -> String {
        match &self.name {
            None => "the API".to_owned(),
            Some(name) => format!("API `{name}`"),
        }
    }
}

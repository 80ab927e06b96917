//! What the operator asks of the gateway, before anything is read: the APIs
//! to host and how, from the command line's flags (one API) or a config
//! file (many).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::errors::{ConfigKey, Written};
use crate::agents::{AgentsSettings, LimitSettings};
use crate::cleartext::Cleartext;
use crate::convert::{self, CredentialPlacement};

/// Every API the gateway hosts.
#[derive(Debug, Clone)]
pub struct Settings {
    pub apis: Vec<ApiSettings>,
    /// The scheme and authority agents reach the gateway at
    /// (`https://mcp.example.com`), for access tokens' audience; `None` for
    /// the address it listens on.
    pub public_url: Option<String>,
    /// The Redis URL through which copies of the gateway share their
    /// agents' per-second limits.
    pub limits_store: Option<String>,
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
    /// What each of its agents may make.
    pub limits: LimitSettings,
    /// For an API that takes tokens of its own OAuth server: the client the
    /// stored credential is the secret of.
    pub exchange: Option<ExchangeSettings>,
    /// Where its settings are written, for messages.
    pub origin: Origin,
}

/// Where an API's settings come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Origin {
    /// The command line's flags.
    Flags,
    /// The `index`th API of a config file, with the lines its keys are on.
    Config {
        file: PathBuf,
        index: usize,
        lines: BTreeMap<Key, usize>,
        /// Whether its agents are the file's own `agents` (none of its own).
        file_agents: bool,
    },
}

/// The settings messages name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Key {
    Api,
    OpenApi,
    BaseUrl,
    Credential,
    CredentialEnv,
    CredentialFile,
    TokenUrl,
    CaFile,
    /// The agents' settings that apply: the API's own, or the file's.
    Agents,
}

impl Key {
    /// The key's path within an API of the config file.
    fn path(self) -> &'static str {
        match self {
            Key::Api => "",
            Key::OpenApi => ".openapi",
            Key::BaseUrl => ".base_url",
            Key::Credential => ".credential",
            Key::CredentialEnv => ".credential.env",
            Key::CredentialFile => ".credential.file",
            Key::TokenUrl => ".credential.token_url",
            Key::CaFile => ".ca_file",
            Key::Agents => ".agents",
        }
    }

    /// The flag (or variable) that gives it on the command line.
    fn flag(self) -> &'static str {
        match self {
            Key::Api => "the API",
            Key::OpenApi => "--openapi",
            Key::BaseUrl => "--base-url",
            Key::Credential | Key::CredentialEnv => "HOSTED_MCP_CREDENTIAL",
            Key::CredentialFile => "--credential-file",
            Key::TokenUrl => "--upstream-token-url",
            Key::CaFile => "--ca-file",
            Key::Agents => "--agent-keys/--oauth-issuer",
        }
    }
}

impl Origin {
    /// Where `key` is written.
    pub fn written(&self, key: Key) -> Written {
        match self {
            Origin::Flags => Written::Flag(key.flag()),
            Origin::Config {
                file,
                index,
                lines,
                file_agents,
            } => Written::Config(Box::new(ConfigKey {
                file: file.clone(),
                line: lines.get(&key).or_else(|| lines.get(&Key::Api)).copied(),
                key: match key {
                    Key::Agents if *file_agents => "agents".to_owned(),
                    _ => format!("apis[{index}]{}", key.path()),
                },
                api: None,
            })),
        }
    }
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
    /// Whether a configured token URL may be plain http off loopback.
    pub cleartext: Cleartext,
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

    /// Where `key` is written, for messages.
    pub fn written(&self, key: Key) -> Written {
        let mut written = self.origin.written(key);
        if let Written::Config(config) = &mut written {
            config.api.clone_from(&self.name);
        }
        written
    }

    /// How messages name it: `the API` when it is the only one.
    pub fn label(&self) -> String {
        match &self.name {
            None => "the API".to_owned(),
            Some(name) => format!("API `{name}`"),
        }
    }
}

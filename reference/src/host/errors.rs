//! What goes wrong hosting APIs, typed.
//!
//! A message names where a setting is written (the config file, its line
//! and key, or the flag) and the form expected. It never repeats a value
//! read from the configuration: a secret written where a reference to it
//! belongs would otherwise end up in CI logs and log collectors. Files that
//! were read (an OpenAPI document, a keys file) are named with the place in
//! them that is wrong.

use std::fmt;
use std::path::PathBuf;
use std::sync::Arc;

use thiserror::Error;

use crate::agents::GateError;
use crate::cleartext::UrlRefused;
use crate::gateway;
use crate::load::LoadError;

/// Where a setting is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// A command-line flag or an environment variable of the gateway's own.
    Flag(&'static str),
    Config(Box<ConfigKey>),
}

/// A key of a config file, and its line when it is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigKey {
    pub file: PathBuf,
    pub line: Option<usize>,
    /// Its path from the top: `apis[1].credential.env`.
    pub key: String,
    /// The name of the API it belongs to.
    pub api: Option<String>,
}

impl fmt::Display for Written {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let written = match self {
            Written::Flag(flag) => return f.write_str(flag),
            Written::Config(written) => written,
        };
        write!(f, "{}:", written.file.display())?;
        if let Some(line) = written.line {
            write!(f, "{line}:")?;
        }
        write!(f, " {}", written.key)?;
        match &written.api {
            Some(name) => write!(f, " (API `{name}`)"),
            None => Ok(()),
        }
    }
}

/// Why a config file cannot be used.
#[derive(Debug, Error)]
pub enum ConfigError {
    #[error("cannot read the config file {}: {source}", .file.display())]
    Unreadable {
        file: PathBuf,
        source: std::io::Error,
    },
    /// The file's text is not a config: `message` names the key and the
    /// form expected, never the value.
    #[error("{}:{}{message}", .file.display(), line_prefix(*.line))]
    Invalid {
        file: PathBuf,
        line: Option<usize>,
        message: String,
    },
    #[error("{} has no API named by --api; its APIs are: {}", .file.display(), .names.join(", "))]
    NoSuchApi { file: PathBuf, names: Vec<String> },
}

fn line_prefix(line: Option<usize>) -> String {
    line.map_or_else(|| " ".to_owned(), |line| format!("{line}: "))
}

/// Why an API cannot be served.
#[derive(Debug, Error)]
pub enum ApiError {
    #[error("{at}: the file it names cannot be read ({source})")]
    Unreadable { at: Written, source: std::io::Error },
    #[error("{at}: the environment variable it names is not set")]
    EnvUnset { at: Written },
    #[error("{at}: the environment variable it names does not hold UTF-8 text")]
    EnvNotText { at: Written },
    /// A document named on the command line: the loader's own words.
    #[error(transparent)]
    Load(Arc<LoadError>),
    #[error("{at}: {source}")]
    Document { at: Written, source: Arc<LoadError> },
    #[error(
        "{at}: it names the document by a URL: the gateway reads the document from a file and \
         never fetches one; download it and give its path"
    )]
    DocumentIsUrl { at: Written },
    #[error(
        "{at}: its credential is an OAuth client's secret, but neither the configuration's \
         token URL nor the document's oauth2 clientCredentials flow says where to ask for tokens"
    )]
    NoTokenUrl { at: Written },
    #[error("{at}: the token URL {why}")]
    TokenUrl { at: Written, why: UrlRefused },
    #[error(
        "{at}: the document's oauth2 tokenUrl is not https://, and the client's secret is sent \
         there: give the token URL yourself (`token_url`, --upstream-token-url)"
    )]
    DocumentTokenUrlNotHttps { at: Written },
    #[error("{at}: {source}")]
    Agents { at: Written, source: GateError },
    #[error("{at}: {source}")]
    Gateway {
        at: Written,
        source: gateway::ConfigError,
    },
    #[error(
        "{api}: MCP authorization needs the URL agents reach the gateway at, which tokens are \
         issued for: give it with --public-url (or `public_url` in the config file)"
    )]
    NoPublicUrl { api: String },
}

/// Why the gateway cannot start, or a reload is refused.
#[derive(Debug, Error)]
pub enum HostError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Api(#[from] ApiError),
    #[error(transparent)]
    Agents(#[from] GateError),
    #[error("cannot listen on {address}{flag}: {source}")]
    Listen {
        address: std::net::SocketAddr,
        flag: &'static str,
        source: std::io::Error,
    },
}

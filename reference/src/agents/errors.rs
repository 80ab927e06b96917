//! What goes wrong letting agents in, typed. No variant holds a secret or a
//! value read from the configuration: they name the file, the line, the
//! setting and what was expected.

use std::path::PathBuf;

use thiserror::Error;

use crate::cleartext::UrlRefused;

/// Why an API's checks of its agents cannot be built.
#[derive(Debug, Error)]
pub enum GateError {
    /// The path is the configuration's, which messages do not repeat:
    /// the caller says where it is written.
    #[error("the agents' keys file it names cannot be read ({source})")]
    KeysFileUnreadable { source: std::io::Error },
    #[error("{}:{line}: {why}", .path.display())]
    KeysFileLine {
        path: PathBuf,
        line: usize,
        why: &'static str,
    },
    #[error("the header agents show their key in must be a valid HTTP header name")]
    KeyHeaderName,
    #[error("MCP authorization needs at least one authorization server")]
    NoIssuer,
    #[error(
        "an authorization server's issuer URL {why}; give its https:// URL, or allow plain \
         http with `allow_http: true` (--oauth-allow-http) on a network you trust"
    )]
    IssuerUrl { why: UrlRefused },
    #[error(
        "`algorithms` lists a name that is not a JWT signing algorithm (RS256, PS256, ES256, \
         EdDSA, ...)"
    )]
    UnknownAlgorithm,
    #[error("{0} is not taken for access tokens: only asymmetric algorithms are")]
    SymmetricAlgorithm(&'static str),
    #[error("cannot make the HTTP client for authorization servers: {0}")]
    Client(reqwest::Error),
    #[error("the store of the agents' limits must be a Redis URL (redis://HOST:PORT/DB)")]
    LimitsStoreUrl,
}

/// Why an authorization server's keys could not be fetched, for the log.
/// The URLs are the server's own, found through its metadata.
#[derive(Debug, Error)]
pub enum FetchError {
    #[error("{url}: {why}")]
    Unreachable { url: String, why: String },
    #[error("{url}: answered {status}")]
    Status { url: String, status: u16 },
    #[error("{url}: its answer is over {limit} bytes")]
    TooBig { url: String, limit: usize },
    #[error("{url}: not the JSON expected")]
    NotJson { url: String },
    #[error("{why}")]
    Discovery { why: String },
}

/// The system's random source failed to make a key.
#[derive(Debug, Error)]
#[error("the system's random source failed")]
pub struct RandomFailed;

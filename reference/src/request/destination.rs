//! Where requests go and how the credential rides on them, settled once when
//! the gateway starts.

use base64::Engine as _;
use reqwest::header::{HeaderName, HeaderValue, AUTHORIZATION};
use reqwest::Url;

use super::encode::encode_component;
use crate::convert::{basic_pair, CredentialPlacement};
use crate::secret::Secret;

/// The verified host and the credential's place, validated up front so a
/// call never fails on configuration.
#[derive(Debug, Clone)]
pub struct Destination {
    base: Url,
    /// The base URL's path segments, which every request path starts with.
    base_segments: Vec<String>,
    credential: Option<CredentialSlot>,
}

/// Why the upstream's address or the credential cannot be used: found when
/// the gateway starts, so that no call fails on configuration.
#[derive(Debug, thiserror::Error)]
pub enum DestinationError {
    // The base URL is a value of the configuration, which messages never
    // repeat: a secret may have been written in its place.
    #[error("the base URL is not a URL: {reason}")]
    NotAUrl { reason: url::ParseError },
    #[error("the base URL must be an http or https URL with a host")]
    NotHttp,
    #[error("the base URL must not have a fragment")]
    Fragment,
    #[error("the credential contains characters a header cannot carry")]
    NotAHeaderValue,
    #[error("the header named for the credential (`credential_in`, --credential-in) is not a valid header name")]
    NotAHeaderName,
}

/// The credential, already in the form its place needs.
#[derive(Debug, Clone)]
pub enum CredentialSlot {
    /// A header holding exactly this value: the named header, or
    /// `Authorization` with `Bearer …` or `Basic …`.
    Header {
        name: HeaderName,
        value: HeaderValue,
    },
    /// A query parameter: its name, and the pair as it goes on the wire.
    Query { name: String, encoded_pair: Secret },
}

impl Destination {
    /// `placement` is the configured one, else the document's; with neither, a
    /// credential goes as a bearer token, the most common scheme (TC-REQ-017).
    /// An empty credential is no credential.
    pub fn new(
        base_url: &str,
        credential: Option<&str>,
        placement: Option<&CredentialPlacement>,
    ) -> Result<Destination, DestinationError> {
        let base = Url::parse(base_url).map_err(|reason| DestinationError::NotAUrl { reason })?;
        if !matches!(base.scheme(), "http" | "https") || base.host_str().is_none() {
            return Err(DestinationError::NotHttp);
        }
        if base.fragment().is_some() {
            return Err(DestinationError::Fragment);
        }
        let base_segments = base
            .path()
            .trim_end_matches('/')
            .split('/')
            .skip(1)
            .map(str::to_owned)
            .collect();
        let credential = match credential.filter(|secret| !secret.is_empty()) {
            Some(secret) => Some(slot(
                secret,
                placement.unwrap_or(&CredentialPlacement::Bearer),
            )?),
            None => None,
        };
        Ok(Destination {
            base,
            base_segments,
            credential,
        })
    }

    pub fn base(&self) -> &Url {
        &self.base
    }

    pub fn base_segments(&self) -> &[String] {
        &self.base_segments
    }

    pub fn credential(&self) -> Option<&CredentialSlot> {
        self.credential.as_ref()
    }
}

fn slot(secret: &str, placement: &CredentialPlacement) -> Result<CredentialSlot, DestinationError> {
    let header = |name: HeaderName, value: String| {
        let mut value =
            HeaderValue::from_str(&value).map_err(|_| DestinationError::NotAHeaderValue)?;
        // Keeps it out of debug output and marks it for HTTP/2 header compression.
        value.set_sensitive(true);
        Ok(CredentialSlot::Header { name, value })
    };
    match placement {
        // TC-REQ-012: the named header holds the credential and nothing else.
        CredentialPlacement::Header(name) => {
            let name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| DestinationError::NotAHeaderName)?;
            header(name, secret.to_owned())
        }
        // TC-REQ-013: a token goes in `Authorization: Bearer`.
        CredentialPlacement::Bearer => header(AUTHORIZATION, format!("Bearer {secret}")),
        // TC-REQ-014: the base64 of `user:password`, as `basic_pair` reads
        // the credential.
        CredentialPlacement::Basic => {
            let encoded =
                base64::engine::general_purpose::STANDARD.encode(basic_pair(secret).as_ref());
            header(AUTHORIZATION, format!("Basic {encoded}"))
        }
        // TC-REQ-015: encoded once here, as every query value is.
        CredentialPlacement::Query(name) => Ok(CredentialSlot::Query {
            name: name.clone(),
            encoded_pair: Secret::new(format!(
                "{}={}",
                encode_component(name),
                encode_component(secret)
            )),
        }),
    }
}

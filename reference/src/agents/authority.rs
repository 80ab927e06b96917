//! An authorization server whose tokens the gateway takes: its signing
//! keys, found through its metadata and kept.
//!
//! The metadata is looked up as RFC 8414 says (`/.well-known/oauth-
//! authorization-server`), then as OpenID Connect discovery does
//! (`/.well-known/openid-configuration`); its `issuer` must be the one
//! configured, and its `jwks_uri` gives the keys. The keys are kept, and
//! fetched again when a token names a key not among them (a rotation), or
//! when they are an hour old; never more often than once per refresh
//! interval, so a flood of tokens with made-up key ids costs the server one
//! request per interval at most. When the server cannot be reached the
//! keys already held still check tokens; a token no held key can check is
//! refused as unavailable (fail closed), with one log line when the server
//! is lost and one when it is back.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;

/// Keys older than this are fetched again before use.
const KEYS_MAX_AGE: Duration = Duration::from_secs(3600);

/// How long a request to the authorization server may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// An authorization server and its keys.
pub struct Authority {
    issuer: String,
    client: reqwest::Client,
    refresh_interval: Duration,
    keys: RwLock<Arc<KeySet>>,
    /// Held while the keys are fetched, so that one fetch serves every
    /// token waiting on it.
    fetching: tokio::sync::Mutex<Fetching>,
}

/// The keys held, by key id.
#[derive(Default)]
struct KeySet {
    keys: HashMap<String, Verifier>,
    /// When they were fetched; `None` before the first success.
    fetched: Option<Instant>,
}

/// One key, and the algorithm its JWK pins, if any.
#[derive(Clone)]
pub struct Verifier {
    pub key: DecodingKey,
    pub algorithm: Option<Algorithm>,
}

#[derive(Default)]
struct Fetching {
    jwks_uri: Option<String>,
    last_attempt: Option<Instant>,
    /// Whether the last attempt failed, for one log line per change.
    failing: bool,
}

/// What the authority says of a key id.
pub enum Lookup {
    Found(Verifier),
    /// Its keys are known, and none has this id.
    Unknown,
    /// Its keys could not be fetched, so the token cannot be checked.
    Unavailable,
}

impl Authority {
    /// An authorization server by its issuer URL; nothing is fetched until
    /// a token needs a key.
    pub fn new(issuer: &str, client: reqwest::Client, refresh_interval: Duration) -> Authority {
        Authority {
            issuer: issuer.to_owned(),
            client,
            refresh_interval,
            keys: RwLock::new(Arc::default()),
            fetching: tokio::sync::Mutex::new(Fetching::default()),
        }
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The key `kid` names; with no `kid`, the one key when the server has
    /// exactly one.
    pub async fn key(&self, kid: Option<&str>) -> Lookup {
        let held = self.held();
        if let Some(found) = pick(&held, kid).filter(|_| !stale(&held)) {
            return Lookup::Found(found);
        }
        let failed = self.refresh(held.fetched).await;
        let held = self.held();
        match pick(&held, kid) {
            Some(found) => Lookup::Found(found),
            None if failed || held.fetched.is_none() => Lookup::Unavailable,
            None => Lookup::Unknown,
        }
    }

    /// Fetches the keys again unless another task just did or the last
    /// attempt was too recent. Whether the keys could not be had.
    async fn refresh(&self, seen: Option<Instant>) -> bool {
        let mut fetching = self.fetching.lock().await;
        if self.held().fetched != seen {
            // Fetched while this task waited.
            return false;
        }
        let recent = fetching
            .last_attempt
            .is_some_and(|at| at.elapsed() < self.refresh_interval);
        if recent {
            return fetching.failing;
        }
        fetching.last_attempt = Some(Instant::now());
        match self.fetch(&mut fetching.jwks_uri).await {
            Ok(keys) => {
                if fetching.failing {
                    tracing::info!(issuer = %self.issuer, "the authorization server answers again");
                }
                fetching.failing = false;
                *self.keys.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(keys);
                false
            }
            Err(why) => {
                if !fetching.failing {
                    tracing::warn!(
                        issuer = %self.issuer,
                        "cannot fetch the authorization server's keys ({why}): tokens no key held \
                         can check are refused until it answers; trying again at most every {}s",
                        self.refresh_interval.as_secs_f64()
                    );
                }
                fetching.failing = true;
                true
            }
        }
    }

    fn held(&self) -> Arc<KeySet> {
        Arc::clone(&self.keys.read().unwrap_or_else(PoisonError::into_inner))
    }

    async fn fetch(&self, jwks_uri: &mut Option<String>) -> Result<KeySet, String> {
        let uri = match jwks_uri {
            Some(uri) => uri.clone(),
            None => jwks_uri.insert(self.discover().await?).clone(),
        };
        let set: JwkSet = self.get_json(&uri).await?;
        let mut keys = HashMap::new();
        for jwk in &set.keys {
            // A key the library cannot use (an encryption key, a curve it
            // lacks) is no key for tokens.
            let Ok(key) = DecodingKey::from_jwk(jwk) else {
                continue;
            };
            let algorithm = jwk
                .common
                .key_algorithm
                .and_then(|alg| alg.to_string().parse::<Algorithm>().ok());
            let kid = jwk.common.key_id.clone().unwrap_or_default();
            keys.insert(kid, Verifier { key, algorithm });
        }
        Ok(KeySet {
            keys,
            fetched: Some(Instant::now()),
        })
    }

    /// The `jwks_uri` of the server's metadata.
    async fn discover(&self) -> Result<String, String> {
        #[derive(Deserialize)]
        struct Metadata {
            issuer: String,
            jwks_uri: Option<String>,
        }
        let mut tried = Vec::new();
        for url in metadata_urls(&self.issuer) {
            match self.get_json::<Metadata>(&url).await {
                Ok(metadata) if metadata.issuer != self.issuer => {
                    return Err(format!(
                        "its metadata at {url} names the issuer {:?}, not {:?}",
                        metadata.issuer, self.issuer
                    ))
                }
                Ok(metadata) => {
                    return metadata
                        .jwks_uri
                        .ok_or_else(|| format!("its metadata at {url} gives no jwks_uri"))
                }
                Err(why) => tried.push(why),
            }
        }
        Err(tried.join("; "))
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, String> {
        let response = self
            .client
            .get(url)
            .timeout(FETCH_TIMEOUT)
            .send()
            .await
            .map_err(|e| format!("{url}: {}", without_url(&e)))?;
        if !response.status().is_success() {
            return Err(format!("{url}: {}", response.status()));
        }
        response
            .json()
            .await
            .map_err(|e| format!("{url}: not the JSON expected: {}", without_url(&e)))
    }
}

/// reqwest's error text, which may repeat the URL, without it.
fn without_url(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    if let Some(url) = error.url() {
        text = text.replace(&format!(" ({url})"), "");
    }
    match std::error::Error::source(error) {
        Some(source) => format!("{text}: {source}"),
        None => text,
    }
}

fn pick(held: &KeySet, kid: Option<&str>) -> Option<Verifier> {
    match kid {
        Some(kid) => held.keys.get(kid).cloned(),
        None if held.keys.len() == 1 => held.keys.values().next().cloned(),
        None => None,
    }
}

fn stale(held: &KeySet) -> bool {
    held.fetched.is_none_or(|at| at.elapsed() > KEYS_MAX_AGE)
}

/// Where an issuer's metadata may be: RFC 8414's well-known URI (inserted
/// before the issuer's path), then OpenID Connect discovery's (appended).
fn metadata_urls(issuer: &str) -> [String; 2] {
    let trimmed = issuer.trim_end_matches('/');
    let (origin, path) = match trimmed.find("://").map(|at| at + 3) {
        Some(start) => match trimmed[start..].find('/') {
            Some(slash) => trimmed.split_at(start + slash),
            None => (trimmed, ""),
        },
        None => (trimmed, ""),
    };
    [
        format!("{origin}/.well-known/oauth-authorization-server{path}"),
        format!("{trimmed}/.well-known/openid-configuration"),
    ]
}

/// The authorities of a gateway by issuer, kept across reloads so that a
/// reload does not fetch every key again.
#[derive(Default)]
pub struct Authorities {
    by_issuer: std::sync::Mutex<HashMap<String, Arc<Authority>>>,
}

impl Authorities {
    /// The authority of `issuer`, made on first use.
    pub fn get(
        &self,
        issuer: &str,
        client: &reqwest::Client,
        refresh_interval: Duration,
    ) -> Arc<Authority> {
        let mut by_issuer = self
            .by_issuer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let kept = by_issuer
            .get(issuer)
            .filter(|authority| authority.refresh_interval == refresh_interval);
        match kept {
            Some(authority) => Arc::clone(authority),
            None => {
                let authority = Arc::new(Authority::new(issuer, client.clone(), refresh_interval));
                by_issuer.insert(issuer.to_owned(), Arc::clone(&authority));
                authority
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::metadata_urls;

    #[test]
    fn metadata_is_looked_for_where_both_standards_put_it() {
        assert_eq!(
            metadata_urls("https://auth.example.com"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server",
                "https://auth.example.com/.well-known/openid-configuration"
            ]
        );
        assert_eq!(
            metadata_urls("https://auth.example.com/realms/mcp/"),
            [
                "https://auth.example.com/.well-known/oauth-authorization-server/realms/mcp",
                "https://auth.example.com/realms/mcp/.well-known/openid-configuration"
            ]
        );
    }
}

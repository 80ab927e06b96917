//! An authorization server whose tokens the gateway takes: its signing
//! keys, found through its metadata and kept fresh.
//!
//! The metadata is looked up as RFC 8414 says (`/.well-known/oauth-
//! authorization-server`), then as OpenID Connect discovery does
//! (`/.well-known/openid-configuration`); its `issuer` must be the one
//! configured, and its `jwks_uri` gives the keys.
//!
//! Withdrawing a key from the key set is how an issuer answers a stolen
//! key, so the set is fetched again in the background every
//! [`KEYS_REFRESHED_EVERY`] and on a reload: a withdrawn key stops letting
//! tokens in, cached ones included, within about twenty seconds, and no
//! request ever waits for that fetch. A token naming a key not held (a
//! rotation) fetches the set at once, at most once per refresh interval, so
//! a flood of made-up key ids costs the server one request per interval;
//! within the interval such a token is told to come back (503 and
//! `Retry-After`), since nothing may be wrong with it.
//!
//! When the server cannot be reached, the keys already held still check
//! tokens for up to [`KEYS_TRUSTED_FOR`] after the last fetch that worked;
//! after that, and for a token no held key can check, tokens are refused as
//! unavailable (fail closed), with one log line when the server is lost and
//! one when it is back. Its answers are read up to [`ANSWER_LIMIT`] bytes.

use std::collections::HashMap;
use std::sync::{Arc, PoisonError, RwLock, Weak};
use std::time::{Duration, Instant};

use jsonwebtoken::jwk::JwkSet;
use jsonwebtoken::{Algorithm, DecodingKey};
use serde::Deserialize;

use super::errors::FetchError;
use super::hash::sha256;
use crate::cleartext::Cleartext;

/// How often the keys are fetched again, whether or not a token asks.
pub const KEYS_REFRESHED_EVERY: Duration = Duration::from_secs(15);

/// How long held keys check tokens after the last fetch that worked.
pub const KEYS_TRUSTED_FOR: Duration = Duration::from_secs(3600);

/// How long a request to the authorization server may take.
const FETCH_TIMEOUT: Duration = Duration::from_secs(5);

/// The most of an answer of the authorization server that is read.
pub const ANSWER_LIMIT: usize = 1024 * 1024;

/// An authorization server and its keys.
pub struct Authority {
    issuer: String,
    client: reqwest::Client,
    refresh_interval: Duration,
    http: Cleartext,
    keys: RwLock<Arc<KeySet>>,
    /// Held while the keys are fetched, so that one fetch serves every
    /// token waiting on it.
    fetching: tokio::sync::Mutex<Fetching>,
    /// Whether the background refresh has been started (on first use,
    /// inside the runtime).
    refreshing: std::sync::Once,
}

/// The keys held, by key id (`""` for a key without one).
#[derive(Default)]
struct KeySet {
    keys: HashMap<String, Verifier>,
    /// Key ids published before and no longer, and when they went: a token
    /// naming one is refused at once, as no fetch can bring its key back.
    withdrawn: HashMap<String, Instant>,
    /// When they were fetched; `None` before the first success.
    fetched: Option<Instant>,
}

/// How long a withdrawn key id is remembered, and how many at most.
const WITHDRAWN_KEPT_FOR: Duration = Duration::from_secs(24 * 3600);
const WITHDRAWN_KEPT: usize = 256;

/// One key, and the algorithm its JWK pins, if any.
#[derive(Clone)]
pub struct Verifier {
    pub key: DecodingKey,
    pub algorithm: Option<Algorithm>,
    /// Which key this is, to tell a key from another published later under
    /// the same id.
    pub held_as: HeldKey,
}

/// How a checked token remembers the key that checked it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeldKey {
    kid: String,
    fingerprint: [u8; 32],
}

#[derive(Default)]
struct Fetching {
    jwks_uri: Option<String>,
    /// The last fetch a token asked for: at most one per refresh interval.
    last_for_a_token: Option<Instant>,
    /// Whether the last attempt failed, for one log line per change.
    failing: bool,
}

/// What the authority says of a key id.
pub enum Lookup {
    Found(Verifier),
    /// Its keys are known, and none has this id.
    Unknown,
    /// The issuer published this key and has withdrawn it.
    Withdrawn,
    /// No key has this id, and the keys were fetched too recently to fetch
    /// them again: the token may be good once they are.
    NotYet {
        retry_after: Duration,
    },
    /// Its keys could not be fetched, so the token cannot be checked.
    Unavailable,
}

/// What the authority says of the key a token was checked with.
#[derive(Debug, PartialEq, Eq)]
pub enum StillHeld {
    Yes,
    /// The issuer no longer publishes it.
    Withdrawn,
    /// The keys have not been fetched for too long to tell.
    Unknowable,
}

impl Authority {
    /// An authorization server by its issuer URL; nothing is fetched until
    /// a token needs a key.
    pub fn new(
        issuer: &str,
        client: reqwest::Client,
        refresh_interval: Duration,
        http: Cleartext,
    ) -> Authority {
        Authority {
            issuer: issuer.to_owned(),
            client,
            refresh_interval,
            http,
            keys: RwLock::new(Arc::default()),
            fetching: tokio::sync::Mutex::new(Fetching::default()),
            refreshing: std::sync::Once::new(),
        }
    }

    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The key `kid` names; with no `kid`, the one key when the server has
    /// exactly one. Waits for a fetch only when no trusted key answers.
    pub async fn key(self: &Arc<Self>, kid: Option<&str>) -> Lookup {
        self.keep_fresh();
        let held = self.held();
        if trusted(&held, Instant::now()) {
            if let Some(found) = pick(&held, kid) {
                return Lookup::Found(found);
            }
            if is_withdrawn(&held, kid) {
                return Lookup::Withdrawn;
            }
        }
        let refreshed = self.refresh(held.fetched, Urgency::ForAToken).await;
        let held = self.held();
        if !trusted(&held, Instant::now()) {
            return Lookup::Unavailable;
        }
        if let Some(found) = pick(&held, kid) {
            return Lookup::Found(found);
        }
        if is_withdrawn(&held, kid) {
            return Lookup::Withdrawn;
        }
        match refreshed {
            Refreshed::Done => Lookup::Unknown,
            Refreshed::Failed => Lookup::Unavailable,
            Refreshed::TooSoon { retry_after } => Lookup::NotYet { retry_after },
        }
    }

    /// Whether the key a token was checked with is still published, as
    /// the keys held say; never waits.
    pub fn still_holds(self: &Arc<Self>, key: &HeldKey) -> StillHeld {
        self.keep_fresh();
        let held = self.held();
        if !trusted(&held, Instant::now()) {
            return StillHeld::Unknowable;
        }
        match held.keys.get(&key.kid) {
            Some(verifier) if verifier.held_as == *key => StillHeld::Yes,
            _ => StillHeld::Withdrawn,
        }
    }

    /// Fetches the keys again soon, without waiting: after a reload, where
    /// the operator expects everything read anew.
    pub fn refresh_soon(self: &Arc<Self>) {
        let authority = Arc::clone(self);
        tokio::spawn(async move {
            let seen = authority.held().fetched;
            authority.refresh(seen, Urgency::Now).await;
        });
    }

    /// Starts the background refresh once. It holds the authority weakly,
    /// and stops when no gate uses it any more.
    fn keep_fresh(self: &Arc<Self>) {
        self.refreshing.call_once(|| {
            let weak = Arc::downgrade(self);
            tokio::spawn(refresh_every(weak, KEYS_REFRESHED_EVERY));
        });
    }

    /// Fetches the keys again unless another task just did or, for a
    /// token, the last fetch a token asked for was too recent. The
    /// background refresh does not count: it must not delay a rotation.
    async fn refresh(&self, seen: Option<Instant>, urgency: Urgency) -> Refreshed {
        let mut fetching = self.fetching.lock().await;
        if self.held().fetched != seen {
            // Fetched while this task waited.
            return Refreshed::Done;
        }
        if urgency == Urgency::ForAToken {
            if let Some(at) = fetching.last_for_a_token {
                let since = at.elapsed();
                if since < self.refresh_interval {
                    return match fetching.failing {
                        true => Refreshed::Failed,
                        false => Refreshed::TooSoon {
                            retry_after: self.refresh_interval - since,
                        },
                    };
                }
            }
            fetching.last_for_a_token = Some(Instant::now());
        }
        match self.fetch(&mut fetching.jwks_uri).await {
            Ok(keys) => {
                if fetching.failing {
                    tracing::info!(issuer = %self.issuer, "the authorization server answers again");
                }
                fetching.failing = false;
                *self.keys.write().unwrap_or_else(PoisonError::into_inner) = Arc::new(keys);
                Refreshed::Done
            }
            Err(why) => {
                if !fetching.failing {
                    tracing::warn!(
                        issuer = %self.issuer,
                        "cannot fetch the authorization server's keys ({why}): the keys held \
                         check tokens for up to {} minutes after the last fetch that worked, \
                         and tokens no key held can check are refused until it answers",
                        KEYS_TRUSTED_FOR.as_secs() / 60
                    );
                }
                // A failed discovery is tried again in full next time.
                if matches!(why, FetchError::Discovery { .. }) {
                    fetching.jwks_uri = None;
                }
                fetching.failing = true;
                Refreshed::Failed
            }
        }
    }

    fn held(&self) -> Arc<KeySet> {
        Arc::clone(&self.keys.read().unwrap_or_else(PoisonError::into_inner))
    }

    async fn fetch(&self, jwks_uri: &mut Option<String>) -> Result<KeySet, FetchError> {
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
            let material = serde_json::to_vec(&jwk.algorithm).unwrap_or_default();
            let held_as = HeldKey {
                kid: kid.clone(),
                fingerprint: sha256(&material),
            };
            keys.insert(
                kid,
                Verifier {
                    key,
                    algorithm,
                    held_as,
                },
            );
        }
        let now = Instant::now();
        Ok(KeySet {
            withdrawn: withdrawn_since(&self.held(), &keys, now),
            keys,
            fetched: Some(now),
        })
    }

    /// The `jwks_uri` of the server's metadata.
    async fn discover(&self) -> Result<String, FetchError> {
        #[derive(Deserialize)]
        struct Metadata {
            issuer: String,
            jwks_uri: Option<String>,
        }
        let mut tried = Vec::new();
        for url in metadata_urls(&self.issuer) {
            match self.get_json::<Metadata>(&url).await {
                Ok(metadata) if metadata.issuer != self.issuer => {
                    return Err(FetchError::Discovery {
                        why: format!("its metadata at {url} names another issuer"),
                    })
                }
                Ok(Metadata {
                    jwks_uri: Some(jwks_uri),
                    ..
                }) => {
                    if let Err(refused) = self.http.check(&jwks_uri) {
                        return Err(FetchError::Discovery {
                            why: format!("its metadata at {url} gives a jwks_uri {refused}"),
                        });
                    }
                    return Ok(jwks_uri);
                }
                Ok(_) => {
                    return Err(FetchError::Discovery {
                        why: format!("its metadata at {url} gives no jwks_uri"),
                    })
                }
                Err(why) => tried.push(why.to_string()),
            }
        }
        Err(FetchError::Discovery {
            why: tried.join("; "),
        })
    }

    async fn get_json<T: serde::de::DeserializeOwned>(&self, url: &str) -> Result<T, FetchError> {
        let failed = |error: &reqwest::Error| FetchError::Unreachable {
            url: url.to_owned(),
            why: without_url(error),
        };
        let mut response = self
            .client
            .get(url)
            .timeout(FETCH_TIMEOUT)
            .send()
            .await
            .map_err(|e| failed(&e))?;
        if !response.status().is_success() {
            return Err(FetchError::Status {
                url: url.to_owned(),
                status: response.status().as_u16(),
            });
        }
        let too_big = || FetchError::TooBig {
            url: url.to_owned(),
            limit: ANSWER_LIMIT,
        };
        if response
            .content_length()
            .is_some_and(|length| length > ANSWER_LIMIT as u64)
        {
            return Err(too_big());
        }
        let mut body = Vec::new();
        while let Some(chunk) = response.chunk().await.map_err(|e| failed(&e))? {
            if body.len() + chunk.len() > ANSWER_LIMIT {
                return Err(too_big());
            }
            body.extend_from_slice(&chunk);
        }
        serde_json::from_slice(&body).map_err(|_| FetchError::NotJson {
            url: url.to_owned(),
        })
    }
}

/// Whether a fetch is for a token waiting on it (and so limited to one
/// per refresh interval) or asked for by the gateway itself.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Urgency {
    ForAToken,
    Now,
}

/// How a refresh went.
enum Refreshed {
    Done,
    Failed,
    /// Not tried: the last attempt was too recent.
    TooSoon {
        retry_after: Duration,
    },
}

/// The background refresh of one authority, while anything holds it.
async fn refresh_every(authority: Weak<Authority>, period: Duration) {
    let mut ticks = tokio::time::interval(period);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let Some(authority) = authority.upgrade() else {
            return;
        };
        let seen = authority.held().fetched;
        authority.refresh(seen, Urgency::Now).await;
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

/// The key ids withdrawn as of `now_held`, fetched at `now`: those `before`
/// held or remembered that it no longer has, forgotten after a day.
fn withdrawn_since(
    before: &KeySet,
    now_held: &HashMap<String, Verifier>,
    now: Instant,
) -> HashMap<String, Instant> {
    let mut withdrawn: HashMap<String, Instant> = before
        .withdrawn
        .iter()
        .filter(|(kid, at)| {
            !now_held.contains_key(*kid) && now.saturating_duration_since(**at) < WITHDRAWN_KEPT_FOR
        })
        .map(|(kid, at)| (kid.clone(), *at))
        .collect();
    for kid in before
        .keys
        .keys()
        .filter(|kid| !now_held.contains_key(*kid))
    {
        withdrawn.insert(kid.clone(), now);
    }
    if withdrawn.len() > WITHDRAWN_KEPT {
        let mut by_age: Vec<(String, Instant)> = withdrawn.into_iter().collect();
        by_age.sort_by_key(|(_, at)| std::cmp::Reverse(*at));
        by_age.truncate(WITHDRAWN_KEPT);
        withdrawn = by_age.into_iter().collect();
    }
    withdrawn
}

fn is_withdrawn(held: &KeySet, kid: Option<&str>) -> bool {
    kid.is_some_and(|kid| held.withdrawn.contains_key(kid))
}

fn pick(held: &KeySet, kid: Option<&str>) -> Option<Verifier> {
    match kid {
        Some(kid) => held.keys.get(kid).cloned(),
        None if held.keys.len() == 1 => held.keys.values().next().cloned(),
        None => None,
    }
}

/// Whether the held keys may check tokens at `now`: fetched, and not too
/// long before.
fn trusted(held: &KeySet, now: Instant) -> bool {
    held.fetched
        .is_some_and(|at| now.saturating_duration_since(at) <= KEYS_TRUSTED_FOR)
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
        http: Cleartext,
    ) -> Arc<Authority> {
        let mut by_issuer = self
            .by_issuer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let kept = by_issuer.get(issuer).filter(|authority| {
            authority.refresh_interval == refresh_interval && authority.http == http
        });
        match kept {
            Some(authority) => Arc::clone(authority),
            None => {
                let authority = Arc::new(Authority::new(
                    issuer,
                    client.clone(),
                    refresh_interval,
                    http,
                ));
                by_issuer.insert(issuer.to_owned(), Arc::clone(&authority));
                authority
            }
        }
    }

    /// Fetches every authority's keys again soon (a reload), and forgets
    /// those no gate uses any more.
    pub fn refresh_all_soon(&self) {
        let mut by_issuer = self
            .by_issuer
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        by_issuer.retain(|_, authority| Arc::strong_count(authority) > 1);
        for authority in by_issuer.values() {
            authority.refresh_soon();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use wiremock::matchers::path;
    use wiremock::{Mock, MockServer, ResponseTemplate};

    /// A JWKS of one RSA key under `kid`, its modulus 256 `byte`s: a
    /// `byte` of its own tells the keys apart.
    fn one_key(kid: &str, byte: u8) -> ResponseTemplate {
        use base64::Engine as _;
        let n = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode([byte; 256]);
        ResponseTemplate::new(200).set_body_json(json!({
            "keys": [{"kty": "RSA", "kid": kid, "alg": "RS256", "n": n, "e": "AQAB"}]
        }))
    }

    #[tokio::test]
    async fn another_key_published_under_the_same_id_is_not_the_one_held() {
        let server = MockServer::start().await;
        let issuer = server.uri();
        Mock::given(path("/.well-known/oauth-authorization-server"))
            .respond_with(
                ResponseTemplate::new(200)
                    .set_body_json(json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")})),
            )
            .mount(&server)
            .await;
        Mock::given(path("/jwks"))
            .respond_with(one_key("k", 0xC5))
            .up_to_n_times(1)
            .mount(&server)
            .await;
        Mock::given(path("/jwks"))
            .respond_with(one_key("k", 0xD7))
            .mount(&server)
            .await;
        let authority = Arc::new(Authority::new(
            &issuer,
            crate::agents::authority_client().expect("a client"),
            Duration::from_secs(10),
            Cleartext::LoopbackOnly,
        ));
        let Lookup::Found(verifier) = authority.key(Some("k")).await else {
            panic!("the key is not found");
        };
        let held = verifier.held_as;
        assert_eq!(authority.still_holds(&held), StillHeld::Yes);

        // The issuer now publishes another key under the same id.
        let seen = authority.held().fetched;
        authority.refresh(seen, Urgency::Now).await;
        assert_eq!(authority.still_holds(&held), StillHeld::Withdrawn);
    }

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
        assert_eq!(
            metadata_urls("http://a.io/realm"),
            [
                "http://a.io/.well-known/oauth-authorization-server/realm",
                "http://a.io/realm/.well-known/openid-configuration"
            ]
        );
    }

    /// A key that checks nothing, held under `kid`.
    fn verifier(kid: &str) -> Verifier {
        Verifier {
            key: DecodingKey::from_secret(b"unused"),
            algorithm: None,
            held_as: HeldKey {
                kid: kid.to_owned(),
                fingerprint: [0; 32],
            },
        }
    }

    fn held(kids: &[&str]) -> HashMap<String, Verifier> {
        kids.iter()
            .map(|kid| (kid.to_string(), verifier(kid)))
            .collect()
    }

    fn sorted(withdrawn: &HashMap<String, Instant>) -> Vec<&str> {
        let mut kids: Vec<&str> = withdrawn.keys().map(String::as_str).collect();
        kids.sort_unstable();
        kids
    }

    #[test]
    fn keys_are_trusted_for_an_hour_after_the_last_fetch_that_worked() {
        let at = Instant::now();
        let fetched = KeySet {
            fetched: Some(at),
            ..KeySet::default()
        };
        assert!(trusted(&fetched, at + KEYS_TRUSTED_FOR));
        assert!(!trusted(
            &fetched,
            at + KEYS_TRUSTED_FOR + Duration::from_secs(1)
        ));
        assert!(!trusted(&KeySet::default(), at));
    }

    #[test]
    fn a_key_no_longer_published_is_remembered_as_withdrawn_for_a_day() {
        let at = Instant::now();
        let before = KeySet {
            keys: held(&["gone", "kept"]),
            withdrawn: [("still-gone".to_owned(), at), ("back".to_owned(), at)].into(),
            fetched: Some(at),
        };
        let hour_on = at + Duration::from_secs(3600);
        let now_held = held(&["kept", "back"]);
        let withdrawn = withdrawn_since(&before, &now_held, hour_on);
        assert_eq!(sorted(&withdrawn), ["gone", "still-gone"]);
        assert_eq!(withdrawn["gone"], hour_on);
        assert_eq!(withdrawn["still-gone"], at);

        // Remembered 23 hours on; a day after it went, an id is forgotten,
        // and one gone an hour later is not.
        let next_day = withdrawn_since(&before, &now_held, at + Duration::from_secs(23 * 3600));
        assert_eq!(sorted(&next_day), ["gone", "still-gone"]);
        let next = KeySet {
            keys: now_held,
            withdrawn,
            fetched: Some(hour_on),
        };
        let day_on = withdrawn_since(&next, &next.keys, at + WITHDRAWN_KEPT_FOR);
        assert_eq!(sorted(&day_on), ["gone"]);
    }

    #[test]
    fn only_the_latest_withdrawn_ids_are_remembered() {
        let at = Instant::now();
        let before = KeySet {
            keys: held(&["last"]),
            withdrawn: (0..WITHDRAWN_KEPT)
                .map(|n| (format!("old-{n}"), at + Duration::from_secs(n as u64)))
                .collect(),
            fetched: Some(at),
        };
        let withdrawn = withdrawn_since(&before, &HashMap::new(), at + Duration::from_secs(3600));
        assert_eq!(withdrawn.len(), WITHDRAWN_KEPT);
        assert!(withdrawn.contains_key("last"));
        assert!(!withdrawn.contains_key("old-0"));
        assert!(withdrawn.contains_key("old-1"));
    }

    #[test]
    fn a_token_without_a_key_id_is_checked_by_the_one_key_if_there_is_one() {
        let one = KeySet {
            keys: held(&["a"]),
            ..KeySet::default()
        };
        let two = KeySet {
            keys: held(&["a", "b"]),
            withdrawn: [("c".to_owned(), Instant::now())].into(),
            ..KeySet::default()
        };
        assert_eq!(
            pick(&one, None).map(|v| v.held_as.kid),
            Some("a".to_owned())
        );
        assert!(pick(&two, None).is_none());
        assert_eq!(
            pick(&two, Some("b")).map(|v| v.held_as.kid),
            Some("b".to_owned())
        );
        assert!(pick(&two, Some("c")).is_none());
        assert!(is_withdrawn(&two, Some("c")));
        assert!(!is_withdrawn(&two, Some("a")));
        assert!(!is_withdrawn(&two, None));
    }

    fn authority(issuer: &str, refresh_interval: Duration) -> Arc<Authority> {
        Arc::new(Authority::new(
            issuer,
            crate::agents::authority_client().expect("a client"),
            refresh_interval,
            Cleartext::LoopbackOnly,
        ))
    }

    /// Serves `metadata` at `at` of `server`, and [`one_key`] as its keys.
    async fn serve(server: &MockServer, at: &str, metadata: serde_json::Value) {
        Mock::given(path(at))
            .respond_with(ResponseTemplate::new(200).set_body_json(metadata))
            .mount(server)
            .await;
        Mock::given(path("/jwks"))
            .respond_with(one_key("k", 0xC5))
            .mount(server)
            .await;
    }

    #[tokio::test]
    async fn metadata_naming_another_issuer_gives_no_keys() {
        let server = MockServer::start().await;
        let issuer = server.uri();
        serve(
            &server,
            "/.well-known/oauth-authorization-server",
            json!({"issuer": "https://auth.example.com", "jwks_uri": format!("{issuer}/jwks")}),
        )
        .await;
        let authority = authority(&issuer, Duration::ZERO);
        assert!(matches!(
            authority.key(Some("k")).await,
            Lookup::Unavailable
        ));
    }

    #[tokio::test]
    async fn openid_discovery_is_asked_where_rfc_8414_has_no_metadata() {
        let server = MockServer::start().await;
        let issuer = server.uri();
        serve(
            &server,
            "/.well-known/openid-configuration",
            json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")}),
        )
        .await;
        let authority = authority(&issuer, Duration::ZERO);
        assert!(matches!(authority.key(Some("k")).await, Lookup::Found(_)));
    }

    #[tokio::test]
    async fn a_key_id_not_held_fetches_the_keys_at_most_once_per_interval() {
        let server = MockServer::start().await;
        let issuer = server.uri();
        serve(
            &server,
            "/.well-known/oauth-authorization-server",
            json!({"issuer": issuer, "jwks_uri": format!("{issuer}/jwks")}),
        )
        .await;
        let interval = Duration::from_secs(60);
        let authority = authority(&issuer, interval);
        assert!(matches!(authority.key(Some("k")).await, Lookup::Found(_)));
        let Lookup::NotYet { retry_after } = authority.key(Some("made-up")).await else {
            panic!("a key id not held fetched the keys again at once");
        };
        // What is left of the interval: all of it but the moments since.
        assert!(retry_after <= interval && retry_after > interval / 2);
        let fetches = server.received_requests().await.expect("recorded");
        let jwks = fetches.iter().filter(|r| r.url.path() == "/jwks").count();
        assert_eq!(jwks, 1);
    }

    #[tokio::test]
    async fn an_answer_is_read_up_to_its_limit_and_no_further() {
        let server = MockServer::start().await;
        let padded = |size: usize| {
            let mut body = br#"{"keys":[]}"#.to_vec();
            body.resize(size, b' ');
            body
        };
        // A set of many keys is far from the limit (a megabyte); one over
        // it is refused.
        let many_keys = 512 * 1024;
        for (at, size) in [
            ("/large", many_keys),
            ("/exact", ANSWER_LIMIT),
            ("/over", ANSWER_LIMIT + 1),
        ] {
            Mock::given(path(at))
                .respond_with(
                    ResponseTemplate::new(200).set_body_raw(padded(size), "application/json"),
                )
                .mount(&server)
                .await;
        }
        let authority = authority(&server.uri(), Duration::ZERO);
        let url = |at: &str| format!("{}{at}", server.uri());
        let (large, exact, over) = (url("/large"), url("/exact"), url("/over"));
        assert!(authority.get_json::<JwkSet>(&large).await.is_ok());
        assert!(authority.get_json::<JwkSet>(&exact).await.is_ok());
        assert!(matches!(
            authority.get_json::<JwkSet>(&over).await,
            Err(FetchError::TooBig { .. })
        ));

        // Without a length, it stops reading at the limit.
        let endless = mock_upstream::Upstream::start().await.expect("an upstream");
        endless.set_behaviour(
            "/jwks",
            mock_upstream::Behaviour::Endless {
                content_type: "application/json".to_owned(),
                chunk: vec![b' '; 1000],
            },
        );
        let url = format!("{}/jwks", endless.base_url());
        assert!(matches!(
            authority.get_json::<JwkSet>(&url).await,
            Err(FetchError::TooBig { .. })
        ));
    }

    #[tokio::test]
    async fn an_unreachable_server_is_named_once_in_the_error() {
        let url = "http://127.0.0.1:9/jwks";
        let Err(error) = authority("http://127.0.0.1:9", Duration::ZERO)
            .get_json::<JwkSet>(url)
            .await
        else {
            panic!("nothing listens on the discard port");
        };
        let text = error.to_string();
        assert_eq!(text.matches("127.0.0.1:9").count(), 1, "{text}");
        assert!(text.contains("error sending request"), "{text}");
    }

    #[tokio::test]
    async fn an_issuer_s_authority_is_shared_while_its_settings_stay() {
        let authorities = Authorities::default();
        let client = crate::agents::authority_client().expect("a client");
        let issuer = "http://127.0.0.1:9";
        let minute = Duration::from_secs(60);
        let first = authorities.get(issuer, &client, minute, Cleartext::LoopbackOnly);
        let again = authorities.get(issuer, &client, minute, Cleartext::LoopbackOnly);
        assert!(Arc::ptr_eq(&first, &again));
        let slower = authorities.get(issuer, &client, 2 * minute, Cleartext::LoopbackOnly);
        assert!(!Arc::ptr_eq(&first, &slower));
        let cleartext = authorities.get(issuer, &client, 2 * minute, Cleartext::Allowed);
        assert!(!Arc::ptr_eq(&slower, &cleartext));
    }

    #[tokio::test]
    async fn a_reload_forgets_the_authorities_no_gate_uses() {
        let authorities = Authorities::default();
        let client = crate::agents::authority_client().expect("a client");
        let minute = Duration::from_secs(60);
        let _used = authorities.get(
            "http://127.0.0.1:9",
            &client,
            minute,
            Cleartext::LoopbackOnly,
        );
        drop(authorities.get(
            "http://127.0.0.1:7",
            &client,
            minute,
            Cleartext::LoopbackOnly,
        ));
        authorities.refresh_all_soon();
        let by_issuer = authorities.by_issuer.lock().expect("not poisoned");
        assert_eq!(by_issuer.keys().collect::<Vec<_>>(), ["http://127.0.0.1:9"]);
    }

    /// The lines the log gets, as the gateway writes them.
    #[derive(Clone, Default)]
    struct Lines(Arc<std::sync::Mutex<Vec<u8>>>);

    impl std::io::Write for Lines {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0
                .lock()
                .expect("not poisoned")
                .extend_from_slice(bytes);
            Ok(bytes.len())
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    impl Lines {
        fn count(&self, text: &str) -> usize {
            let written = self.0.lock().expect("not poisoned");
            String::from_utf8_lossy(&written).matches(text).count()
        }
    }

    #[tokio::test]
    async fn an_issuer_lost_is_said_once_at_its_first_failure() {
        let lines = Lines::default();
        let writer = lines.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(move || writer.clone())
            .finish();
        let _said_here = tracing::subscriber::set_default(subscriber);
        let lost = "cannot fetch the authorization server's keys";
        let authority = authority("http://127.0.0.1:9", Duration::ZERO);
        assert!(matches!(
            authority.key(Some("k")).await,
            Lookup::Unavailable
        ));
        assert_eq!(lines.count(lost), 1, "said at the first failure");
        assert!(matches!(
            authority.key(Some("k")).await,
            Lookup::Unavailable
        ));
        assert_eq!(lines.count(lost), 1, "and not again while it lasts");
    }
}

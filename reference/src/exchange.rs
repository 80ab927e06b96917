//! The API's own OAuth 2.0: where the API takes access tokens issued to a
//! client by the client-credentials grant, the stored credential is that
//! client's secret, and each call carries a token obtained with it.
//!
//! A token is asked for once and kept until shortly before it expires (a
//! tenth of its life, at most a minute), then asked for again once, however
//! many calls wait: never a token request for every call. The client
//! authenticates to the token endpoint with HTTP Basic (RFC 6749 §2.3.1).
//! The token goes as `Authorization: Bearer`, and is masked in answers like
//! the secret. A token endpoint that refuses, cannot be reached or does not
//! answer in time ends the call with `UPSTREAM_TOKEN_FAILED`, nothing sent
//! to the API; the failure is kept a second, so a flood of calls does not
//! become a flood of token requests.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use base64::Engine as _;
use reqwest::Url;
use serde::Deserialize;

use crate::answer::{self, Masker};
use crate::convert::CredentialPlacement;
use crate::errors::AgentMessage;
use crate::request::{encode_component, Destination, DestinationError};
use crate::secret::Secret;
use crate::watch::ApiMeter;

/// How long the token endpoint may take.
pub const TOKEN_DEADLINE: Duration = Duration::from_secs(5);

/// How long a failed token request is the answer for later calls.
const FAILURE_KEPT: Duration = Duration::from_secs(1);

/// How long a token without `expires_in` is kept.
const DEFAULT_LIFETIME: Duration = Duration::from_secs(300);

/// The shortest and longest a token is kept, whatever `expires_in` says:
/// `0` (or a past expiry) would ask for a token on every call, and a
/// lifetime of centuries would keep a revoked token for ever.
const SHORTEST_LIFETIME: Duration = Duration::from_secs(1);
const LONGEST_LIFETIME: Duration = Duration::from_secs(24 * 3600);

/// The most of the token endpoint's answer that is read.
const ANSWER_LIMIT: usize = 64 * 1024;

/// The most of a token's life given up to renew it early.
const RENEW_MARGIN: Duration = Duration::from_secs(60);

/// Where and how to get tokens.
#[derive(Debug, Clone)]
pub struct ExchangeConfig {
    pub token_url: String,
    pub client_id: String,
    /// Scopes to ask for; none lets the server give its default.
    pub scopes: Vec<String>,
}

/// What a call is sent with: the destination with the current token in
/// place, and the masker that hides it besides every stored secret.
#[derive(Clone)]
pub struct Credentialed {
    pub destination: Arc<Destination>,
    pub masker: Arc<Masker>,
}

/// Tokens for one API, got by the client-credentials grant.
pub struct ClientCredentials {
    token_url: Url,
    client_id: String,
    secret: Secret,
    scopes: Vec<String>,
    base_url: String,
    /// Every stored secret of the gateway, this API's own among them.
    masked: Vec<Vec<String>>,
    client: reqwest::Client,
    held: Mutex<Held>,
    /// Held while a token is asked for, so one request serves every call
    /// waiting on it.
    asking: tokio::sync::Mutex<()>,
    meter: Option<ApiMeter>,
}

#[derive(Default)]
enum Held {
    #[default]
    Nothing,
    Token {
        credentialed: Credentialed,
        renew_at: Instant,
    },
    Failed {
        failure: TokenFailure,
        until: Instant,
    },
}

/// Why no token could be had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenFailure {
    /// The endpoint answered with an error status, and the OAuth `error`
    /// code it gave, if any.
    Refused {
        status: u16,
        error: Option<String>,
    },
    TimedOut,
    Unreachable {
        cause: String,
    },
    /// A success that holds no token.
    NoToken,
    /// An answer longer than any token endpoint's.
    TooLong,
}

impl ClientCredentials {
    /// Tokens from `config.token_url` for the client whose secret is
    /// `secret`, for requests to `base_url`; `masked` are every stored
    /// secret's forms, masked in answers besides the token.
    pub fn new(
        config: &ExchangeConfig,
        secret: Secret,
        base_url: &str,
        masked: Vec<Vec<String>>,
        client: reqwest::Client,
    ) -> Result<ClientCredentials, DestinationError> {
        let token_url =
            Url::parse(&config.token_url).map_err(|reason| DestinationError::NotAUrl { reason })?;
        if !matches!(token_url.scheme(), "http" | "https") {
            return Err(DestinationError::NotHttp);
        }
        // Checked once here, so that a token never makes a call fail on it.
        Destination::new(base_url, None, None)?;
        Ok(ClientCredentials {
            token_url,
            client_id: config.client_id.clone(),
            secret,
            scopes: config.scopes.clone(),
            base_url: base_url.to_owned(),
            masked,
            client,
            held: Mutex::new(Held::Nothing),
            asking: tokio::sync::Mutex::new(()),
            meter: None,
        })
    }

    /// Counts each token request with `meter`.
    pub fn set_meter(&mut self, meter: ApiMeter) {
        self.meter = Some(meter);
    }

    /// The token URL, for messages.
    pub fn token_url(&self) -> &str {
        self.token_url.as_str()
    }

    /// What the next call is sent with.
    pub async fn credentialed(&self) -> Result<Credentialed, TokenFailure> {
        if let Some(kept) = self.kept() {
            return kept;
        }
        let _asking = self.asking.lock().await;
        // Another call may have asked while this one waited.
        if let Some(kept) = self.kept() {
            return kept;
        }
        let asked = self.ask().await;
        if let Some(meter) = &self.meter {
            meter.token_fetched(asked.is_ok());
        }
        let mut held = self.held.lock().unwrap_or_else(PoisonError::into_inner);
        match asked {
            Ok((credentialed, lifetime)) => {
                let margin = (lifetime / 10).min(RENEW_MARGIN);
                *held = Held::Token {
                    credentialed: credentialed.clone(),
                    renew_at: Instant::now() + lifetime - margin,
                };
                Ok(credentialed)
            }
            Err(failure) => {
                tracing::warn!(
                    token_url = %self.token_url,
                    "cannot get an access token for the API: {}",
                    failure.describe()
                );
                *held = Held::Failed {
                    failure: failure.clone(),
                    until: Instant::now() + FAILURE_KEPT,
                };
                Err(failure)
            }
        }
    }

    /// The token or failure kept, while it holds.
    fn kept(&self) -> Option<Result<Credentialed, TokenFailure>> {
        match &*self.held.lock().unwrap_or_else(PoisonError::into_inner) {
            Held::Token {
                credentialed,
                renew_at,
            } if Instant::now() < *renew_at => Some(Ok(credentialed.clone())),
            Held::Failed { failure, until } if Instant::now() < *until => {
                Some(Err(failure.clone()))
            }
            _ => None,
        }
    }

    /// One token request: the token in place, and how long it lives.
    async fn ask(&self) -> Result<(Credentialed, Duration), TokenFailure> {
        #[derive(Deserialize)]
        struct Issued {
            access_token: String,
            /// A number of seconds; some servers write it as a string.
            #[serde(default)]
            expires_in: Option<serde_json::Value>,
        }
        #[derive(Deserialize)]
        struct Refused {
            error: String,
        }
        let mut form = "grant_type=client_credentials".to_owned();
        if !self.scopes.is_empty() {
            form.push_str("&scope=");
            form.push_str(&encode_component(&self.scopes.join(" ")));
        }
        // RFC 6749 §2.3.1: the id and secret form-encoded, then as Basic.
        let pair = format!(
            "{}:{}",
            encode_component(&self.client_id),
            encode_component(self.secret.expose())
        );
        let mut authorization = reqwest::header::HeaderValue::from_str(&format!(
            "Basic {}",
            base64::engine::general_purpose::STANDARD.encode(pair)
        ))
        .map_err(|_| TokenFailure::NoToken)?;
        authorization.set_sensitive(true);
        let response = self
            .client
            .post(self.token_url.clone())
            .header(reqwest::header::AUTHORIZATION, authorization)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(form)
            .timeout(TOKEN_DEADLINE)
            .send()
            .await
            .map_err(|error| failure_of(&error))?;
        let status = response.status();
        let body = read_limited(response).await?;
        if !status.is_success() {
            // Only the OAuth error code is kept, and only a code's letters:
            // the body is the token server's, and may echo what was sent.
            let error = serde_json::from_slice::<Refused>(&body)
                .ok()
                .map(|refused| refused.error)
                .filter(|code| {
                    code.len() <= 64 && code.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                });
            return Err(TokenFailure::Refused {
                status: status.as_u16(),
                error,
            });
        }
        let issued: Issued = serde_json::from_slice(&body).map_err(|_| TokenFailure::NoToken)?;
        if issued.access_token.is_empty() {
            return Err(TokenFailure::NoToken);
        }
        let destination = Destination::new(
            &self.base_url,
            Some(&issued.access_token),
            Some(&CredentialPlacement::Bearer),
        )
        .map_err(|_| TokenFailure::NoToken)?;
        let token = answer::secret_forms(&issued.access_token, Some(&CredentialPlacement::Bearer));
        let masker = Masker::of(self.masked.iter().cloned().chain([token]));
        let lifetime = lifetime(issued.expires_in.as_ref());
        Ok((
            Credentialed {
                destination: Arc::new(destination),
                masker: Arc::new(masker),
            },
            lifetime,
        ))
    }
}

/// How long a token is kept, from its `expires_in` (seconds, a number or
/// a numeric string), within the shortest and longest lifetimes.
fn lifetime(expires_in: Option<&serde_json::Value>) -> Duration {
    let seconds = match expires_in {
        None | Some(serde_json::Value::Null) => return DEFAULT_LIFETIME,
        Some(serde_json::Value::Number(number)) => number.as_f64(),
        Some(serde_json::Value::String(text)) => text.trim().parse::<f64>().ok(),
        Some(_) => None,
    };
    match seconds {
        Some(seconds) if seconds.is_finite() => Duration::from_secs_f64(seconds.clamp(
            SHORTEST_LIFETIME.as_secs_f64(),
            LONGEST_LIFETIME.as_secs_f64(),
        )),
        Some(_) => LONGEST_LIFETIME,
        None => DEFAULT_LIFETIME,
    }
}

/// The token endpoint's answer, read up to [`ANSWER_LIMIT`] bytes.
async fn read_limited(mut response: reqwest::Response) -> Result<Vec<u8>, TokenFailure> {
    if response
        .content_length()
        .is_some_and(|length| length > ANSWER_LIMIT as u64)
    {
        return Err(TokenFailure::TooLong);
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|error| failure_of(&error))? {
        if body.len() + chunk.len() > ANSWER_LIMIT {
            return Err(TokenFailure::TooLong);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn failure_of(error: &reqwest::Error) -> TokenFailure {
    if error.is_timeout() {
        TokenFailure::TimedOut
    } else {
        let mut cause = error.to_string();
        if let Some(url) = error.url() {
            cause = cause.replace(&format!(" ({url})"), "");
        }
        TokenFailure::Unreachable { cause }
    }
}

impl TokenFailure {
    /// What went wrong, for the agent and the log: never the secret, nor
    /// what the token endpoint wrote but its error code.
    pub fn describe(&self) -> String {
        match self {
            TokenFailure::Refused {
                status,
                error: Some(error),
            } => format!("the token endpoint answered {status} ({error})"),
            TokenFailure::Refused {
                status,
                error: None,
            } => format!("the token endpoint answered {status}"),
            TokenFailure::TimedOut => format!(
                "the token endpoint did not answer within {} seconds",
                TOKEN_DEADLINE.as_secs()
            ),
            TokenFailure::Unreachable { cause } => {
                format!("the token endpoint could not be reached ({cause})")
            }
            TokenFailure::NoToken => "the token endpoint's answer held no access token".to_owned(),
            TokenFailure::TooLong => format!(
                "the token endpoint's answer is over {} KiB, longer than any token's",
                ANSWER_LIMIT / 1024
            ),
        }
    }

    /// The message for the agent whose call ended for want of a token.
    pub fn into_message(self, token_url: &str) -> AgentMessage {
        AgentMessage::UpstreamTokenFailed {
            token_url: token_url.to_owned(),
            why: self.describe(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_token_lives_as_long_as_it_says_within_sane_bounds() {
        let kept = |value: serde_json::Value| lifetime(Some(&value));
        assert_eq!(lifetime(None), DEFAULT_LIFETIME);
        assert_eq!(kept(json!(null)), DEFAULT_LIFETIME);
        assert_eq!(kept(json!(3600)), Duration::from_secs(3600));
        assert_eq!(kept(json!("3600")), Duration::from_secs(3600));
        assert_eq!(kept(json!(90.5)), Duration::from_secs_f64(90.5));
        assert_eq!(kept(json!(0)), SHORTEST_LIFETIME, "0 is not a token a call");
        assert_eq!(kept(json!(-30)), SHORTEST_LIFETIME);
        assert_eq!(kept(json!(u64::MAX)), LONGEST_LIFETIME, "no overflow");
        assert_eq!(kept(json!(1e300)), LONGEST_LIFETIME);
        assert_eq!(kept(json!("soon")), DEFAULT_LIFETIME);
        assert_eq!(kept(json!([60])), DEFAULT_LIFETIME);
    }
}

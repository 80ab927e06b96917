//! Sending the one request: once, unredirected, under one deadline, reading at
//! most a bounded part of the answer.
//!
//! Rules (see `docs/rules.md`): TC-SEND-001, TC-SEND-002, TC-SEND-003,
//! TC-SEND-004, TC-SEND-005, TC-SEND-006, TC-SEND-007, TC-ANS-009.

use std::io::ErrorKind;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::body::{Body as _, Incoming};
use hyper::header::HeaderMap;
use hyper::{StatusCode, Uri};
use hyper_rustls::{HttpsConnector, HttpsConnectorBuilder};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::{TokioExecutor, TokioTimer};
use reqwest::redirect;
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::CertificateDer;

use crate::errors::AgentMessage;
use crate::request::OutboundRequest;

/// The whole exchange, connecting to the last byte read, ends by then
/// (TC-SEND-004, TC-SEND-005).
pub const DEFAULT_DEADLINE: Duration = Duration::from_secs(15);

/// The answer as far as it was read.
#[derive(Debug, Clone)]
pub struct Delivered {
    pub status: StatusCode,
    pub headers: HeaderMap,
    /// The body's first bytes, no more than the budget `send` was given.
    pub body: Vec<u8>,
    /// Whether `body` is the whole body; false when reading stopped at the budget.
    pub complete: bool,
}

/// Why no answer came back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DeliveryFailure {
    /// The deadline passed before the exchange ended.
    Timeout,
    /// The host refused the connection.
    Refused,
    /// The connection was reset or closed before the answer was complete.
    Reset,
    /// The host's TLS certificate was refused (untrusted, expired, for
    /// another name), so nothing was sent; with why.
    Untrusted(String),
    /// Anything else, with its causes as text.
    Other(String),
}

impl DeliveryFailure {
    /// The catalogue message for this failure of the request to `target`,
    /// which names its method and URL (TC-SEND-007).
    pub fn into_message(self, target: String, deadline: Duration) -> AgentMessage {
        match self {
            DeliveryFailure::Timeout => AgentMessage::UpstreamTimeout { target, deadline },
            DeliveryFailure::Refused => AgentMessage::UpstreamUnreachable { target },
            DeliveryFailure::Reset => AgentMessage::UpstreamReset { target },
            DeliveryFailure::Untrusted(why) => AgentMessage::UpstreamUntrusted { target, why },
            DeliveryFailure::Other(cause) => AgentMessage::UpstreamFailed { target, cause },
        }
    }
}

/// Why the HTTP client for the upstream cannot be made.
#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error("the CA file holds no usable PEM certificate: {0}")]
    UnusableCa(rustls::pki_types::pem::Error),
    #[error("the CA file holds no PEM certificate")]
    NoCertificate,
    #[error("the system's or the CA file's certificates cannot be used: {0}")]
    Trust(rustls::Error),
    #[error("the HTTP client could not be built: {0}")]
    Build(reqwest::Error),
}

/// Makes ring the process's TLS crypto provider, unless the program already
/// chose one. reqwest is built without a provider of its own (its default,
/// aws-lc, takes a minute of a first build) and refuses to build a client
/// until one is installed. Calling it again does nothing.
pub fn install_crypto_provider() {
    // An error means a provider is installed already, which is what we want.
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// The pooled client every call's request goes through: hyper's own, with
/// TLS by rustls. Nothing between the call and the connection: no redirect
/// policy, retry layer, proxy lookup or second parse of the URL.
type Pooled = Client<HttpsConnector<HttpConnector>, Full<Bytes>>;

/// How long an unused pooled connection is kept: reqwest's default, which
/// the gateway had before.
const POOL_IDLE: Duration = Duration::from_secs(90);

/// One HTTP client for the gateway's lifetime, so connections are pooled.
#[derive(Debug, Clone)]
pub struct Deliverer {
    client: Pooled,
    /// The private CAs trusted besides the system's, for [`Deliverer::client`].
    trusted: Arc<[CertificateDer<'static>]>,
    deadline: Duration,
}

impl Deliverer {
    /// `trusted_ca_pem`: certificates of private CAs to trust besides the
    /// system's. Certificates are always verified: there is no switch that
    /// turns verification off.
    pub fn new(
        deadline: Duration,
        trusted_ca_pem: Option<&[u8]>,
    ) -> Result<Deliverer, ClientError> {
        let trusted = match trusted_ca_pem {
            Some(pem) => CertificateDer::pem_slice_iter(pem)
                .collect::<Result<Vec<_>, _>>()
                .map_err(ClientError::UnusableCa)?,
            None => Vec::new(),
        };
        if trusted_ca_pem.is_some() && trusted.is_empty() {
            return Err(ClientError::NoCertificate);
        }
        install_crypto_provider();
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        // The system's roots and the private CAs, verified as reqwest did.
        let verifier = rustls_platform_verifier::Verifier::new_with_extra_roots(
            trusted.iter().cloned(),
            Arc::clone(&provider),
        )
        .map_err(ClientError::Trust)?;
        let tls = rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(ClientError::Trust)?
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(verifier))
            .with_no_client_auth();
        let mut tcp = HttpConnector::new();
        // `https://` URLs go through the TLS layer, which needs the TCP
        // connector to take them.
        tcp.enforce_http(false);
        // Each request is written as soon as it is ready, as reqwest did.
        tcp.set_nodelay(true);
        // An upstream that offers HTTP/2 in TLS's ALPN is spoken to in it.
        let connector = HttpsConnectorBuilder::new()
            .with_tls_config(tls)
            .https_or_http()
            .enable_all_versions()
            .wrap_connector(tcp);
        let client = Client::builder(TokioExecutor::new())
            .timer(TokioTimer::new())
            .pool_timer(TokioTimer::new())
            .pool_idle_timeout(POOL_IDLE)
            // TC-SEND-001: hyper re-sends a request only when a pooled
            // connection closed before any byte of it was written, so the
            // upstream never saw it; reqwest left this on too. Nothing else
            // is retried, and no redirect is followed (TC-SEND-003): this
            // client has no such layers.
            .retry_canceled_requests(true)
            .build(connector);
        Ok(Deliverer {
            client,
            trusted: trusted.into(),
            deadline,
        })
    }

    pub fn deadline(&self) -> Duration {
        self.deadline
    }

    /// A reqwest client for the API's other endpoints (its token URL), off
    /// the call path: the same trust, and no redirects, retries or proxy.
    pub fn client(&self) -> Result<reqwest::Client, ClientError> {
        let trusted = self
            .trusted
            .iter()
            .map(|der| reqwest::Certificate::from_der(der))
            .collect::<Result<Vec<_>, _>>()
            .map_err(ClientError::Build)?;
        reqwest::Client::builder()
            .tls_certs_merge(trusted)
            // TC-SEND-003: a redirect is the answer, not an instruction.
            .redirect(redirect::Policy::none())
            // TC-SEND-001, TC-SEND-002: sent once whatever happens.
            .retry(reqwest::retry::never())
            // The verified host is reached directly, never through a proxy the
            // environment happens to name.
            .no_proxy()
            .build()
            .map_err(ClientError::Build)
    }

    /// Sends the request once and reads at most `budget` bytes of the body,
    /// then drops the connection: memory per call stays bounded however large
    /// or endless the answer (TC-ANS-009).
    pub async fn send(
        &self,
        request: OutboundRequest,
        budget: usize,
    ) -> Result<Delivered, DeliveryFailure> {
        let uri = Uri::try_from(String::from(request.url))
            .map_err(|error| DeliveryFailure::Other(error.to_string()))?;
        let mut outbound =
            hyper::Request::new(Full::new(request.body.map(Bytes::from).unwrap_or_default()));
        *outbound.method_mut() = request.method;
        *outbound.uri_mut() = uri;
        *outbound.headers_mut() = request.headers;
        let exchange = async {
            let response = self
                .client
                .request(outbound)
                .await
                .map_err(|error| classify(&error))?;
            let (parts, body) = response.into_parts();
            let expected = body
                .size_hint()
                .exact()
                .and_then(|length| usize::try_from(length).ok())
                .unwrap_or(0);
            let (body, complete) = read_body(body, expected, budget)
                .await
                .map_err(|error| classify(&error))?;
            Ok(Delivered {
                status: parts.status,
                headers: parts.headers,
                body,
                complete,
            })
        };
        // TC-SEND-004, TC-SEND-005: one deadline over the whole exchange,
        // from connecting to the last byte of the body.
        tokio::time::timeout(self.deadline, exchange)
            .await
            .unwrap_or(Err(DeliveryFailure::Timeout))
    }
}

/// Reads frames until the body ends or the budget is spent: an endless body
/// still gives an answer (TC-ANS-009). Dropping the body unread closes its
/// connection rather than pooling it.
async fn read_body(
    mut incoming: Incoming,
    expected: usize,
    budget: usize,
) -> Result<(Vec<u8>, bool), hyper::Error> {
    let mut body = Vec::with_capacity(expected.min(budget));
    while let Some(frame) = incoming.frame().await {
        let Ok(chunk) = frame?.into_data() else {
            continue; // trailers
        };
        let room = budget - body.len();
        if chunk.len() > room {
            reserve_within(&mut body, room, budget);
            body.extend_from_slice(&chunk[..room]);
            return Ok((body, false));
        }
        reserve_within(&mut body, chunk.len(), budget);
        body.extend_from_slice(&chunk);
    }
    Ok((body, true))
}

/// Grows the buffer geometrically, but never past the budget, so a body at
/// the limit does not leave a buffer twice its size.
fn reserve_within(body: &mut Vec<u8>, additional: usize, budget: usize) {
    let needed = body.len() + additional;
    if needed > body.capacity() {
        let target = needed.max(body.capacity() * 2).min(budget);
        body.reserve_exact(target - body.len());
    }
}

/// Sorts a failure into the kinds an agent can act on, so that a refused
/// connection (TC-SEND-006) and a reset one (TC-SEND-002) each say so.
fn classify(error: &(dyn std::error::Error + 'static)) -> DeliveryFailure {
    let mut cause = Some(error);
    while let Some(current) = cause {
        if let Some(io) = current.downcast_ref::<std::io::Error>() {
            if let Some(rustls::Error::InvalidCertificate(why)) = tls_error(io) {
                return DeliveryFailure::Untrusted(certificate_problem(why));
            }
            match io.kind() {
                // TC-SEND-006.
                ErrorKind::ConnectionRefused => return DeliveryFailure::Refused,
                // TC-SEND-002.
                ErrorKind::ConnectionReset
                | ErrorKind::ConnectionAborted
                | ErrorKind::BrokenPipe
                | ErrorKind::UnexpectedEof => return DeliveryFailure::Reset,
                _ => {}
            }
        }
        if let Some(http) = current.downcast_ref::<hyper::Error>() {
            if http.is_incomplete_message() || http.is_closed() {
                return DeliveryFailure::Reset;
            }
        }
        cause = current.source();
    }
    DeliveryFailure::Other(describe(error))
}

/// The TLS failure inside an I/O error (two deep, as the TLS connector
/// wraps it), which `source()` skips.
fn tls_error(io: &std::io::Error) -> Option<&rustls::Error> {
    let inner = io.get_ref()?;
    inner
        .downcast_ref::<rustls::Error>()
        .or_else(|| inner.downcast_ref::<std::io::Error>().and_then(tls_error))
}

/// Why a certificate was refused, in words an operator can act on.
fn certificate_problem(why: &rustls::CertificateError) -> String {
    use rustls::CertificateError as Problem;
    match why {
        Problem::UnknownIssuer => {
            "it is not signed by a trusted authority (a private CA can be trusted with --ca-file)"
                .to_owned()
        }
        Problem::Expired | Problem::ExpiredContext { .. } => "it has expired".to_owned(),
        Problem::NotValidYet | Problem::NotValidYetContext { .. } => {
            "it is not valid yet".to_owned()
        }
        Problem::NotValidForName | Problem::NotValidForNameContext { .. } => {
            "it is for another host name".to_owned()
        }
        Problem::Revoked => "it has been revoked".to_owned(),
        other => format!("{other:?}"),
    }
}

/// The error's causes, without the client's own summary ("client error
/// (Connect)"), which says nothing an agent can act on.
fn describe(error: &(dyn std::error::Error + 'static)) -> String {
    let mut causes = Vec::new();
    let mut cause = error.source();
    while let Some(current) = cause {
        causes.push(current.to_string());
        cause = current.source();
    }
    if causes.is_empty() {
        error.to_string()
    } else {
        causes.join(": ")
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use mock_upstream::{Behaviour, Upstream};
    use reqwest::header::HeaderMap;
    use reqwest::{Method, Url};
    use tokio::io::AsyncReadExt;
    use tokio::net::TcpListener;

    use super::{
        certificate_problem, reserve_within, tls_error, Delivered, Deliverer, DeliveryFailure,
        ErrorKind, DEFAULT_DEADLINE,
    };
    use crate::request::OutboundRequest;

    fn get(url: &str) -> OutboundRequest {
        OutboundRequest {
            method: Method::GET,
            url: Url::parse(url).unwrap(),
            headers: HeaderMap::new(),
            body: None,
        }
    }

    async fn send(url: &str, budget: usize) -> Result<Delivered, DeliveryFailure> {
        let deliverer = Deliverer::new(DEFAULT_DEADLINE, None).unwrap();
        deliverer.send(get(url), budget).await
    }

    /// The memory bound no black-box scenario can see: however the chunks
    /// come, the buffer grows geometrically (few reallocations), never past
    /// the budget, never to much more than what was read, and not at all
    /// while what comes still fits.
    #[test]
    fn the_buffer_grows_geometrically_and_never_past_the_budget() {
        let budget = 1_048_576 + 31;
        for chunk in [1, 1_000, 16_384, 65_536, 1_048_576, budget] {
            let mut body = Vec::new();
            let mut reallocations = 0;
            while body.len() < budget {
                let take = chunk.min(budget - body.len());
                let capacity = body.capacity();
                reserve_within(&mut body, take, budget);
                let grown = body.capacity() != capacity;
                reallocations += usize::from(grown);
                assert!(body.capacity() >= body.len() + take, "chunks of {chunk}");
                assert!(
                    !grown || body.len() + take > capacity,
                    "chunks of {chunk}: grew from {capacity} while {take} more fit"
                );
                body.extend(std::iter::repeat_n(0u8, take));
                assert!(
                    body.capacity() <= budget.min(2 * body.len().max(1)),
                    "chunks of {chunk}: {} for {} bytes",
                    body.capacity(),
                    body.len()
                );
            }
            assert!(
                reallocations <= 22,
                "chunks of {chunk}: {reallocations} reallocations"
            );
        }
    }

    /// A body that exactly fills the budget is whole; one byte more is cut
    /// at the budget (TC-ANS-003 reads its note from `complete`).
    #[tokio::test]
    async fn a_body_that_exactly_fills_the_budget_is_complete() {
        let upstream = Upstream::start().await.unwrap();
        let budget = 4_096;
        for (path, length) in [("/exact", budget), ("/over", budget + 1)] {
            upstream.set_behaviour(
                path,
                Behaviour::Chunked {
                    status: 200,
                    content_type: "text/plain".into(),
                    chunks: vec![vec![b'a'; length - 10], vec![b'b'; 10]],
                    pause: Duration::from_millis(5),
                },
            );
            let delivered = send(&format!("{}{path}", upstream.base_url()), budget)
                .await
                .unwrap();
            assert_eq!(delivered.body.len(), budget, "{path}");
            assert_eq!(delivered.complete, length == budget, "{path}");
        }
    }

    /// The kinds an agent acts on differently (TC-SEND-006), and the
    /// catalogue codes that `docs/errors.md` links to their scenarios.
    #[tokio::test]
    async fn failures_are_told_apart() {
        let upstream = Upstream::start().await.unwrap();
        upstream.set_behaviour("/reset", Behaviour::Reset);
        upstream.set_behaviour("/ssh", Behaviour::NotHttp);
        let base = upstream.base_url();

        let reset = send(&format!("{base}/reset"), 1_024).await.unwrap_err();
        assert_eq!(reset, DeliveryFailure::Reset);

        // Not HTTP at all: the cause, in hyper's words, without reqwest's
        // summary that repeats the URL.
        match send(&format!("{base}/ssh"), 1_024).await.unwrap_err() {
            DeliveryFailure::Other(cause) => {
                assert!(cause.contains("HTTP"), "{cause}");
                assert!(!cause.contains("127.0.0.1"), "{cause}");
            }
            other => panic!("not HTTP taken as {other:?}"),
        }

        upstream.refuse_connections().await;
        let refused = send(&format!("{base}/pets"), 1_024).await.unwrap_err();
        assert_eq!(refused, DeliveryFailure::Refused);
    }

    /// A refused certificate is found however deep the connector wraps it,
    /// and named in words an operator can act on (no scenario sees TLS:
    /// the mock upstream speaks plain HTTP).
    #[test]
    fn a_refused_certificate_is_named_for_the_operator() {
        let refused = rustls::Error::InvalidCertificate(rustls::CertificateError::UnknownIssuer);
        let wrapped = std::io::Error::other(std::io::Error::new(ErrorKind::InvalidData, refused));
        assert!(matches!(
            tls_error(&wrapped),
            Some(rustls::Error::InvalidCertificate(_))
        ));
        assert!(tls_error(&std::io::Error::new(ErrorKind::InvalidData, "not TLS")).is_none());
        let unknown = certificate_problem(&rustls::CertificateError::UnknownIssuer);
        assert!(unknown.contains("--ca-file"), "{unknown}");
        assert_eq!(
            certificate_problem(&rustls::CertificateError::Expired),
            "it has expired"
        );
    }

    /// A connection closed cleanly (no reset) before any answer is a reset
    /// for the agent too: hyper reports it as an incomplete message.
    #[tokio::test]
    async fn a_connection_closed_before_the_answer_is_a_reset() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let (mut socket, _) = listener.accept().await.unwrap();
            let mut request = Vec::new();
            while !request.ends_with(b"\r\n\r\n") {
                let mut byte = [0u8; 1];
                if socket.read(&mut byte).await.unwrap() == 0 {
                    break;
                }
                request.push(byte[0]);
            }
        });
        let closed = send(&format!("http://{address}/pets"), 1_024)
            .await
            .unwrap_err();
        assert_eq!(closed, DeliveryFailure::Reset);
    }

    /// The deadline the gateway was given cuts off a silent upstream, and is
    /// the figure the timeout message names (TC-SEND-004).
    #[tokio::test]
    async fn a_silent_upstream_is_cut_off_at_the_deadline() {
        let upstream = Upstream::start().await.unwrap();
        upstream.set_behaviour("/silent", Behaviour::Stall);
        let deadline = Duration::from_millis(300);
        let deliverer = Deliverer::new(deadline, None).unwrap();
        assert_eq!(deliverer.deadline(), deadline);
        let started = Instant::now();
        let outcome = deliverer
            .send(get(&format!("{}/silent", upstream.base_url())), 1_024)
            .await;
        assert_eq!(outcome.unwrap_err(), DeliveryFailure::Timeout);
        assert!(
            started.elapsed() < DEFAULT_DEADLINE,
            "{:?}",
            started.elapsed()
        );
    }
}

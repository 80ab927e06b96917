//! The call flow, free of MCP: find the tool, check, build the request,
//! deliver, answer.
//!
//! Everything a call needs is prepared once in [`Gateway::new`]: validators,
//! the name index, the destination, the HTTP client and the masker. Every
//! failure after the tool is found becomes a tool result with `isError: true`
//! and a catalogue text (TC-PROTO-005); only an unknown tool is an `Err`
//! (TC-PROTO-004).

use std::collections::HashMap;
use std::fmt;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::FutureExt as _;
use serde_json::{Map, Value};
use tokio::sync::Semaphore;

use crate::answer::{self, Masker};
use crate::check::{JsonType, Problem, TypeSet, Validator, Violation};
use crate::convert::{Catalogue, CredentialPlacement, Tool};
use crate::deliver::{ClientError, Deliverer, DEFAULT_DEADLINE};
use crate::errors::{AgentMessage, ErrorCode};
use crate::exchange::{ClientCredentials, Credentialed, ExchangeConfig};
use crate::request::{self, Destination, DestinationError};
use crate::secret::Secret;
use crate::watch::ApiMeter;

pub use crate::answer::ToolAnswer;

/// Where and how the gateway reaches the API owner's host.
#[derive(Debug, Clone)]
pub struct UpstreamConfig {
    /// The verified host, e.g. `https://api.example.com/v1`; operation paths are appended to it.
    pub base_url: String,
    /// The stored credential; `None` sends requests without one.
    pub credential: Option<Secret>,
    /// Overrides the placement the document's security scheme suggests.
    pub placement: Option<CredentialPlacement>,
    /// PEM certificates of private CAs trusted for the host, besides the
    /// system's (`--ca-file`).
    pub trusted_ca_pem: Option<Vec<u8>>,
    /// The secret forms of the other stored credentials of the process (the
    /// other APIs' it hosts), masked in this API's answers too.
    pub also_masked: Vec<Vec<String>>,
    /// For an API that takes access tokens of its own OAuth server: where
    /// to get them, the stored credential being the client's secret.
    pub exchange: Option<ExchangeConfig>,
}

/// What calls are sent with.
enum Credentialing {
    /// The stored credential, in place once and for all.
    Stored(Credentialed),
    /// Tokens of the API's own OAuth server, got with the stored secret.
    Exchanged(Box<ClientCredentials>),
}

/// The only failure that is not a tool result: the tool does not exist.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownTool(pub String);

impl fmt::Display for UnknownTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let message = AgentMessage::ToolUnknown {
            name: self.0.clone(),
        };
        f.write_str(&message.render())
    }
}

impl std::error::Error for UnknownTool {}

/// A document's tools made ready to call: the catalogue, a compiled
/// validator per tool, and the index by name. Built once per document and
/// shared by every gateway that serves the same tools (the APIs of a
/// hosting config that share a document).
pub struct CompiledTools {
    catalogue: Catalogue,
    /// Tool name to its position in `catalogue.tools` and `validators`.
    index: HashMap<String, usize>,
    validators: Vec<Validator>,
}

impl CompiledTools {
    pub fn new(catalogue: Catalogue) -> CompiledTools {
        let validators = catalogue
            .tools
            .iter()
            .map(|tool| Validator::compile(&tool.input_schema))
            .collect();
        let mut index = HashMap::with_capacity(catalogue.tools.len());
        for (position, tool) in catalogue.tools.iter().enumerate() {
            index.entry(tool.name.clone()).or_insert(position);
        }
        CompiledTools {
            catalogue,
            index,
            validators,
        }
    }

    pub fn catalogue(&self) -> &Catalogue {
        &self.catalogue
    }
}

/// Tools served from memory and the means to call them.
pub struct Gateway {
    compiled: Arc<CompiledTools>,
    /// Where requests go, with no credential: refusals are found with it
    /// before any token is asked for.
    bare: Destination,
    credentialing: Credentialing,
    deliverer: Deliverer,
    /// Masks every stored secret, in the texts the gateway writes itself.
    masker: Arc<Masker>,
    /// One permit per call that may be sending or answering at once.
    turns: Semaphore,
    calls_in_flight: usize,
    /// One permit per large answer that may be turned into text at once.
    interpreting: Arc<Semaphore>,
    /// Where each call is counted for the operator's metrics, if anywhere.
    meter: Option<ApiMeter>,
}

/// Answers larger than this are interpreted on tokio's blocking pool.
///
/// The server runs on one thread (see `main.rs`); pretty-printing a 1 MB JSON
/// answer takes about 10 ms, which would hold up every other call for that
/// long. A small answer takes microseconds, less than the hand-off would.
const INLINE_ANSWER: usize = 64 * 1024;

/// How many large answers are turned into text at once. Each one holds its
/// body and its text, about 2 MB at the cut, while a call waiting for its
/// turn holds only its body: with every call in flight interpreting at
/// once, 100 answers of 100 MB took the gateway to 190-216 MB; four at a
/// time bound it near 1 MB per call. Four keep two cores busy, and one
/// takes a few milliseconds.
const ANSWERS_INTERPRETED_AT_ONCE: usize = 4;

/// How much the gateway takes on.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// The whole upstream exchange ends by then (TC-SEND-004, TC-SEND-005),
    /// and a call waits no longer than this for a turn.
    pub deadline: Duration,
    /// Calls that may be sending or answering at once. Each can hold about
    /// 1 MB of answer and its text, so this bounds the gateway's memory
    /// whatever the load; further calls wait for a turn.
    pub calls_in_flight: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            deadline: DEFAULT_DEADLINE,
            calls_in_flight: DEFAULT_CALLS_IN_FLIGHT,
        }
    }
}

/// Why a gateway cannot start on its configuration: the upstream's address
/// and credential, or the HTTP client (its trusted CAs).
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error(transparent)]
    Destination(#[from] DestinationError),
    #[error(transparent)]
    Client(#[from] ClientError),
    #[error(
        "the API takes tokens of its OAuth server for a client's id and secret, and no \
         secret is set: the stored credential is the client's secret"
    )]
    NoClientSecret,
}

/// A few hundred MB at most of answers in memory, and far more calls at
/// once than one upstream usually serves well.
pub const DEFAULT_CALLS_IN_FLIGHT: usize = 128;

impl Gateway {
    /// A gateway with the default [`Limits`].
    pub fn new(catalogue: Catalogue, upstream: UpstreamConfig) -> Result<Self, ConfigError> {
        Self::with_limits(catalogue, upstream, Limits::default())
    }

    /// A gateway with other limits.
    pub fn with_limits(
        catalogue: Catalogue,
        upstream: UpstreamConfig,
        limits: Limits,
    ) -> Result<Self, ConfigError> {
        Self::with_tools(Arc::new(CompiledTools::new(catalogue)), upstream, limits)
    }

    /// A gateway serving tools compiled already, maybe shared with others.
    pub fn with_tools(
        compiled: Arc<CompiledTools>,
        upstream: UpstreamConfig,
        limits: Limits,
    ) -> Result<Self, ConfigError> {
        let catalogue = &compiled.catalogue;
        // TC-REQ-017: the configuration's placement, else the document's.
        let placement = upstream
            .placement
            .as_ref()
            .or(catalogue.default_credential.as_ref());
        let credential = upstream.credential.as_ref().map(Secret::expose);
        let own = credential.map(|credential| answer::secret_forms(credential, placement));
        let masked: Vec<Vec<String>> = own
            .into_iter()
            .chain(upstream.also_masked.iter().cloned())
            .collect();
        let masker = Arc::new(Masker::of(masked.iter().cloned()));
        let deliverer = Deliverer::new(limits.deadline, upstream.trusted_ca_pem.as_deref())?;
        let bare = Destination::new(&upstream.base_url, None, None)?;
        let credentialing = match (&upstream.exchange, &upstream.credential) {
            (None, _) => Credentialing::Stored(Credentialed {
                destination: Arc::new(Destination::new(&upstream.base_url, credential, placement)?),
                masker: Arc::clone(&masker),
            }),
            (Some(exchange), Some(secret)) => {
                Credentialing::Exchanged(Box::new(ClientCredentials::new(
                    exchange,
                    secret.clone(),
                    &upstream.base_url,
                    masked,
                    deliverer.client()?,
                )?))
            }
            (Some(_), None) => return Err(ConfigError::NoClientSecret),
        };
        let calls_in_flight = limits.calls_in_flight.max(1);
        Ok(Self {
            compiled,
            bare,
            credentialing,
            deliverer,
            masker,
            turns: Semaphore::new(calls_in_flight),
            calls_in_flight,
            interpreting: Arc::new(Semaphore::new(ANSWERS_INTERPRETED_AT_ONCE)),
            meter: None,
        })
    }

    /// The gateway with each call counted by `meter`.
    pub fn metered(mut self, meter: ApiMeter) -> Self {
        if let Credentialing::Exchanged(exchange) = &mut self.credentialing {
            exchange.set_meter(meter.clone());
        }
        self.meter = Some(meter);
        self
    }

    pub fn tools(&self) -> &[Tool] {
        &self.compiled.catalogue.tools
    }

    /// The compiled tools it serves, to share with a gateway of the same.
    pub fn compiled(&self) -> &Arc<CompiledTools> {
        &self.compiled
    }

    /// Calls a tool. Missing or null arguments are an empty object; any
    /// other value that is not an object is refused as invalid arguments.
    ///
    /// Each call is logged once, when answered: the tool, the upstream's
    /// status and body size, the time taken and the catalogue code. Never
    /// an argument value, a body or the credential.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<Value>,
    ) -> Result<ToolAnswer, UnknownTool> {
        let started = Instant::now();
        let Some(&position) = self.compiled.index.get(name) else {
            // TC-PROTO-004: the one failure that is not a tool result.
            // The name is the agent's text: masked, like every text the
            // gateway hands back (TC-MASK-007), and quoted with escapes in
            // the log.
            let name = self.masker.mask(name);
            tracing::info!(tool = ?name, code = %ErrorCode::ToolUnknown.code(), "unknown tool");
            return Err(UnknownTool(name));
        };
        let (answer, exchange) = match unless_panicked(self.answer(position, arguments)).await {
            Some(answered) => answered,
            None => {
                tracing::error!(
                    tool = %self.compiled.catalogue.tools[position].name,
                    "the call failed inside the gateway (a bug); answered GATEWAY_FAULT"
                );
                (self.failure(AgentMessage::GatewayFault), None)
            }
        };
        let tool = &self.compiled.catalogue.tools[position].name;
        log_call(tool, &answer, exchange, started);
        if let Some(meter) = &self.meter {
            let outcome = answer.code.map_or("ok", ErrorCode::code);
            let status = exchange.map(|exchange| exchange.status);
            meter.answered(tool, outcome, status, started.elapsed());
        }
        Ok(answer)
    }

    /// The call of the tool at `position`, and what the upstream answered if
    /// a request was sent.
    async fn answer(
        &self,
        position: usize,
        arguments: Option<Value>,
    ) -> (ToolAnswer, Option<Exchange>) {
        let tool = &self.compiled.catalogue.tools[position];
        let validator = &self.compiled.validators[position];

        let arguments = match arguments {
            None | Some(Value::Null) => Value::Object(Map::new()),
            Some(arguments) => arguments,
        };
        // TC-CHECK-015: a failed check ends the call before any request exists.
        let checked = validator
            .validate(&arguments)
            .and_then(|()| match &arguments {
                Value::Object(arguments) => Ok(arguments),
                // Every input schema says `type: object`, so the check above
                // already refused this; said again here so that no request is
                // ever built from anything else.
                other => Err(vec![Violation {
                    pointer: String::new(),
                    problem: Problem::WrongType {
                        expected: TypeSet::only(JsonType::Object),
                        found: JsonType::of(other),
                    },
                }]),
            });
        let arguments = match checked {
            Ok(arguments) => arguments,
            Err(violations) => {
                return (
                    self.failure(AgentMessage::ArgumentsInvalid { violations }),
                    None,
                )
            }
        };

        // A refused request is never sent (TC-REQ-003, TC-REQ-004,
        // TC-REQ-007, TC-REQ-018, TC-REQ-020). The credential goes on last
        // and never makes a request refused, so a stored one is built in
        // once; a request that would be refused asks for no token.
        let (outbound, masker) = match &self.credentialing {
            Credentialing::Stored(stored) => {
                match request::build(tool, arguments, &stored.destination) {
                    Ok(outbound) => (outbound, Arc::clone(&stored.masker)),
                    Err(refusal) => return (self.failure(refusal.into()), None),
                }
            }
            Credentialing::Exchanged(exchange) => {
                if let Err(refusal) = request::build(tool, arguments, &self.bare) {
                    return (self.failure(refusal.into()), None);
                }
                // Boxed, as the rare path: its future is large.
                match Box::pin(exchange.credentialed()).await {
                    Ok(token) => match request::build(tool, arguments, &token.destination) {
                        Ok(outbound) => (outbound, token.masker),
                        Err(refusal) => return (self.failure(refusal.into()), None),
                    },
                    Err(failure) => {
                        let message = failure.into_message(exchange.token_url());
                        return (self.failure(message), None);
                    }
                }
            }
        };
        // Past the limit a call waits for a turn, at most the deadline:
        // memory stays bounded, and no call waits without end.
        let deadline = self.deliverer.deadline();
        // A free turn is taken at once; only a call that must wait gets a timer.
        let turn = match self.turns.try_acquire() {
            Ok(turn) => Ok(turn),
            Err(_) => {
                let _waiting = self.meter.as_ref().map(ApiMeter::waiting);
                Box::pin(tokio::time::timeout(deadline, self.turns.acquire()))
                    .await
                    .map_err(drop)
                    .and_then(|acquired| acquired.map_err(drop))
            }
        };
        let _turn = match turn {
            Ok(turn) => turn,
            // Timed out, or (never: it is not closed) the semaphore closed.
            Err(()) => {
                let busy = AgentMessage::GatewayBusy {
                    limit: self.calls_in_flight,
                    waited: deadline,
                };
                return (self.failure(busy), None);
            }
        };
        let _in_flight = self.meter.as_ref().map(ApiMeter::in_flight);
        // TC-SEND-007: a delivery error names the method and URL, masked
        // by `failure`.
        let target = outbound.target();
        let budget = answer::read_budget(&masker);
        // TC-REQ-001, TC-SEND-001: sent once, whatever comes back.
        // Boxed: the exchange's future is most of a call's state, and each
        // future the call is in (MCP's, the layers') would hold its size,
        // and copy it as it is made.
        let delivered = match Box::pin(self.deliverer.send(outbound, budget)).await {
            Ok(delivered) => delivered,
            Err(failure) => {
                let message = failure.into_message(target, self.deliverer.deadline());
                return (self.failure(message), None);
            }
        };
        let exchange = Exchange {
            status: delivered.status.as_u16(),
            bytes: delivered.body.len(),
        };
        if delivered.body.len() <= INLINE_ANSWER {
            return (answer::interpret(&delivered, &masker), Some(exchange));
        }
        let Ok(turn) = Arc::clone(&self.interpreting).acquire_owned().await else {
            // Never closed; interpreted here rather than fail the call.
            return (answer::interpret(&delivered, &masker), Some(exchange));
        };
        let interpreted = tokio::task::spawn_blocking(move || {
            let answer = answer::interpret(&delivered, &masker);
            drop((delivered, turn));
            answer
        });
        let answer = interpreted
            .await
            .unwrap_or_else(|failure| match failure.try_into_panic() {
                // A panic in `interpret` fails this call alone, as one on
                // the server's own thread does (see `unless_panicked`).
                Ok(panic) => std::panic::resume_unwind(panic),
                // Cancelled: the runtime is shutting down.
                Err(cancelled) => panic!("{cancelled}"),
            });
        (answer, Some(exchange))
    }

    /// A message the gateway wrote itself, masked whole: it may embed the
    /// request's URL, which can carry the credential (TC-MASK-007).
    fn failure(&self, message: AgentMessage) -> ToolAnswer {
        ToolAnswer {
            text: self.masker.mask(&message.render()),
            is_error: message.is_error(),
            code: Some(message.code()),
        }
    }
}

/// The work's output, or `None` when it panicked. A bug inside a call fails
/// that call alone, with an answer, rather than leaving the client waiting
/// for one that never comes; the gateway serves on.
async fn unless_panicked<T>(work: impl Future<Output = T>) -> Option<T> {
    AssertUnwindSafe(work).catch_unwind().await.ok()
}

/// What the upstream answered, for the log.
#[derive(Clone, Copy)]
struct Exchange {
    status: u16,
    /// Body bytes read (at most the read budget).
    bytes: usize,
}

/// One event per answered call: `warn` when the gateway was too busy or
/// the upstream could not be reached or did not answer in time, which an
/// operator should look at;
/// `info` otherwise, an agent's mistakes and the API's own statuses included.
fn log_call(tool: &str, answer: &ToolAnswer, exchange: Option<Exchange>, started: Instant) {
    // Milliseconds to a tenth: enough to read, short to scan.
    let ms = (started.elapsed().as_secs_f64() * 10_000.0).round() / 10.0;
    let status = exchange.map(|exchange| exchange.status);
    let bytes = exchange.map(|exchange| exchange.bytes);
    let code = answer.code.map(ErrorCode::code);
    macro_rules! event {
        ($level:expr) => {
            tracing::event!(
                $level,
                tool,
                status,
                bytes,
                ms,
                code = code.map(tracing::field::display),
                "call"
            )
        };
    }
    match answer.code {
        Some(
            ErrorCode::GatewayBusy
            | ErrorCode::UpstreamTimeout
            | ErrorCode::UpstreamUnreachable
            | ErrorCode::UpstreamReset
            | ErrorCode::UpstreamFailed,
        ) => event!(tracing::Level::WARN),
        _ => event!(tracing::Level::INFO),
    }
}

#[cfg(test)]
mod tests {
    use super::unless_panicked;
    use crate::errors::AgentMessage;

    #[tokio::test]
    async fn a_panic_inside_a_call_is_answered() {
        assert_eq!(unless_panicked(async { 7 }).await, Some(7));
        let panicked: Option<u8> =
            unless_panicked(async { panic!("a bug in the call path") }).await;
        assert_eq!(panicked, None);
        let answer = AgentMessage::GatewayFault;
        assert!(answer.is_error());
        assert!(answer.render().starts_with("[GATEWAY_FAULT] "));
    }
}

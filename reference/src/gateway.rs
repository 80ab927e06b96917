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
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};

use crate::answer::{self, Masker};
use crate::check::Validator;
use crate::convert::{Catalogue, CredentialPlacement, Tool};
use crate::deliver::{Deliverer, DEFAULT_DEADLINE};
use crate::errors::AgentMessage;
use crate::request::{self, Destination};
use crate::secret::Secret;

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

/// Tools served from memory and the means to call them.
pub struct Gateway {
    catalogue: Catalogue,
    /// Tool name to its position in `catalogue.tools` and `validators`.
    index: HashMap<String, usize>,
    validators: Vec<Validator>,
    destination: Destination,
    deliverer: Deliverer,
    /// Shared with the blocking threads that interpret large answers.
    masker: Arc<Masker>,
}

/// Answers larger than this are interpreted on tokio's blocking pool.
///
/// The server runs on one thread (see `main.rs`); pretty-printing a 1 MB JSON
/// answer takes about 10 ms, which would hold up every other call for that
/// long. A small answer takes microseconds, less than the hand-off would.
const INLINE_ANSWER: usize = 64 * 1024;

impl Gateway {
    /// A gateway whose upstream exchanges end after 15 seconds.
    pub fn new(catalogue: Catalogue, upstream: UpstreamConfig) -> Result<Self, String> {
        Self::with_deadline(catalogue, upstream, DEFAULT_DEADLINE)
    }

    /// A gateway with another deadline for the whole upstream exchange.
    pub fn with_deadline(
        catalogue: Catalogue,
        upstream: UpstreamConfig,
        deadline: Duration,
    ) -> Result<Self, String> {
        // TC-REQ-017: the configuration's placement, else the document's.
        let placement = upstream
            .placement
            .as_ref()
            .or(catalogue.default_credential.as_ref());
        let credential = upstream.credential.as_ref().map(Secret::expose);
        let destination = Destination::new(&upstream.base_url, credential, placement)?;
        let masker = Arc::new(Masker::new(credential, placement));
        let deliverer = Deliverer::new(deadline)?;
        let validators = catalogue
            .tools
            .iter()
            .map(|tool| Validator::compile(&tool.input_schema))
            .collect();
        let mut index = HashMap::with_capacity(catalogue.tools.len());
        for (position, tool) in catalogue.tools.iter().enumerate() {
            index.entry(tool.name.clone()).or_insert(position);
        }
        Ok(Self {
            catalogue,
            index,
            validators,
            destination,
            deliverer,
            masker,
        })
    }

    pub fn tools(&self) -> &[Tool] {
        &self.catalogue.tools
    }

    /// Calls a tool. Missing arguments are an empty object.
    pub async fn call(
        &self,
        name: &str,
        arguments: Option<Map<String, Value>>,
    ) -> Result<ToolAnswer, UnknownTool> {
        let unknown = || UnknownTool(name.to_owned());
        let position = *self.index.get(name).ok_or_else(unknown)?;
        let tool = self.catalogue.tools.get(position).ok_or_else(unknown)?;
        let validator = self.validators.get(position).ok_or_else(unknown)?;

        let arguments = Value::Object(arguments.unwrap_or_default());
        // TC-CHECK-015: a failed check ends the call before any request exists.
        if let Err(violations) = validator.validate(&arguments) {
            return Ok(self.failure(AgentMessage::ArgumentsInvalid { violations }));
        }
        let no_arguments = Map::new();
        let arguments = arguments.as_object().unwrap_or(&no_arguments);

        let outbound = match request::build(tool, arguments, &self.destination) {
            Ok(outbound) => outbound,
            Err(refusal) => return Ok(self.failure(refusal.into())),
        };
        let target = outbound.target();
        let budget = answer::read_budget(&self.masker);
        match self.deliverer.send(outbound, budget).await {
            Ok(delivered) if delivered.body.len() <= INLINE_ANSWER => {
                Ok(answer::interpret(&delivered, &self.masker))
            }
            Ok(delivered) => {
                let masker = Arc::clone(&self.masker);
                let interpreted =
                    tokio::task::spawn_blocking(move || answer::interpret(&delivered, &masker));
                Ok(interpreted
                    .await
                    .unwrap_or_else(|failure| match failure.try_into_panic() {
                        // A panic in `interpret` fails this call alone, as it
                        // would have on the server's own thread.
                        Ok(panic) => std::panic::resume_unwind(panic),
                        // Cancelled: the runtime is shutting down.
                        Err(cancelled) => panic!("{cancelled}"),
                    }))
            }
            Err(failure) => {
                Ok(self.failure(failure.into_message(target, self.deliverer.deadline())))
            }
        }
    }

    /// A message the gateway wrote itself, masked whole: it may embed the
    /// request's URL, which can carry the credential (TC-MASK-007).
    fn failure(&self, message: AgentMessage) -> ToolAnswer {
        ToolAnswer {
            text: self.masker.mask(&message.render()),
            is_error: message.is_error(),
        }
    }
}

//! The scenario's tool calls, and the gateway's names for tools and their
//! arguments where those are not the rules': each call as the report shows
//! it, the latest outcome, and the error codes the calls carried.

use std::{
    collections::{BTreeSet, HashMap},
    time::{Duration, Instant},
};

use anyhow::Context as _;
use serde_json::Value;

use super::verdict::{Notes, Verdict};
use crate::{client::CallOutcome, naming};

/// The rule ID prefix of the argument rules, whose scenarios call tools with
/// the rules' argument names whatever the gateway's.
const ARGUMENT_RULES: &str = "TC-ARG-";

/// Characters of a call's arguments or answer shown in a report.
const CALL_SHOWN: usize = 2000;

/// What the scenario's tool calls gave, and the names they went by.
pub(super) struct Calls {
    /// Whether a tool the gateway names otherwise is found by its operation:
    /// not in the naming rules' own scenarios.
    resolve_names: bool,
    /// Tools the gateway names otherwise: the rules' name to the gateway's.
    renamed: HashMap<String, String>,
    last_call: Option<CallOutcome>,
    /// Where the latest call put the arguments it gave elsewhere than the
    /// rules name them, so that places its answer names can be followed.
    last_moved: Vec<naming::Moved>,
    /// The arguments the latest call's tool takes (its input schema's
    /// properties), where the call's arguments were renamed for it.
    last_taken: serde_json::Map<String, Value>,
    /// How long the latest tool call took, from sending it to its answer.
    last_call_took: Option<Duration>,
    /// When its answer came.
    last_call_ended: Option<Instant>,
    /// How long the gateway's threads waited for a CPU
    /// meanwhile (see [`crate::lag::CpuWait`]).
    last_call_waited: Duration,
    /// Every error code the scenario's calls carried (see [`CallOutcome::codes`]).
    codes_seen: BTreeSet<String>,
    /// Each tool call the scenario made and what came back, in order.
    made: Vec<String>,
    /// A tool call went without an answer: the gateway may still be at it,
    /// so it is not kept for another scenario.
    unanswered: bool,
}

impl Calls {
    pub(super) fn new() -> Self {
        Self {
            resolve_names: true,
            renamed: HashMap::new(),
            last_call: None,
            last_moved: Vec::new(),
            last_taken: serde_json::Map::new(),
            last_call_took: None,
            last_call_ended: None,
            last_call_waited: Duration::ZERO,
            codes_seen: BTreeSet::new(),
            made: Vec::new(),
            unanswered: false,
        }
    }

    /// Sets whether a tool the gateway names otherwise is found by its operation.
    pub(super) fn resolve_names(&mut self, resolve: bool) {
        self.resolve_names = resolve;
    }

    /// The gateway's name for a tool already found, if it was.
    pub(super) fn found_name(&self, name: &str) -> Option<&str> {
        self.renamed.get(name).map(String::as_str)
    }

    /// The gateway's name for the tool the rules call `name`, among the
    /// `tools` it lists, for a scenario whose document is `document`, with
    /// the files `beside` it (see
    /// [`GatewayWorld::tool_name`](super::GatewayWorld::tool_name)).
    pub(super) fn gateway_name(
        &mut self,
        name: &str,
        tools: &[Value],
        document: &str,
        beside: &dyn Fn(&str) -> Option<String>,
        verdict: &mut Verdict,
    ) -> anyhow::Result<String> {
        let listed = |wanted: &str| tools.iter().any(|tool| tool["name"] == wanted);
        if listed(name) || !self.resolve_names {
            return Ok(name.to_owned());
        }
        let operations = naming::operations(document, beside);
        let Some(operation) = operations.iter().find(|o| o.name == name) else {
            return Ok(name.to_owned());
        };
        let actual = match naming::find(name, &operations, tools) {
            Ok(index) => tools[index]["name"].as_str().unwrap_or_default().to_owned(),
            Err(not_found) => {
                let named_otherwise = tools
                    .iter()
                    .any(|tool| !operations.iter().any(|o| tool["name"] == o.name.as_str()));
                if !named_otherwise {
                    return Ok(name.to_owned());
                }
                let why = format!(
                    "the gateway lists no tool {name:?}, and no listed tool could be told to \
                     be the one of {} {} (by its name, its stated method and path, its \
                     arguments, or as the one left); candidates: {:?}; the gateway lists {:?}",
                    operation.method.to_uppercase(),
                    operation.path,
                    not_found.candidates,
                    crate::json::tool_names(tools)
                );
                return Err(verdict.not_judged(operation.named_by, why));
            }
        };
        verdict.notes().add(format!(
            "the gateway calls the tool the rules name {name:?} {actual:?} (a naming rule's \
             matter); it was found as the tool of {} {}, by what it is",
            operation.method.to_uppercase(),
            operation.path
        ));
        self.renamed.insert(name.to_owned(), actual.clone());
        Ok(actual)
    }

    /// Whether calls give arguments under the gateway's names and places:
    /// not in the argument rules' own scenarios, whose matter those are.
    pub(super) fn renames_arguments(&self, verdict: &Verdict) -> bool {
        self.resolve_names && !verdict.judges_rules_of(ARGUMENT_RULES)
    }

    /// Forgets where the previous call put its arguments, before another.
    pub(super) fn forget_places(&mut self) {
        self.last_moved.clear();
        self.last_taken.clear();
    }

    /// `given` under the names `tool` takes them by, as the gateway lists
    /// it among `tools` (see
    /// [`GatewayWorld::as_the_gateway_names`](super::GatewayWorld::as_the_gateway_names)).
    pub(super) fn as_the_gateway_names(
        &mut self,
        tool: &str,
        given: serde_json::Map<String, Value>,
        tools: &[Value],
        verdict: &mut Verdict,
    ) -> anyhow::Result<Value> {
        let Some(taken) = tools
            .iter()
            .find(|listed| listed["name"] == tool)
            .and_then(|listed| listed["inputSchema"]["properties"].as_object())
        else {
            return Ok(Value::Object(given));
        };
        let (out, moved) = naming::as_the_gateway_names(&given, taken);
        if out.contains_key("body") && !taken.contains_key("body") {
            let takes: Vec<&String> = taken.keys().collect();
            return Err(verdict.not_judged(
                "TC-ARG-003",
                format!(
                    "tool {tool:?} takes no body argument, and not the body's members either \
                     (it takes {takes:?}), so the call's request body cannot be given"
                ),
            ));
        }
        if !moved.is_empty() {
            let shown: Vec<String> = moved.iter().map(ToString::to_string).collect();
            verdict.notes().add_once(format!(
                "the gateway takes arguments otherwise (the argument rules' matter): {} sent {}",
                tool,
                shown.join(", ")
            ));
        }
        self.last_moved = moved;
        self.last_taken = taken.clone();
        Ok(Value::Object(out))
    }

    /// Keeps how long the latest call over the scenario's session took, and
    /// how long the gateway's threads waited for a CPU meanwhile.
    pub(super) fn took(&mut self, took: Duration, waited: Duration) {
        self.last_call_took = Some(took);
        self.last_call_ended = Some(Instant::now());
        self.last_call_waited = waited;
    }

    /// Keeps a call and its answer (or why none came) for the report; the
    /// answer is also kept as [`Self::last_call`]. A transport rule broken
    /// on the way to a result is noted, once: it is TC-PROTO-008's to judge,
    /// and the result still counts here.
    pub(super) fn record(
        &mut self,
        request: String,
        called: anyhow::Result<(CallOutcome, Option<String>)>,
        notes: &mut Notes,
    ) -> anyhow::Result<&CallOutcome> {
        self.unanswered |= called.is_err();
        let answer = match &called {
            Ok((outcome, _)) => clip_chars(&outcome.to_string(), CALL_SHOWN),
            Err(error) => format!(
                "no answer: {}",
                clip_chars(&format!("{error:#}"), CALL_SHOWN)
            ),
        };
        self.made.push(format!("{request}\n→ {answer}"));
        let (outcome, broken) = called?;
        if let Some(broken) = broken {
            notes.add_once(format!("{broken}; the result was taken from there"));
        }
        self.codes_seen.extend(outcome.codes().map(str::to_owned));
        Ok(self.last_call.insert(outcome))
    }

    /// Whether a call went without an answer.
    pub(super) fn unanswered(&self) -> bool {
        self.unanswered
    }

    /// Each call made and what came back, for the report.
    pub(super) fn made(&self) -> &[String] {
        &self.made
    }

    /// The error codes this scenario's calls carried, in order.
    pub(super) fn codes_seen(&self) -> Vec<String> {
        self.codes_seen.iter().cloned().collect()
    }

    /// How long the latest tool call took (calls over the scenario's session).
    pub(super) fn last_call_took(&self) -> anyhow::Result<Duration> {
        self.last_call_took
            .context("no tool has been called in this scenario")
    }

    /// When the latest tool call was sent, and when its answer came.
    pub(super) fn last_call_span(&self) -> anyhow::Result<(Instant, Instant)> {
        let took = self.last_call_took()?;
        let ended = self
            .last_call_ended
            .context("no tool has been called in this scenario")?;
        Ok((ended - took, ended))
    }

    /// How long the gateway's threads waited for a CPU
    /// during the latest tool call.
    pub(super) fn last_call_waited(&self) -> Duration {
        self.last_call_waited
    }

    /// The outcome of the latest tool call.
    pub(super) fn last_call(&self) -> anyhow::Result<&CallOutcome> {
        self.last_call
            .as_ref()
            .context("no tool has been called in this scenario")
    }

    /// The pointers a place named in the latest call's answer may take:
    /// `pointer` as the rules write it, and where the gateway took the
    /// argument it starts at, if the call put that elsewhere, or else where
    /// the tool takes that argument (one the call did not give).
    pub(super) fn as_the_gateway_placed(&self, pointer: &str) -> Vec<String> {
        let mut forms = vec![pointer.to_owned()];
        forms.extend(
            self.last_moved
                .iter()
                .filter_map(|moved| moved.rebase(pointer)),
        );
        if forms.len() == 1 {
            forms.extend(naming::placed_pointer(pointer, &self.last_taken));
        }
        forms
    }
}

/// A tool call as the report shows it: `tools/call NAME ARGUMENTS`.
pub(super) fn call_request(name: &str, arguments: &Value) -> String {
    clip_chars(&format!("tools/call {name} {arguments}"), CALL_SHOWN)
}

/// The first `keep` characters of `text`, and how long it was when longer.
fn clip_chars(text: &str, keep: usize) -> String {
    match text.char_indices().nth(keep) {
        Some((at, _)) => format!("{}[… {} bytes in all]", &text[..at], text.len()),
        None => text.to_owned(),
    }
}

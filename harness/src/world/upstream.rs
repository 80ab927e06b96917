//! The scenario's mock upstream: what it answers where no step stubbed,
//! the one a kept gateway comes with taking its place, and what it received
//! when it is handed back with that gateway.

use std::{cell::Cell, fmt};

use anyhow::Context as _;
use mock_upstream::Upstream;
use wiremock::{matchers::any, Mock, ResponseTemplate};

/// The body of the upstream's answer to a request no step stubbed: JSON,
/// which every gateway can read (some read every answer as JSON and fail
/// on anything else).
pub const UNSTUBBED_ANSWER: &str = r#"{"ok": true}"#;

/// The body of every answer a scenario asked for by status alone.
const FALLBACK_ANSWER: &str = r#"{"upstream": "says no"}"#;

/// The scenario's mock upstream, and what its steps set up on it.
pub(super) struct ScenarioUpstream {
    /// `None` only once handed back to the pool with its gateway.
    upstream: Option<Upstream>,
    /// Whether a step has used the upstream: then it is not swapped for a
    /// kept gateway's, which has none of that step's set-up.
    used: Cell<bool>,
    /// What every request no stub matches is answered with, if a step said.
    fallback_status: Option<u16>,
    /// What the upstream had received when it was handed back with its
    /// gateway: the report may be written after that.
    handed_back_requests: Vec<String>,
}

impl ScenarioUpstream {
    pub(super) async fn start() -> anyhow::Result<Self> {
        let upstream = Upstream::start()
            .await
            .context("cannot start the mock upstream")?;
        answer_unstubbed(&upstream).await;
        Ok(Self {
            upstream: Some(upstream),
            used: Cell::new(false),
            fallback_status: None,
            handed_back_requests: Vec::new(),
        })
    }

    /// This scenario's mock upstream, for a step to use.
    pub(super) fn get(&self) -> &Upstream {
        self.used.set(true);
        self.upstream
            .as_ref()
            .expect("the upstream is handed back only after the scenario")
    }

    /// Whether a step has used the upstream (see [`Self::get`]).
    pub(super) fn used(&self) -> bool {
        self.used.get()
    }

    /// Answers every request no stub matches with `status` (below every
    /// stub of a step). Kept here, not only mounted, so that it holds on a
    /// kept gateway's upstream too when set before the document.
    pub(super) async fn answer_every_request_with(&mut self, status: u16) {
        self.fallback_status = Some(status);
        if let Some(upstream) = &self.upstream {
            answer_every_request(upstream, status).await;
        }
    }

    /// Puts the API under `path` on the upstream the scenario has now.
    pub(super) fn set_base_path(&self, path: &str) {
        if let Some(upstream) = &self.upstream {
            upstream.set_base_path(path);
        }
    }

    /// The upstream's base URL, as the gateway is given it.
    pub(super) fn base_url(&self) -> String {
        self.upstream
            .as_ref()
            .map(Upstream::base_url)
            .unwrap_or_default()
    }

    /// Whether the upstream is still the scenario's: not handed back.
    pub(super) fn is_here(&self) -> bool {
        self.upstream.is_some()
    }

    /// Puts the upstream a kept gateway came with in place of this one,
    /// with the scenario's set-up so far.
    pub(super) async fn take_kept(&mut self, upstream: Upstream, base_path: &str) {
        if let Some(status) = self.fallback_status {
            answer_every_request(&upstream, status).await;
        }
        // Reset when it was kept; its gateway was launched under this path.
        upstream.set_base_path(base_path);
        self.upstream = Some(upstream);
    }

    /// Hands the upstream over, to be kept with its gateway: reset, once
    /// what it received is noted for the report; `None` if it cannot be.
    pub(super) async fn hand_back(&mut self) -> Option<Upstream> {
        let upstream = self.upstream.take()?;
        self.handed_back_requests = requests_seen(&upstream);
        upstream.reset().await.ok()?;
        answer_unstubbed(&upstream).await;
        Some(upstream)
    }

    /// Every request the upstream received, as a report shows it.
    pub(super) fn requests(&self) -> Vec<String> {
        self.upstream
            .as_ref()
            .map_or_else(|| self.handed_back_requests.clone(), requests_seen)
    }
}

/// Shows the upstream's address, if it is still the scenario's.
impl fmt::Debug for ScenarioUpstream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.upstream.as_ref().map(Upstream::base_url).fmt(f)
    }
}

/// What a scenario does not stub is answered as a real API would, with a
/// 200 and a JSON body: a scenario about the request then sees no error it
/// did not ask for, and the error codes recorded per scenario are the ones
/// its rule is about. A gateway that sends a call it should have refused
/// then answers with a success, not with an error about the answer that
/// could pass for a refusal (@twilio-alpha/openapi-mcp-server failed on
/// a text body, and 89 checking scenarios could not be judged).
async fn answer_unstubbed(upstream: &Upstream) {
    Mock::given(any())
        .respond_with(ResponseTemplate::new(200).set_body_raw(UNSTUBBED_ANSWER, "application/json"))
        .with_priority(u8::MAX)
        .mount(upstream.stubs())
        .await;
}

/// The fallback of [`ScenarioUpstream::answer_every_request_with`]: below
/// any other stub, above the world's own answer to what no step stubbed.
/// JSON, as [`UNSTUBBED_ANSWER`] is and for the same reason.
async fn answer_every_request(upstream: &Upstream, status: u16) {
    Mock::given(any())
        .respond_with(
            ResponseTemplate::new(status).set_body_raw(FALLBACK_ANSWER, "application/json"),
        )
        .with_priority(u8::MAX - 1)
        .mount(upstream.stubs())
        .await;
}

/// Every request `upstream` received, as a report shows it.
fn requests_seen(upstream: &Upstream) -> Vec<String> {
    upstream
        .requests()
        .iter()
        .map(ToString::to_string)
        .collect()
}

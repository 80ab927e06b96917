//! The scenario's MCP session with its gateway, launched if need be: an
//! SDK client of either era, or hand-driven HTTP, showing the client
//! credential the run gives; an endpoint that lets no client in leaves the
//! scenario not judged.

use anyhow::{anyhow, bail, Context as _};

use super::super::verdict::Notes;
use super::{
    life::Life,
    state::{Lifecycle, EXIT_SEEN_WITHIN},
};
use crate::{
    client::EndpointRefused, client::Era, client::HandshakeTimedOut, client::HandshakeUnanswered,
    client::McpClient, client::CONNECT_TIMEOUT, client_auth::ClientAuth, client_auth::Shown,
    launch::Transport, raw::RawHttp,
};

impl Lifecycle {
    /// The gateway's MCP session, launching the gateway on the upstream at
    /// `base_url` first if needed.
    pub(crate) async fn session(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<&McpClient> {
        loop {
            self.launched(base_url, notes).await?;
            let may_relaunch = self.may_relaunch();
            // The handshake ends the start-up: it gets the start-up window too.
            let within = self.start_timeout().max(CONNECT_TIMEOUT);
            let Life::Running(running) = &mut self.life else {
                bail!("no gateway");
            };
            if running.client.is_some() {
                break;
            }
            let client = match (running.gateway.mcp_url(), running.gateway.take_stdio()) {
                (Some(url), _) => {
                    let headers = running.gateway.client_headers(&[]);
                    McpClient::over_http(&url, self.setup.era(), &headers, within).await
                }
                (None, Some(pipes)) => McpClient::over_stdio(pipes, self.setup.era(), within).await,
                (None, None) => Err(anyhow!("the gateway's stdio session was already used")),
            };
            let client = match client {
                Ok(client) => client,
                Err(error) if running.served_before > 0 => {
                    // A kept gateway that cannot open another session is not
                    // this scenario's verdict: it gets a launch of its own.
                    self.life = Life::NotLaunched;
                    notes.add(format!(
                        "the gateway kept from an earlier scenario could not open a new session \
                         ({error:#}); one was launched for this scenario"
                    ));
                    continue;
                }
                Err(error)
                    if *self.setup.era() != Era::Discover && error.is::<EndpointRefused>() =>
                {
                    let status = error
                        .downcast_ref::<EndpointRefused>()
                        .map_or(0, |refused| refused.status);
                    return Err(self.refused_at_endpoint(status, &error).await);
                }
                Err(error) => {
                    // Launches that failed alike must read alike: one that
                    // is exiting is reported with its status and last words.
                    let unanswered = error.is::<HandshakeUnanswered>();
                    let exited = if unanswered {
                        running.gateway.exit_during_start_up(EXIT_SEEN_WITHIN).await
                    } else {
                        running.gateway.exit_within(EXIT_SEEN_WITHIN).await
                    };
                    if exited.is_none() && may_relaunch && error.is::<HandshakeTimedOut>() {
                        self.life = Life::NotLaunched;
                        self.relaunch("did not answer the MCP handshake", notes);
                        continue;
                    }
                    let failure = match exited {
                        // Gone before it answered a word, it did not start:
                        // the verdict an HTTP gateway gets whose port never
                        // opened. One that answered and then went (its
                        // stdin closes with the failed session) started.
                        Some(exited) if unanswered => {
                            // As below, the turn ends once the failure is known.
                            self.launch_failed(&exited);
                            self.slot = None;
                            self.life = Life::FailedToStart(exited.clone());
                            return Err(exited.into());
                        }
                        Some(exited) => exited,
                        None => {
                            let reason = format!("its MCP handshake failed: {error:#}");
                            running.gateway.failure(reason, None).await
                        }
                    };
                    running.failed_handshake = Some(failure.clone());
                    // The turn ends once the failure is known: the next
                    // launch is not made when it makes this one the last.
                    self.launch_failed(&failure);
                    self.slot = None;
                    // What the gateway said on stderr goes with the report.
                    return Err(error.context(format!(
                        "connecting to the gateway over {} failed",
                        self.transport
                    )));
                }
            };
            running.client = Some(client);
            self.slot = None;
            self.came_up();
        }
        let running = self.life.running().context("no gateway")?;
        running.client.as_ref().context("no session")
    }

    /// A session of its own whose every HTTP request carries `headers`.
    /// HTTP only.
    pub(crate) async fn session_with_headers(
        &mut self,
        headers: &[(String, String)],
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<McpClient> {
        let url = self.mcp_url(base_url, notes).await?;
        let headers = self
            .life
            .running()
            .context("no gateway")?
            .gateway
            .client_headers(headers);
        McpClient::over_http(&url, self.setup.era(), &headers, CONNECT_TIMEOUT).await
    }

    /// A plain `initialize` answered by hand-driven HTTP with a status that
    /// lets no client in (see [`EndpointRefused`]) leaves the scenario not
    /// judged, as the SDK's handshake does.
    pub(crate) async fn unless_refused_at_endpoint(&mut self) -> anyhow::Result<()> {
        let status = match &self.raw {
            Some(raw) => raw.last()?.status,
            None => return Ok(()),
        };
        if matches!(status, 401 | 403 | 404 | 405) {
            let answered = format!("a plain initialize was answered with HTTP {status}");
            return Err(self.refused_at_endpoint(status, &answered).await);
        }
        Ok(())
    }

    /// The gateway's MCP endpoint answered the handshake with `status`
    /// (401, 403, 404 or 405): how it was reached is wrong, not a rule. The
    /// scenario is not judged, with what to check.
    pub(super) async fn refused_at_endpoint(
        &mut self,
        status: u16,
        seen: &dyn std::fmt::Display,
    ) -> anyhow::Error {
        let Life::Running(running) = &mut self.life else {
            return anyhow!("{seen}");
        };
        let url = running.gateway.mcp_url().unwrap_or_default();
        let hint = match (status, running.gateway.client_auth()) {
            (401 | 403, None) => {
                "does it let in only clients it knows? --client-auth gives the harness's \
                 client a credential"
            }
            (401 | 403, Some(_)) => {
                "it did not take the client credential where --client-auth put it"
            }
            _ => "does it serve MCP at another path? --endpoint says which",
        };
        let reason = format!("its MCP endpoint {url} let no client in ({hint}): {seen:#}");
        let failure = running.gateway.failure(reason, None).await;
        self.launch_failed(&failure);
        self.slot = None;
        self.life = Life::FailedToStart(failure.clone());
        failure.into()
    }

    /// The scenario's hand-driven HTTP client of the gateway's MCP endpoint
    /// (one per scenario, so it keeps its session and last answer). HTTP only.
    pub(crate) async fn raw_http(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<&mut RawHttp> {
        if self.raw.is_none() {
            let url = self.mcp_url(base_url, notes).await?;
            let auth = self
                .life
                .running()
                .and_then(|r| r.gateway.client_auth())
                .cloned();
            self.raw = Some(RawHttp::new(url, auth));
        }
        self.raw.as_mut().context("no HTTP client")
    }

    /// A hand-driven HTTP client of its own, in place of the scenario's
    /// one: no session, and showing `shown` of the client credential.
    pub(crate) async fn another_raw_http(
        &mut self,
        shown: Shown,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<&mut RawHttp> {
        let url = self.mcp_url(base_url, notes).await?;
        let mut raw = RawHttp::new(url, self.client_auth().cloned());
        raw.show(shown);
        Ok(self.raw.insert(raw))
    }

    /// The credential the gateway wants of its clients (`--client-auth`),
    /// if the run gives one: the running gateway's own (under `--client-auth
    /// oauth`, its token), else the run's.
    pub(crate) fn client_auth(&self) -> Option<&ClientAuth> {
        if let Some(auth) = self.life.running().and_then(|r| r.gateway.client_auth()) {
            return Some(auth);
        }
        self.launcher
            .as_ref()?
            .target
            .template(Transport::Http)?
            .client_auth()
    }

    /// The gateway's MCP endpoint, launching it if needed. HTTP only.
    pub(super) async fn mcp_url(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<String> {
        self.launched(base_url, notes).await?;
        // Hand-driven HTTP has no handshake to wait for: accepting is starting.
        self.slot = None;
        let running = self.life.running().context("no gateway")?;
        running.gateway.mcp_url().with_context(|| {
            format!(
                "this needs the http transport, the scenario speaks {}",
                self.transport
            )
        })
    }
}

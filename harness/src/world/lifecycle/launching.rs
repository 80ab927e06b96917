//! Launching the scenario's gateway: a turn at a time, its start-up window
//! from its own launch, made once more after a silence; a launch that is to
//! refuse its document; and the run's launch record kept.

use std::{path::Path, path::PathBuf, sync::Arc, time::Duration, time::Instant};

use anyhow::{bail, Context as _};

use super::super::verdict::Notes;
use super::{life::Life, life::Running, state::Lifecycle};
use crate::{
    folder::ScenarioDir, health::Refusal, launch::Gateway, launch::Launch, launch::StartFailure,
    launch::Transport, pool::LaunchKey,
};

impl Lifecycle {
    /// Launches the gateway expecting it to refuse the document: it must exit
    /// on its own, with a failure status, within the start-up time.
    pub(crate) async fn start_refused(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<StartFailure> {
        self.exit_expected = true;
        // Refusing the document takes a launch of its own: a kept gateway is stopped.
        drop(self.life.take_kept());
        let failure = match self.spawn(base_url, notes).await? {
            Err(failure) if failure.status.is_some() => failure,
            Err(failure) => {
                bail!("the gateway should have refused its document; instead {failure}")
            }
            Ok(mut running) => match self.exits_at_start(&mut running.gateway).await {
                Some(failure) => failure,
                None => {
                    // Over stdio, alive is not up: a hang is alive too.
                    if self.transport == Transport::Http {
                        self.came_up();
                    }
                    self.slot = None;
                    self.life = Life::Running(running);
                    bail!(
                        "the gateway is running ({}) although it should have refused its document",
                        match self.transport {
                            Transport::Http => "its port accepts connections".to_owned(),
                            Transport::Stdio => format!(
                                "still alive {} s after its launch",
                                self.start_timeout().as_secs_f64()
                            ),
                        }
                    )
                }
            },
        };
        self.slot = None;
        if failure.status.is_some_and(|s| s.success()) {
            bail!(
                "the gateway exited with success although it refused its document:\n{}",
                failure.stderr
            );
        }
        Ok(failure)
    }

    /// An HTTP gateway that accepts connections has started; a stdio one gets
    /// the start-up time to exit.
    pub(super) async fn exits_at_start(&self, gateway: &mut Gateway) -> Option<StartFailure> {
        match self.transport {
            Transport::Http => None,
            Transport::Stdio => gateway.exit_within(self.start_timeout()).await,
        }
    }

    /// The start-up window of this scenario's next launch: the run's, twice
    /// that for a launch made again.
    pub(super) fn start_timeout(&self) -> Duration {
        if self.relaunched {
            self.start_window * 2
        } else {
            self.start_window
        }
    }

    /// Whether a launch that stayed silent through its window is made once
    /// more: only for a gateway seen to come up in this run (so the silence
    /// is most likely a busy machine, not a gateway that cannot start), once
    /// per scenario, and never where the scenario expects the gateway to
    /// exit. Where starting is under test it is made too: silence is no
    /// verdict there either (only an exit is), so a gateway that hangs on
    /// the document is still not judged, only later, while one the machine
    /// slowed down gets judged.
    pub(super) fn may_relaunch(&self) -> bool {
        !self.relaunched
            && !self.exit_expected
            && !self.probe
            && self
                .health
                .as_ref()
                .is_some_and(|health| health.has_come_up(self.transport))
    }

    /// Notes, and counts for the run, a launch made again after `silence`.
    pub(super) fn relaunch(&mut self, silence: &str, notes: &mut Notes) {
        let window = self.start_timeout();
        self.relaunched = true;
        if let Some(health) = &self.health {
            health.relaunched();
        }
        notes.add(format!(
            "the first launch {silence} within {} s although this gateway has started in this \
             run: it was launched once more, with {} s",
            window.as_secs_f64(),
            self.start_timeout().as_secs_f64()
        ));
    }

    pub(super) async fn launched(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<()> {
        if self.life.running().is_none() {
            if let Some(kept) = self.kept_that_fits(base_url) {
                self.use_kept(*kept, notes);
                return Ok(());
            }
            let running = match self.spawn(base_url, notes).await? {
                Ok(running) => running,
                Err(failure) => {
                    self.launch_failed(&failure);
                    self.life = Life::FailedToStart(failure.clone());
                    return Err(failure.into());
                }
            };
            if self.transport == Transport::Http {
                self.came_up();
            }
            self.life = Life::Running(running);
        }
        Ok(())
    }

    /// Writes the document and starts the gateway on the upstream at
    /// `base_url`; the outer error is the harness's, the inner one the
    /// gateway's.
    pub(super) async fn spawn(
        &mut self,
        base_url: &str,
        notes: &mut Notes,
    ) -> anyhow::Result<Result<Box<Running>, StartFailure>> {
        let document = self.setup.document_for(base_url)?;
        let credential_in = self.setup.credential_in(&document);
        let launcher = Arc::clone(
            self.launcher
                .as_ref()
                .context("the world was not configured")?,
        );
        let template = launcher.target.template(self.transport).with_context(|| {
            format!(
                "the gateway under test offers no {} transport",
                self.transport
            )
        })?;
        if let Some(why) = credential_in
            .as_deref()
            .and_then(|place| launcher.target.cannot_take_credential_at(place))
        {
            let refusal = Refusal::Placement(why);
            self.life = Life::Refused(refusal.clone());
            return Err(refusal.into());
        }
        let dir = ScenarioDir::create()?;
        let written = self.setup.write(&dir, &document, base_url)?;
        let credential = self.setup.credential().to_owned();
        // What getting a gateway by launching costs, its turn included.
        let asked = Instant::now();
        // The start-up window opens with the launch, not while waiting for a turn.
        // A turn still held (a launch made again after a silent handshake)
        // is given back first: two launches that each wait for another turn
        // while holding theirs would wait for ever.
        self.slot = None;
        self.slot = Some(launcher.slot().await);
        let refused = self.health.as_ref().map_or(Ok(()), |health| {
            health.may_launch(self.transport, self.probe)
        });
        if let Err(refusal) = refused {
            self.slot = None;
            self.life = Life::Refused(refusal.clone());
            return Err(refusal.into());
        }
        let key = self.launch_key(base_url);
        self.count_launch();
        // A gateway built per document is built once, under this launch's turn.
        let prepared = match &self.preparation {
            Some(step) => {
                let document: Vec<(&Path, &str)> = written
                    .files
                    .iter()
                    .map(|(path, text)| (path.as_path(), text.as_str()))
                    .collect();
                Some(step.prepared(&written.openapi, &document).await)
            }
            None => None,
        };
        let own_issuer = self.setup.issuer().cloned();
        let launch = Launch {
            openapi: &written.openapi,
            base_url,
            credential: &credential,
            credential_in: credential_in.as_deref(),
            prepared: prepared
                .as_ref()
                .and_then(|p| p.as_ref().ok())
                .map(PathBuf::as_path),
            issuer: own_issuer.as_ref(),
        };
        let mut started = match &prepared {
            Some(Err(refused)) => Err(refused.clone()),
            _ => Gateway::start(template, self.transport, launch, self.start_timeout()).await,
        };
        if started.as_ref().is_err_and(|f| f.timed_out) && self.may_relaunch() {
            self.relaunch("did not accept TCP connections", notes);
            self.count_launch();
            started = Gateway::start(template, self.transport, launch, self.start_timeout()).await;
        }
        if let (Ok(_), Some(pool)) = (&started, &self.pool) {
            pool.launched_in(asked.elapsed());
            if let Some(wanted) = &self.wanted {
                pool.came_up(wanted);
            }
        }
        self.launched_as = Some(match &started {
            Ok(gateway) => gateway.invocation().clone(),
            Err(failure) => failure.invocation.clone(),
        });
        self.folders.launched(dir);
        Ok(started.map(|gateway| Box::new(Running::new(gateway, key, 0))))
    }

    pub(super) fn count_launch(&self) {
        if let Some(health) = &self.health {
            health.launched();
        }
    }

    /// A gateway that was to come up has.
    pub(super) fn came_up(&self) {
        if let Some(health) = &self.health {
            health.came_up(self.transport);
        }
    }

    /// A gateway that was to come up did not; launches where starting is
    /// itself under test (a refused document) are the scenario's matter.
    pub(super) fn launch_failed(&self, failure: &StartFailure) {
        if let Some(health) = &self.health {
            if !self.start_under_test && !self.exit_expected {
                health.launch_failed(self.transport, failure);
            }
        }
    }

    /// What the next launch would be made of, on the upstream at `base_url`.
    pub(super) fn launch_key(&self, base_url: &str) -> LaunchKey {
        LaunchKey {
            wanted: self.setup.wanted(),
            base_url: base_url.to_owned(),
        }
    }
}

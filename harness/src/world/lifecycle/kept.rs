//! The pool's side of the scenario's gateway: a gateway kept from an
//! earlier scenario taken when it fits, and the gateway handed back after
//! the scenario when it may serve another (see [`crate::pool`]).

use super::super::{upstream::ScenarioUpstream, verdict::Notes};
use super::{life::Life, life::Running, state::Lifecycle};
use crate::{launch::Transport, pool::Kept, pool::KeptGateway};

impl Lifecycle {
    /// Takes a kept gateway launched on the document just set, with its
    /// upstream, in place of this scenario's fresh one; only while nothing
    /// was set up on that one yet. Waits for one a scenario under way uses.
    pub(crate) async fn take_kept(&mut self, upstream: &mut ScenarioUpstream) {
        let Some(pool) = self.pool.clone() else {
            return;
        };
        if self.transport != Transport::Http
            || upstream.used()
            || self.probe
            || self.wanted.is_some()
            || self.life.running().is_some()
        {
            return;
        }
        let wanted = self.setup.wanted();
        let taken = pool
            .take(&wanted, pool.patience(self.start_timeout()))
            .await;
        self.wanted = Some(wanted);
        let Some(Kept {
            upstream: kept_upstream,
            gateway,
        }) = taken
        else {
            return;
        };
        upstream
            .take_kept(kept_upstream, self.setup.base_path())
            .await;
        self.life = Life::Kept(Box::new(gateway));
    }

    /// The kept gateway, if it is still running and the scenario's launch
    /// would be made of the same (a step after the document may have set
    /// another credential); else it is stopped and `None`.
    pub(super) fn kept_that_fits(&mut self, base_url: &str) -> Option<Box<KeptGateway>> {
        let mut kept = self.life.take_kept()?;
        // Where no launch would be made (`--max-failures` reached), none is
        // used either: the scenario is not run, as with `--isolate`.
        let may_launch = self
            .health
            .as_ref()
            .is_none_or(|health| health.may_launch(self.transport, self.probe).is_ok());
        let fits = may_launch
            && !self.own_launches
            && !self.exit_expected
            && !self.start_under_test
            && kept.key == self.launch_key(base_url)
            && kept.gateway.exit_status().is_none();
        fits.then_some(kept)
    }

    /// Serves the scenario with a kept gateway, noted in its report.
    pub(super) fn use_kept(&mut self, kept: KeptGateway, notes: &mut Notes) {
        notes.add(format!(
            "the gateway had served {} scenario(s) with this document before this one \
             (gateways are kept between scenarios; --isolate launches one per \
             scenario, as the rerun command does)",
            kept.served
        ));
        if let Some(pool) = &self.pool {
            pool.reused();
        }
        self.launched_as = Some(kept.gateway.invocation().clone());
        self.folders.launched(kept.dir);
        self.life = Life::Running(Box::new(Running::new(kept.gateway, kept.key, kept.served)));
    }

    /// Hands the gateway and its upstream back to the pool after a scenario
    /// that left it running with every call answered (`unanswered` says
    /// otherwise), unless the scenario launched or stopped gateways as part
    /// of its rule (see [`crate::pool`]).
    pub(crate) async fn hand_back(&mut self, upstream: &mut ScenarioUpstream, unanswered: bool) {
        let Some(pool) = self.pool.clone() else {
            return;
        };
        if let Some(kept) = self.keepable(upstream, unanswered).await {
            pool.give_back(kept);
        }
        if let Some(wanted) = self.wanted.take() {
            pool.release(&wanted);
        }
    }

    /// The gateway and upstream to keep after the scenario, its upstream
    /// reset, if they may be kept.
    pub(super) async fn keepable(
        &mut self,
        upstream: &mut ScenarioUpstream,
        unanswered: bool,
    ) -> Option<Kept> {
        // A gateway spoken to by hand (raw HTTP: a refused Origin, a bad
        // header) may be left mid-request: openapi-mcp-server 1.16.1 crashes
        // on its next request after refusing a foreign Origin.
        let may_keep = !unanswered
            && self.raw.is_none()
            && !self.own_launches
            && !self.start_under_test
            && !self.exit_expected
            && !self.probe
            && self.transport == Transport::Http
            && self.folders.has_running()
            && upstream.is_here()
            && match &mut self.life {
                Life::Running(running) => running.gateway.exit_status().is_none(),
                _ => false,
            };
        if !may_keep {
            return None;
        }
        // What a report of this scenario shows, kept before the reset.
        let running = self.life.hand_over()?;
        let dir = self.folders.take_running()?;
        // The session ends as at teardown: dropped, which closes its
        // connections (a polite close waits on rmcp for up to 2 s).
        self.raw = None;
        self.slot = None;
        let upstream = upstream.hand_back().await?;
        self.folders.handed_back(dir.path());
        let Running {
            gateway,
            key,
            served_before,
            ..
        } = *running;
        Some(Kept {
            upstream,
            gateway: KeptGateway {
                key,
                gateway,
                dir,
                served: served_before,
            },
        })
    }
}

//! The world's side of [`crate::pool`]: taking a kept gateway when the
//! scenario's document is set, using it at the launch if it still fits, and
//! handing it back when the scenario passed.

use super::{
    answer_every_request, answer_unstubbed, requests_seen, Ended, GatewayWorld, Life, Running,
};
use crate::{
    launch::Transport,
    pool::{Kept, KeptGateway, LaunchKey, Wanted},
};

impl GatewayWorld {
    /// What the scenario asks of its launch so far.
    fn wanted_now(&self) -> Wanted {
        Wanted {
            document: self.document.clone().unwrap_or_default(),
            files: self.files.clone(),
            folder: self.document_folder.clone(),
            credential: self.credential.clone(),
            hint_credential: self.hint_credential,
            base_path: self.base_path.clone(),
        }
    }

    /// What the next launch would be made of.
    pub(super) fn launch_key(&self) -> LaunchKey {
        LaunchKey {
            wanted: self.wanted_now(),
            base_url: self.base_url(),
        }
    }

    /// Takes a kept gateway launched on the document just set, with its
    /// upstream, in place of this scenario's fresh one; only while nothing
    /// was set up on that one yet. Waits for one a scenario under way uses.
    pub(super) async fn take_kept(&mut self) {
        let Some(pool) = self.pool.clone() else {
            return;
        };
        if self.transport != Transport::Http
            || self.upstream_used.get()
            || self.probe
            || self.wanted.is_some()
            || self.running().is_some()
        {
            return;
        }
        let wanted = self.wanted_now();
        let taken = pool
            .take(&wanted, pool.patience(self.start_timeout()))
            .await;
        self.wanted = Some(wanted);
        let Some(Kept { upstream, gateway }) = taken else {
            return;
        };
        if let Some(status) = self.fallback_status {
            answer_every_request(&upstream, status).await;
        }
        // Reset when it was kept; its gateway was launched under this path.
        upstream.set_base_path(&self.base_path);
        self.upstream = Some(upstream);
        self.kept = Some(gateway);
    }

    /// The kept gateway, if it is still running and the scenario's launch
    /// would be made of the same (a step after the document may have set
    /// another credential); else it is stopped and `None`.
    pub(super) fn kept_that_fits(&mut self) -> Option<KeptGateway> {
        let mut kept = self.kept.take()?;
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
            && kept.key == self.launch_key()
            && kept.gateway.exit_status().is_none();
        fits.then_some(kept)
    }

    /// Hands the gateway and its upstream back to the pool after a scenario
    /// that left it running with every call answered, unless the scenario
    /// launched or stopped gateways as part of its rule (see [`crate::pool`]).
    pub(crate) async fn hand_back(&mut self) {
        let Some(pool) = self.pool.clone() else {
            return;
        };
        if let Some(kept) = self.keepable().await {
            pool.give_back(kept);
        }
        if let Some(wanted) = self.wanted.take() {
            pool.release(&wanted);
        }
    }

    /// The gateway and upstream to keep after the scenario, its upstream
    /// reset, if they may be kept.
    async fn keepable(&mut self) -> Option<Kept> {
        // A gateway spoken to by hand (raw HTTP: a refused Origin, a bad
        // header) may be left mid-request: openapi-mcp-server 1.16.1 crashes
        // on its next request after refusing a foreign Origin.
        let may_keep = !self.unanswered
            && self.raw.is_none()
            && !self.own_launches
            && !self.start_under_test
            && !self.exit_expected
            && !self.probe
            && self.transport == Transport::Http
            && self.dir.is_some()
            && self.launched_key.is_some()
            && self.upstream.is_some()
            && match &mut self.life {
                Life::Running(running) => running.gateway.exit_status().is_none(),
                _ => false,
            };
        if !may_keep {
            return None;
        }
        // What a report of this scenario shows, kept before the reset.
        let Life::Running(running) = std::mem::replace(&mut self.life, Life::NotLaunched) else {
            return None;
        };
        self.life = Life::Ended(Ended {
            stderr: running.gateway.stderr(),
            exited: None,
        });
        let (key, upstream, dir) = (
            self.launched_key.take()?,
            self.upstream.take()?,
            self.dir.take()?,
        );
        self.handed_back_requests = requests_seen(&upstream);
        // The session ends as at teardown: dropped, which closes its
        // connections (a polite close waits on rmcp for up to 2 s).
        self.raw = None;
        self.slot = None;
        upstream.reset().await.ok()?;
        answer_unstubbed(&upstream).await;
        self.handed_back_dir = Some(dir.path().to_path_buf());
        Some(Kept {
            upstream,
            gateway: KeptGateway {
                key,
                gateway: running.gateway,
                dir,
                served: self.served_before,
            },
        })
    }

    /// Serves the scenario with a kept gateway, noted in its report.
    pub(super) fn use_kept(&mut self, kept: KeptGateway) {
        self.served_before = kept.served;
        self.notes.push(format!(
            "the gateway had served {} scenario(s) with this document before this one \
             (gateways are kept between scenarios; --isolate launches one per \
             scenario, as the rerun command does)",
            kept.served
        ));
        if let Some(pool) = &self.pool {
            pool.reused();
        }
        self.launched_as = Some(kept.gateway.invocation().clone());
        self.launched_key = Some(kept.key);
        self.dir = Some(kept.dir);
        self.life = Life::Running(Box::new(Running {
            client: None,
            gateway: kept.gateway,
        }));
    }
}

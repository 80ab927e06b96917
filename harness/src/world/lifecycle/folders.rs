//! The folders the scenario's gateways read their documents from, kept for
//! the reader of a failing scenario (`--keep`).

use std::path::{Path, PathBuf};

use anyhow::Context as _;

use crate::folder::{copy_tree, ScenarioDir};

#[derive(Default)]
pub(super) struct Folders {
    /// The folder of the running gateway's document.
    running: Option<ScenarioDir>,
    /// The folder of the last gateway's document, kept after teardown so a
    /// failing scenario's files can be kept for the reader.
    finished: Option<ScenarioDir>,
    /// The folder of a gateway handed back to the pool, for `--keep`.
    handed_back: Option<PathBuf>,
}

impl Folders {
    /// The folder of the gateway launched now.
    pub(super) fn launched(&mut self, dir: ScenarioDir) {
        self.running = Some(dir);
    }

    pub(super) fn has_running(&self) -> bool {
        self.running.is_some()
    }

    /// The running gateway's folder, to hand back to the pool with it.
    pub(super) fn take_running(&mut self) -> Option<ScenarioDir> {
        self.running.take()
    }

    /// Notes where the folder handed back to the pool is.
    pub(super) fn handed_back(&mut self, path: &Path) {
        self.handed_back = Some(path.to_path_buf());
    }

    /// The running gateway's folder is now the last one's.
    pub(super) fn finish(&mut self) {
        if let Some(dir) = self.running.take() {
            self.finished = Some(dir);
        }
    }

    /// Moves the folder of the scenario's last gateway (its document and the
    /// files beside it) to `into`, so it outlives the run: where it was, and
    /// where it is now; `None` when the scenario launched nothing.
    pub(super) fn keep(&mut self, into: &Path) -> anyhow::Result<Option<(PathBuf, PathBuf)>> {
        if let Some(shared) = self.handed_back.take() {
            copy_tree(&shared, into).with_context(|| {
                format!("cannot copy the scenario's files to {}", into.display())
            })?;
            return Ok(Some((shared, into.to_path_buf())));
        }
        let Some(dir) = self.finished.take().or_else(|| self.running.take()) else {
            return Ok(None);
        };
        let was = dir.path().to_path_buf();
        dir.move_to(into).map(|now| Some((was, now)))
    }
}

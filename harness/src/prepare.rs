//! The preparation step of a gateway built per document (`--prepare`), as
//! code generators are: a command that turns the document into a server
//! once, before the first launch on that document, kept for the run.
//!
//! The step runs once per distinct document (its text and the files beside
//! it): every later launch on the same document, in any scenario, gets the
//! same folder (`{prepared}` in the gateway's template). Scenarios that ask
//! for the same document at once wait for one preparation. A step that
//! exits non-zero refuses the document, as a gateway that exits at start-up
//! does: its status and stderr are the gateway's answer, for every scenario
//! of that document (TC-LOAD-006 judges the words).
//!
//! With a folder to keep them in (`--prepare-cache DIR`), what a step
//! prepared outlives the run: a later run of the same harness with the same
//! step on the same document finds it there and runs nothing. Each is kept
//! under a hash of the harness's version, the step and the document, and
//! counts only once its step finished well (a `.done` file beside it), so
//! an interrupted step is run again; refusals are not kept. What the hash
//! cannot see, the step's own program, is the keeper's to tell apart (a
//! folder per version of it, as `examples/peers/check` keeps).

use std::{
    collections::HashMap,
    hash::{DefaultHasher, Hash as _, Hasher as _},
    path::{Path, PathBuf},
    process::Stdio,
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::{process::Command, sync::OnceCell, time::timeout};

use crate::{
    folder::ScenarioDir,
    launch::{Invocation, StartFailure, Template},
    leftovers,
};

/// How long one preparation may take: a generator and a package install.
pub const PREPARE_TIMEOUT: Duration = Duration::from_secs(300);

/// What one document's preparation left: its folder, or the refusal.
type Prepared = Result<Arc<Folder>, StartFailure>;

/// Where a document was prepared.
#[derive(Debug)]
enum Folder {
    /// A folder of this run, removed with it.
    OfTheRun(ScenarioDir),
    /// A folder kept across runs (`--prepare-cache`).
    Kept(PathBuf),
}

impl Folder {
    fn path(&self) -> &Path {
        match self {
            Folder::OfTheRun(dir) => dir.path(),
            Folder::Kept(path) => path,
        }
    }
}

/// The preparation step of a run and what it has prepared so far.
#[derive(Debug, Clone)]
pub struct Preparation {
    template: Template,
    /// Where prepared folders are kept across runs, if anywhere.
    kept_in: Option<PathBuf>,
    done: Arc<Mutex<HashMap<u64, Arc<OnceCell<Prepared>>>>>,
}

impl Preparation {
    /// The step `template`, its folders kept across runs in `kept_in` if given.
    pub fn new(template: Template, kept_in: Option<PathBuf>) -> Self {
        Self {
            template,
            kept_in,
            done: Arc::default(),
        }
    }

    /// The command template, for reports.
    pub fn template(&self) -> &Template {
        &self.template
    }

    /// The folder prepared for the document at `openapi`, whose text and
    /// files `document` names, preparing it first if no launch has.
    pub async fn prepared(
        &self,
        openapi: &Path,
        document: &[(&Path, &str)],
    ) -> Result<PathBuf, StartFailure> {
        let key = key(document);
        let cell = {
            let mut done = self.done.lock().unwrap_or_else(|e| e.into_inner());
            Arc::clone(done.entry(key).or_default())
        };
        let prepared = cell.get_or_init(|| self.prepare(openapi, key)).await;
        prepared
            .as_ref()
            .map(|dir| dir.path().to_path_buf())
            .map_err(Clone::clone)
    }

    /// The document's folder: one kept from an earlier run, or one the step
    /// prepares now.
    async fn prepare(&self, openapi: &Path, key: u64) -> Prepared {
        let Some(kept_in) = &self.kept_in else {
            let dir = ScenarioDir::create().map_err(|error| failure(format!("{error:#}"), None))?;
            self.run(openapi, dir.path()).await?;
            return Ok(Arc::new(Folder::OfTheRun(dir)));
        };
        let name = format!("{:016x}", self.kept_key(key));
        let (folder, done) = (kept_in.join(&name), kept_in.join(format!("{name}.done")));
        if done.is_file() && folder.is_dir() {
            return Ok(Arc::new(Folder::Kept(folder)));
        }
        let cannot = |error: std::io::Error| {
            failure(
                format!("cannot make the folder {}: {error}", folder.display()),
                None,
            )
        };
        let _ = std::fs::remove_file(&done);
        if folder.exists() {
            std::fs::remove_dir_all(&folder).map_err(cannot)?;
        }
        std::fs::create_dir_all(&folder).map_err(cannot)?;
        match self.run(openapi, &folder).await {
            Ok(()) => {
                std::fs::write(&done, "").map_err(cannot)?;
                Ok(Arc::new(Folder::Kept(folder)))
            }
            Err(refused) => {
                let _ = std::fs::remove_dir_all(&folder);
                Err(refused)
            }
        }
    }

    /// The key of a document's folder kept across runs: the document's key
    /// with what else makes the folder (this harness, the step).
    fn kept_key(&self, document: u64) -> u64 {
        let mut hasher = DefaultHasher::new();
        (
            env!("CARGO_PKG_VERSION"),
            self.template.to_string(),
            document,
        )
            .hash(&mut hasher);
        hasher.finish()
    }

    /// Runs the step on the document at `openapi`, preparing into `dir`.
    async fn run(&self, openapi: &Path, dir: &Path) -> Result<(), StartFailure> {
        let openapi_text = openapi.to_string_lossy();
        let prepared_text = dir.to_string_lossy();
        let words = self
            .template
            .render(&[("{openapi}", &openapi_text), ("{prepared}", &prepared_text)]);
        let invocation = Invocation::of_command(&words);
        let mut command = Command::new(&words[0]);
        command
            .args(&words[1..])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own process group, ended with everything it started.
        #[cfg(unix)]
        command.process_group(0);
        let with = |mut failure: StartFailure| {
            failure.invocation = invocation.clone();
            failure
        };
        let child = command.spawn().map_err(|e| {
            with(failure(
                format!("cannot run the preparation step `{}`: {e}", words[0]),
                None,
            ))
        })?;
        let group = child.id().and_then(|id| i32::try_from(id).ok());
        if let Some(leader) = group {
            leftovers::group_launched(leader);
        }
        let finished = timeout(PREPARE_TIMEOUT, child.wait_with_output()).await;
        if let Some(leader) = group {
            leftovers::kill_group(leader);
        }
        let output = match finished {
            Err(_) => {
                return Err(with(failure(
                    format!(
                        "the preparation step did not finish within {} s",
                        PREPARE_TIMEOUT.as_secs()
                    ),
                    None,
                )))
            }
            Ok(Err(e)) => {
                return Err(with(failure(
                    format!("the preparation step failed: {e}"),
                    None,
                )))
            }
            Ok(Ok(output)) => output,
        };
        if !output.status.success() {
            let mut refused = failure(
                format!(
                    "its preparation step refused the document ({})",
                    output.status
                ),
                Some(output.status),
            );
            refused.stderr = String::from_utf8_lossy(&output.stderr).into_owned();
            return Err(with(refused));
        }
        Ok(())
    }
}

fn failure(reason: String, status: Option<std::process::ExitStatus>) -> StartFailure {
    StartFailure {
        reason,
        status,
        stderr: String::new(),
        invocation: Invocation::default(),
        timed_out: false,
    }
}

/// One key per distinct document: its files' paths and texts.
fn key(document: &[(&Path, &str)]) -> u64 {
    let mut hasher = DefaultHasher::new();
    document.hash(&mut hasher);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn preparation(script: &str) -> Preparation {
        kept_preparation(script, None)
    }

    fn kept_preparation(script: &str, kept_in: Option<PathBuf>) -> Preparation {
        let template =
            Template::parse_preparation(&format!("sh -c '{script}' sh {{openapi}} {{prepared}}"))
                .unwrap();
        Preparation::new(template, kept_in)
    }

    #[tokio::test]
    async fn a_kept_folder_serves_a_later_run_and_a_refusal_is_not_kept() {
        let scratch = ScenarioDir::create().unwrap();
        let (log, kept) = (scratch.path().join("log"), scratch.path().join("kept"));
        let openapi = scratch.path().join("document.yaml");
        std::fs::write(&openapi, "openapi: 3.1.0").unwrap();
        let one = [(Path::new("document.yaml"), "openapi: 3.1.0")];
        let script = format!(
            "echo run >> {}; grep -q refuse \"$1\" && exit 3; cp \"$1\" \"$2\"/doc",
            log.display()
        );
        let runs = || {
            std::fs::read_to_string(&log)
                .unwrap_or_default()
                .lines()
                .count()
        };
        // Two runs of the harness: two preparations with the same folder.
        let first = kept_preparation(&script, Some(kept.clone()));
        let made = first.prepared(&openapi, &one).await.unwrap();
        let later = kept_preparation(&script, Some(kept.clone()));
        assert_eq!(later.prepared(&openapi, &one).await.unwrap(), made);
        assert_eq!(runs(), 1, "the later run ran the step again");
        assert!(made.join("doc").is_file() && made.starts_with(&kept));
        // An interrupted step left no `.done`: the next run prepares anew.
        std::fs::remove_file(made.with_extension("done")).unwrap();
        let after_crash = kept_preparation(&script, Some(kept.clone()));
        assert_eq!(after_crash.prepared(&openapi, &one).await.unwrap(), made);
        assert_eq!(runs(), 2);
        // Another step is another folder; a refusal leaves none behind.
        let other = kept_preparation(&format!("{script}; true"), Some(kept.clone()));
        assert_ne!(other.prepared(&openapi, &one).await.unwrap(), made);
        std::fs::write(&openapi, "refuse").unwrap();
        let refused = [(Path::new("document.yaml"), "refuse")];
        let before = std::fs::read_dir(&kept).unwrap().count();
        assert!(first.prepared(&openapi, &refused).await.is_err());
        assert_eq!(std::fs::read_dir(&kept).unwrap().count(), before);
    }

    #[tokio::test]
    async fn prepares_each_document_once_and_keeps_a_refusal() {
        let log = std::env::temp_dir().join(format!("prepare-log-{}", std::process::id()));
        let _ = std::fs::remove_file(&log);
        let log_text = log.display().to_string();
        let step = preparation(&format!("echo \"$1\" >> {log_text}; cp \"$1\" \"$2\"/doc"));
        let openapi = std::env::temp_dir().join(format!("prepare-doc-{}", std::process::id()));
        std::fs::write(&openapi, "openapi: 3.1.0").unwrap();
        let one = [(Path::new("document.yaml"), "openapi: 3.1.0")];
        let other = [(Path::new("document.yaml"), "openapi: 3.0.3")];
        let first = step.prepared(&openapi, &one).await.unwrap();
        let again = step.prepared(&openapi, &one).await.unwrap();
        assert_eq!(first, again);
        assert!(first.join("doc").exists());
        let second = step.prepared(&openapi, &other).await.unwrap();
        assert_ne!(first, second);
        let runs = std::fs::read_to_string(&log).unwrap();
        assert_eq!(runs.lines().count(), 2, "{runs}");

        let refusing = preparation("echo \"line 3: not YAML\" >&2; exit 2");
        let refused = refusing.prepared(&openapi, &one).await.unwrap_err();
        assert!(refused.status.is_some_and(|s| !s.success()));
        assert!(refused.stderr.contains("line 3"), "{refused:?}");
        let _ = std::fs::remove_file(&log);
        let _ = std::fs::remove_file(&openapi);
    }
}

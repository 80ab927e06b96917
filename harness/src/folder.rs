//! A scenario's folder: where its document and the files beside it are
//! written for the gateway, removed with the scenario (or kept for the
//! reader of a failure).

use std::{
    path::{Component, Path, PathBuf},
    sync::atomic::{AtomicU64, Ordering},
};

use anyhow::{bail, Context as _};

use crate::leftovers;

/// A fresh directory for one scenario's files, removed with it.
#[derive(Debug)]
pub struct ScenarioDir {
    path: PathBuf,
}

impl ScenarioDir {
    pub fn create() -> anyhow::Result<Self> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let path = std::env::temp_dir().join(format!(
            "hosted-mcp-conformance-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        leftovers::folder_created(&path);
        std::fs::create_dir_all(&path)
            .with_context(|| format!("cannot create {}", path.display()))?;
        Ok(Self { path })
    }
}

impl ScenarioDir {
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Moves the folder to `into` (created with its parents; a copy where a
    /// rename cannot cross file systems), where nothing removes it.
    pub fn move_to(self, into: &Path) -> anyhow::Result<PathBuf> {
        if let Some(parent) = into.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        if std::fs::rename(&self.path, into).is_err() {
            copy_tree(&self.path, into).with_context(|| {
                format!("cannot copy the scenario's files to {}", into.display())
            })?;
        }
        Ok(into.to_path_buf())
    }

    /// Writes `text` at `path` (relative), with the folders it needs.
    pub fn write(&self, path: &Path, text: &str) -> anyhow::Result<PathBuf> {
        let path = self.path.join(path);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(path)
    }
}

/// Copies the folder `from` to `to`, with everything in it.
pub fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let target = to.join(entry.file_name());
        if entry.file_type()?.is_dir() {
            copy_tree(&entry.path(), &target)?;
        } else {
            std::fs::copy(entry.path(), target)?;
        }
    }
    Ok(())
}

impl Drop for ScenarioDir {
    fn drop(&mut self) {
        leftovers::remove_folder(&self.path);
    }
}

/// `path` taken from `folder`, both relative to a scenario's folder, with
/// `.` and `..` resolved; an error when it is absolute or leaves that folder.
pub fn inside_scenario(folder: &Path, path: &str) -> anyhow::Result<PathBuf> {
    let mut inside = folder.to_path_buf();
    for component in Path::new(path).components() {
        match component {
            Component::Normal(part) => inside.push(part),
            Component::CurDir => {}
            Component::ParentDir if inside.pop() => {}
            _ => bail!("the path {path:?} must be relative and stay in the scenario's folder"),
        }
    }
    if inside.as_os_str().is_empty() {
        bail!("the path {path:?} names no file");
    }
    Ok(inside)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::inside_scenario;

    #[test]
    fn scenario_files_stay_in_the_scenario_folder() {
        let api = Path::new("api");
        assert_eq!(
            inside_scenario(api, "schemas/./Pet.yaml").ok(),
            Some(PathBuf::from("api/schemas/Pet.yaml"))
        );
        assert_eq!(
            inside_scenario(api, "../secret.yaml").ok(),
            Some(PathBuf::from("secret.yaml"))
        );
        assert!(inside_scenario(api, "../../secret.yaml").is_err());
        assert!(inside_scenario(api, "/etc/passwd").is_err());
        assert!(inside_scenario(Path::new(""), "..").is_err());
        assert!(inside_scenario(api, "..").is_err());
    }
}

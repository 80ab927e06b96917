//! What this build of the kit carries: its version, the scenarios, fixtures
//! and rules catalogue embedded at build time (see `build.rs`), and their
//! revision, so a report that says "passes" names exactly what was passed;
//! and the error catalogue, which explains codes in the HTML report and
//! judges nothing, so it is no part of the revision.

use std::{
    io,
    path::{Path, PathBuf},
};

use crate::leftovers;

/// The kit's version, as released.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A digest of every embedded scenario, fixture and rule: two runs with the
/// same revision checked the same things.
pub const RULES_REVISION: &str = include_str!(concat!(env!("OUT_DIR"), "/rules_revision.txt"));

/// Every embedded file, by its path in the workspace (`features/answer.feature`).
static FILES: &[(&str, &[u8])] = include!(concat!(env!("OUT_DIR"), "/embedded_files.rs"));

/// An embedded file's bytes.
pub fn file(name: &str) -> Option<&'static [u8]> {
    FILES
        .iter()
        .find(|(path, _)| *path == name)
        .map(|(_, bytes)| *bytes)
}

/// An embedded fixture (`fixtures/NAME`).
pub fn fixture(name: &str) -> Option<&'static [u8]> {
    file(&format!("fixtures/{name}"))
}

/// The rules catalogue, `docs/rules.md`.
pub fn rules_text() -> &'static str {
    file("docs/rules.md")
        .and_then(|bytes| std::str::from_utf8(bytes).ok())
        .unwrap_or_default()
}

/// The error catalogue, `docs/errors.md` (generated from the reference's
/// `reference/src/errors.rs`): read as a page, so the harness depends on no
/// gateway.
pub fn errors_text() -> &'static str {
    include_str!("../../docs/errors.md")
}

/// Writes the embedded feature files to a folder of their own (once per
/// revision) and returns it: cucumber reads scenarios from files.
pub fn features_folder() -> io::Result<PathBuf> {
    let root =
        std::env::temp_dir().join(format!("hosted-mcp-conformance-{VERSION}-{RULES_REVISION}"));
    let folder = root.join("features");
    if folder.is_dir() {
        return Ok(folder);
    }
    // Written aside and renamed, so a concurrent run never reads half a folder.
    let staging = root.join(format!("features.{}", std::process::id()));
    leftovers::folder_created(&staging);
    std::fs::create_dir_all(&staging)?;
    for (path, bytes) in FILES {
        if let Some(name) = path.strip_prefix("features/") {
            let target = staging.join(name);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(target, bytes)?;
        }
    }
    let renamed = std::fs::rename(&staging, &folder);
    leftovers::remove_folder(&staging);
    match renamed {
        Ok(()) => Ok(folder),
        Err(_) if folder.is_dir() => Ok(folder),
        Err(error) => Err(error),
    }
}

/// How a feature file is named in reports: `features/NAME` for the embedded
/// ones, else relative to the working directory when inside it, else whole.
pub fn display_path(path: &Path, features: &Path, embedded: bool) -> String {
    if embedded {
        if let Ok(inner) = path.strip_prefix(features) {
            return format!("features/{}", inner.display());
        }
    }
    let cwd = std::env::current_dir().ok();
    match cwd.as_deref().and_then(|cwd| relative(path, cwd)) {
        Some(relative) => relative.display().to_string(),
        None => path.display().to_string(),
    }
}

/// `path` relative to `base` when it lies inside it and `base` is not the root.
fn relative(path: &Path, base: &Path) -> Option<PathBuf> {
    let path = path.canonicalize().ok()?;
    let base = base.canonicalize().ok()?;
    // The root's relative paths read as ones missing their `/`.
    base.parent()?;
    path.strip_prefix(&base).ok().map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn carries_the_scenarios_and_the_catalogue() {
        assert!(file("features/answer.feature").is_some());
        assert!(rules_text().contains("TC-ANS-001"));
        assert!(errors_text().contains("## ARGUMENTS_INVALID"));
        assert_eq!(RULES_REVISION.len(), 12);
    }

    #[test]
    fn extracts_the_features_once() {
        let folder = features_folder().unwrap();
        assert!(folder.join("protocol.feature").is_file());
        assert_eq!(features_folder().unwrap(), folder);
    }

    #[test]
    fn names_paths_relative_to_the_working_directory() {
        let cwd = std::env::current_dir().unwrap();
        let inside = cwd.join("src/kit.rs");
        assert_eq!(display_path(&inside, Path::new("/x"), false), "src/kit.rs");
        let features = Path::new("/tmp/f");
        assert_eq!(
            display_path(&features.join("a.feature"), features, true),
            "features/a.feature"
        );
    }
}

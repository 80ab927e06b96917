//! Where the benches find their documents, shared by `check` and `convert`.

use std::path::{Path, PathBuf};

/// The workspace root, whatever directory `cargo bench` runs the bench from.
fn workspace_root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("benches/ sits inside the workspace")
}

/// A document of the project's own fixtures.
pub fn fixture(name: &str) -> PathBuf {
    workspace_root().join("fixtures").join(name)
}

/// A document of the shared corpus beside the workspace, or `None` (said on
/// stderr) where the corpus is absent, as in a user's fresh clone.
pub fn corpus(name: &str) -> Option<PathBuf> {
    let path = workspace_root().join("../shared/corpus").join(name);
    if path.is_file() {
        Some(path)
    } else {
        eprintln!(
            "corpus document {} absent: its benches are skipped",
            path.display()
        );
        None
    }
}

pub fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

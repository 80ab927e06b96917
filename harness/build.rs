//! Embeds the scenarios, the fixtures and the rules catalogue in the harness,
//! so an installed `hosted-mcp-conformance` needs no source folder, and
//! names their revision: a digest of every embedded byte.

use std::{
    env,
    fmt::Write as _,
    fs,
    path::{Path, PathBuf},
};

/// What is embedded, relative to the workspace root.
const EMBEDDED: [&str; 3] = ["features", "fixtures", "docs/rules.md"];

fn main() {
    let workspace = Path::new(&env::var("CARGO_MANIFEST_DIR").expect("set by cargo"))
        .parent()
        .expect("the harness lives in the workspace")
        .to_path_buf();
    let mut files = Vec::new();
    for entry in EMBEDDED {
        let path = workspace.join(entry);
        // A directory is scanned whole by cargo: a new scenario file rebuilds too.
        println!("cargo:rerun-if-changed={}", path.display());
        collect(&path, &mut files);
    }
    files.sort();

    let mut digest = Fnv::default();
    let mut table = String::from("&[\n");
    for path in &files {
        let name = path
            .strip_prefix(&workspace)
            .expect("under the workspace")
            .to_string_lossy()
            .replace('\\', "/");
        let bytes = fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        digest.write(name.as_bytes());
        digest.write(&[0]);
        digest.write(&bytes);
        digest.write(&[0]);
        let _ = writeln!(
            table,
            "    ({name:?}, include_bytes!({:?})),",
            path.display().to_string()
        );
    }
    table.push(']');

    let out = PathBuf::from(env::var("OUT_DIR").expect("set by cargo"));
    fs::write(out.join("embedded_files.rs"), table).expect("OUT_DIR is writable");
    fs::write(
        out.join("rules_revision.txt"),
        format!("{:012x}", digest.0 >> 16),
    )
    .expect("OUT_DIR is writable");
}

fn collect(path: &Path, files: &mut Vec<PathBuf>) {
    if path.is_file() {
        files.push(path.to_path_buf());
        return;
    }
    let entries = fs::read_dir(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    for entry in entries {
        let path = entry.expect("a readable directory").path();
        let hidden = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with('.'));
        if !hidden {
            collect(&path, files);
        }
    }
}

/// FNV-1a, 64 bits: enough to tell two revisions of the scenarios apart.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

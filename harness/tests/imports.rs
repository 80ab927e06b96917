//! The shape the code keeps: in every crate of the workspace, no module
//! depends on one that depends on it back, directly or around a longer
//! circle. Data flows one way, so a reader can follow a call without looping.
//!
//! The arrows between a crate's modules:
//! - A module points at every module whose items it names, in a `use` or a
//!   path in the code (`crate::`, `super::`, `self::`): at the deepest module
//!   the path spells out, so `crate::load::text::parse` points at
//!   `load::text` and `super::LoadError`, from `load::files`, at `load`.
//! - A parent points at each of its children: what a parent offers is built
//!   from them, so whatever imports the parent depends on them too.
//!
//! So a parent may declare and use its children, and a child may use its
//! siblings; but a child that imports from its parent, or any ancestor,
//! closes a circle (`load -> load::files -> load`): what both need belongs
//! in a child of its own. And importing a module reaches its children:
//! `health -> report -> report::recorder -> health` is a circle when the
//! recorder imports `health`, even if `report` itself never does.
//!
//! The crate root is a parent like any other: its children import nothing
//! from `lib.rs`.
//!
//! The modules are the ones the compiler builds: from each crate root of
//! every workspace member (`src/lib.rs`, `src/main.rs`, `src/bin/`,
//! `benches/`, `examples/`, and the `path` of each library, binary, bench
//! and example its manifest declares), following `mod` declarations, inline
//! blocks included. A `#[cfg(test)]` module, in its own file or inline, is
//! left out (tests import `super::*` by design), and only its own block: the
//! rest of the file is read. Comments and literals are not code, so what a
//! macro expands to and a path written in a string (`#[serde(with = "..")]`)
//! go unseen. What the check cannot read fails it by name: a member with no
//! crate root, a `mod` with no file or with a `#[path]`.

use std::{
    collections::{BTreeMap, BTreeSet, VecDeque},
    fs,
    path::{Path, PathBuf},
};

/// A module's path from its crate's root: `["load", "pointer"]`.
type Module = Vec<String>;

/// Each module of a crate, with the modules it points at.
type Arrows = BTreeMap<Module, BTreeSet<Module>>;

/// Circles let stand for now, each exactly as the check shows it, so one
/// that grows or changes fails again.
const ALLOWED_CIRCLES: &[&str] = &[];

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the harness sits in the workspace");
    let (allowed, problems): (Vec<String>, Vec<String>) = check(workspace)
        .problems
        .into_iter()
        .partition(|problem| ALLOWED_CIRCLES.contains(&problem.as_str()));
    assert!(
        problems.is_empty(),
        "modules that import each other, or that the check cannot read:\n{}",
        problems.join("\n")
    );
    let gone: Vec<&&str> = ALLOWED_CIRCLES
        .iter()
        .filter(|circle| !allowed.iter().any(|found| found == *circle))
        .collect();
    assert!(
        gone.is_empty(),
        "circles no longer found; take them out of ALLOWED_CIRCLES: {gone:?}"
    );
}

#[test]
fn a_sample_tree_with_circles_fails() {
    let workspace = sample(
        "circles",
        &[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\n    \"gateway\",\n    \"harness\", # the health loop\n    \"mock\",\n    \"tool\",\n    \"notes\",\n]\n",
            ),
            // A parent whose child imports from it.
            (
                "gateway/src/lib.rs",
                "pub mod load;\npub mod world;\nmod late;\n",
            ),
            (
                "gateway/src/load.rs",
                "mod files;\n#[cfg(test)]\nmod tests;\n\npub use files::read;\n\npub struct LoadError;\n",
            ),
            (
                "gateway/src/load/files.rs",
                "use super::LoadError;\n\npub fn read() -> Result<(), LoadError> {\n    Ok(())\n}\n",
            ),
            // An import after the inline test module.
            (
                "gateway/src/world.rs",
                "pub struct World;\n\n#[cfg(test)]\nmod tests {\n    use super::*;\n}\n\npub fn later() {\n    crate::late::f();\n}\n",
            ),
            ("gateway/src/late.rs", "use crate::world::World;\n\npub fn f() {}\n"),
            // A longer circle, through a child of the module imported.
            (
                "harness/src/lib.rs",
                "mod health;\npub mod report;\n",
            ),
            (
                "harness/src/health.rs",
                "use crate::report::NeverStarted;\n\npub struct Health;\n",
            ),
            (
                "harness/src/report/mod.rs",
                "pub mod recorder;\n\npub struct NeverStarted;\n",
            ),
            (
                "harness/src/report/recorder.rs",
                "use crate::health::Health;\n",
            ),
            // An inline module that imports its parent, and modules the
            // check cannot follow.
            (
                "mock/src/lib.rs",
                "#[path = \"elsewhere.rs\"]\nmod moved;\nmod missing;\n\npub struct Upstream;\n\nmod server {\n    use crate::Upstream;\n}\n",
            ),
            // A binary where its manifest puts it.
            (
                "tool/Cargo.toml",
                "[package]\nname = \"tool\"\n\n[dependencies.gateway]\npath = \"../gateway\"\n\n[[bin]]\nname = \"tool\"\npath = \"cli/tool.rs\"\n",
            ),
            ("tool/cli/tool.rs", "mod args;\n\npub struct Args;\n"),
            ("tool/cli/args.rs", "use crate::Args;\n"),
            ("notes/README.md", "No code here.\n"),
        ],
    );
    assert_eq!(
        check(&workspace).problems,
        [
            "gateway/src/lib.rs: late -> world -> late",
            "gateway/src/lib.rs: load -> load::files -> load",
            "harness/src/lib.rs: health -> report -> report::recorder -> health",
            "mock/src/lib.rs: `mod moved` has a #[path], which the check does not follow",
            "mock/src/lib.rs: `mod missing` has neither missing.rs nor missing/mod.rs",
            "mock/src/lib.rs: crate root -> server -> crate root",
            "tool/cli/tool.rs: crate root -> args -> crate root",
            "notes: no crate root (src/lib.rs, src/main.rs, src/bin/, benches/, examples/)",
        ]
    );
}

#[test]
fn a_sample_tree_without_circles_passes() {
    let workspace = sample(
        "no-circles",
        &[
            (
                "Cargo.toml",
                "[workspace]\nmembers = [\"gateway\", \"benches\"]\n",
            ),
            (
                "gateway/src/lib.rs",
                "pub mod load;\nmod report;\n\npub use load::{read, LoadError};\n",
            ),
            ("gateway/src/main.rs", "fn main() {\n    gateway::read();\n}\n"),
            // What the children share lives in a child of its own.
            (
                "gateway/src/load.rs",
                "mod error;\nmod files;\n\npub use error::LoadError;\npub use files::read;\n\n#[cfg(test)]\nmod tests;\n",
            ),
            ("gateway/src/load/error.rs", "pub struct LoadError;\n"),
            (
                "gateway/src/load/files.rs",
                "use super::error::LoadError;\n\n// Not super::LoadError: that imports the parent back.\npub fn read() -> Result<(), LoadError> {\n    let _ = \"crate::report\";\n    Ok(())\n}\n\n#[cfg(test)]\nmod tests {\n    use super::super::*;\n    use crate::report::shown;\n}\n",
            ),
            (
                "gateway/src/report.rs",
                "use crate::load::LoadError;\n\npub fn shown(_: LoadError) {}\n",
            ),
            (
                "benches/benches/check.rs",
                "mod support;\n\nfn main() {\n    support::run();\n}\n",
            ),
            ("benches/benches/support/mod.rs", "pub fn run() {}\n"),
            ("benches/examples/startup.rs", "fn main() {}\n"),
        ],
    );
    let checked = check(&workspace);
    assert_eq!(checked.problems, Vec::<String>::new());
    assert_eq!(
        checked.modules,
        [
            "gateway/src/lib.rs: crate root",
            "gateway/src/lib.rs: load",
            "gateway/src/lib.rs: load::error",
            "gateway/src/lib.rs: load::files",
            "gateway/src/lib.rs: report",
            "gateway/src/main.rs: crate root",
            "benches/benches/check.rs: crate root",
            "benches/benches/check.rs: support",
            "benches/examples/startup.rs: crate root",
        ]
    );
}

#[test]
fn a_circle_is_found() {
    let arrows = BTreeMap::from([
        (module("world"), BTreeSet::from([module("steps::support")])),
        (module("steps::support"), BTreeSet::from([module("world")])),
        (module("steps"), BTreeSet::from([module("steps::support")])),
    ]);
    let circles = circles_in(&arrows);
    assert_eq!(circles, [vec![module("steps::support"), module("world")]]);
    assert_eq!(
        shortest_circle(&arrows, &circles[0]),
        [
            module("steps::support"),
            module("world"),
            module("steps::support")
        ]
    );
}

#[test]
fn reads_use_trees_and_paths() {
    let found = paths_in(&code_only(
        "use crate::{client::{A, B}, world::World};\n\
         pub(crate) use super::sibling::thing;\n\
         fn f() { crate::json::show(x); let s = \"crate::not::code\"; }\n\
         // crate::in::a::comment\n",
    ));
    assert_eq!(
        found,
        [
            "crate::client::A",
            "crate::client::B",
            "crate::world::World",
            "super::sibling::thing",
            "crate::json::show",
        ]
    );
    let module = module("steps::answer");
    let known = BTreeSet::from([
        module.clone(),
        self::module("steps::support"),
        self::module("steps"),
    ]);
    assert_eq!(
        resolve(&module, "super::support::doc_string", &known),
        Some(self::module("steps::support"))
    );
    assert_eq!(
        resolve(&module, "super::Shared", &known),
        Some(self::module("steps"))
    );
}

#[test]
fn splits_out_child_modules_and_test_blocks() {
    let (own, declared) = split_modules(&code_only(
        "mod files;\n\
         #[cfg(test)]\nmod tests;\n\
         pub(crate) mod inner {\n    fn f() { if true { super::g() } }\n}\n\
         #[cfg(test)]\n#[allow(unused)]\npub(crate) mod checks {\n    use super::*;\n}\n\
         fn g() { crate::after::h() }\n",
    ));
    let shown: Vec<(&str, bool, Option<&str>)> = declared
        .iter()
        .map(|d| (d.name.as_str(), d.test, d.body.as_deref().map(str::trim)))
        .collect();
    assert_eq!(
        shown,
        [
            ("files", false, None),
            ("tests", true, None),
            ("inner", false, Some("fn f() { if true { super::g() } }")),
            ("checks", true, Some("use super::*;")),
        ]
    );
    assert_eq!(paths_in(&own), ["crate::after::h"]);
}

fn module(path: &str) -> Module {
    path.split("::").map(str::to_owned).collect()
}

fn show(module: &Module) -> String {
    if module.is_empty() {
        "crate root".to_owned()
    } else {
        module.join("::")
    }
}

/// A workspace written under the test's temporary folder, afresh.
fn sample(name: &str, files: &[(&str, &str)]) -> PathBuf {
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("imports")
        .join(name);
    if root.exists() {
        fs::remove_dir_all(&root).expect("an old sample removed");
    }
    for (path, text) in files {
        let path = root.join(path);
        fs::create_dir_all(path.parent().expect("a file in a folder")).expect("a sample folder");
        fs::write(&path, text).expect("a sample file");
    }
    root
}

/// What the check read in a workspace, and what it found wrong.
struct Checked {
    /// `reference/src/lib.rs: load::files`, crate root by crate root.
    modules: Vec<String>,
    /// Circles, and what the check could not read.
    problems: Vec<String>,
}

fn check(workspace: &Path) -> Checked {
    let mut checked = Checked {
        modules: Vec::new(),
        problems: Vec::new(),
    };
    for member in members(workspace) {
        let roots = crate_roots(&workspace.join(&member));
        if roots.is_empty() {
            checked.problems.push(format!(
                "{member}: no crate root (src/lib.rs, src/main.rs, src/bin/, benches/, examples/)"
            ));
        }
        for root in roots {
            let label = root
                .strip_prefix(workspace)
                .expect("a root inside the workspace")
                .display()
                .to_string();
            let mut reader = Reader {
                label: &label,
                modules: BTreeMap::new(),
                problems: &mut checked.problems,
            };
            reader.read(
                Vec::new(),
                &root,
                root.parent().expect("a root in a folder"),
            );
            let modules = reader.modules;
            let arrows = arrows_in(&modules);
            for group in circles_in(&arrows) {
                let circle = shortest_circle(&arrows, &group);
                let mut shown = circle.iter().map(show).collect::<Vec<_>>().join(" -> ");
                let others: Vec<String> = group
                    .iter()
                    .filter(|member| !circle.contains(member))
                    .map(show)
                    .collect();
                if !others.is_empty() {
                    shown.push_str(&format!("; tangled with it: {}", others.join(", ")));
                }
                checked.problems.push(format!("{label}: {shown}"));
            }
            checked.modules.extend(
                modules
                    .keys()
                    .map(|module| format!("{label}: {}", show(module))),
            );
        }
    }
    checked
}

/// The workspace's members, as its `Cargo.toml` lists them.
fn members(workspace: &Path) -> Vec<String> {
    let manifest = fs::read_to_string(workspace.join("Cargo.toml")).expect("a workspace manifest");
    let code: String = manifest
        .lines()
        .map(|line| line.split('#').next().unwrap_or_default())
        .collect::<Vec<_>>()
        .join("\n");
    let (_, after) = code
        .split_once("\nmembers")
        .expect("a `members` list in the workspace manifest");
    let list = &after[after.find('[').expect("a list") + 1..after.find(']').expect("a list")];
    let members: Vec<String> = list
        .split(',')
        .map(|member| member.trim().trim_matches('"').to_owned())
        .filter(|member| !member.is_empty())
        .collect();
    assert!(
        members.iter().all(|member| !member.contains('*')),
        "the check does not expand globs in `members`: {members:?}"
    );
    members
}

/// The files Cargo builds a crate from: where it looks by default, then
/// those the manifest's targets name.
fn crate_roots(member: &Path) -> Vec<PathBuf> {
    let mut roots: Vec<PathBuf> = ["src/lib.rs", "src/main.rs"]
        .iter()
        .map(|file| member.join(file))
        .filter(|file| file.is_file())
        .collect();
    for folder in ["src/bin", "benches", "examples"] {
        let Ok(entries) = fs::read_dir(member.join(folder)) else {
            continue;
        };
        let mut found: Vec<PathBuf> = entries
            .map(|entry| entry.expect("a readable entry").path())
            .filter_map(|path| {
                if path.is_dir() {
                    Some(path.join("main.rs")).filter(|main| main.is_file())
                } else {
                    path.extension().is_some_and(|e| e == "rs").then_some(path)
                }
            })
            .collect();
        found.sort();
        roots.extend(found);
    }
    for declared in declared_targets(member) {
        if declared.is_file() && !roots.contains(&declared) {
            roots.push(declared);
        }
    }
    roots
}

/// The `path` of each library, binary, bench and example in a member's
/// manifest (tests are test code, and a dependency's `path` is no target).
fn declared_targets(member: &Path) -> Vec<PathBuf> {
    let manifest = fs::read_to_string(member.join("Cargo.toml")).unwrap_or_default();
    let mut in_target = false;
    let mut paths = Vec::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_target = ["[lib]", "[[bin]]", "[[bench]]", "[[example]]"].contains(&line);
        } else if let Some(value) = line.strip_prefix("path").map(str::trim_start) {
            match value.strip_prefix('=') {
                Some(path) if in_target => paths.push(member.join(path.trim().trim_matches('"'))),
                _ => {}
            }
        }
    }
    paths
}

/// Reads one crate's modules from its root, as the compiler finds them.
struct Reader<'a> {
    /// The crate root, as problems name it.
    label: &'a str,
    /// Each module's own code: comments, literals and child blocks left out.
    modules: BTreeMap<Module, String>,
    problems: &'a mut Vec<String>,
}

impl Reader<'_> {
    /// Reads `module` from `file`; its `mod x;` children live in `folder`.
    fn read(&mut self, module: Module, file: &Path, folder: &Path) {
        let text = fs::read_to_string(file).expect("a readable source file");
        self.take(module, &code_only(&text), folder);
    }

    fn take(&mut self, module: Module, code: &str, folder: &Path) {
        let (own, declared) = split_modules(code);
        self.modules.insert(module.clone(), own);
        for child in declared.into_iter().filter(|child| !child.test) {
            let name = child.name;
            let mut path = module.clone();
            path.push(name.clone());
            let child_folder = folder.join(&name);
            if let Some(body) = child.body {
                self.take(path, &body, &child_folder);
            } else if child.moved {
                self.problems.push(format!(
                    "{}: `mod {name}` has a #[path], which the check does not follow",
                    self.label
                ));
            } else {
                let files = [
                    folder.join(format!("{name}.rs")),
                    child_folder.join("mod.rs"),
                ];
                match files.iter().find(|file| file.is_file()) {
                    Some(file) => self.read(path, file, &child_folder),
                    None => self.problems.push(format!(
                        "{}: `mod {name}` has neither {name}.rs nor {name}/mod.rs",
                        self.label
                    )),
                }
            }
        }
    }
}

/// A `mod` declared in a module's code.
struct Declared {
    name: String,
    /// Under `#[cfg(test)]`.
    test: bool,
    /// Under `#[path = ...]`.
    moved: bool,
    /// An inline module's code; `None` for one in a file of its own.
    body: Option<String>,
}

/// A module's code without its inline child modules, and the modules it
/// declares.
fn split_modules(code: &str) -> (String, Vec<Declared>) {
    let mut own = String::new();
    let mut declared = Vec::new();
    let (mut kept_to, mut from) = (0, 0);
    while let Some(at) = find_keyword(code, "mod", from) {
        from = at + "mod".len();
        let after = &code[from..];
        let name_at = after.len() - after.trim_start().len();
        let name: String = after[name_at..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        let tail = &after[name_at + name.len()..];
        let opens = from + name_at + name.len() + tail.len() - tail.trim_start().len();
        if name_at == 0 || name.is_empty() {
            continue;
        }
        // The item starts after the previous one: its attributes and
        // visibility lie between.
        let item = code[..at].rfind([';', '{', '}']).map_or(0, |end| end + 1);
        let attributes = attributes_in(&code[item..at]);
        let mut child = Declared {
            name,
            test: attributes.iter().any(|a| a == "cfg(test)"),
            moved: attributes.iter().any(|a| a.starts_with("path=")),
            body: None,
        };
        match code[opens..].chars().next() {
            Some(';') => declared.push(child),
            Some('{') => {
                let closes = closing_brace(code, opens);
                child.body = Some(code[opens + 1..closes].to_owned());
                declared.push(child);
                own.push_str(&code[kept_to..item]);
                kept_to = (closes + 1).min(code.len());
                from = kept_to;
            }
            _ => {}
        }
    }
    own.push_str(&code[kept_to..]);
    (own, declared)
}

/// The attributes (`#[...]`) in `text`, without their whitespace.
fn attributes_in(text: &str) -> Vec<String> {
    let mut attributes = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find("#[") {
        let opens = at + 1;
        let closes = closing(rest, opens, '[', ']');
        attributes.push(rest[opens + 1..closes].split_whitespace().collect());
        rest = &rest[(closes + 1).min(rest.len())..];
    }
    attributes
}

/// Where the `}` that closes the `{` at `opens` is (or the code's end).
fn closing_brace(code: &str, opens: usize) -> usize {
    closing(code, opens, '{', '}')
}

fn closing(code: &str, opens: usize, open: char, close: char) -> usize {
    let mut depth = 0;
    for (at, c) in code[opens..].char_indices() {
        if c == open {
            depth += 1;
        } else if c == close {
            depth -= 1;
            if depth == 0 {
                return opens + at;
            }
        }
    }
    code.len()
}

/// Each module's arrows: the modules it names, and its children.
fn arrows_in(modules: &BTreeMap<Module, String>) -> Arrows {
    let known: BTreeSet<Module> = modules.keys().cloned().collect();
    modules
        .iter()
        .map(|(module, code)| {
            let children = known
                .iter()
                .filter(|other| other.len() == module.len() + 1 && other.starts_with(module))
                .cloned();
            let named = paths_in(code)
                .into_iter()
                .filter_map(|path| resolve(module, &path, &known));
            let arrows = children
                .chain(named)
                .filter(|other| other != module)
                .collect();
            (module.clone(), arrows)
        })
        .collect()
}

/// Every `crate::`, `super::` or `self::` path the code names: those in
/// `use` trees written out in full, then those in the rest of the code.
fn paths_in(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut remaining = code;
    while let Some(at) = find_keyword(remaining, "use", 0) {
        rest.push_str(&remaining[..at]);
        let statement = &remaining[at..];
        let end = statement.find(';').unwrap_or(statement.len());
        let tree = statement[..end].trim_start_matches("use").trim();
        expand(tree, "", &mut paths);
        remaining = &statement[(end + 1).min(statement.len())..];
    }
    rest.push_str(remaining);
    paths.retain(|path| is_local(path));
    paths.extend(inline_paths(&rest));
    paths
}

fn is_local(path: &str) -> bool {
    ["crate::", "super::", "self::"]
        .iter()
        .any(|start| path.starts_with(start))
}

/// Where `keyword` next stands as a word of its own, from `from` on.
fn find_keyword(code: &str, keyword: &str, from: usize) -> Option<usize> {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut from = from;
    while let Some(found) = code[from..].find(keyword) {
        let at = from + found;
        let before = code[..at].chars().next_back();
        let after = code[at + keyword.len()..].chars().next();
        if !before.is_some_and(word) && !after.is_some_and(word) {
            return Some(at);
        }
        from = at + keyword.len();
    }
    None
}

/// A use tree (`crate::{a::{B, C}, d}`) as its full paths.
fn expand(tree: &str, prefix: &str, out: &mut Vec<String>) {
    let tree = tree.trim();
    match tree.find('{') {
        None => {
            let leaf = tree.split(" as ").next().unwrap_or(tree).trim();
            if !leaf.is_empty() {
                out.push(format!("{prefix}{leaf}"));
            }
        }
        Some(open) => {
            let head = format!("{prefix}{}", &tree[..open]);
            let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
            for part in split_top_level(inner) {
                expand(part, &head, out);
            }
        }
    }
}

fn split_top_level(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (at, c) in text.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&text[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

/// `crate::a::b`-like paths outside `use` statements.
fn inline_paths(code: &str) -> Vec<String> {
    let mut paths = Vec::new();
    let bytes = code.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut at = 0;
    while at < bytes.len() {
        let starts = ["crate::", "super::", "self::"]
            .into_iter()
            .find(|start| code[at..].starts_with(start));
        match starts {
            Some(_) if at == 0 || !word(bytes[at - 1]) => {
                let mut end = at;
                while end < bytes.len() && (word(bytes[end]) || code[end..].starts_with("::")) {
                    end += if bytes[end] == b':' { 2 } else { 1 };
                }
                paths.push(code[at..end].trim_end_matches("::").to_owned());
                at = end;
            }
            _ => at += 1,
        }
    }
    paths
}

/// The code with comments, strings and character literals blanked out.
fn code_only(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let skipped = if rest.starts_with("//") {
            rest.find('\n').unwrap_or(rest.len())
        } else if rest.starts_with("/*") {
            block_comment_end(rest)
        } else if let Some(hashes) = raw_string_start(rest) {
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes;
            rest[body..]
                .find(&close)
                .map_or(rest.len(), |end| body + end + close.len())
        } else if c == '"' {
            string_end(rest)
        } else if c == '\'' {
            char_literal_end(rest).unwrap_or(1)
        } else {
            0
        };
        if skipped == 0 {
            out.push(c);
            rest = &rest[c.len_utf8()..];
        } else {
            out.push(' ');
            rest = &rest[skipped..];
        }
    }
    out
}

/// The length of the block comment that starts `text`; they nest.
fn block_comment_end(text: &str) -> usize {
    let mut depth = 0;
    let mut at = 0;
    while at < text.len() {
        if text[at..].starts_with("/*") {
            depth += 1;
            at += 2;
        } else if text[at..].starts_with("*/") {
            depth -= 1;
            at += 2;
            if depth == 0 {
                return at;
            }
        } else {
            at += text[at..].chars().next().map_or(1, char::len_utf8);
        }
    }
    text.len()
}

/// How many `#`s open a raw string (`r"`, `r#"`, ...) here, if one does.
fn raw_string_start(text: &str) -> Option<usize> {
    let after_r = text.strip_prefix('r')?;
    let hashes = after_r.len() - after_r.trim_start_matches('#').len();
    after_r[hashes..].starts_with('"').then_some(hashes)
}

/// The length of the string literal that starts `text`.
fn string_end(text: &str) -> usize {
    let mut escaped = false;
    for (at, c) in text.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return at + 1,
            _ => {}
        }
    }
    text.len()
}

/// The length of the character literal that starts `text` (`'"'`, `'\''`);
/// `None` for a lifetime.
fn char_literal_end(text: &str) -> Option<usize> {
    let body = &text[1..];
    let len = if let Some(escaped) = body.strip_prefix('\\') {
        escaped.find('\'')? + 2
    } else {
        body.chars().next()?.len_utf8()
    };
    body[len..].starts_with('\'').then_some(len + 2)
}

/// The module a path written in `module` names: the deepest known module
/// its segments reach.
fn resolve(module: &Module, path: &str, known: &BTreeSet<Module>) -> Option<Module> {
    let mut segments = path.split("::");
    let mut at: Module = match segments.next()? {
        "crate" => Vec::new(),
        "self" => module.clone(),
        "super" => module[..module.len().checked_sub(1)?].to_vec(),
        _ => return None,
    };
    let mut segments = segments.peekable();
    while segments.peek() == Some(&"super") {
        segments.next();
        at.pop();
    }
    for segment in segments {
        let mut deeper = at.clone();
        deeper.push(segment.to_owned());
        if !known.contains(&deeper) {
            break;
        }
        at = deeper;
    }
    Some(at)
}

/// Each group of modules that reach one another through arrows (strongly
/// connected, Tarjan's algorithm), in a stable order.
fn circles_in(arrows: &Arrows) -> Vec<Vec<Module>> {
    struct Search<'a> {
        arrows: &'a Arrows,
        index: BTreeMap<&'a Module, usize>,
        low: BTreeMap<&'a Module, usize>,
        stack: Vec<&'a Module>,
        circles: Vec<Vec<Module>>,
    }
    impl<'a> Search<'a> {
        fn visit(&mut self, module: &'a Module) {
            let number = self.index.len();
            self.index.insert(module, number);
            self.low.insert(module, number);
            self.stack.push(module);
            for other in self.arrows.get(module).into_iter().flatten() {
                let Some((other, _)) = self.arrows.get_key_value(other) else {
                    continue;
                };
                if !self.index.contains_key(other) {
                    self.visit(other);
                    let low = self.low[module].min(self.low[other]);
                    self.low.insert(module, low);
                } else if self.stack.contains(&other) {
                    let low = self.low[module].min(self.index[other]);
                    self.low.insert(module, low);
                }
            }
            if self.low[module] == self.index[module] {
                let mut group = Vec::new();
                while let Some(member) = self.stack.pop() {
                    group.push(member.clone());
                    if member == module {
                        break;
                    }
                }
                if group.len() > 1 {
                    group.sort();
                    self.circles.push(group);
                }
            }
        }
    }
    let mut search = Search {
        arrows,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for module in arrows.keys() {
        if !search.index.contains_key(module) {
            search.visit(module);
        }
    }
    search.circles.sort();
    search.circles
}

/// The shortest way round a group from its first module back to it, to show
/// one circle of the group step by step.
fn shortest_circle(arrows: &Arrows, group: &[Module]) -> Vec<Module> {
    let start = &group[0];
    let mut came_from: BTreeMap<&Module, &Module> = BTreeMap::new();
    let mut queue = VecDeque::from([start]);
    while let Some(at) = queue.pop_front() {
        for next in arrows.get(at).into_iter().flatten() {
            if !group.contains(next) || came_from.contains_key(next) {
                continue;
            }
            came_from.insert(next, at);
            if next == start {
                let mut circle = vec![start.clone()];
                let mut step = at;
                while step != start {
                    circle.push(step.clone());
                    step = came_from[step];
                }
                circle.push(start.clone());
                circle.reverse();
                return circle;
            }
            queue.push_back(next);
        }
    }
    unreachable!("every module of a strongly connected group is on a circle")
}

//! The shape the code keeps: in every crate of the workspace, no module
//! imports one that imports it back, directly or around a longer circle.
//! Data flows one way, so a reader can follow a call without looping.
//!
//! A module may use what its ancestors declare, and a parent may use its
//! children (that is how Rust modules nest); every other use of another
//! module, in a `use` or a path in the code, is an import. Test code
//! (`#[cfg(test)] mod ...` and `tests.rs` files) and comments are left out.
//! A binary's `main.rs` is a crate of its own and is left out too.

use std::{
    collections::{BTreeMap, BTreeSet},
    fs,
    path::{Path, PathBuf},
};

/// A module's path from its crate's root: `["load", "pointer"]`.
type Module = Vec<String>;

#[test]
fn no_module_imports_one_that_imports_it_back() {
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut circles = Vec::new();
    for krate in ["reference", "harness", "mock-upstream", "benches"] {
        let src = workspace.join(krate).join("src");
        if !src.is_dir() {
            continue;
        }
        let imports = imports_of(&src);
        assert!(
            imports.len() > 1,
            "{krate}: found {} module(s) in {}; the check reads nothing",
            imports.len(),
            src.display()
        );
        for circle in circles_in(&imports) {
            let shown: Vec<String> = circle.iter().map(show).collect();
            circles.push(format!("{krate}: {}", shown.join(" -> ")));
        }
    }
    assert!(
        circles.is_empty(),
        "modules that import each other:\n{}",
        circles.join("\n")
    );
}

#[test]
fn a_circle_is_found() {
    let imports = BTreeMap::from([
        (module("world"), BTreeSet::from([module("steps::support")])),
        (module("steps::support"), BTreeSet::from([module("world")])),
        (module("steps"), BTreeSet::new()),
    ]);
    assert_eq!(
        circles_in(&imports),
        [vec![module("steps::support"), module("world")]]
    );
}

#[test]
fn reads_use_trees_and_paths() {
    let found = paths_in(
        "use crate::{client::{A, B}, world::World};\n\
         pub(crate) use super::sibling::thing;\n\
         fn f() { crate::json::show(x); let s = \"crate::not::code\"; }\n\
         // crate::in::a::comment\n",
    );
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

/// Every module of the crate under `src`, with the modules it imports.
fn imports_of(src: &Path) -> BTreeMap<Module, BTreeSet<Module>> {
    let files: Vec<(Module, String)> = rust_files(src)
        .into_iter()
        .filter_map(|path| {
            let module = module_of(src, &path)?;
            let text = fs::read_to_string(&path).expect("a readable source file");
            Some((module, text))
        })
        .collect();
    let known: BTreeSet<Module> = files.iter().map(|(module, _)| module.clone()).collect();
    files
        .iter()
        .map(|(module, text)| {
            let imported = paths_in(without_tests(text))
                .iter()
                .filter_map(|path| resolve(module, path, &known))
                .filter(|other| !other.starts_with(module) && !module.starts_with(other))
                .collect();
            (module.clone(), imported)
        })
        .collect()
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    for entry in fs::read_dir(dir).expect("a readable source folder") {
        let path = entry.expect("a readable entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// `load/pointer.rs` is `load::pointer`, `report/mod.rs` is `report`, and
/// `lib.rs` the root; `main.rs` and test files are none.
fn module_of(src: &Path, file: &Path) -> Option<Module> {
    let relative = file.strip_prefix(src).ok()?.with_extension("");
    let mut parts: Module = relative
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    match parts.last().map(String::as_str) {
        Some("main" | "tests") => None,
        Some("lib") if parts.len() == 1 => Some(Vec::new()),
        Some("mod") => {
            parts.pop();
            Some(parts)
        }
        _ => Some(parts),
    }
}

/// The text before its inline test module.
fn without_tests(text: &str) -> &str {
    text.find("#[cfg(test)]\nmod ")
        .map_or(text, |at| &text[..at])
}

/// Every `crate::`, `super::` or `self::` path the code names: those in
/// `use` trees written out in full, then those in the rest of the code.
fn paths_in(text: &str) -> Vec<String> {
    let code = code_only(text);
    let mut paths = Vec::new();
    let mut rest = String::new();
    let mut remaining = code.as_str();
    while let Some(at) = find_use(remaining) {
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

/// Where the next `use` statement starts (at a word boundary).
fn find_use(code: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = code[from..].find("use ") {
        let at = from + found;
        let before = code[..at].chars().next_back();
        if before.is_none_or(|c| !(c.is_alphanumeric() || c == '_')) {
            return Some(at);
        }
        from = at + 4;
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

/// The module a path written in `module` names: the longest known module
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

/// Each group of modules that reach one another through imports
/// (strongly connected, Tarjan's algorithm), in a stable order.
fn circles_in(imports: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    struct Search<'a> {
        imports: &'a BTreeMap<Module, BTreeSet<Module>>,
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
            for other in self.imports.get(module).into_iter().flatten() {
                let Some((other, _)) = self.imports.get_key_value(other) else {
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
        imports,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        circles: Vec::new(),
    };
    for module in imports.keys() {
        if !search.index.contains_key(module) {
            search.visit(module);
        }
    }
    search.circles.sort();
    search.circles
}

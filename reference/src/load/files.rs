//! Split documents: `$ref`s to other files, read from the document's own
//! folder tree and gathered into the one value the rest of the loader and the
//! converter read, so that they only ever meet local references.
//!
//! Every `$ref` that is not a plain `#/...` pointer to something in the root
//! document is settled here, in every file reached: a file (its path relative
//! to the file that holds the reference, as URI references resolve), then a
//! JSON pointer or an `$anchor` in it; or a schema of the same file whose
//! `$id` is written exactly as the reference is (OpenAPI 3.1 documents
//! generated from code refer to their schemas that way). Each file is read
//! and parsed once, and placed whole under [`FILES`] at the top of the root
//! document, so a reference into it becomes a local pointer there, and
//! references that go round several files (a recursive schema) need nothing
//! more.
//!
//! A reference that cannot be settled (a URL, a file outside the folder tree,
//! a file that is missing or does not parse, a pointer to nothing, in the
//! root document too) is pointed at a [`Hole`] instead, and whoever follows
//! it (the operation reader, the converter) stops with the hole's error,
//! which names the file, the line, the column and the pointer of the
//! reference. Settling is eager, the error waits to be met: a broken
//! reference in a response, which no tool uses, stops nothing. Nothing
//! outside the tree is ever read, and a URL never.
//!
//! Rules: TC-LOAD-008 (files), TC-LOAD-006 (what cannot be resolved).

use std::borrow::Cow;
use std::collections::HashMap;
use std::io::ErrorKind;
use std::path::{Component, Path, PathBuf};

use percent_encoding::percent_decode_str;
use serde_json::{Map, Value};

use super::error::{Hole, LoadError, TextPosition, Unresolvable};
use super::place::{in_other_file, FILES};
use super::pointer::{escape_token, local_pointer, lookup};
use super::text;

/// The member that references which cannot be resolved point into:
/// `/x-hosted-mcp-unresolved/<n>` names the n-th [`Hole`]. Nothing is there.
const HOLES: &str = "x-hosted-mcp-unresolved";

/// The root document with every other file it reaches inside it.
pub struct Bundle {
    pub root: Value,
    pub holes: Holes,
}

/// The root document as read, and where from.
pub struct Source<'a> {
    pub text: &'a str,
    /// How messages name the document.
    pub origin: &'a str,
    /// The document's file; `None` for a document given as text, which has
    /// no folder, so that none of its references to files resolves.
    pub path: Option<&'a Path>,
}

/// References that cannot be resolved, by the pointer each now names.
#[derive(Debug, Clone, Default)]
pub struct Holes(Vec<Hole>);

impl Holes {
    /// The hole a decoded JSON Pointer names, if it names one.
    pub fn at(&self, pointer: &str) -> Option<&Hole> {
        let index = pointer.strip_prefix('/')?.strip_prefix(HOLES)?;
        self.0.get(index.strip_prefix('/')?.parse::<usize>().ok()?)
    }

    /// Records `hole`; the reference that points at it.
    fn add(&mut self, hole: Hole) -> String {
        self.0.push(hole);
        format!("#/{HOLES}/{}", self.0.len() - 1)
    }
}

/// Settles every reference of `root` (see the module's documentation).
pub fn bundle(root: Value, source: Source) -> Result<Bundle, LoadError> {
    let canonical = match source.path {
        Some(path) => Some(path.canonicalize().map_err(|error| LoadError::Read {
            origin: source.origin.to_string(),
            source: error,
        })?),
        None => None,
    };
    let tree = canonical
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf);
    let mut bundler = Bundler {
        shown_tree: Path::new(source.origin)
            .parent()
            .unwrap_or(Path::new(""))
            .to_path_buf(),
        files: vec![File {
            key: String::new(),
            shown: source.origin.to_string(),
            folder: tree.clone(),
            text: Cow::Borrowed(source.text),
            value: root,
            names: None,
        }],
        read: HashMap::new(),
        holes: Holes::default(),
        tree,
    };
    if let Some(canonical) = canonical {
        bundler.read.insert(canonical, Ok(0));
    }
    // Settling a file may add files; each is settled once, in turn.
    let mut next = 0;
    while next < bundler.files.len() {
        bundler.settle(next);
        next += 1;
    }
    Ok(bundler.finish())
}

/// One file of the document, the root first.
struct File<'a> {
    /// Its path from the root's folder, `/`-separated; empty for the root.
    key: String,
    /// How messages name it.
    shown: String,
    /// The canonical folder its references are relative to; `None` for a
    /// document given as text.
    folder: Option<PathBuf>,
    text: Cow<'a, str>,
    value: Value,
    /// Its `$id`s and `$anchor`s, gathered when first needed.
    names: Option<Names>,
}

/// Where a file's schemas that name themselves are.
#[derive(Default)]
struct Names {
    /// Each `$id` as written, and the pointer of its schema.
    ids: HashMap<String, String>,
    /// Each `$anchor` with the `$id` of the schema around it (empty for the
    /// file itself), and the pointer of its schema.
    anchors: HashMap<(String, String), String>,
}

struct Bundler<'a> {
    /// The canonical folder every file read must be in.
    tree: Option<PathBuf>,
    /// How messages name that folder: the root's origin without its name.
    shown_tree: PathBuf,
    files: Vec<File<'a>>,
    /// Each canonical path met: its index in `files`, or why it cannot be used.
    read: HashMap<PathBuf, Result<usize, Unresolvable>>,
    holes: Holes,
}

impl Bundler<'_> {
    /// Rewrites every reference of file `index` that needs it to a local
    /// pointer, or to a hole.
    fn settle(&mut self, index: usize) {
        let mut found = Vec::new();
        let value = &self.files[index].value;
        references(
            value,
            (index == 0).then_some(value),
            &mut Vec::new(),
            &mut found,
        );
        let mut targets = Vec::with_capacity(found.len());
        // How many references with the same text came before, to find each one's line.
        let mut before: HashMap<&str, usize> = HashMap::new();
        for (at, reference) in &found {
            let occurrence = before.entry(reference.as_str()).or_default();
            let target = match self.resolve(index, reference) {
                Ok(target) => target,
                Err(problem) => {
                    let file = &self.files[index];
                    let total = found.iter().filter(|(_, r)| r == reference).count();
                    let hole = Hole {
                        file: file.shown.clone(),
                        position: TextPosition(text::ref_position(
                            &file.text,
                            reference,
                            *occurrence,
                            total,
                        )),
                        pointer: at.clone(),
                        reference: reference.clone(),
                        problem,
                    };
                    self.holes.add(hole)
                }
            };
            *occurrence += 1;
            targets.push(target);
        }
        let value = &mut self.files[index].value;
        for ((at, _), target) in found.iter().zip(targets) {
            if let Some(Value::Object(holder)) = value.pointer_mut(at) {
                holder.insert("$ref".into(), Value::String(target));
            }
        }
    }

    /// The local reference `reference`, written in file `from`, becomes; or
    /// why it cannot be resolved.
    fn resolve(&mut self, from: usize, reference: &str) -> Result<String, Unresolvable> {
        let (resource, fragment) = match reference.split_once('#') {
            Some((resource, fragment)) => (resource, Some(fragment)),
            None => (reference, None),
        };
        // A fragment is URI-encoded first, a JSON Pointer second (RFC 6901, section 6).
        let fragment = match fragment {
            Some(fragment) => Some(
                percent_decode_str(fragment)
                    .decode_utf8()
                    .map_err(|_| Unresolvable::FragmentEncoding)?,
            ),
            None => None,
        };
        let id_schema = (!resource.is_empty())
            .then(|| self.names(from).ids.get(resource).cloned())
            .flatten();
        let (file, resource_id, base) = match id_schema {
            Some(base) => (from, resource, base),
            None if resource.is_empty() => (from, "", String::new()),
            None => (self.open(from, resource)?, "", String::new()),
        };
        let pointer = self.locate(file, resource_id, base, fragment.as_deref())?;
        Ok(self.local_reference(file, &pointer))
    }

    /// The pointer that a fragment names in file `file`, from the schema at
    /// `base` (identified as `resource_id`): a JSON Pointer from there, or an
    /// `$anchor`; the whole of it without one.
    fn locate(
        &mut self,
        file: usize,
        resource_id: &str,
        base: String,
        fragment: Option<&str>,
    ) -> Result<String, Unresolvable> {
        let pointer = match fragment {
            None | Some("") => base,
            Some(pointer) if pointer.starts_with('/') => base + pointer,
            Some(anchor) => {
                let key = (resource_id.to_string(), anchor.to_string());
                match self.names(file).anchors.get(&key) {
                    Some(pointer) => pointer.clone(),
                    None => {
                        return Err(Unresolvable::NoAnchor {
                            file: self.files[file].shown.clone(),
                            anchor: anchor.to_string(),
                        })
                    }
                }
            }
        };
        if lookup(&self.files[file].value, &pointer).is_none() {
            return Err(Unresolvable::NothingAt {
                file: self.files[file].shown.clone(),
                pointer,
            });
        }
        Ok(pointer)
    }

    /// The reference to `pointer` in file `file`, from the root document.
    fn local_reference(&self, file: usize, pointer: &str) -> String {
        let in_root = match file {
            0 => pointer.to_string(),
            _ => format!("/{FILES}/{}{pointer}", escape_token(&self.files[file].key)),
        };
        // `%` would be read as the start of an escape by whoever decodes the fragment.
        format!("#{}", in_root.replace('%', "%25"))
    }

    fn names(&mut self, file: usize) -> &Names {
        let file = &mut self.files[file];
        file.names.get_or_insert_with(|| {
            let mut names = Names::default();
            gather_names(&file.value, "", &mut Vec::new(), &mut names);
            names
        })
    }

    /// The index of the file `resource` names from file `from`, read and
    /// parsed if it was not yet; or why it cannot be used. Nothing outside
    /// the tree is read (TC-LOAD-008), and a URL never (TC-LOAD-004).
    fn open(&mut self, from: usize, resource: &str) -> Result<usize, Unresolvable> {
        // TC-LOAD-004: an external reference is a hole, never a download.
        if resource.starts_with("//") || uri_scheme(resource).is_some() {
            return Err(Unresolvable::Url);
        }
        let (Some(tree), Some(folder)) = (&self.tree, &self.files[from].folder) else {
            return Err(Unresolvable::NoFolder);
        };
        let path = percent_decode_str(resource)
            .decode_utf8()
            .map_err(|_| Unresolvable::PathEncoding)?;
        // Dot segments are removed before the file system is asked anything,
        // as URI references resolve: `a/link/../b` is `a/b`.
        let wanted = without_dot_segments(&folder.join(&*path));
        let outside = || Unresolvable::OutsideTree {
            folder: shown_folder(&self.shown_tree),
        };
        let Ok(inside) = wanted.strip_prefix(tree) else {
            return Err(outside());
        };
        let shown = self.shown_tree.join(inside).display().to_string();
        // Symbolic links resolved: one leading outside the tree leads outside.
        let canonical = wanted.canonicalize().map_err(|error| match error.kind() {
            ErrorKind::NotFound => Unresolvable::Missing { file: shown },
            _ => Unresolvable::Unreadable {
                file: shown,
                reason: error.to_string(),
            },
        })?;
        let Ok(inside) = canonical.strip_prefix(tree) else {
            return Err(outside());
        };
        if let Some(known) = self.read.get(&canonical) {
            return known.clone();
        }
        let key = inside
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        let shown = self.shown_tree.join(inside).display().to_string();
        let opened = self.read_file(&canonical, key, shown);
        self.read.insert(canonical, opened.clone());
        opened
    }

    fn read_file(
        &mut self,
        canonical: &Path,
        key: String,
        shown: String,
    ) -> Result<usize, Unresolvable> {
        if !canonical.is_file() {
            return Err(Unresolvable::NotAFile { file: shown });
        }
        let text =
            std::fs::read_to_string(canonical).map_err(|error| Unresolvable::Unreadable {
                file: shown.clone(),
                reason: error.to_string(),
            })?;
        let value = text::parse(&text, &shown)
            .map_err(|error| Unresolvable::Unparsable(error.to_string()))?;
        self.files.push(File {
            key,
            shown,
            folder: canonical.parent().map(Path::to_path_buf),
            text: Cow::Owned(text),
            value,
            names: None,
        });
        Ok(self.files.len() - 1)
    }

    /// The root document, the other files under [`FILES`].
    fn finish(self) -> Bundle {
        let mut files = self.files.into_iter();
        let Some(root) = files.next() else {
            return Bundle {
                root: Value::Null,
                holes: self.holes,
            };
        };
        let mut root = root.value;
        let others: Map<String, Value> = files.map(|file| (file.key, file.value)).collect();
        if let (Value::Object(top), false) = (&mut root, others.is_empty()) {
            top.insert(FILES.into(), Value::Object(others));
        }
        Bundle {
            root,
            holes: self.holes,
        }
    }
}

/// Every string `$ref` in `value` that needs settling, with the JSON Pointer
/// of the object holding it, in document order. In the root document
/// (`root`, when `value` is in it) a `#/...` pointer to something needs
/// nothing: the rest of the loader follows it. One to nothing is settled
/// as a hole, so that its error says where it is written.
fn references<'a>(
    value: &'a Value,
    root: Option<&Value>,
    at: &mut Vec<Step<'a>>,
    found: &mut Vec<(String, String)>,
) {
    match value {
        Value::Object(members) => {
            // Met in the walk over the members, so that references come in
            // the text's order (which finds each one's line), with no lookup
            // per object.
            for (key, member) in members {
                match member {
                    Value::String(reference) if key == "$ref" => {
                        let local = root.is_some_and(|root| {
                            local_pointer(reference).is_some_and(|pointer| {
                                (pointer.is_empty() || pointer.starts_with('/'))
                                    && lookup(root, &pointer).is_some()
                            })
                        });
                        if !local {
                            found.push((pointer_of(at), reference.clone()));
                        }
                    }
                    _ => {
                        at.push(Step::Member(key));
                        references(member, root, at, found);
                        at.pop();
                    }
                }
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                at.push(Step::Item(index));
                references(item, root, at, found);
                at.pop();
            }
        }
        _ => {}
    }
}

/// One step down a document: a member's name or an item's index. The walks
/// keep the steps and write a pointer only for what they find, since nearly
/// every node of a large document holds nothing to record.
#[derive(Clone, Copy)]
enum Step<'a> {
    Member(&'a str),
    Item(usize),
}

/// The JSON Pointer of the place `steps` lead to.
fn pointer_of(steps: &[Step<'_>]) -> String {
    let mut pointer = String::new();
    for step in steps {
        pointer.push('/');
        match step {
            Step::Member(name) => pointer.push_str(&escape_token(name)),
            Step::Item(index) => pointer.push_str(&index.to_string()),
        }
    }
    pointer
}

/// Records every `$id` and `$anchor` under `value`, which is at `at` inside
/// the schema identified as `resource`. The first of two equal ones counts.
fn gather_names<'a>(value: &'a Value, resource: &str, at: &mut Vec<Step<'a>>, names: &mut Names) {
    match value {
        Value::Object(members) => {
            let resource = match members.get("$id").and_then(Value::as_str) {
                Some(id) => {
                    names
                        .ids
                        .entry(id.to_string())
                        .or_insert_with(|| pointer_of(at));
                    id
                }
                None => resource,
            };
            if let Some(anchor) = members.get("$anchor").and_then(Value::as_str) {
                names
                    .anchors
                    .entry((resource.to_string(), anchor.to_string()))
                    .or_insert_with(|| pointer_of(at));
            }
            for (key, member) in members {
                at.push(Step::Member(key));
                gather_names(member, resource, at, names);
                at.pop();
            }
        }
        Value::Array(items) => {
            for (index, item) in items.iter().enumerate() {
                at.push(Step::Item(index));
                gather_names(item, resource, at, names);
                at.pop();
            }
        }
        _ => {}
    }
}

/// The scheme of a URI (`https`, `file`, `urn`), if `reference` starts with
/// one (RFC 3986, section 3.1).
pub fn uri_scheme(reference: &str) -> Option<&str> {
    let (scheme, _) = reference.split_once(':')?;
    let mut characters = scheme.chars();
    let first = characters.next()?;
    (first.is_ascii_alphabetic()
        && characters.all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.')))
    .then_some(scheme)
}

/// `path` with `.` and `..` taken out without asking the file system; `..`
/// at the top stays at the top.
fn without_dot_segments(path: &Path) -> PathBuf {
    let mut clean = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                clean.pop();
            }
            other => clean.push(other),
        }
    }
    clean
}

fn shown_folder(folder: &Path) -> String {
    match folder.as_os_str().is_empty() {
        true => ".".to_string(),
        false => folder.display().to_string(),
    }
}

/// How the schema at `pointer` is named for people, as a pointer (`/Pet`):
/// by its name under `components.schemas`; in another file of a split
/// document, by its name there (under `definitions` or `$defs` too, as
/// Swagger 2.0 and JSON Schema files keep them), or by the file's name when it is the whole file; else by
/// the whole pointer.
pub fn schema_name(pointer: &str) -> String {
    let Some((file, within)) = in_other_file(pointer) else {
        return match pointer.strip_prefix("/components/schemas") {
            Some(name) if name.starts_with('/') => name.to_string(),
            _ => pointer.to_string(),
        };
    };
    if within.is_empty() {
        let name = Path::new(&file)
            .file_stem()
            .map_or(Cow::Borrowed(""), |stem| stem.to_string_lossy());
        return format!("/{}", escape_token(&name));
    }
    ["/components/schemas", "/definitions", "/$defs"]
        .iter()
        .find_map(|section| within.strip_prefix(section).filter(|n| n.starts_with('/')))
        .unwrap_or(within)
        .to_string()
}

#[cfg(test)]
mod tests {
    use rstest::rstest;
    use serde_json::json;

    use super::*;

    #[rstest]
    #[case("https://example.com/a.yaml", Some("https"))]
    #[case("file:///etc/passwd", Some("file"))]
    #[case("urn:example:pet", Some("urn"))]
    #[case("a+b.c-d:x", Some("a+b.c-d"))]
    #[case("schemas/pet.yaml", None)]
    #[case("pet.yaml#/a:b", None)]
    #[case("1http://x", None)]
    #[case(":x", None)]
    fn uri_schemes_are_told_from_paths(#[case] reference: &str, #[case] scheme: Option<&str>) {
        assert_eq!(uri_scheme(reference), scheme);
    }

    #[rstest]
    #[case("/a/b/../c/./d", "/a/c/d")]
    #[case("/a/../../../b", "/b")]
    #[case("/a/b/", "/a/b")]
    fn dot_segments_are_removed_without_the_file_system(#[case] path: &str, #[case] clean: &str) {
        assert_eq!(without_dot_segments(Path::new(path)), PathBuf::from(clean));
    }

    #[rstest]
    #[case("/components/schemas/Pet", "/Pet")]
    #[case("/components/schemasX/Pet", "/components/schemasX/Pet")]
    #[case("/paths/~1a/get", "/paths/~1a/get")]
    #[case("/x-hosted-mcp-files/schemas~1Pet.yaml", "/Pet")]
    #[case("/x-hosted-mcp-files/common.yaml/components/schemas/Tags", "/Tags")]
    #[case("/x-hosted-mcp-files/defs.json/definitions/Tag", "/Tag")]
    #[case("/x-hosted-mcp-files/limit.json/$defs/Small", "/Small")]
    #[case("/x-hosted-mcp-files/parameters.yaml/Limit/schema", "/Limit/schema")]
    fn schemas_are_named_by_their_place(#[case] pointer: &str, #[case] name: &str) {
        assert_eq!(schema_name(pointer), name);
    }

    #[test]
    fn holes_are_found_by_their_pointer_only() {
        let mut holes = Holes::default();
        let hole = Hole {
            file: "a.yaml".into(),
            position: TextPosition(Some((3, 9))),
            pointer: "/paths/~1a".into(),
            reference: "b.yaml".into(),
            problem: Unresolvable::Missing {
                file: "b.yaml".into(),
            },
        };
        let reference = holes.add(hole.clone());
        assert_eq!(reference, "#/x-hosted-mcp-unresolved/0");
        assert_eq!(holes.at("/x-hosted-mcp-unresolved/0"), Some(&hole));
        assert_eq!(holes.at("/x-hosted-mcp-unresolved/1"), None);
        assert_eq!(holes.at("/x-hosted-mcp-unresolvedX/0"), None);
        assert_eq!(holes.at("/components/x-hosted-mcp-unresolved/0"), None);
        assert_eq!(
            hole.to_string(),
            "a.yaml:3:9: #/paths/~1a: $ref `b.yaml` cannot be resolved: b.yaml does not exist"
        );
    }

    #[test]
    fn text_documents_resolve_their_own_ids_and_anchors_but_no_file() {
        let root = json!({
            "openapi": "3.1.0",
            "components": {"schemas": {
                "Pet": {"properties": {
                    "details": {"$ref": "/schemas/details"},
                    "detailsId": {"$ref": "/schemas/details#details_id"},
                    "tag": {"$ref": "#tag"},
                    "other": {"$ref": "other.yaml#/Pet"}
                }},
                "Details": {"$id": "/schemas/details", "properties": {"id": {"$anchor": "details_id"}}},
                "Tag": {"$anchor": "tag", "type": "string"}
            }}
        });
        let text = "{}";
        let bundle = bundle(
            root,
            Source {
                text,
                origin: "doc.json",
                path: None,
            },
        )
        .expect("bundles");
        let pet = &bundle.root["components"]["schemas"]["Pet"]["properties"];
        assert_eq!(pet["details"]["$ref"], "#/components/schemas/Details");
        assert_eq!(
            pet["detailsId"]["$ref"],
            "#/components/schemas/Details/properties/id"
        );
        assert_eq!(pet["tag"]["$ref"], "#/components/schemas/Tag");
        let hole = pet["other"]["$ref"].as_str().and_then(local_pointer);
        let hole = hole.and_then(|pointer| bundle.holes.at(&pointer).cloned());
        let hole = hole.expect("a hole for the other file");
        assert_eq!(hole.problem, Unresolvable::NoFolder);
        assert_eq!(
            hole.to_string(),
            "doc.json: #/components/schemas/Pet/properties/other: $ref `other.yaml#/Pet` cannot be resolved: it names another file, and a document not read from a file has no folder to find it in"
        );
    }

    /// Two equal references, one inside a member written before the other
    /// beside it: each hole names its own line, so the references are taken
    /// in the text's order, not an object's own `$ref` before its members'.
    #[test]
    fn equal_references_are_told_apart_by_their_place_in_the_text() {
        let text = "\
openapi: 3.1.0
components:
  schemas:
    Pet:
      properties:
        tag:
          $ref: other.yaml
      $ref: other.yaml
";
        let root = text::parse(text, "doc.yaml").expect("parses");
        let source = Source {
            text,
            origin: "doc.yaml",
            path: None,
        };
        let bundle = bundle(root, source).expect("bundles");
        let position = |at: &Value| {
            let pointer = at["$ref"].as_str().and_then(local_pointer);
            let hole = pointer.and_then(|pointer| bundle.holes.at(&pointer).cloned());
            hole.and_then(|hole| hole.position.0)
        };
        let pet = &bundle.root["components"]["schemas"]["Pet"];
        assert_eq!(position(&pet["properties"]["tag"]), Some((7, 17)));
        assert_eq!(position(pet), Some((8, 13)));
    }
}

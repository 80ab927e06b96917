//! The operations of a scenario's document as the naming rules make them
//! tools, so a scenario can find "its" tool on a gateway that names tools
//! otherwise.
//!
//! A gateway that breaks only a naming rule (TC-NAME-*) must fail only that
//! rule. Scenarios of other rules name their tool as the rules would; when
//! the gateway lists no tool of that name, [`find`] pairs the document's
//! operations with the listed tools by evidence of what each tool is, never
//! by a guess, strongest evidence first:
//!
//! 1. the rules' name, once case and separators are set aside (`list-pets`
//!    for `listPets`);
//! 2. another name the field gives the operation: its operationId or
//!    extension name in any case and separator (`list_pets`), its method and
//!    path (`post_things`, `GET_things`, `getShopsShopIdItems`,
//!    `get_shops_by_shopid_items`), its summary;
//! 3. the method and path without its parameters (`get_shops_items`),
//!    which `GET /report` and `GET /report/{id}` share;
//! 4. one of those names with a prefix or suffix (`Pets--getPet`,
//!    `api_get_pet_v1`: whole words added), or shortened from its end;
//! 5. the method and path stated in the tool's description, title or
//!    annotations (`GET /pets`);
//! 6. an abbreviation (`lst-pets`, `get_report_1`);
//! 7. the tool's arguments: exactly the operation's parameters;
//! 8. elimination: the one tool left for the one operation left, when the
//!    gateway lists as many tools as the document has operations.
//!
//! A pair is made only when, at that strength or a stronger one, the tool
//! points at that operation before any other and the operation at that
//! tool (the stronger evidence first, then, for names with affixes, cut
//! short or abbreviated, the fewer characters apart: `lst-things-9` is
//! `listThings-9`'s, not `listThings-19`'s); a tie singles out nothing.
//! Each pair made takes both out of the running, and the search starts
//! again from the strongest evidence. Where nothing singles a tool out, it
//! is not found, and the tools still in the running are its candidates. A
//! tool's place in the list is no evidence: it holds only while the gateway
//! orders tools as TC-PROTO-006 says, and a gateway that orders them
//! otherwise would be judged on another operation's tool.

use std::collections::BTreeSet;
use std::path::Path;

use crate::folder::inside_scenario;
use crate::json::{escape_token, unescape_token};
use serde_json::{Map, Value};

/// Methods in the order the rules list them within a path.
const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

/// Names shorter than this (folded) are too common to count as a prefix,
/// suffix or abbreviation of anything.
const SHORTEST_PART: usize = 3;

/// A name cut from its end must keep at least this much (folded): gateways
/// shorten long names to fit a limit, never to a few letters.
const SHORTEST_CUT: usize = 8;

/// An operation that becomes a tool, as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Operation {
    /// The rules' name for its tool.
    pub name: String,
    pub method: String,
    pub path: String,
    /// The rule that gives the name (`TC-NAME-005` for an operationId).
    pub named_by: &'static str,
    /// Its parameters' names, and `body` when it takes a request body.
    pub arguments: BTreeSet<String>,
    /// The other names the field gives its tool, folded (see [`fold`]).
    aliases: BTreeSet<String>,
    /// Its method and path with the path parameters left out, folded
    /// (`getshopsitems` for `GET /shops/{shopId}/items`).
    without_parameters: String,
}

/// Each operation that becomes a tool, in list order. Empty when the
/// document does not parse. `beside` reads a file of the document's folder
/// tree by its path from there (`paths/pets.yaml`): a path item or an
/// operation given by reference to another file is read from it, as a
/// split document's gateway reads it (TC-LOAD-008).
pub fn operations(document: &str, beside: &dyn Fn(&str) -> Option<String>) -> Vec<Operation> {
    let Ok(root) = yaml_serde::from_str::<Value>(document) else {
        return Vec::new();
    };
    let mut operations: Vec<Operation> = Vec::new();
    let paths = root.get("paths").and_then(Value::as_object);
    for (path, item) in paths.into_iter().flatten() {
        let (item, item_file) = referenced(item, "", beside);
        for method in METHODS {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let (operation, _) = referenced(operation, &item_file, beside);
            let operation = &operation;
            if operation.get("deprecated") == Some(&Value::Bool(true)) {
                continue;
            }
            let (source, named_by) = source_name(operation, method, path);
            let name = sanitize(&source);
            let mut unique = name.clone();
            let mut n = 2;
            while operations.iter().any(|o| o.name == unique) {
                unique = format!("{name}_{n}");
                n += 1;
            }
            operations.push(Operation {
                name: unique,
                method: method.to_owned(),
                path: path.clone(),
                named_by,
                arguments: arguments(&item, operation),
                aliases: aliases(operation, method, path),
                without_parameters: spelled(method, path, |_| String::new()),
            });
        }
    }
    operations
}

/// The object `value` stands for, with the file it was read from (`from`
/// when it is not a reference to another file): a `$ref` to a file, with
/// or without a fragment, is read relative to `from`'s folder. A local
/// reference, or one that cannot be read, leaves `value` as it is.
fn referenced(
    value: &Value,
    from: &str,
    beside: &dyn Fn(&str) -> Option<String>,
) -> (Value, String) {
    let unchanged = || (value.clone(), from.to_owned());
    let Some(reference) = value.get("$ref").and_then(Value::as_str) else {
        return unchanged();
    };
    let (file, fragment) = reference.split_once('#').unwrap_or((reference, ""));
    if file.is_empty() {
        return unchanged();
    }
    let folder = from.rsplit_once('/').map_or("", |(folder, _)| folder);
    // The scenario's own rule for its files: relative, never out of its folder.
    let Ok(path) = inside_scenario(Path::new(folder), file) else {
        return unchanged();
    };
    let path = path.to_string_lossy().into_owned();
    let target = beside(&path)
        .and_then(|text| yaml_serde::from_str::<Value>(&text).ok())
        .and_then(|root| root.pointer(fragment).cloned());
    match target {
        Some(target) => (target, path),
        None => unchanged(),
    }
}

/// Parameter names of the path item and the operation (references left
/// unresolved are skipped), and `body` for a request body.
fn arguments(item: &Value, operation: &Value) -> BTreeSet<String> {
    let names = |holder: &Value| -> Vec<String> {
        holder
            .get("parameters")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|p| p.get("in").and_then(Value::as_str) != Some("cookie"))
            .filter_map(|p| p.get("name").and_then(Value::as_str).map(str::to_owned))
            .collect()
    };
    let mut arguments: BTreeSet<String> = names(item).into_iter().collect();
    arguments.extend(names(operation));
    if operation.get("requestBody").is_some() {
        arguments.insert("body".to_owned());
    }
    arguments
}

/// `x-agentify`, else `x-mcp` (a string, or an object's `name`), else the
/// `operationId`, else the method and path; with the rule that says so.
fn source_name(operation: &Value, method: &str, path: &str) -> (String, &'static str) {
    if let Some(name) = extension_name(operation, "x-agentify") {
        let rule = if operation["x-agentify"].is_string() {
            "TC-NAME-001"
        } else {
            "TC-NAME-002"
        };
        return (name, rule);
    }
    if let Some(name) = extension_name(operation, "x-mcp") {
        return (name, "TC-NAME-003");
    }
    match operation.get("operationId").and_then(Value::as_str) {
        Some(id) => (id.to_owned(), "TC-NAME-005"),
        None => (format!("{method} {path}"), "TC-NAME-006"),
    }
}

/// An extension's name: the extension as a string, or its object's `name`.
fn extension_name(operation: &Value, key: &str) -> Option<String> {
    match operation.get(key) {
        Some(Value::String(name)) => Some(name.clone()),
        Some(Value::Object(object)) => object
            .get("name")
            .and_then(Value::as_str)
            .map(str::to_owned),
        _ => None,
    }
}

/// Every name the field gives an operation's tool besides the rules' own,
/// folded: each extension's name and the operationId (a gateway may honour
/// one and not the other), the summary (FastMCP's slugs), and the method
/// and path with each path parameter as it is or after `by`.
fn aliases(operation: &Value, method: &str, path: &str) -> BTreeSet<String> {
    let mut aliases: BTreeSet<String> = ["x-agentify", "x-mcp"]
        .into_iter()
        .filter_map(|key| extension_name(operation, key))
        .chain(
            ["operationId", "summary"]
                .into_iter()
                .filter_map(|key| operation.get(key).and_then(Value::as_str))
                .map(str::to_owned),
        )
        .map(|name| fold(&name))
        .collect();
    aliases.insert(spelled(method, path, str::to_owned));
    aliases.insert(spelled(method, path, |name| format!("by{name}")));
    aliases.retain(|alias| !alias.is_empty());
    aliases
}

/// The method and path as one name, folded, with each path parameter
/// written by `parameter`.
fn spelled(method: &str, path: &str, parameter: impl Fn(&str) -> String) -> String {
    let words: String = path
        .split('/')
        .map(|segment| match segment.strip_prefix('{') {
            Some(name) => parameter(name.trim_end_matches('}')),
            None => segment.to_owned(),
        })
        .collect();
    fold(&format!("{method}{words}"))
}

/// Every character but ASCII letters, digits, `_`, `.` and `-` becomes `_`.
fn sanitize(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "_.-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// What ties a listed tool to an operation, strongest first (the steps of
/// the module's documentation; elimination needs no tie).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Evidence {
    RulesName,
    OtherName,
    /// The method and path with the path parameters left out: weaker than
    /// a name, since `GET /report` and `GET /report/{id}` share it.
    PathWithoutParameters,
    Affixed,
    StatedMethodAndPath,
    Abbreviated,
    SameArguments,
}

impl Evidence {
    const STRONGEST_FIRST: [Evidence; 7] = [
        Evidence::RulesName,
        Evidence::OtherName,
        Evidence::PathWithoutParameters,
        Evidence::Affixed,
        Evidence::StatedMethodAndPath,
        Evidence::Abbreviated,
        Evidence::SameArguments,
    ];

    /// The strongest evidence that `tool` is `operation`'s, if any, with
    /// how far the names are apart within it: the characters added or left
    /// out of a name with affixes, cut short or abbreviated (`lst-things-9`
    /// is nearer `listThings-9` than `listThings-19`), none for the rest.
    fn between(operation: &Operation, tool: &Value) -> Option<Found> {
        let written = tool["name"].as_str().unwrap_or_default();
        let name = fold(written);
        if name.is_empty() {
            return None;
        }
        let rules_name = fold(&operation.name);
        let names = || std::iter::once(&rules_name).chain(&operation.aliases);
        let apart = |known: &String| name.len().abs_diff(known.len());
        let nearest =
            |matches: &dyn Fn(&String) -> bool| names().filter(|k| matches(k)).map(apart).min();
        let runs = word_runs(written);
        if name == rules_name {
            return Some((Evidence::RulesName, 0));
        }
        if operation.aliases.contains(&name) {
            return Some((Evidence::OtherName, 0));
        }
        if name == operation.without_parameters {
            return Some((Evidence::PathWithoutParameters, 0));
        }
        if let Some(gap) = nearest(&|known| {
            (known.len() >= SHORTEST_PART && runs.contains(known))
                || (name.len() >= SHORTEST_CUT && known.starts_with(&name))
        }) {
            return Some((Evidence::Affixed, gap));
        }
        if states_method_and_path(tool, operation) {
            return Some((Evidence::StatedMethodAndPath, 0));
        }
        if name.len() >= SHORTEST_PART {
            if let Some(gap) = nearest(&|known| {
                known.len() >= SHORTEST_PART
                    && (is_subsequence(&name, known) || is_subsequence(known, &name))
            }) {
                return Some((Evidence::Abbreviated, gap));
            }
        }
        (argument_names(tool) == operation.arguments).then_some((Evidence::SameArguments, 0))
    }
}

/// Evidence that a tool is an operation's, and how far their names are
/// apart within that kind: lower is nearer.
type Found = (Evidence, usize);

/// Why no listed tool could be told to be an operation's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NotFound {
    /// The names of the tools still in the running for it: those with some
    /// evidence for the operation, else every tool left unpaired.
    pub candidates: Vec<String>,
}

/// The index in `listed` (tools as the gateway lists them, JSON) of the
/// tool of the operation the rules name `wanted`, paired as the module's
/// documentation says.
pub fn find(wanted: &str, operations: &[Operation], listed: &[Value]) -> Result<usize, NotFound> {
    let Some(index) = operations.iter().position(|o| o.name == wanted) else {
        return Err(NotFound {
            candidates: Vec::new(),
        });
    };
    let evidence: Vec<Vec<Option<Found>>> = operations
        .iter()
        .map(|operation| {
            listed
                .iter()
                .map(|tool| Evidence::between(operation, tool))
                .collect()
        })
        .collect();
    let pairs = pair(&evidence, listed.len());
    if let Some(tool) = pairs[index] {
        return Ok(tool);
    }
    let unpaired: Vec<usize> = (0..listed.len())
        .filter(|tool| !pairs.contains(&Some(*tool)))
        .collect();
    let pointing: Vec<usize> = unpaired
        .iter()
        .copied()
        .filter(|&tool| evidence[index][tool].is_some())
        .collect();
    let candidates = if pointing.is_empty() {
        unpaired
    } else {
        pointing
    };
    Err(NotFound {
        candidates: candidates
            .into_iter()
            .map(|tool| listed[tool]["name"].as_str().unwrap_or_default().to_owned())
            .collect(),
    })
}

/// Each operation's tool (`evidence[operation][tool]`), where the evidence
/// singles it out: among the evidence at a strength or a stronger one, the
/// tool is the operation's one nearest, and the operation the tool's.
fn pair(evidence: &[Vec<Option<Found>>], tools: usize) -> Vec<Option<usize>> {
    let operations = evidence.len();
    let mut tool_of: Vec<Option<usize>> = vec![None; operations];
    let mut taken = vec![false; tools];
    // The one nearest of `candidates` (index and evidence), if one is.
    let nearest = |candidates: Vec<(usize, Found)>| -> Option<usize> {
        let best = candidates.iter().map(|(_, found)| *found).min()?;
        match candidates
            .iter()
            .filter(|(_, found)| *found == best)
            .collect::<Vec<_>>()[..]
        {
            [(one, _)] => Some(*one),
            _ => None,
        }
    };
    'search: loop {
        for strength in Evidence::STRONGEST_FIRST {
            let mut paired = false;
            for operation in 0..operations {
                if tool_of[operation].is_some() {
                    continue;
                }
                let within =
                    |o: usize, t: usize| evidence[o][t].filter(|found| found.0 <= strength);
                let tools_of_it = (0..tools)
                    .filter(|&t| !taken[t])
                    .filter_map(|t| within(operation, t).map(|found| (t, found)))
                    .collect();
                let Some(tool) = nearest(tools_of_it) else {
                    continue;
                };
                let operations_of_it = (0..operations)
                    .filter(|&o| tool_of[o].is_none())
                    .filter_map(|o| within(o, tool).map(|found| (o, found)))
                    .collect();
                if nearest(operations_of_it) == Some(operation) {
                    tool_of[operation] = Some(tool);
                    taken[tool] = true;
                    paired = true;
                }
            }
            if paired {
                continue 'search;
            }
        }
        break;
    }
    let left: Vec<usize> = (0..operations).filter(|&o| tool_of[o].is_none()).collect();
    let free: Vec<usize> = (0..tools).filter(|&t| !taken[t]).collect();
    if let ([operation], [tool]) = (&left[..], &free[..]) {
        if operations == tools {
            tool_of[*operation] = Some(*tool);
        }
    }
    tool_of
}

/// A call's top-level arguments (`given`, under the rules' names) as a tool
/// that takes the arguments `taken` (its input schema's properties) names
/// them, and where each that moved went. An argument the tool does not take
/// goes under the name of the one it does take that is the same once case
/// and separators are set aside (`X_Trace` for `X-Trace`), or inside the one
/// object of a place that takes it (`{query: {limit}}`); a `body` the tool
/// does not take, whose members it takes as arguments of their own (as
/// gateways that spread the request body do), is spread likewise. Anything
/// else stays as given.
pub fn as_the_gateway_names(
    given: &Map<String, Value>,
    taken: &Map<String, Value>,
) -> (Map<String, Value>, Vec<Moved>) {
    let mut moved = Vec::new();
    let mut out = Map::new();
    for (key, value) in given {
        if let Some(members) = spread_body(key, value, taken, given) {
            moved.push(Moved::to(key, &[]));
            out.extend(members.clone());
            continue;
        }
        let alike: Vec<&String> = taken.keys().filter(|name| stands_for(name, key)).collect();
        let name = match alike[..] {
            [name] if !taken.contains_key(key) && !given.contains_key(name) => name.clone(),
            _ => key.clone(),
        };
        if !taken.contains_key(&name) {
            if let Some((place, member)) = placed_as(&name, taken) {
                if let Value::Object(group) = out
                    .entry(place.clone())
                    .or_insert_with(|| Value::Object(Map::new()))
                {
                    moved.push(Moved::to(key, &[place, member]));
                    group.insert(member.clone(), value.clone());
                    continue;
                }
            }
        }
        if &name != key {
            moved.push(Moved::to(key, &[&name]));
        }
        out.insert(name, value.clone());
    }
    (out, moved)
}

/// An argument a call gave the gateway elsewhere than the rules name it:
/// the rules' name, and the tokens of the JSON Pointer in the gateway's
/// arguments where it went (`["params", "limit"]`; none for a body spread
/// into the arguments).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Moved {
    pub given: String,
    pub to: Vec<String>,
}

impl Moved {
    fn to(given: &str, tokens: &[&String]) -> Self {
        Self {
            given: given.to_owned(),
            to: tokens.iter().map(|token| (*token).clone()).collect(),
        }
    }

    /// `pointer` (into the arguments, as the rules name them) where the
    /// gateway took it, if it starts at this argument: `/tag/0` is
    /// `/params/tag/0` for a tag that went into `params`.
    pub fn rebase(&self, pointer: &str) -> Option<String> {
        let own = format!("/{}", escape_token(&self.given));
        let rest = pointer.strip_prefix(&own)?;
        if !(rest.is_empty() || rest.starts_with('/')) {
            return None;
        }
        let to: String = self
            .to
            .iter()
            .map(|token| format!("/{}", escape_token(token)))
            .collect();
        Some(format!("{to}{rest}"))
    }
}

impl std::fmt::Display for Moved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.to[..] {
            [] => write!(f, "the {}'s members as arguments of their own", self.given),
            [name] => write!(f, "{:?} as {name:?}", self.given),
            tokens => write!(f, "{:?} as {}", self.given, tokens.join(".")),
        }
    }
}

/// Whether the tool's argument `name` stands for the rules' argument
/// `given`: the same once case and separators are set aside, or that with
/// its place before it (`header_X-Tags` for `X-Tags`), or, for the body,
/// any name that ends in it (`request_body`, `requestBody`) or Kubb's
/// `data`.
fn stands_for(name: &str, given: &str) -> bool {
    let (name, given) = (fold(name), fold(given));
    name == given
        || ["header", "query", "path", "cookie"]
            .iter()
            .any(|place| name.strip_prefix(place) == Some(given.as_str()))
        || (given == "body" && (name.ends_with("body") || name == "data"))
}

/// Where the tool takes the argument the rules call `given`, when not under
/// that name: as a JSON Pointer into its input schema, to the one argument
/// that stands for it (`/properties/header_X-Tags`) or to the one member of
/// a place's object that is it (`/properties/params/properties/tag`). `None`
/// when the tool takes it as given, or not in one place that can be told.
pub fn argument_pointer(given: &str, taken: &Map<String, Value>) -> Option<String> {
    if taken.contains_key(given) {
        return None;
    }
    let alike: Vec<&String> = taken
        .keys()
        .filter(|name| stands_for(name, given))
        .collect();
    if let [name] = alike[..] {
        return Some(format!("/properties/{}", escape_token(name)));
    }
    placed_as(given, taken).map(|(place, member)| {
        format!(
            "/properties/{}/properties/{}",
            escape_token(place),
            escape_token(member)
        )
    })
}

/// Where a tool that takes the arguments `taken` holds the place `pointer`
/// of the arguments as the rules name them, when its first name is one the
/// tool takes otherwise (see [`argument_pointer`], and [`body_argument`]
/// for `body`): `/params/limit` for `/limit`. `None` where the tool takes
/// it as written, or not in one place that can be told.
pub fn placed_pointer(pointer: &str, taken: &Map<String, Value>) -> Option<String> {
    let rest = pointer.strip_prefix('/')?;
    let (first, tail) = rest
        .split_once('/')
        .map_or((rest, ""), |(a, _)| (a, &rest[a.len()..]));
    let given = unescape_token(first);
    if taken.contains_key(&given) {
        return None;
    }
    let schema_pointer = match body_argument(taken) {
        Some(body) if given == "body" => format!("/properties/{}", escape_token(body)),
        _ => argument_pointer(&given, taken)?,
    };
    // `/properties/A/properties/B` holds the argument `/A/B`.
    let place: String = schema_pointer
        .split('/')
        .skip(2)
        .step_by(2)
        .map(|token| format!("/{token}"))
        .collect();
    Some(format!("{place}{tail}"))
}

/// The tool's top-level argument that holds the rules' argument `given`:
/// itself, the one that stands for it, or the object of its place.
pub fn holding_argument(given: &str, taken: &Map<String, Value>) -> Option<String> {
    placed_pointer(&format!("/{}", escape_token(given)), taken)
        .map(|place| {
            let first = place[1..].split('/').next().unwrap_or_default();
            unescape_token(first)
        })
        .or_else(|| taken.contains_key(given).then(|| given.to_owned()))
}

/// The one place and member that take the argument `given` inside an
/// object of its place (see [`placed_members`]), if exactly one does.
fn placed_as<'a>(given: &str, taken: &'a Map<String, Value>) -> Option<(&'a String, &'a String)> {
    let placed: Vec<(&String, &String)> = placed_members(taken)
        .into_iter()
        .filter(|(_, member)| fold(member) == fold(given))
        .collect();
    match placed[..] {
        [one] => Some(one),
        _ => None,
    }
}

/// The tool's one argument that stands for the request body (`body`,
/// `requestBody`, `request_body`), if it has exactly one.
pub fn body_argument(taken: &Map<String, Value>) -> Option<&String> {
    let mut bodies = taken.keys().filter(|name| stands_for(name, "body"));
    match (bodies.next(), bodies.next()) {
        (Some(body), None) => Some(body),
        _ => None,
    }
}

/// The argument names some gateways group their arguments under, one
/// object per place (`{path: {id}, query: {limit}, headers: {...}}`, as
/// openmcp does; Kubb's `{params: {limit}, headers: {...}}`), folded.
const PLACES: [&str; 9] = [
    "path",
    "query",
    "params",
    "header",
    "headers",
    "cookie",
    "cookies",
    "pathparams",
    "queryparams",
];

/// The arguments a tool takes inside objects of one per place (see
/// [`PLACES`]): each as its place and its own name.
pub fn placed_members(taken: &Map<String, Value>) -> Vec<(&String, &String)> {
    let mut members = Vec::new();
    for (place, schema) in taken {
        if !PLACES.contains(&fold(place).as_str()) {
            continue;
        }
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            members.extend(properties.keys().map(|member| (place, member)));
        }
    }
    members
}

/// The members of a `body` argument, where the tool takes no `body` but
/// takes each member as an argument that was not given otherwise.
fn spread_body<'a>(
    key: &str,
    value: &'a Value,
    taken: &Map<String, Value>,
    given: &Map<String, Value>,
) -> Option<&'a Map<String, Value>> {
    let members = value.as_object()?;
    let spread = key == "body"
        && !taken.contains_key("body")
        && !members.is_empty()
        && members
            .keys()
            .all(|member| taken.contains_key(member) && !given.contains_key(member));
    spread.then_some(members)
}

/// Whether the tool says, in its description, title or annotations, that
/// it calls the operation: its method (any case) and path, side by side.
fn states_method_and_path(tool: &Value, operation: &Operation) -> bool {
    let said = format!("{} {}", operation.method, operation.path).to_ascii_lowercase();
    let mut texts = vec![&tool["description"], &tool["title"]];
    if let Some(annotations) = tool["annotations"].as_object() {
        texts.extend(annotations.values());
    }
    texts.iter().filter_map(|t| t.as_str()).any(|text| {
        let text = text.to_ascii_lowercase();
        text.match_indices(&said).any(|(at, _)| {
            // The path ends there: `/pets` is not `/pets/{petId}`.
            !text[at + said.len()..]
                .starts_with(|c: char| c == '/' || c == '{' || c.is_alphanumeric())
        })
    })
}

/// The names of a tool's arguments: its input schema's properties.
fn argument_names(tool: &Value) -> BTreeSet<String> {
    tool["inputSchema"]["properties"]
        .as_object()
        .map(|properties| properties.keys().cloned().collect())
        .unwrap_or_default()
}

/// Letters and digits only, lower-cased: `list_pets`, `List-Pets` and
/// `listPets` fold alike.
pub(crate) fn fold(name: &str) -> String {
    name.chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_lowercase())
        .collect()
}

/// Whether `name` is `part` with whole words added before or after it
/// (`api_fallbackA` holds `fallbackA`), or `part` itself, case and
/// separators set aside.
pub(crate) fn holds_name(name: &str, part: &str) -> bool {
    word_runs(name).contains(&fold(part))
}

/// Each run of whole words of a name, folded: a name with a prefix or
/// suffix holds the name it adds to as such a run (`Pets--getPet` holds
/// `getpet`), where a name that merely begins alike does not (`get_shops`
/// holds no `getshop`). Words end at anything but a letter or digit, and
/// before a capital that follows a small letter.
fn word_runs(name: &str) -> BTreeSet<String> {
    let mut words: Vec<String> = Vec::new();
    let mut previous = None;
    for c in name.chars() {
        if !c.is_ascii_alphanumeric() {
            previous = None;
            continue;
        }
        let starts_word = match previous {
            None => true,
            Some(p) => char::is_ascii_lowercase(&p) && c.is_ascii_uppercase(),
        };
        if starts_word {
            words.push(String::new());
        }
        if let Some(word) = words.last_mut() {
            word.push(c.to_ascii_lowercase());
        }
        previous = Some(c);
    }
    let mut runs = BTreeSet::new();
    for start in 0..words.len() {
        for end in start + 1..=words.len() {
            runs.insert(words[start..end].concat());
        }
    }
    runs
}

/// Whether `short` is `long` with some characters left out.
fn is_subsequence(short: &str, long: &str) -> bool {
    let mut rest = long.chars();
    short.chars().all(|c| rest.any(|l| l == c))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn object(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn an_argument_is_found_under_its_name_or_inside_its_place() {
        let taken = object(serde_json::json!({
            "petId": {},
            "header_X-Tags": {},
            "params": {"properties": {"tag": {}, "a/b": {}}},
            "headers": {"properties": {"X-Trace": {}}},
        }));
        let found = |given: &str| argument_pointer(given, &taken);
        assert_eq!(found("petId"), None, "taken as given");
        assert_eq!(
            found("X-Tags").as_deref(),
            Some("/properties/header_X-Tags")
        );
        assert_eq!(
            found("tag").as_deref(),
            Some("/properties/params/properties/tag")
        );
        assert_eq!(
            found("a/b").as_deref(),
            Some("/properties/params/properties/a~1b")
        );
        assert_eq!(
            found("x_trace").as_deref(),
            Some("/properties/headers/properties/X-Trace")
        );
        assert_eq!(found("limit"), None, "taken nowhere");
        // In two places: neither is plainly the one.
        let twice = object(serde_json::json!({
            "query": {"properties": {"id": {}}},
            "path": {"properties": {"id": {}}},
        }));
        assert_eq!(argument_pointer("id", &twice), None);
    }

    #[test]
    fn a_place_is_followed_to_where_the_tool_takes_its_argument() {
        let kubb = object(serde_json::json!({
            "petId": {},
            "params": {"properties": {"limit": {}, "properties": {}}},
            "data": {"type": "object"},
        }));
        let placed = |pointer: &str| placed_pointer(pointer, &kubb);
        assert_eq!(placed("/petId"), None, "taken as written");
        assert_eq!(placed("/limit").as_deref(), Some("/params/limit"));
        assert_eq!(
            placed("/properties/0").as_deref(),
            Some("/params/properties/0")
        );
        assert_eq!(placed("/body/name").as_deref(), Some("/data/name"));
        assert_eq!(placed("/other"), None, "taken nowhere");
        let holding = |given: &str| holding_argument(given, &kubb);
        assert_eq!(holding("limit").as_deref(), Some("params"));
        assert_eq!(holding("body").as_deref(), Some("data"));
        assert_eq!(holding("petId").as_deref(), Some("petId"));
        assert_eq!(holding("other"), None);
        let moved = Moved::to("tag", &[&"params".to_owned(), &"tag".to_owned()]);
        assert_eq!(moved.rebase("/tag/1").as_deref(), Some("/params/tag/1"));
        assert_eq!(moved.rebase("/tags"), None);
        assert_eq!(moved.to_string(), "\"tag\" as params.tag");
    }

    #[test]
    fn arguments_go_under_the_gateways_names_where_one_is_plainly_theirs() {
        let taken = object(serde_json::json!({
            "X_Trace": {}, "limit": {}, "name": {}, "age": {},
        }));
        let given = object(serde_json::json!({
            "X-Trace": "t", "limit": 5, "body": {"name": "Rex", "age": 3},
        }));
        let (out, renamed) = as_the_gateway_names(&given, &taken);
        assert_eq!(
            Value::Object(out),
            serde_json::json!({"X_Trace": "t", "limit": 5, "name": "Rex", "age": 3})
        );
        assert_eq!(renamed.len(), 2, "{renamed:?}");
        // A body with a member the tool does not take, and arguments no
        // name of the tool's stands for, stay as they are.
        let given = object(serde_json::json!({"body": {"name": "Rex", "owner": 1}, "X-Other": 1}));
        let (out, renamed) = as_the_gateway_names(&given, &taken);
        assert_eq!(out, given);
        assert!(renamed.is_empty());
        // Two names of the tool's alike: neither is plainly the one.
        let taken = object(serde_json::json!({"x_trace": {}, "X-TRACE_": {}}));
        let given = object(serde_json::json!({"X-Trace": "t"}));
        assert_eq!(as_the_gateway_names(&given, &taken).0, given);
    }

    #[test]
    fn arguments_go_into_the_object_of_their_place() {
        let taken = object(serde_json::json!({
            "path": {"type": "object", "properties": {"id": {}}},
            "query": {"type": "object", "properties": {"limit": {}, "Q": {}}},
            "headers": {"type": "object", "properties": {"X-Trace": {}}},
            "body": {"type": "object"},
        }));
        let given = object(serde_json::json!({
            "id": "7", "limit": 2, "q": "x", "X_Trace": "t", "body": {"name": "Rex"},
        }));
        let (out, renamed) = as_the_gateway_names(&given, &taken);
        assert_eq!(
            Value::Object(out),
            serde_json::json!({
                "path": {"id": "7"},
                "query": {"limit": 2, "Q": "x"},
                "headers": {"X-Trace": "t"},
                "body": {"name": "Rex"},
            })
        );
        assert_eq!(renamed.len(), 4, "{renamed:?}");
        // A name with its place before it, and a body by another name.
        let taken = object(serde_json::json!({"header_X-Tags": {}, "request_body": {}}));
        let kubb = object(serde_json::json!({
            "params": {"properties": {"limit": {}}}, "data": {"type": "object"},
        }));
        let given = object(serde_json::json!({"limit": 2, "body": {"name": "Rex"}}));
        assert_eq!(
            Value::Object(as_the_gateway_names(&given, &kubb).0),
            serde_json::json!({"params": {"limit": 2}, "data": {"name": "Rex"}})
        );
        let given = object(serde_json::json!({"X-Tags": ["a"], "body": {"name": "Rex"}}));
        assert_eq!(
            Value::Object(as_the_gateway_names(&given, &taken).0),
            serde_json::json!({"header_X-Tags": ["a"], "request_body": {"name": "Rex"}})
        );
        // An object that is no place, and a name two places take, stay put.
        let taken = object(serde_json::json!({
            "filter": {"properties": {"name": {}}},
            "path": {"properties": {"id": {}}},
            "query": {"properties": {"id": {}}},
        }));
        let given = object(serde_json::json!({"name": "Rex", "id": "7"}));
        assert_eq!(as_the_gateway_names(&given, &taken).0, given);
    }

    #[test]
    fn names_operations_as_the_rules_do_in_list_order() {
        let document = r#"
openapi: 3.1.0
paths:
  /pets/{petId}:
    delete: {x-mcp: {name: drop}}
    get: {operationId: getPet}
  /pets:
    post: {x-agentify: add, x-mcp: ignored}
    get: {deprecated: true, operationId: old}
  /a:
    get: {operationId: same}
    put: {operationId: same}
  /ü:
    get: {}
"#;
        let names = |document| -> Vec<String> {
            operations(document, &|_| None)
                .into_iter()
                .map(|o| o.name)
                .collect()
        };
        assert_eq!(
            names(document),
            ["getPet", "drop", "add", "same", "same_2", "get___"]
        );
        assert!(names("{{{").is_empty());
    }

    #[test]
    fn operations_given_by_reference_are_read_from_their_files() {
        let document = r#"
openapi: 3.0.3
paths:
  /pets:
    $ref: "paths/pets.yaml"
  /pets/{id}:
    get: {$ref: "ops/get.yaml#/operation"}
    put: {$ref: "../outside.yaml"}
"#;
        let files = |path: &str| -> Option<String> {
            match path {
                "paths/pets.yaml" => {
                    Some("get: {$ref: 'list.yaml'}\npost: {operationId: addPet}".into())
                }
                "paths/list.yaml" => {
                    Some("operationId: listPets\nparameters: [{name: limit, in: query}]".into())
                }
                "ops/get.yaml" => Some("operation: {operationId: getPet}".into()),
                _ => None,
            }
        };
        let found = operations(document, &files);
        let names: Vec<&str> = found.iter().map(|o| o.name.as_str()).collect();
        // The file outside the document's folder is never read: the rules
        // name that operation by its method and path.
        assert_eq!(names, ["listPets", "addPet", "getPet", "put__pets__id_"]);
        assert_eq!(found[0].arguments, BTreeSet::from(["limit".to_owned()]));
    }

    fn tool(name: &str, description: &str, arguments: &[&str]) -> Value {
        let properties: serde_json::Map<String, Value> = arguments
            .iter()
            .map(|a| ((*a).to_owned(), serde_json::json!({})))
            .collect();
        serde_json::json!({
            "name": name,
            "description": description,
            "inputSchema": {"type": "object", "properties": properties},
        })
    }

    /// The name `find` gives the tool of `wanted` among tools named `names`
    /// (with no description and no arguments), or the candidates it names.
    fn found(document: &str, wanted: &str, names: &[&str]) -> Result<String, Vec<String>> {
        let listed: Vec<Value> = names.iter().map(|name| tool(name, "", &[])).collect();
        find(wanted, &operations(document, &|_| None), &listed)
            .map(|i| names[i].to_owned())
            .map_err(|not_found| not_found.candidates)
    }

    const PETS: &str = r#"
openapi: 3.1.0
paths:
  /pets:
    get: {operationId: listPets, parameters: [{name: limit, in: query}]}
    put: {operationId: replacePets, requestBody: {}}
    post: {operationId: createPet, requestBody: {}}
  /notes:
    post: {operationId: addNote, parameters: [{name: tag, in: query}]}
    get: {operationId: getNotes}
"#;

    const SHOPS: &str = r#"
openapi: 3.1.0
paths:
  /shops/{shopId}/items:
    get: {operationId: listShopItems, summary: Items of a shop}
  /shops/{shopId}:
    get: {operationId: getShop}
  /things:
    post: {operationId: createThing}
"#;

    #[test]
    fn finds_a_tool_named_from_its_method_and_path_in_any_case_and_separator() {
        for named in [
            "get_shops_by_shopid_items",
            "getShopsShopIdItems",
            "GET_shops_shopId_items",
            "get-shops-{shopId}-items",
        ] {
            let names = [named, "get_shops_by_shopid", "post_things"];
            assert_eq!(found(SHOPS, "listShopItems", &names), Ok(named.to_owned()));
            assert_eq!(
                found(SHOPS, "createThing", &names).as_deref(),
                Ok("post_things")
            );
        }
        let names = ["GET_shops_items", "GET_shops", "POST_things"];
        assert_eq!(found(SHOPS, "getShop", &names).as_deref(), Ok("GET_shops"));
        assert_eq!(
            found(SHOPS, "listShopItems", &names).as_deref(),
            Ok("GET_shops_items")
        );
        // The summary, as a slug.
        let names = ["items_of_a_shop", "get_shop", "create_thing"];
        assert_eq!(
            found(SHOPS, "listShopItems", &names).as_deref(),
            Ok("items_of_a_shop")
        );
    }

    #[test]
    fn finds_a_tool_by_its_operation_id_in_any_case_with_affixes_or_shortened() {
        for (named, wanted) in [
            ("list_shop_items", "listShopItems"),
            ("list-shop-items", "listShopItems"),
            ("Shops--getShop", "getShop"),
            ("api_create_thing_v1", "createThing"),
            ("list_shop_ite", "listShopItems"),
        ] {
            let others: Vec<&str> = ["list_shop_items", "get_shop", "create_thing"]
                .into_iter()
                .filter(|other| fold(other) != fold(wanted))
                .collect();
            let names = [&[named][..], &others].concat();
            assert_eq!(
                found(SHOPS, wanted, &names),
                Ok(named.to_owned()),
                "{names:?}"
            );
        }
    }

    #[test]
    fn a_numbered_name_and_the_one_left_are_found() {
        let document = r#"
openapi: 3.1.0
paths:
  /report:
    get: {operationId: dailyReport}
  /report/{id}:
    get: {operationId: reportById}
"#;
        let names = ["get_report", "get_report_1"];
        assert_eq!(
            found(document, "dailyReport", &names).as_deref(),
            Ok("get_report")
        );
        assert_eq!(
            found(document, "reportById", &names).as_deref(),
            Ok("get_report_1")
        );
        // One operation, one tool: whatever its name, it is that tool.
        let one = "openapi: 3.1.0\npaths:\n  /things:\n    post: {operationId: createThing}\n";
        assert_eq!(
            found(one, "createThing", &["do_it"]).as_deref(),
            Ok("do_it")
        );
        // A tool more than there are operations: the one left is not evidence.
        assert_eq!(
            found(one, "createThing", &["do_it", "health"]),
            Err(vec!["do_it".to_owned(), "health".to_owned()])
        );
    }

    #[test]
    fn an_abbreviation_goes_to_the_nearest_name() {
        let mut document = "openapi: 3.1.0\npaths:\n".to_owned();
        for n in 1..=32 {
            document.push_str(&format!(
                "  /things/{n}:\n    get: {{operationId: listThings-{n}}}\n"
            ));
        }
        // lst-things-9 abbreviates listThings-19 and -29 too, but less nearly.
        let names: Vec<String> = (1..=32).rev().map(|n| format!("lst-things-{n}")).collect();
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        for n in [1, 9, 19, 32] {
            let wanted = format!("listThings-{n}");
            assert_eq!(
                found(&document, &wanted, &names),
                Ok(format!("lst-things-{n}"))
            );
        }
    }

    #[test]
    fn finds_a_tool_by_its_name_folded_or_abbreviated() {
        assert_eq!(
            found(PETS, "listPets", &["x", "list-pets"]).as_deref(),
            Ok("list-pets")
        );
        assert_eq!(
            found(PETS, "listPets", &["lst-pets", "add-note"]).as_deref(),
            Ok("lst-pets")
        );
        // Two abbreviations of the same name single out none; both are named.
        assert_eq!(
            found(PETS, "listPets", &["lst", "pets"]),
            Err(vec!["lst".to_owned(), "pets".to_owned()])
        );
    }

    #[test]
    fn finds_a_tool_by_its_method_and_path_or_its_arguments_never_its_place() {
        let operations = operations(PETS, &|_| None);
        let add_note = operations.iter().find(|o| o.name == "addNote").unwrap();
        assert_eq!(add_note.arguments, BTreeSet::from(["tag".to_owned()]));
        // Named after nothing of the operation, listed with methods as
        // written: the place in the list would make the third the tool of
        // createPet.
        let listed = [
            tool("q1", "GET /pets", &["limit"]),
            tool("q2", "POST /pets", &["body"]),
            tool("q3", "PUT /pets", &["body"]),
            tool("q4", "", &["tag"]),
            tool("q5", "", &[]),
        ];
        assert_eq!(find("createPet", &operations, &listed), Ok(1));
        assert_eq!(find("replacePets", &operations, &listed), Ok(2));
        // No method and path said: the arguments single out the operation.
        assert_eq!(find("addNote", &operations, &listed), Ok(3));
        // And the one left is the one left.
        assert_eq!(find("getNotes", &operations, &listed), Ok(4));
        // Nothing tells createPet's tool from replacePets's (the same
        // arguments, nothing said): the place in the list is no evidence.
        let silent = [
            tool("q1", "", &["limit"]),
            tool("q2", "", &["body"]),
            tool("q3", "", &["body"]),
            tool("q4", "", &["tag"]),
            tool("q5", "", &[]),
        ];
        assert_eq!(
            find("createPet", &operations, &silent).map_err(|n| n.candidates),
            Err(vec!["q2".to_owned(), "q3".to_owned()])
        );
        assert_eq!(find("listPets", &operations, &silent), Ok(0));
        // A longer path is not the operation's.
        let longer = [tool("q1", "GET /pets/{petId}", &[]), tool("q2", "", &[])];
        assert!(find("listPets", &operations, &longer).is_err());
    }
}

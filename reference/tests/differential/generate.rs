//! Instances for a reduced schema (see `oracle.rs`), from a seed: a valid
//! one, or the same one with one place changed, to something wrong or to a
//! boundary that is still right.
//!
//! The generator aims at valid instances but does not guarantee them: both
//! validators judge whatever it makes, so an instance it gets wrong is one
//! more comparison, not a false alarm.

use serde_json::{json, Map, Number, Value};

/// Nodes an instance may have before optional members and extra items stop
/// being added: keeps instances of large schemas small.
const NODE_BUDGET: usize = 300;

/// Below this depth optional members are only added while the budget lasts;
/// past it, only required ones, so recursive schemas end.
const DEEPEST_OPTIONAL: usize = 12;

/// A schema requiring members this deep is taken as unsatisfiable.
const DEEPEST: usize = 24;

/// SplitMix64: small, fast, and the same sequence everywhere for a seed.
#[derive(Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub fn below(&mut self, n: u64) -> u64 {
        if n == 0 {
            0
        } else {
            self.next() % n
        }
    }

    fn chance(&mut self, one_in: u64) -> bool {
        self.below(one_in) == 0
    }

    fn pick<'a, T>(&mut self, choices: &'a [T]) -> &'a T {
        &choices[self.below(choices.len() as u64) as usize]
    }
}

/// The one place an instance was changed.
#[derive(Debug, Clone)]
pub struct Mutation {
    /// JSON Pointer into the instance.
    pub at: String,
    /// JSON Pointer into the reduced schema of the value changed.
    pub schema: String,
    pub change: &'static str,
}

/// The instance for `seed`: valid, or, with `mutate`, changed in one place
/// chosen uniformly among the valid instance's values.
pub fn instance(root: &Value, seed: u64, mutate: bool) -> (Value, Option<Mutation>) {
    let mut generator = Generator::new(root, seed, None);
    let valid = generator.root();
    if !mutate {
        return (valid, None);
    }
    // The same seed makes the same values up to the changed one.
    let target = Rng::new(!seed).below(generator.count as u64) as usize;
    let mut generator = Generator::new(root, seed, Some(target));
    let changed = generator.root();
    (changed, generator.mutation)
}

/// A schema met on the way, with its pointer in the reduced schema.
#[derive(Clone)]
struct Part<'s> {
    pointer: String,
    schema: &'s Value,
}

impl<'s> Part<'s> {
    fn keyword(&self, name: &str) -> Option<&'s Value> {
        self.schema.get(name)
    }

    fn child(&self, path: &str, schema: &'s Value) -> Part<'s> {
        Part {
            pointer: format!("{}/{path}", self.pointer),
            schema,
        }
    }
}

/// The concrete kinds of value the generator makes; `Number` is a number
/// with a fraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Null,
    Boolean,
    Object,
    Array,
    Integer,
    Number,
    String,
}

const KINDS: [Kind; 7] = [
    Kind::Null,
    Kind::Boolean,
    Kind::Object,
    Kind::Array,
    Kind::Integer,
    Kind::Number,
    Kind::String,
];

impl Kind {
    fn admitted_by(self, part: &Part) -> bool {
        let names: Vec<&str> = match part.keyword("type") {
            Some(Value::String(name)) => vec![name.as_str()],
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => return true,
        };
        names.iter().any(|name| {
            matches!(
                (self, *name),
                (Kind::Null, "null")
                    | (Kind::Boolean, "boolean")
                    | (Kind::Object, "object")
                    | (Kind::Array, "array")
                    | (Kind::Integer, "integer" | "number")
                    | (Kind::Number, "number")
                    | (Kind::String, "string")
            )
        })
    }

    /// Keywords that only a value of this kind is checked by.
    fn keywords(self) -> &'static [&'static str] {
        match self {
            Kind::Object => &["properties", "required", "additionalProperties"],
            Kind::Array => &["items", "prefixItems", "minItems", "maxItems"],
            Kind::String => &["minLength", "maxLength", "format"],
            Kind::Integer | Kind::Number => {
                &["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"]
            }
            Kind::Null | Kind::Boolean => &[],
        }
    }
}

struct Generator<'s> {
    root: &'s Value,
    rng: Rng,
    /// Values made so far, in the order made.
    count: usize,
    /// The index of the value to change.
    target: Option<usize>,
    mutation: Option<Mutation>,
}

impl<'s> Generator<'s> {
    fn new(root: &'s Value, seed: u64, target: Option<usize>) -> Generator<'s> {
        Generator {
            root,
            rng: Rng::new(seed),
            count: 0,
            target,
            mutation: None,
        }
    }

    fn root(&mut self) -> Value {
        let part = Part {
            pointer: "#".to_owned(),
            schema: self.root,
        };
        self.value(vec![part], 0, "")
    }

    /// Follows `$ref`s, so the parts are every schema the value must meet.
    fn expand(&self, parts: Vec<Part<'s>>) -> Vec<Part<'s>> {
        let mut all = parts;
        let mut next = 0;
        while next < all.len() && all.len() < 32 {
            let reference = all[next].keyword("$ref").and_then(Value::as_str);
            if let Some(name) = reference.and_then(|r| r.strip_prefix("#/$defs/")) {
                if let Some(target) = self.root.get("$defs").and_then(|defs| defs.get(name)) {
                    let pointer = format!("#/$defs/{name}");
                    if !all.iter().any(|part| part.pointer == pointer) {
                        all.push(Part {
                            pointer,
                            schema: target,
                        });
                    }
                }
            }
            next += 1;
        }
        all
    }

    fn value(&mut self, parts: Vec<Part<'s>>, depth: usize, at: &str) -> Value {
        let parts = self.expand(parts);
        let index = self.count;
        self.count += 1;
        if Some(index) == self.target {
            return self.mutant(&parts, depth, at);
        }
        self.valid(&parts, depth, at)
    }

    fn valid(&mut self, parts: &[Part<'s>], depth: usize, at: &str) -> Value {
        if depth > DEEPEST || parts.iter().any(|part| part.schema == &Value::Bool(false)) {
            return Value::Null;
        }
        if let Some(constant) = parts.iter().find_map(|part| part.keyword("const")) {
            return constant.clone();
        }
        let allowed = parts
            .iter()
            .filter_map(|part| part.keyword("enum").and_then(Value::as_array))
            .find(|values| !values.is_empty());
        if let Some(values) = allowed {
            return self.rng.pick(values).clone();
        }
        match self.kind(parts) {
            Kind::Null => Value::Null,
            Kind::Boolean => Value::Bool(self.rng.chance(2)),
            Kind::Object => Value::Object(self.object(parts, depth, at)),
            Kind::Array => Value::Array(self.array(parts, depth, at, None)),
            Kind::Integer => self.integer(parts),
            Kind::Number => self.fraction(parts),
            Kind::String => Value::String(self.string(parts)),
        }
    }

    /// A kind every part admits, preferring one whose keywords the parts use.
    fn kind(&mut self, parts: &[Part<'s>]) -> Kind {
        let admitted: Vec<Kind> = KINDS
            .into_iter()
            .filter(|kind| parts.iter().all(|part| kind.admitted_by(part)))
            .collect();
        let hinted: Vec<Kind> = admitted
            .iter()
            .copied()
            .filter(|kind| {
                kind.keywords()
                    .iter()
                    .any(|keyword| parts.iter().any(|part| part.keyword(keyword).is_some()))
            })
            .collect();
        if !hinted.is_empty() {
            *self.rng.pick(&hinted)
        } else if !admitted.is_empty() {
            *self.rng.pick(&admitted)
        } else {
            Kind::Null
        }
    }

    fn object(&mut self, parts: &[Part<'s>], depth: usize, at: &str) -> Map<String, Value> {
        let mut names: Vec<&'s str> = Vec::new();
        let mut required: Vec<&'s str> = Vec::new();
        for part in parts {
            if let Some(Value::Object(properties)) = part.keyword("properties") {
                for name in properties.keys() {
                    if !names.contains(&name.as_str()) {
                        names.push(name);
                    }
                }
            }
            for name in part
                .keyword("required")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
            {
                if !required.contains(&name) {
                    required.push(name);
                }
            }
        }
        let optional = names.len().saturating_sub(required.len()).max(1) as u64;
        let mut object = Map::new();
        for name in &names {
            let include = required.contains(name)
                || (depth < DEEPEST_OPTIONAL
                    && self.count < NODE_BUDGET
                    && self.rng.below(optional.max(6)) < 3);
            if include {
                let value = self.member(parts, name, depth, at);
                object.insert((*name).to_owned(), value);
            }
        }
        for name in required {
            if !object.contains_key(name) {
                let value = self.member(parts, name, depth, at);
                object.insert(name.to_owned(), value);
            }
        }
        object
    }

    /// The value of member `name`: it must meet each part's property schema
    /// for that name, or else the part's `additionalProperties`.
    fn member(&mut self, parts: &[Part<'s>], name: &str, depth: usize, at: &str) -> Value {
        let escaped = escape(name);
        let mut schemas = Vec::new();
        for part in parts {
            let property = part
                .keyword("properties")
                .and_then(|properties| properties.get(name));
            match (property, part.keyword("additionalProperties")) {
                (Some(schema), _) => {
                    schemas.push(part.child(&format!("properties/{escaped}"), schema));
                }
                (None, Some(schema)) => {
                    schemas.push(part.child("additionalProperties", schema));
                }
                (None, None) => {}
            }
        }
        self.value(schemas, depth + 1, &format!("{at}/{escaped}"))
    }

    /// Items for the parts; `length` overrides the count the parts ask for.
    fn array(
        &mut self,
        parts: &[Part<'s>],
        depth: usize,
        at: &str,
        length: Option<usize>,
    ) -> Vec<Value> {
        let prefix = parts
            .iter()
            .filter_map(|part| part.keyword("prefixItems").and_then(Value::as_array))
            .map(Vec::len)
            .max()
            .unwrap_or(0);
        let items: Vec<Part<'s>> = parts
            .iter()
            .filter_map(|part| {
                part.keyword("items")
                    .map(|items| part.child("items", items))
            })
            .collect();
        let (min, max) = item_bounds(parts);
        let max = if items.iter().any(|part| part.schema == &Value::Bool(false)) {
            max.map_or(prefix, |max| max.min(prefix))
        } else {
            max.unwrap_or(usize::MAX)
        };
        let length = length.unwrap_or_else(|| {
            if self.count >= NODE_BUDGET || depth >= DEEPEST_OPTIONAL {
                min
            } else {
                (min + self.rng.below(3) as usize).min(max).max(min)
            }
        });
        (0..length)
            .map(|index| {
                let here = format!("{at}/{index}");
                if index < prefix {
                    self.value(Vec::new(), depth + 1, &here)
                } else {
                    self.value(items.clone(), depth + 1, &here)
                }
            })
            .collect()
    }

    fn integer(&mut self, parts: &[Part<'s>]) -> Value {
        let (low, high) = number_bounds(parts);
        let low = low.map(|(bound, exclusive)| {
            if exclusive {
                bound.floor() + 1.0
            } else {
                bound.ceil()
            }
        });
        let high = high.map(|(bound, exclusive)| {
            if exclusive {
                bound.ceil() - 1.0
            } else {
                bound.floor()
            }
        });
        let spread = self.rng.below(20) as f64;
        let chosen = match (low, high) {
            (Some(low), Some(high)) if high > low => low + (spread % (high - low + 1.0)),
            (Some(low), _) => low + spread,
            (None, Some(high)) => high - spread,
            (None, None) => spread - 10.0,
        };
        integral(chosen)
    }

    fn fraction(&mut self, parts: &[Part<'s>]) -> Value {
        let (low, high) = number_bounds(parts);
        let offset = (self.rng.below(40) as f64 + 1.0) / 4.0 + 0.125;
        let chosen = match (low, high) {
            (Some((low, _)), Some((high, _))) => low + (high - low) * (offset / 11.0).fract(),
            (Some((low, _)), None) => low + offset,
            (None, Some((high, _))) => high - offset,
            (None, None) => offset - 5.0,
        };
        Number::from_f64(chosen).map_or(Value::Null, Value::Number)
    }

    fn string(&mut self, parts: &[Part<'s>]) -> String {
        if let Some(format) = parts
            .iter()
            .find_map(|part| part.keyword("format").and_then(Value::as_str))
        {
            return self.formatted(format);
        }
        let (min, max) = length_bounds(parts);
        let length = (min + self.rng.below(6) as usize).min(max.unwrap_or(usize::MAX));
        self.text(length.max(min))
    }

    /// `length` characters, some of them more than one byte long.
    fn text(&mut self, length: usize) -> String {
        const CHARACTERS: [char; 8] = ['a', 'b', 'z', '0', '-', 'é', '中', '😀'];
        (0..length).map(|_| *self.rng.pick(&CHARACTERS)).collect()
    }

    fn formatted(&mut self, format: &str) -> String {
        let year = 1970 + self.rng.below(80);
        let month = 1 + self.rng.below(12);
        let day = 1 + self.rng.below(28);
        match format {
            "date" => format!("{year:04}-{month:02}-{day:02}"),
            "date-time" => {
                let (hour, minute, second) =
                    (self.rng.below(24), self.rng.below(60), self.rng.below(60));
                let zone = *self.rng.pick(&["Z", "+05:30", "-08:00", ".125Z"]);
                format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}{zone}")
            }
            "email" => format!("user{}@example.com", self.rng.below(1000)),
            "uuid" => {
                let hex = format!("{:016x}{:016x}", self.rng.next(), self.rng.next());
                format!(
                    "{}-{}-{}-{}-{}",
                    &hex[..8],
                    &hex[8..12],
                    &hex[12..16],
                    &hex[16..20],
                    &hex[20..]
                )
            }
            _ => "text".to_owned(),
        }
    }

    /// A value near `parts`: wrong in one way, or right at an edge.
    fn mutant(&mut self, parts: &[Part<'s>], depth: usize, at: &str) -> Value {
        let mut changes: Vec<&'static str> = vec!["wrong type"];
        let has = |keyword: &str| parts.iter().any(|part| part.keyword(keyword).is_some());
        let admits = |kind: Kind| parts.iter().all(|part| kind.admitted_by(part));
        if has("enum") || has("const") {
            changes.extend(["not allowed value", "numeric twin"]);
        }
        if admits(Kind::String) {
            changes.extend(["short string", "long string", "wide string"]);
            if has("format") {
                changes.push("bad format");
            }
        }
        if admits(Kind::Integer) || admits(Kind::Number) {
            changes.extend([
                "at lower bound",
                "below bound",
                "at upper bound",
                "above bound",
            ]);
            changes.extend(["fraction", "integral float"]);
        }
        if admits(Kind::Object) {
            changes.extend(["missing member", "extra member"]);
        }
        if admits(Kind::Array) {
            changes.extend(["too few items", "too many items"]);
        }
        let change = *self.rng.pick(&changes);
        self.mutation = Some(Mutation {
            at: at.to_owned(),
            schema: parts
                .first()
                .map_or_else(|| "(none)".to_owned(), |part| part.pointer.clone()),
            change,
        });
        match change {
            "wrong type" => {
                let others: Vec<Value> = [
                    json!(null),
                    json!(true),
                    json!(7),
                    json!(0.5),
                    json!("x"),
                    json!([]),
                    json!({}),
                ]
                .into_iter()
                .filter(|value| !parts.iter().all(|part| kind_of(value).admitted_by(part)))
                .collect();
                if others.is_empty() {
                    json!(null)
                } else {
                    self.rng.pick(&others).clone()
                }
            }
            "not allowed value" | "numeric twin" => {
                let allowed: Vec<&Value> = parts
                    .iter()
                    .filter_map(|part| part.keyword("const"))
                    .chain(
                        parts
                            .iter()
                            .filter_map(|part| part.keyword("enum").and_then(Value::as_array))
                            .flatten(),
                    )
                    .collect();
                let Some(&model) = allowed.get(self.rng.below(allowed.len() as u64) as usize)
                else {
                    return json!("none of these");
                };
                near(model, change == "numeric twin")
            }
            "short string" | "long string" | "wide string" => {
                let (min, max) = length_bounds(parts);
                let length = match change {
                    "short string" => min.saturating_sub(usize::from(self.rng.chance(2))),
                    _ => max.map_or(min + 1, |max| max + usize::from(self.rng.chance(2))),
                };
                Value::String(if change == "wide string" {
                    "😀".repeat(length.min(10_000))
                } else {
                    self.text(length.min(10_000))
                })
            }
            "bad format" => {
                let format = parts
                    .iter()
                    .find_map(|part| part.keyword("format").and_then(Value::as_str))
                    .unwrap_or("");
                let wrong: &[&str] = match format {
                    "date" => &["2023-02-29", "2024-1-01", "2024-04-31", "20240101"],
                    "date-time" => &[
                        "2024-02-30T10:00:00Z",
                        "2024-01-01 10:00:00Z",
                        "2024-01-01T10:00:00",
                        "2024-01-01T24:00:00Z",
                    ],
                    "email" => &[
                        "no-at.example.com",
                        "a@b@example.com",
                        "@example.com",
                        "a b@c.d",
                    ],
                    _ => &[
                        "123e4567-e89b-12d3-a456-42661417400g",
                        "123e4567e89b12d3a456426614174000",
                        "123e4567-e89b-12d3-a456",
                    ],
                };
                json!(*self.rng.pick(wrong))
            }
            "at lower bound" | "below bound" | "at upper bound" | "above bound" => {
                let lower = change.contains("lower") || change.contains("below");
                let bound = parts.iter().find_map(|part| {
                    let keywords: [&str; 2] = if lower {
                        ["minimum", "exclusiveMinimum"]
                    } else {
                        ["maximum", "exclusiveMaximum"]
                    };
                    keywords.iter().find_map(|keyword| part.keyword(keyword))
                });
                let Some(bound) = bound.and_then(Value::as_f64) else {
                    return integral(if lower { -1.0 } else { 1e6 });
                };
                if change.starts_with("at") {
                    return bound_value(bound, self.rng.chance(2));
                }
                let step = if self.rng.chance(2) { 1.0 } else { 0.5 };
                let moved = if lower { bound - step } else { bound + step };
                bound_value(moved, step == 1.0)
            }
            "fraction" => json!(self.rng.below(100) as f64 + 0.5),
            "integral float" => {
                let whole = self.integer(parts);
                json!(whole.as_f64().unwrap_or(0.0))
            }
            "missing member" => {
                let mut object = self.object(parts, depth, at);
                let required: Vec<String> = parts
                    .iter()
                    .filter_map(|part| part.keyword("required").and_then(Value::as_array))
                    .flatten()
                    .filter_map(Value::as_str)
                    .map(str::to_owned)
                    .collect();
                if !required.is_empty() {
                    object.remove(self.rng.pick(&required).as_str());
                }
                Value::Object(object)
            }
            "extra member" => {
                let mut object = self.object(parts, depth, at);
                let name = self.extra_name(parts);
                object.insert(name, json!(self.rng.below(3)));
                Value::Object(object)
            }
            _ => {
                let (min, max) = item_bounds(parts);
                let length = if change == "too few items" {
                    min.saturating_sub(1)
                } else {
                    let prefix = parts
                        .iter()
                        .filter_map(|part| part.keyword("prefixItems").and_then(Value::as_array))
                        .map(Vec::len)
                        .max()
                        .unwrap_or(0);
                    max.unwrap_or(prefix).max(prefix) + 1
                };
                Value::Array(self.array(parts, depth, at, Some(length.min(64))))
            }
        }
    }

    /// A member name the parts may not name: a near miss of a property, or a
    /// name a `patternProperties` pattern may or may not match.
    fn extra_name(&mut self, parts: &[Part<'s>]) -> String {
        let mut candidates = vec!["extra".to_owned()];
        for part in parts {
            if let Some(Value::Object(properties)) = part.keyword("properties") {
                if let Some(name) = properties.keys().next() {
                    candidates.push(format!("{name}_"));
                    candidates.push(name.to_uppercase());
                }
            }
            if let Some(Value::Object(patterns)) = part.keyword("patternProperties") {
                for pattern in patterns.keys() {
                    let name = sample_name(pattern);
                    candidates.push(format!("{name}z"));
                    candidates.push(format!("z{name}"));
                    candidates.push(name);
                }
            }
        }
        self.rng.pick(&candidates).clone()
    }
}

/// The kind of a value, for checking a `type`.
fn kind_of(value: &Value) -> Kind {
    match value {
        Value::Null => Kind::Null,
        Value::Bool(_) => Kind::Boolean,
        Value::Object(_) => Kind::Object,
        Value::Array(_) => Kind::Array,
        Value::String(_) => Kind::String,
        Value::Number(number) if number.as_f64().is_some_and(|f| f.fract() == 0.0) => Kind::Integer,
        Value::Number(_) => Kind::Number,
    }
}

/// A value close to `model`: equal by JSON Schema's numbers (`1.0` for `1`)
/// when `twin`, different otherwise.
fn near(model: &Value, twin: bool) -> Value {
    match (model, twin) {
        (Value::Number(number), true) => match number.as_f64() {
            Some(f) if f.fract() == 0.0 && (number.is_i64() || number.is_u64()) => json!(f),
            Some(f) if f.fract() == 0.0 => integral(f),
            _ => model.clone(),
        },
        (Value::Number(number), false) => json!(number.as_f64().unwrap_or(0.0) + 0.5),
        (Value::String(text), _) => json!(format!("{text}~")),
        (Value::Bool(flag), _) => json!(!flag),
        (Value::Null, _) => json!(0),
        (Value::Array(items), _) => {
            let mut items = items.clone();
            items.push(json!(null));
            Value::Array(items)
        }
        (Value::Object(members), _) => {
            let mut members = members.clone();
            members.insert("~".to_owned(), json!(null));
            Value::Object(members)
        }
    }
}

/// A bound, as an integer when it is integral and `whole` says so.
fn bound_value(value: f64, whole: bool) -> Value {
    if whole && value.fract() == 0.0 {
        integral(value)
    } else {
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

/// An integral number as a JSON integer where it fits one.
fn integral(value: f64) -> Value {
    if value.abs() < 9.0e15 {
        json!(value as i64)
    } else {
        Number::from_f64(value).map_or(Value::Null, Value::Number)
    }
}

/// The tightest lower and upper bound over the parts, each with whether it
/// is exclusive.
type Bound = Option<(f64, bool)>;

fn number_bounds(parts: &[Part]) -> (Bound, Bound) {
    let mut low: Bound = None;
    let mut high: Bound = None;
    for part in parts {
        for (keyword, exclusive) in [("minimum", false), ("exclusiveMinimum", true)] {
            if let Some(bound) = part.keyword(keyword).and_then(Value::as_f64) {
                if low.is_none_or(|(current, _)| bound > current) {
                    low = Some((bound, exclusive));
                }
            }
        }
        for (keyword, exclusive) in [("maximum", false), ("exclusiveMaximum", true)] {
            if let Some(bound) = part.keyword(keyword).and_then(Value::as_f64) {
                if high.is_none_or(|(current, _)| bound < current) {
                    high = Some((bound, exclusive));
                }
            }
        }
    }
    (low, high)
}

fn count_bounds(parts: &[Part], min: &str, max: &str) -> (usize, Option<usize>) {
    let read = |part: &Part, keyword: &str| {
        part.keyword(keyword)
            .and_then(Value::as_f64)
            .map(|count| count.min(10_000.0) as usize)
    };
    let low = parts.iter().filter_map(|part| read(part, min)).max();
    let high = parts.iter().filter_map(|part| read(part, max)).min();
    (low.unwrap_or(0), high)
}

fn length_bounds(parts: &[Part]) -> (usize, Option<usize>) {
    count_bounds(parts, "minLength", "maxLength")
}

fn item_bounds(parts: &[Part]) -> (usize, Option<usize>) {
    count_bounds(parts, "minItems", "maxItems")
}

/// RFC 6901 escaping of one pointer segment.
fn escape(name: &str) -> String {
    name.replace('~', "~0").replace('/', "~1")
}

/// A name that a simple pattern is likely to match: each literal character
/// kept, a class or wildcard as one character it allows, a count repeated.
fn sample_name(pattern: &str) -> String {
    let mut name = String::new();
    let mut characters = pattern.chars().peekable();
    while let Some(character) = characters.next() {
        match character {
            '^' | '$' | '(' | ')' | '?' | '*' | '+' => {}
            '|' => break,
            '.' => name.push('a'),
            '\\' => match characters.next() {
                Some('d') => name.push('1'),
                Some('w' | 's' | 'S' | 'W' | 'D') => name.push('a'),
                Some(other) => name.push(other),
                None => {}
            },
            '[' => {
                let mut first = None;
                for inside in characters.by_ref() {
                    if inside == ']' {
                        break;
                    }
                    if first.is_none() && inside != '^' {
                        first = Some(inside);
                    }
                }
                name.push(first.unwrap_or('a'));
            }
            '{' => {
                let count: String = characters.by_ref().take_while(|c| *c != '}').collect();
                let times: usize = count
                    .split(',')
                    .next()
                    .and_then(|n| n.trim().parse().ok())
                    .unwrap_or(1);
                if let Some(last) = name.pop() {
                    name.extend(std::iter::repeat_n(last, times.min(8)));
                }
            }
            other => name.push(other),
        }
    }
    name
}

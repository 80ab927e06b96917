//! What a failed check reports: where, and what is wrong, never the value sent.

use std::fmt;

use serde_json::{Number, Value};

use super::format::Format;
use super::json;

/// One wrong place in the arguments (TC-CHECK-013).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// RFC 6901 pointer from the arguments object, e.g. `/body/tags/2`.
    pub pointer: String,
    pub problem: Problem,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.pointer.is_empty() {
            write!(f, "the arguments: {}", self.problem)
        } else {
            write!(f, "{}: {}", self.pointer, self.problem)
        }
    }
}

/// What is wrong at a place. The texts name the schema's bounds but never the
/// value that was sent (TC-CHECK-014).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    Missing,
    WrongType { expected: TypeSet, found: JsonType },
    NotAllowed,
    TooShort { min: u64 },
    TooLong { max: u64 },
    TooFewItems { min: u64 },
    TooManyItems { max: u64 },
    BelowMinimum { bound: Number, exclusive: bool },
    AboveMaximum { bound: Number, exclusive: bool },
    NotInEnum,
    NotConst,
    BadFormat { format: Format },
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Problem::Missing => f.write_str("is required but missing"),
            Problem::WrongType { expected, found } => {
                write!(f, "must be {expected}, not {found}")
            }
            Problem::NotAllowed => f.write_str("is not allowed here"),
            Problem::TooShort { min } => write!(f, "must be at least {min} characters long"),
            Problem::TooLong { max } => write!(f, "must be at most {max} characters long"),
            Problem::TooFewItems { min } => write!(f, "must have at least {min} items"),
            Problem::TooManyItems { max } => write!(f, "must have at most {max} items"),
            Problem::BelowMinimum {
                bound,
                exclusive: false,
            } => {
                write!(f, "must be at least {bound}")
            }
            Problem::BelowMinimum {
                bound,
                exclusive: true,
            } => {
                write!(f, "must be greater than {bound}")
            }
            Problem::AboveMaximum {
                bound,
                exclusive: false,
            } => {
                write!(f, "must be at most {bound}")
            }
            Problem::AboveMaximum {
                bound,
                exclusive: true,
            } => {
                write!(f, "must be less than {bound}")
            }
            Problem::NotInEnum => f.write_str("is not one of the allowed values"),
            Problem::NotConst => f.write_str("does not equal the required constant"),
            Problem::BadFormat { format } => write!(f, "must be a valid {format}"),
        }
    }
}

/// The JSON Schema types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum JsonType {
    Null,
    Boolean,
    Object,
    Array,
    Number,
    String,
    Integer,
}

impl JsonType {
    const ALL: [JsonType; 7] = [
        JsonType::Null,
        JsonType::Boolean,
        JsonType::Object,
        JsonType::Array,
        JsonType::Number,
        JsonType::Integer,
        JsonType::String,
    ];

    /// The narrowest type of a value: an integral number is an integer.
    pub fn of(value: &Value) -> JsonType {
        match value {
            Value::Null => JsonType::Null,
            Value::Bool(_) => JsonType::Boolean,
            Value::Object(_) => JsonType::Object,
            Value::Array(_) => JsonType::Array,
            Value::String(_) => JsonType::String,
            Value::Number(number) if json::is_integer(number) => JsonType::Integer,
            Value::Number(_) => JsonType::Number,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            JsonType::Null => "null",
            JsonType::Boolean => "boolean",
            JsonType::Object => "object",
            JsonType::Array => "array",
            JsonType::Number => "number",
            JsonType::String => "string",
            JsonType::Integer => "integer",
        }
    }

    fn from_name(name: &str) -> Option<JsonType> {
        JsonType::ALL.into_iter().find(|kind| kind.name() == name)
    }

    #[inline]
    fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for JsonType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let article = match self {
            JsonType::Null => return f.write_str("null"),
            JsonType::Object | JsonType::Array | JsonType::Integer => "an",
            _ => "a",
        };
        write!(f, "{article} {}", self.name())
    }
}

/// The types a `type` keyword admits (TC-CHECK-001).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TypeSet(u8);

impl TypeSet {
    /// Reads `"type": "string"` or `"type": ["string", "null"]`; unknown names
    /// are ignored, and a keyword naming no known type checks nothing.
    pub fn from_keyword(keyword: &Value) -> Option<TypeSet> {
        let bits = match keyword {
            Value::String(name) => JsonType::from_name(name).map_or(0, JsonType::bit),
            Value::Array(names) => names
                .iter()
                .filter_map(Value::as_str)
                .filter_map(JsonType::from_name)
                .fold(0, |bits, kind| bits | kind.bit()),
            _ => 0,
        };
        (bits != 0).then_some(TypeSet(bits))
    }

    /// The set of one type.
    pub fn only(kind: JsonType) -> TypeSet {
        TypeSet(kind.bit())
    }

    #[inline]
    pub fn contains(self, kind: JsonType) -> bool {
        self.0 & kind.bit() != 0
    }

    /// Whether the value is of an admitted type; an integer is a number too.
    #[inline]
    pub fn admits(self, value: &Value) -> bool {
        match value {
            Value::Null => self.contains(JsonType::Null),
            Value::Bool(_) => self.contains(JsonType::Boolean),
            Value::Object(_) => self.contains(JsonType::Object),
            Value::Array(_) => self.contains(JsonType::Array),
            Value::String(_) => self.contains(JsonType::String),
            Value::Number(number) => {
                self.contains(JsonType::Number)
                    || (self.contains(JsonType::Integer) && json::is_integer(number))
            }
        }
    }
}

impl fmt::Display for TypeSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut first = true;
        for kind in JsonType::ALL
            .into_iter()
            .filter(|kind| self.contains(*kind))
        {
            if !first {
                f.write_str(" or ")?;
            }
            write!(f, "{kind}")?;
            first = false;
        }
        Ok(())
    }
}

//! A broken invariant, and how the `assert_` twins report one.

use std::fmt;

/// A broken invariant: the rule, what was wrong, and the evidence.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation(pub String);

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Violation {}

/// Panics with the violation's message, pointing at the caller.
#[track_caller]
pub(crate) fn holds(result: Result<(), Violation>) {
    if let Err(violation) = result {
        panic!("{violation}");
    }
}

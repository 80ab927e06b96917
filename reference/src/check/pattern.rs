//! Just enough of a `patternProperties` pattern to know when a name cannot
//! match it, without a regular-expression engine.
//!
//! Patterns are not checked (TC-CHECK-012), but they decide what
//! `additionalProperties` is about: a member whose name matches a pattern is
//! not additional. So each pattern is read for the literal text every match
//! must begin with, and a name is only treated as additional when it does not
//! contain that text (or, for a pattern anchored with `^`, does not start with
//! it). Whatever is not understood widens the guess, never narrows it: a
//! pattern with an alternation at its top level, one that does not parse, or
//! one that starts with anything but a literal may match every name.

/// What the checker knows of one pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct NamePattern {
    /// Text that every match of the pattern begins with; empty when nothing
    /// is known, and then every name may match.
    literal: Box<str>,
    /// The pattern starts with `^`: matches begin at the start of the name.
    anchored: bool,
}

impl NamePattern {
    /// Reads an ECMA-262 pattern as JSON Schema writes them.
    pub fn new(pattern: &str) -> NamePattern {
        let anything = NamePattern {
            literal: Box::from(""),
            anchored: false,
        };
        if !plainly_formed(pattern) {
            return anything;
        }
        let (anchored, rest) = match pattern.strip_prefix('^') {
            Some(rest) => (true, rest),
            None => (false, pattern),
        };
        let mut literal = String::new();
        let mut characters = rest.chars();
        let mut stopped_at = None;
        while let Some(character) = characters.next() {
            match character {
                '^' | '$' | '.' | '*' | '+' | '?' | '(' | ')' | '[' | ']' | '{' | '}' | '|' => {
                    stopped_at = Some(character);
                    break;
                }
                '\\' => match characters.next() {
                    // `\d`, `\w`, `\b`, `\1`, `\u0041`, …: not one literal character.
                    Some(escaped) if escaped.is_ascii_alphanumeric() => break,
                    Some(escaped) => literal.push(escaped),
                    None => return anything,
                },
                other => literal.push(other),
            }
        }
        // A quantifier that allows zero makes the character before it optional.
        if matches!(stopped_at, Some('?' | '*' | '{')) {
            literal.pop();
        }
        NamePattern {
            literal: literal.into_boxed_str(),
            anchored,
        }
    }

    /// False only when no match of the pattern can be found in `name`.
    pub fn may_match(&self, name: &str) -> bool {
        if self.anchored {
            name.starts_with(&*self.literal)
        } else {
            name.contains(&*self.literal)
        }
    }
}

/// Whether the pattern's groups and classes close, no escape is left
/// hanging, and no `|` splits it at the top level: only then is what it
/// starts with what every match starts with.
fn plainly_formed(pattern: &str) -> bool {
    let mut depth = 0_usize;
    let mut in_class = false;
    let mut characters = pattern.chars();
    while let Some(character) = characters.next() {
        match character {
            // An escaped character is never special, but one must follow.
            '\\' => match characters.next() {
                Some(_) => {}
                None => return false,
            },
            ']' if in_class => in_class = false,
            _ if in_class => {}
            '[' => in_class = true,
            '(' => depth += 1,
            ')' => match depth.checked_sub(1) {
                Some(outer) => depth = outer,
                None => return false,
            },
            '|' if depth == 0 => return false,
            _ => {}
        }
    }
    depth == 0 && !in_class
}

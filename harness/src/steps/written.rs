//! A JSON reader that keeps every number as it was written, digit for
//! digit, so a pretty-printed answer can be compared with the body the
//! upstream sent (TC-ANS-002) without a float losing digits on the way.

/// A JSON value that keeps each number as it was written.
#[derive(Debug)]
pub(super) enum Written {
    Null,
    Bool(bool),
    /// The literal, exponent marker in lower case and without a `+`.
    Number(String),
    String(String),
    Array(Vec<Written>),
    Object(Vec<(String, Written)>),
}

impl Written {
    /// The value that is the whole of `text` (blanks around it allowed).
    pub(super) fn parse_all(text: &str) -> Option<Self> {
        let start = text.len() - text.trim_start().len();
        let (value, end) = Self::parse_at(text, start)?;
        text[end..].trim().is_empty().then_some(value)
    }

    /// The value starting at byte `at`, and the byte after it.
    pub(super) fn parse_at(text: &str, at: usize) -> Option<(Self, usize)> {
        let mut parser = WrittenParser { text, at };
        let value = parser.value()?;
        Some((value, parser.at))
    }

    pub(super) fn same(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Null, Self::Null) => true,
            (Self::Bool(a), Self::Bool(b)) => a == b,
            (Self::Number(a), Self::Number(b)) | (Self::String(a), Self::String(b)) => a == b,
            (Self::Array(a), Self::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.same(y))
            }
            (Self::Object(a), Self::Object(b)) => {
                a.len() == b.len()
                    && a.iter()
                        .all(|(key, x)| b.iter().any(|(other, y)| key == other && x.same(y)))
            }
            _ => false,
        }
    }
}

struct WrittenParser<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> WrittenParser<'a> {
    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn blanks(&mut self) {
        let rest = self.rest();
        self.at += rest.len() - rest.trim_start_matches([' ', '\t', '\n', '\r']).len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.blanks();
        let found = self.rest().starts_with(token);
        if found {
            self.at += token.len();
        }
        found
    }

    fn value(&mut self) -> Option<Written> {
        self.blanks();
        let first = self.rest().chars().next()?;
        match first {
            '{' => {
                self.at += 1;
                let mut members = Vec::new();
                if self.eat("}") {
                    return Some(Written::Object(members));
                }
                loop {
                    self.blanks();
                    let Written::String(key) = self.string()? else {
                        return None;
                    };
                    if !self.eat(":") {
                        return None;
                    }
                    members.push((key, self.value()?));
                    if self.eat("}") {
                        return Some(Written::Object(members));
                    }
                    if !self.eat(",") {
                        return None;
                    }
                }
            }
            '[' => {
                self.at += 1;
                let mut items = Vec::new();
                if self.eat("]") {
                    return Some(Written::Array(items));
                }
                loop {
                    items.push(self.value()?);
                    if self.eat("]") {
                        return Some(Written::Array(items));
                    }
                    if !self.eat(",") {
                        return None;
                    }
                }
            }
            '"' => self.string(),
            't' if self.eat("true") => Some(Written::Bool(true)),
            'f' if self.eat("false") => Some(Written::Bool(false)),
            'n' if self.eat("null") => Some(Written::Null),
            '-' | '0'..='9' => self.number(),
            _ => None,
        }
    }

    fn string(&mut self) -> Option<Written> {
        let rest = self.rest();
        if !rest.starts_with('"') {
            return None;
        }
        let mut escaped = false;
        for (i, c) in rest.char_indices().skip(1) {
            match c {
                _ if escaped => escaped = false,
                '\\' => escaped = true,
                '"' => {
                    let literal = &rest[..=i];
                    self.at += i + 1;
                    return serde_json::from_str(literal).ok().map(Written::String);
                }
                _ => {}
            }
        }
        None
    }

    fn number(&mut self) -> Option<Written> {
        let rest = self.rest();
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || "+-.eE".contains(c)))
            .unwrap_or(rest.len());
        let literal = &rest[..end];
        // Only a valid JSON number counts; serde_json knows the grammar.
        serde_json::from_str::<serde_json::Number>(literal).ok()?;
        self.at += end;
        let normal = literal.to_ascii_lowercase().replace("e+", "e");
        Some(Written::Number(normal))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_keep_their_digits() {
        let parse = |text| Written::parse_all(text).unwrap();
        assert!(parse("1e2").same(&parse("1E+2")));
        assert!(!parse("1.0").same(&parse("1")));
        assert!(!parse("1.50").same(&parse("1.5")));
        assert!(Written::parse_all("01").is_none());
        assert!(Written::parse_all("[1,]").is_none());
    }
}

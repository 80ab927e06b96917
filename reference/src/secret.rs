//! The stored credential, kept out of every debug and display output.
//!
//! The gateway holds the credential from start-up to exit: in its
//! configuration, in the form its place on the wire needs, and in the masker.
//! Each of those holds it as a [`Secret`], whose `Debug` and `Display` say
//! `[redacted]`, so a log line or a panic message that formats a
//! configuration can never show it. Only [`Secret::expose`] gives the value,
//! at the few places that put it on the wire or look for it in an answer.

use std::fmt;

/// A credential, or a form of it, that formats as `[redacted]`.
#[derive(Clone, PartialEq, Eq, Default)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value itself, for the wire and for masking only.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret([redacted])")
    }
}

impl fmt::Display for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[redacted]")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_without_the_value() {
        let secret = Secret::new("sk-live-7f3a");
        assert_eq!(format!("{secret:?}"), "Secret([redacted])");
        assert_eq!(format!("{secret}"), "[redacted]");
        assert_eq!(
            format!("{:?}", Some(secret.clone())),
            "Some(Secret([redacted]))"
        );
        assert_eq!(secret.expose(), "sk-live-7f3a");
    }
}

//! Where the configuration puts the credential, and what a basic credential
//! stands for.

/// Where the configuration puts the credential. With no place configured, a
/// credential goes as a bearer token (TC-REQ-017).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// TC-REQ-013: `Authorization: Bearer <credential>`.
    Bearer,
    /// TC-REQ-014: `Authorization: Basic <base64 of user:password>`; see
    /// [`basic_pair`].
    Basic,
    /// TC-REQ-012: a header of this name holds the credential as it is.
    Header(String),
    /// TC-REQ-015: a query parameter of this name holds the credential.
    Query(String),
}

/// The `user:password` a basic credential stands for (TC-REQ-014, ruling of
/// 2026-12-02): the credential itself when it holds a `:`, else the
/// credential as the user name with an empty password.
pub fn basic_pair(credential: &str) -> String {
    if credential.contains(':') {
        credential.to_owned()
    } else {
        format!("{credential}:")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_basic_pair_without_a_colon_has_an_empty_password() {
        assert_eq!(basic_pair("ada:lovelace"), "ada:lovelace");
        assert_eq!(basic_pair("sk_live_42"), "sk_live_42:");
    }
}

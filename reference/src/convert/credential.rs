//! Where the credential goes when the configuration does not say: the document's
//! own security schemes (TC-REQ-017).

use super::catalogue::CredentialPlacement;
use crate::load::{Document, SecurityScheme};

/// TC-REQ-017: the first scheme named by the top-level `security` requirements that
/// says where a credential goes; failing that, the first such scheme declared; else
/// none (and `Destination::new` sends a bearer token).
/// With the scheme's name, for telling the operator why.
pub fn default_placement(document: &Document) -> Option<(String, CredentialPlacement)> {
    let declared = |name: &String| {
        document
            .security_schemes
            .iter()
            .find(|(declared, _)| declared == name)
    };
    let usable = |(name, scheme): &(String, SecurityScheme)| {
        placement(scheme).map(|placement| (name.clone(), placement))
    };
    document
        .security
        .iter()
        .filter_map(declared)
        .find_map(usable)
        .or_else(|| document.security_schemes.iter().find_map(usable))
}

/// The token URL of the document's OAuth 2 client-credentials flow: the
/// chosen scheme's when it has one, else the first declared scheme's.
pub fn token_url(document: &Document, chosen: Option<&str>) -> Option<String> {
    let flow = |scheme: &SecurityScheme| match scheme {
        SecurityScheme::OAuth2 {
            client_credentials_token_url,
        } => client_credentials_token_url.clone(),
        _ => None,
    };
    let schemes = &document.security_schemes;
    schemes
        .iter()
        .find(|(name, _)| Some(name.as_str()) == chosen)
        .and_then(|(_, scheme)| flow(scheme))
        .or_else(|| schemes.iter().find_map(|(_, scheme)| flow(scheme)))
}

/// TC-REQ-017: API keys in a header or the query go there by name; bearer, OAuth 2
/// and OpenID Connect tokens go in `Authorization: Bearer`; basic in
/// `Authorization: Basic`. A cookie key, mutual TLS and other HTTP schemes cannot
/// be placed.
fn placement(scheme: &SecurityScheme) -> Option<CredentialPlacement> {
    match scheme {
        SecurityScheme::ApiKey { name, .. } if name.is_empty() => None,
        SecurityScheme::ApiKey { name, location } => match location.as_str() {
            "header" => Some(CredentialPlacement::Header(name.clone())),
            "query" => Some(CredentialPlacement::Query(name.clone())),
            _ => None,
        },
        SecurityScheme::Http { scheme } if scheme.eq_ignore_ascii_case("bearer") => {
            Some(CredentialPlacement::Bearer)
        }
        SecurityScheme::Http { scheme } if scheme.eq_ignore_ascii_case("basic") => {
            Some(CredentialPlacement::Basic)
        }
        SecurityScheme::OAuth2 { .. } | SecurityScheme::OpenIdConnect => {
            Some(CredentialPlacement::Bearer)
        }
        SecurityScheme::Http { .. } | SecurityScheme::Other { .. } => None,
    }
}

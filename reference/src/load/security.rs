//! The document's security: top-level requirements and the schemes they name.
//!
//! Security only suggests where a credential goes (the configuration can say
//! otherwise), so odd shapes here are skipped with a warning, never refused.

use serde_json::Value;

use super::error::LoadError;
use super::fields::string_field;
use super::model::SecurityScheme;
use super::place::DocPath;
use super::resolver::Resolver;

/// What the document says about credentials.
pub struct Security {
    /// Scheme names of the top-level requirements, in the order written.
    pub requirements: Vec<String>,
    /// The schemes under `components.securitySchemes`, in the order written.
    pub schemes: Vec<(String, SecurityScheme)>,
}

/// A scheme that is not there (a reference that cannot be resolved) is an
/// error like any other such reference (TC-LOAD-006).
pub fn read(resolver: Resolver, warnings: &mut Vec<String>) -> Result<Security, LoadError> {
    let (root, origin) = (resolver.root(), resolver.origin());
    let mut requirement_names = Vec::new();
    for requirement in root
        .get("security")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        for name in requirement.as_object().into_iter().flat_map(|r| r.keys()) {
            if !requirement_names.contains(name) {
                requirement_names.push(name.clone());
            }
        }
    }

    let at = DocPath::root().key("components").key("securitySchemes");
    let mut schemes = Vec::new();
    let declared = root
        .get("components")
        .and_then(|components| components.get("securitySchemes"))
        .and_then(Value::as_object);
    for (name, value) in declared.into_iter().flatten() {
        let (value, _) = resolver.follow(value, &at.key(name))?;
        match scheme(value) {
            Some(scheme) => schemes.push((name.clone(), scheme)),
            None => warnings.push(format!(
                "{origin}: {}: skipped: a security scheme needs a `type`",
                at.key(name)
            )),
        }
    }
    Ok(Security {
        requirements: requirement_names,
        schemes,
    })
}

fn scheme(value: &Value) -> Option<SecurityScheme> {
    let object = value.as_object()?;
    let kind = string_field(object, "type")?;
    Some(match kind.as_str() {
        "apiKey" => SecurityScheme::ApiKey {
            name: string_field(object, "name").unwrap_or_default(),
            location: string_field(object, "in").unwrap_or_default(),
        },
        "http" => SecurityScheme::Http {
            scheme: string_field(object, "scheme").unwrap_or_default(),
        },
        "oauth2" => SecurityScheme::OAuth2 {
            client_credentials_token_url: object
                .get("flows")
                .and_then(|flows| flows.get("clientCredentials"))
                .and_then(Value::as_object)
                .and_then(|flow| string_field(flow, "tokenUrl")),
        },
        "openIdConnect" => SecurityScheme::OpenIdConnect,
        _ => SecurityScheme::Other { kind },
    })
}

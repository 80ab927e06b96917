//! Values no earlier run used: client credentials, the authorization
//! server's client secret, tokens' `jti`.

use std::hash::{BuildHasher as _, RandomState};

/// 128 bits in hex: from the standard library's per-process random hash
/// keys, with the time and process mixed in.
pub fn fresh_hex() -> String {
    let seed = format!("{:?}{}", std::time::SystemTime::now(), std::process::id());
    let half = || RandomState::new().hash_one(&seed);
    format!("{:016x}{:016x}", half(), half())
}

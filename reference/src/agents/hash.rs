//! SHA-256, from the `ring` the TLS stack already builds.

/// The SHA-256 of `bytes`.
pub fn sha256(bytes: &[u8]) -> [u8; 32] {
    let digest = ring::digest::digest(&ring::digest::SHA256, bytes);
    let mut hash = [0u8; 32];
    hash.copy_from_slice(digest.as_ref());
    hash
}

//! Loopback upstream for the conformance harness.

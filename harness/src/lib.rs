//! Conformance harness for OpenAPI-to-MCP gateways.

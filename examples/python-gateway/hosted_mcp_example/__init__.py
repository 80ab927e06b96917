"""An OpenAPI-to-MCP gateway in Python, written from the conformance kit's
rules catalogue alone: the kit's example of a gateway in another language."""

__version__ = "0.1.0"

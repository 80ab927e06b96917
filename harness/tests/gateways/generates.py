"""A gateway built per document, as code generators build one: the harness's
`--prepare` step "generates" it (copies the document into the folder it is
given, after checking that a JSON document parses), and the launch runs the
reference gateway on what was generated.

    generates.py prepare {openapi} {prepared}
    generates.py serve GATEWAY_BINARY {prepared} --base-url URL --port N

Each preparation appends the document's path within the scenario folder and
the SHA-256 of its text to the file named by GENERATES_LOG, so a test can
count how often a document was prepared. Standard library only.
"""

import hashlib
import json
import os
import shutil
import sys


def prepare(openapi, prepared):
    with open(openapi, encoding="utf-8") as file:
        text = file.read()
    if openapi.endswith(".json"):
        try:
            json.loads(text)
        except json.JSONDecodeError as error:
            print(f"generates.py: {openapi}: line {error.lineno}: {error.msg}", file=sys.stderr)
            return 2
    with open(os.environ["GENERATES_LOG"], "a", encoding="utf-8") as log:
        log.write(hashlib.sha256(text.encode()).hexdigest() + "\n")
    # The document's whole folder, so a split document keeps its files.
    shutil.copytree(os.path.dirname(openapi), os.path.join(prepared, "api"))
    with open(os.path.join(prepared, "document"), "w", encoding="utf-8") as file:
        file.write(os.path.basename(openapi))
    return 0


def serve(binary, prepared, args):
    with open(os.path.join(prepared, "document"), encoding="utf-8") as file:
        document = os.path.join(prepared, "api", file.read())
    options = dict(zip(args[::2], args[1::2]))
    os.execv(binary, [binary, "serve", "--openapi", document, "--base-url",
                      options["--base-url"], "--listen", f"127.0.0.1:{options['--port']}"])


if __name__ == "__main__":
    if sys.argv[1] == "prepare":
        sys.exit(prepare(sys.argv[2], sys.argv[3]))
    serve(sys.argv[2], sys.argv[3], sys.argv[4:])

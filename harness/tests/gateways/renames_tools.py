"""A gateway that breaks the naming rules only: it names every tool that has
an operationId `renamed-<operationId>`, and keeps every other rule.

It rewrites the scenario's document (line for line, so a syntax error keeps
its line number) and hands it to a correct gateway. The harness must fail
this gateway on the naming rules and nothing else: scenarios of other rules
find their tool by its operation.

Usage: renames_tools.py GATEWAY_BINARY --openapi PATH --base-url URL --port N
Standard library only.
"""

import os
import re
import sys


def main(argv):
    binary = argv[1]
    args = dict(zip(argv[2::2], argv[3::2]))
    with open(args["--openapi"], encoding="utf-8") as file:
        text = file.read()
    # `operationId: x`, `operationId: "x"` and `"operationId": "x"`.
    text = re.sub(
        r'("?operationId"?\s*:\s*"?)([A-Za-z0-9_.\-]+)',
        lambda m: m.group(1) + "renamed-" + m.group(2),
        text,
    )
    renamed = args["--openapi"] + ".renamed" + os.path.splitext(args["--openapi"])[1]
    with open(renamed, "w", encoding="utf-8") as file:
        file.write(text)
    os.execv(binary, [binary, "serve", "--openapi", renamed, "--base-url",
                      args["--base-url"], "--listen", f"127.0.0.1:{args['--port']}"])


if __name__ == "__main__":
    main(sys.argv)

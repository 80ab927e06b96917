#!/usr/bin/env python3
"""A copy of features/ with tool names as openapi-mcp-server makes them.

    python3 examples/peers/openapi-mcp-server/map-names.py [OUT_DIR]

A diagnostic, not part of the check. The peer renames every operation
(operationId listPets becomes the tool lst-pets), so in the suite as written
almost every scenario stops at "no tool named listPets", whatever rule it is
about. This writes a copy of the features (default:
target/peers/openapi-mcp-server/features-mapped) where each operationId that
a step names, in quotes or as a table cell, is replaced by the name the peer
gives it, computed by the peer's own OpenAPISpecLoader.abbreviateOperationId.
The documents themselves are left as they are. Running the harness on the
copy (--features OUT_DIR) shows what the peer does once it is reached, which
is how its baseline was judged; the names themselves are judged on the real
features (TC-NAME-*).

Needs the peer installed (examples/peers/check openapi-mcp-server does it)
and node.
"""

import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
PEER = os.path.join(ROOT, "target/peers/openapi-mcp-server/node_modules/@ivotoby/openapi-mcp-server")

NAMER = """
import { OpenAPISpecLoader } from %s;
import fs from "fs";
const loader = new OpenAPISpecLoader({});
const out = {};
for (const id of JSON.parse(fs.readFileSync(0, "utf8"))) out[id] = loader.abbreviateOperationId(id);
process.stdout.write(JSON.stringify(out));
"""


def main():
    out_dir = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        ROOT, "target/peers/openapi-mcp-server/features-mapped")
    texts = {f: open(f, encoding="utf-8").read()
             for f in sorted(glob.glob(os.path.join(ROOT, "features/*.feature")))}
    ids = set()
    for text in texts.values():
        ids.update(m.strip().strip('"') for m in re.findall(r'operationId:\s*("?[^,}\n"]+"?)', text))
        ids.update(re.findall(r'"operationId":\s*"([^"]+)"', text))
    ids = sorted(i for i in ids if i and not i.startswith("<"))
    script = NAMER % json.dumps(os.path.join(PEER, "dist/bundle.js"))
    names = json.loads(subprocess.run(
        ["node", "--input-type=module", "-e", script], input=json.dumps(ids),
        capture_output=True, text=True, check=True).stdout)
    renamed = {k: v for k, v in names.items() if k != v}

    os.makedirs(out_dir, exist_ok=True)
    for path, text in texts.items():
        lines, in_doc = [], False
        for line in text.split("\n"):
            if line.strip() == '"""':
                in_doc = not in_doc
            elif not in_doc:
                for old, new in renamed.items():
                    line = line.replace(f'"{old}"', f'"{new}"')
                    cell = re.compile(r"\|\s*" + re.escape(old) + r"\s*\|")
                    line = cell.sub(f"| {new} |", line)
                    line = cell.sub(f"| {new} |", line)
            lines.append(line)
        with open(os.path.join(out_dir, os.path.basename(path)), "w", encoding="utf-8") as f:
            f.write("\n".join(lines))
    print(f"{len(renamed)} operationIds renamed; features written to {out_dir}")


if __name__ == "__main__":
    main()

#!/usr/bin/env node
"use strict";
require("../lib/launch.js").run("hosted-mcp-conformance");

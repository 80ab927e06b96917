"use strict";
// Runs one of the kit's binaries from the package built for this platform.
//
// The binaries live in one optional package per platform
// (`@hosted-mcp-conformance/linux-x64-gnu`, ...), each declaring the `os`,
// `cpu` and `libc` it runs on, so npm installs only the one that fits, as
// esbuild and biome do. Both binaries sit side by side in that package's
// bin/, so the harness run with no --gateway finds the reference gateway.

const { spawn } = require("node:child_process");
const path = require("node:path");
const { optionalDependencies, version } = require("../package.json");

const SCOPE = "@hosted-mcp-conformance";
const FROM_SOURCE =
  "build it from source with a Rust toolchain (`cargo install --locked " +
  "--git <the kit's repository> hosted-mcp-conformance hosted-mcp-gateway`)";
const OTHER_WAYS =
  "Other ways to install the kit: the same binaries from PyPI " +
  "(`uvx hosted-mcp-conformance`, `pipx run hosted-mcp-conformance`) or " +
  `the release archives of the kit's repository; or ${FROM_SOURCE}.`;

/** The platform's package name: `linux-x64-gnu`, `darwin-arm64`, ... */
function platformKey() {
  const key = `${process.platform}-${process.arch}`;
  if (process.platform !== "linux") return key;
  // Node built for glibc reports the glibc it runs on; on musl it is absent.
  const header = process.report ? process.report.getReport().header : {};
  return `${key}-${header.glibcVersionRuntime ? "gnu" : "musl"}`;
}

function fail(message) {
  process.stderr.write(`hosted-mcp-conformance (npm): ${message}\n`);
  process.exit(1);
}

function binaryPath(name) {
  const key = platformKey();
  const pkg = `${SCOPE}/${key}`;
  if (!Object.prototype.hasOwnProperty.call(optionalDependencies, pkg)) {
    const built = Object.keys(optionalDependencies)
      .map((p) => p.slice(SCOPE.length + 1))
      .join(", ");
    fail(
      `no build of version ${version} for this platform (${key}); ` +
        `there are builds for ${built || "no platform"}, on npm, PyPI and ` +
        `the kit's release archives alike. On this platform, ${FROM_SOURCE}.`,
    );
  }
  let dir;
  try {
    dir = path.dirname(require.resolve(`${pkg}/package.json`));
  } catch {
    fail(
      `the package ${pkg} that holds the binaries for ${key} is not ` +
        "installed. npm leaves optional dependencies out when run with " +
        "--omit=optional or --no-optional: install again without it. " +
        OTHER_WAYS,
    );
  }
  return path.join(dir, "bin", name);
}

/** Runs `name` with this process's arguments and ends as it ends. */
function run(name) {
  const child = spawn(binaryPath(name), process.argv.slice(2), {
    stdio: "inherit",
  });
  // A signal meant for the run goes to the binary, which cleans up (the
  // harness stops its gateways and writes its reports) and exits.
  const forward = (signal) => child.kill(signal);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
    process.on(signal, forward);
  }
  child.on("error", (error) => fail(`cannot run ${name}: ${error.message}`));
  child.on("exit", (code, signal) => {
    if (signal) {
      // End by the same signal, so a caller sees what the binary saw.
      for (const s of ["SIGINT", "SIGTERM", "SIGHUP"]) {
        process.removeListener(s, forward);
      }
      process.kill(process.pid, signal);
    } else {
      process.exit(code);
    }
  });
}

module.exports = { run };

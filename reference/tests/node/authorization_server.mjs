// A real OAuth 2.1 authorization server for the MCP authorization tests,
// built on oidc-provider (OpenID Certified). It issues client-credentials
// access tokens as RS256 JWTs (RFC 9068, typ at+jwt) for the resource
// (RFC 8707) the client names, and has test-control endpoints to rotate its
// signing key, count requests and mint broken tokens.
//
// Usage:
//   node authorization_server.mjs CONFIG_JSON_FILE
//
// CONFIG_JSON_FILE: {"port": 0, "state_dir": DIR, "access_token_ttl": 300,
//   "clients": [{"client_id", "client_secret", "scope": "mcp:read mcp:write"}],
//   "resources": ["http://127.0.0.1:PORT/mcp", ...],
//   "default_resource": optional, used when a token request has no `resource`
//   (without it such a request fails with invalid_target)}
// The issuer is http://127.0.0.1:PORT. The signing keys live in
// STATE_DIR/keys.json, so a restart on the same port keeps them.
// Once listening it prints one JSON line on stdout:
//   {"issuer", "port", "jwks_uri", "token_endpoint"}; logs go to stderr.
// Granted scopes = requested scopes that the client is allowed (others are
// dropped, not refused); a request with no `scope` gets a token with no scope.
//
// Test control (JSON):
//   POST /_test/rotate  new current key, old key withdrawn from the JWKS
//                       -> {"kid", "previous_kid"}
//   GET  /_test/counts  -> {"token_requests", "jwks_requests", "discovery_requests"}
//   POST /_test/resources {"resources": [...]} -> the same; replaces the
//        resources it issues tokens for, the first one the default (so a
//        server started on port 0 can learn the address of a gateway
//        started after it)
//   POST /_test/mint {"kind", "audience", "scope"} -> {"token"}; kinds: valid,
//        expired, not_yet_valid, wrong_issuer, bad_signature, alg_none,
//        hs256_public_key, malformed_header, unknown_kid, old_kid (409 if
//        there was no rotation).

import { createHmac, createPublicKey, randomBytes, randomUUID } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { join } from "node:path";
import * as jose from "jose";
import Provider, { errors } from "oidc-provider";

// oidc-provider prints its notices with console.info; stdout is for the one JSON line.
console.log = console.info = (...args) => console.error(...args);

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const ttl = config.access_token_ttl ?? 300;
let resources = new Set(config.resources ?? []);
let defaultResource = config.default_resource;
const allowedScopes = new Map((config.clients ?? []).map((c) => [c.client_id, c.scope ?? ""]));
const keysFile = join(config.state_dir, "keys.json");
const counts = { token_requests: 0, jwks_requests: 0, discovery_requests: 0 };

async function newKey() {
  const { privateKey } = await jose.generateKeyPair("RS256", { modulusLength: 2048, extractable: true });
  const jwk = await jose.exportJWK(privateKey);
  return { ...jwk, kid: await jose.calculateJwkThumbprint(jwk), alg: "RS256", use: "sig" };
}

function saveKeys() {
  writeFileSync(`${keysFile}.tmp`, JSON.stringify(keys), { mode: 0o600 });
  renameSync(`${keysFile}.tmp`, keysFile);
}

mkdirSync(config.state_dir, { recursive: true });
let keys; // {current: private JWK, previous: private JWK | null}
try {
  keys = JSON.parse(readFileSync(keysFile, "utf8"));
} catch {
  keys = { current: await newKey(), previous: null };
  saveKeys();
}

function makeProvider() {
  const provider = new Provider(issuer, {
    jwks: { keys: [keys.current] }, // only the current key is published and used
    clients: config.clients.map((c) => ({
      client_id: c.client_id,
      client_secret: c.client_secret,
      grant_types: ["client_credentials"],
      redirect_uris: [],
      response_types: [],
      token_endpoint_auth_method: "client_secret_basic", // client_secret_post is accepted too
    })),
    clientAuthMethods: ["client_secret_basic", "client_secret_post"],
    cookies: { keys: [randomBytes(32).toString("hex")] },
    ttl: { ClientCredentials: ttl },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx, _client, oneOf) => {
          if (oneOf) return oneOf;
          if (defaultResource) return defaultResource;
          throw new errors.InvalidTarget("the resource parameter is required");
        },
        getResourceServerInfo: (_ctx, resource, client) => {
          if (!resources.has(resource)) throw new errors.InvalidTarget(`unknown resource ${resource}`);
          return {
            scope: allowedScopes.get(client.clientId) ?? "",
            audience: resource,
            accessTokenTTL: ttl,
            accessTokenFormat: "jwt",
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
  });
  provider.on("server_error", (_ctx, err) => console.error("server_error:", err));
  provider.on("grant.error", (_ctx, err) => console.error("token request refused:", err.error, err.error_description));
  provider.on("grant.success", (ctx) => {
    const { client_id, grant_type, resource, scope } = ctx.oidc.params;
    const auth = ctx.headers.authorization ? "client_secret_basic" : "client_secret_post";
    console.error(`token issued: ${JSON.stringify({ client_id: client_id ?? ctx.oidc.client?.clientId, auth, grant_type, resource, scope, granted: ctx.body?.scope ?? null })}`);
  });
  return provider;
}

// ---- /_test/mint: tokens crafted by hand with jose -------------------------

const b64 = (value) => Buffer.from(typeof value === "string" ? value : JSON.stringify(value)).toString("base64url");

async function sign(claims, jwk) {
  const key = await jose.importJWK(jwk, "RS256");
  return new jose.SignJWT(claims).setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: jwk.kid }).sign(key);
}

async function mint({ kind, audience, scope, client_id = "minted-client" }) {
  const now = Math.floor(Date.now() / 1000);
  const claims = { iss: issuer, aud: audience, scope, sub: client_id, client_id, iat: now, exp: now + 300, jti: randomUUID() };
  const header = { alg: "RS256", typ: "at+jwt", kid: keys.current.kid };
  switch (kind) {
    case "valid":
      return sign(claims, keys.current);
    case "expired":
      return sign({ ...claims, iat: now - 900, exp: now - 600 }, keys.current);
    case "not_yet_valid":
      return sign({ ...claims, nbf: now + 600, exp: now + 900 }, keys.current);
    case "wrong_issuer":
      return sign({ ...claims, iss: "https://wrong-issuer.invalid" }, keys.current);
    case "bad_signature": {
      const [h, p, s] = (await sign(claims, keys.current)).split(".");
      const sig = Buffer.from(s, "base64url");
      sig[0] ^= 0x01; // flip one bit, so it no longer verifies
      return `${h}.${p}.${sig.toString("base64url")}`;
    }
    case "alg_none":
      return `${b64({ ...header, alg: "none" })}.${b64(claims)}.`;
    case "hs256_public_key": {
      // The HMAC key is the public key's PEM (SPKI) text, as Node writes it.
      const { kty, n, e } = keys.current;
      const pem = createPublicKey({ key: { kty, n, e }, format: "jwk" }).export({ type: "spki", format: "pem" });
      const input = `${b64({ ...header, alg: "HS256" })}.${b64(claims)}`;
      return `${input}.${createHmac("sha256", pem).update(input).digest("base64url")}`;
    }
    case "malformed_header": {
      const [, p, s] = (await sign(claims, keys.current)).split(".");
      return `${b64('{"alg":"RS256","typ":')}.${p}.${s}`; // decodes, but is not JSON
    }
    case "unknown_kid":
      return sign(claims, await newKey());
    case "old_kid":
      if (!keys.previous) throw Object.assign(new Error("no rotation yet: there is no previous key"), { status: 409 });
      return sign(claims, keys.previous);
    default:
      throw Object.assign(new Error(`unknown kind ${kind}`), { status: 400 });
  }
}

async function readJson(req) {
  let body = "";
  for await (const chunk of req) body += chunk;
  return body ? JSON.parse(body) : {};
}

async function testControl(req, res, path) {
  let status = 200;
  let answer;
  try {
    if (req.method === "GET" && path === "/_test/counts") {
      answer = counts;
    } else if (req.method === "POST" && path === "/_test/rotate") {
      keys = { current: await newKey(), previous: keys.current };
      saveKeys();
      provider = makeProvider();
      handler = provider.callback();
      answer = { kid: keys.current.kid, previous_kid: keys.previous.kid };
    } else if (req.method === "POST" && path === "/_test/resources") {
      const body = await readJson(req);
      if (!Array.isArray(body.resources)) throw Object.assign(new Error("resources is required"), { status: 400 });
      resources = new Set(body.resources);
      defaultResource = body.resources[0];
      answer = { resources: body.resources };
    } else if (req.method === "POST" && path === "/_test/mint") {
      const body = await readJson(req);
      if (typeof body.audience !== "string") throw Object.assign(new Error("audience is required"), { status: 400 });
      answer = { token: await mint(body) };
    } else {
      status = 404;
      answer = { error: "not found" };
    }
  } catch (err) {
    status = err.status ?? (err instanceof SyntaxError ? 400 : 500);
    answer = { error: err.message };
  }
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(answer));
}

// ---- the HTTP server ---------------------------------------------------------

let provider; // rebuilt by /_test/rotate, since oidc-provider's keys are fixed at construction
let handler;
const server = createServer((req, res) => {
  const path = req.url.split("?")[0];
  if (path.startsWith("/_test/")) return void testControl(req, res, path);
  if (req.method === "POST" && path === "/token") counts.token_requests++;
  if (req.method === "GET" && path === "/jwks") counts.jwks_requests++;
  if (req.method === "GET" && path.startsWith("/.well-known/")) counts.discovery_requests++;
  handler(req, res);
});
await new Promise((resolve, reject) => {
  server.once("error", reject);
  server.listen(config.port ?? 0, "127.0.0.1", resolve);
});
const { port } = server.address();
const issuer = `http://127.0.0.1:${port}`;
provider = makeProvider();
handler = provider.callback();

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}

process.stdout.write(
  JSON.stringify({ issuer, port, jwks_uri: `${issuer}/jwks`, token_endpoint: `${issuer}/token` }) + "\n",
);

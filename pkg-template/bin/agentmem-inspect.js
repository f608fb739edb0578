#!/usr/bin/env node
// @ts-check
// Serves the inspector (inspector/ of this package, a static page) on 127.0.0.1 for one
// project: the page then talks to that project's PostgREST and Auth from the browser, as
// the user who signs in. This server only hands out files and the
// project's URL and anon key (config.json); it never sees a token and proxies nothing.
// It answers only requests addressed to it by the host and port it listens on (a page of
// another site that rebinds its DNS name to 127.0.0.1 cannot read config.json), and every
// answer carries a Content-Security-Policy that lets the page connect to itself, the
// project and the configured embedding endpoint only, and be framed by nobody.
import { readFileSync } from "node:fs";
import { createServer } from "node:http";
import { extname, isAbsolute, join, normalize, relative, sep } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));

const usage = `Usage: agentmem-inspect [options]

Serves the agentmem inspector on http://127.0.0.1:<port>/inspector/ for one project.
Open it, sign in (Supabase Auth: email + password or anonymous, or a pasted session),
and browse that user's LangGraph threads, checkpoints, memories and store items under
row-level security: what each step ran, what runs next, tool calls, diffs, forks.

Options:
  --url <url>     the project URL, e.g. https://<ref>.supabase.co or http://127.0.0.1:54321
                  (default: $SUPABASE_URL)
  --key <key>     the anon / publishable key (default: $SUPABASE_ANON_KEY, then
                  $SUPABASE_PUBLISHABLE_KEY). Secret and service-role keys are refused:
                  they would bypass row-level security in a browser.
  --port <n>      the port (default 5199; 0 picks a free one)
  --embed-url <url>
                  an embedding endpoint, for searching memories by meaning: the page
                  POSTs {"texts": [...]} with the user's Authorization header and expects
                  {"vectors": [[...], ...]} from the model the memories were stored with
                  (in a static deployment: define globalThis.agentmemInspector.embed)
  --help          this text

${pkg.name} ${pkg.version}`;

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  process.stderr.write(`agentmem-inspect: ${message}\n`);
  process.exit(1);
}

/**
 * @param {string[]} argv
 * @returns {{ help: boolean, url: string, key: string, port: number, embedUrl: string }}
 */
function parse(argv) {
  const env = process.env;
  const args = { help: false, url: env.SUPABASE_URL ?? "", key: env.SUPABASE_ANON_KEY ?? env.SUPABASE_PUBLISHABLE_KEY ?? "", port: 5199, embedUrl: "" };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--help" || a === "-h" || a === "help") return { ...args, help: true };
    if (a === "--url" || a === "--key" || a === "--port" || a === "--embed-url") {
      const value = argv[++i];
      if (value === undefined) fail(`${a} needs a value`);
      if (a === "--url") args.url = value;
      else if (a === "--embed-url") {
        if (!/^https?:\/\//.test(value)) fail(`--embed-url must start with http:// or https://, got "${value}"`);
        args.embedUrl = value;
      }
      else if (a === "--key") args.key = value;
      else {
        const port = Number(value);
        if (!Number.isInteger(port) || port < 0 || port > 65535) fail(`--port must be a port number, got "${value}"`);
        args.port = port;
      }
    } else {
      fail(`unknown argument "${a}"\n\n${usage}`);
    }
  }
  return args;
}

/**
 * Why `key` must not reach a browser, or null: a secret key, or a JWT whose role is the
 * service role (RLS is bypassed for it).
 * @param {string} key
 * @returns {string | null}
 */
function secretKeyProblem(key) {
  if (key.startsWith("sb_secret_")) return "this is a secret key (sb_secret_…)";
  const parts = key.split(".");
  if (parts.length === 3) {
    try {
      const claims = JSON.parse(Buffer.from(parts[1], "base64url").toString("utf8"));
      if (claims?.role === "service_role") return "this JWT has the service_role role";
    } catch {
      // Not a readable JWT: the page's client decides.
    }
  }
  return null;
}

/** @type {Record<string, string>} */
const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
};

const args = parse(process.argv.slice(2));
if (args.help) {
  process.stdout.write(`${usage}\n`);
  process.exit(0);
}
if (!args.url) fail("no project URL: pass --url or set SUPABASE_URL");
if (!/^https?:\/\//.test(args.url)) fail(`--url must start with http:// or https://, got "${args.url}"`);
if (!args.key) fail("no anon key: pass --key or set SUPABASE_ANON_KEY");
const problem = secretKeyProblem(args.key);
if (problem) fail(`refusing to hand this key to a browser: ${problem}. Use the anon / publishable key; the page signs in as a user.`);

/**
 * `url` as a CSP source expression: its origin, or (`withPath`) its origin and path, with
 * the characters that separate sources and directives percent-encoded. Fails on a URL that
 * does not parse.
 * @param {string} option
 * @param {string} url
 * @param {boolean} withPath
 * @returns {string}
 */
function cspSource(option, url, withPath) {
  let u;
  try {
    u = new URL(url);
  } catch {
    fail(`${option} is not a URL: "${url}"`);
  }
  if (!withPath) return u.origin;
  return `${u.origin}${u.pathname.replace(/;/g, "%3B").replace(/,/g, "%2C")}`;
}

const config = JSON.stringify({ url: args.url, apiKey: args.key, ...(args.embedUrl ? { embedUrl: args.embedUrl } : {}) });
// The token goes to the project (PostgREST, Auth) and to the embedding endpoint, and
// nowhere else; 'wasm-unsafe-eval' lets the page compile the package's module.
const connect = ["'self'", cspSource("--url", args.url, false), ...(args.embedUrl ? [cspSource("--embed-url", args.embedUrl, true)] : [])];
const csp = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  `connect-src ${connect.join(" ")}`,
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");
const SECURITY = { "content-security-policy": csp, "x-frame-options": "DENY", "referrer-policy": "no-referrer", "x-content-type-options": "nosniff" };
/** The Host values this server answers to, once it listens: 127.0.0.1 and localhost, on its port. @type {Set<string>} */
const hosts = new Set();

const server = createServer((req, res) => {
  for (const [name, value] of Object.entries(SECURITY)) res.setHeader(name, value);
  const host = (req.headers.host ?? "").toLowerCase();
  if (!hosts.has(host)) {
    res.writeHead(403, { "content-type": "text/plain; charset=utf-8" }).end(`agentmem-inspect answers requests for ${[...hosts].join(" or ")} only\n`);
    return;
  }
  let path;
  try {
    path = decodeURIComponent(new URL(req.url ?? "/", "http://localhost").pathname);
  } catch {
    res.writeHead(400).end();
    return;
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.writeHead(405, { allow: "GET, HEAD" }).end();
    return;
  }
  if (path === "/" || path === "/inspector") {
    res.writeHead(302, { location: "/inspector/" }).end();
    return;
  }
  if (path === "/inspector/config.json") {
    res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" }).end(config);
    return;
  }
  if (path.endsWith("/")) path += "index.html";
  // Only the page's own kinds of file, and only inside the package.
  const file = normalize(join(root, path));
  const type = TYPES[extname(file)];
  // The package itself is usually inside a node_modules folder: only its own files count.
  const inside = relative(root, file);
  if (!type || inside.startsWith("..") || isAbsolute(inside) || inside.split(sep).includes("node_modules")) {
    res.writeHead(404).end();
    return;
  }
  let body;
  try {
    body = readFileSync(file);
  } catch {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": type, "cache-control": "no-cache" }).end(req.method === "HEAD" ? undefined : body);
});
server.on("error", (e) => fail(`cannot listen on 127.0.0.1:${args.port}: ${e.message}`));
server.listen(args.port, "127.0.0.1", () => {
  const address = server.address();
  const port = address && typeof address === "object" ? address.port : args.port;
  hosts.add(`127.0.0.1:${port}`);
  hosts.add(`localhost:${port}`);
  process.stdout.write(`agentmem inspector for ${args.url}: http://127.0.0.1:${port}/inspector/\n`);
});

// The local stack (scripts/stack.sh up --test-fixtures) as the tests see it: settings from
// $AGENTMEM_STACK_DIR/env, signed-in users with their own JWT, the service role, and the
// gateway's admin endpoints (fault rules, request log).
// Plain JS with node: imports only, so Deno runs it too (deno_saver_test.js).
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { createClient } from "agentmem-supabase";
import { readStackEnv } from "../support/env.mjs";
import { mintJwt as signJwt } from "../support/jwt.js";

export const env = readStackEnv();
export const url = env.SUPABASE_URL;

/** An HS256 JWT signed with the stack's secret, as Supabase Auth issues them. */
export const mintJwt = (sub, options) => signJwt(env.SUPABASE_JWT_SECRET, sub, options);

export const service = () => createClient({ url, apiKey: env.SUPABASE_SERVICE_ROLE_KEY });

/** A new user in auth.users (checkpoint rows reference it) and a client acting as them. */
export async function newUser(options = {}) {
  const id = crypto.randomUUID();
  await service().rpc("test_create_user", { p_id: id });
  const token = await mintJwt(id);
  return { id, token, client: createClient({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: token, ...options }) };
}

async function admin(method, path, body) {
  const r = await fetch(`${url}/__gateway/${path}`, {
    method,
    headers: { apikey: env.SUPABASE_SECRET_KEY },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`gateway admin ${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** Runs `body` with a fresh request log (and fault rules, if given); returns what it
 *  returned and the "METHOD /path" of every API request it caused. */
export async function recording(body, faults) {
  await admin("DELETE", "requests");
  if (faults) await admin("PUT", "faults", faults);
  try {
    const result = await body();
    const { requests } = await admin("GET", "requests");
    return { result, requests: requests.map((r) => `${r.method} ${r.path.replace(/^\/rest\/v1/, "")}`) };
  } finally {
    if (faults) await admin("DELETE", "faults");
  }
}

/** A second gateway on the stack's database answering at most `maxRows` rows a request
 *  (Supabase's max-rows is 1000), started without --admin; `close()` stops it. */
export async function gatewayWithMaxRows(maxRows) {
  const bin = process.env.AGENTMEM_GATEWAY_BIN;
  const dbUrl = process.env.AGENTMEM_AUTHENTICATOR_DB_URL;
  if (!bin || !dbUrl) throw new Error("tests/langgraph/run.sh exports AGENTMEM_GATEWAY_BIN and AGENTMEM_AUTHENTICATOR_DB_URL");
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = /** @type {import("node:net").AddressInfo} */ (s.address());
      s.close(() => resolve(port));
    });
  });
  const gw = spawn(bin, ["serve", "--db-url", dbUrl, "--jwt-secret", env.SUPABASE_JWT_SECRET, "--listen", `127.0.0.1:${port}`, "--max-rows", String(maxRows)], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  await new Promise((resolve, reject) => {
    gw.stdout.once("data", resolve);
    gw.once("exit", (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => gw.kill() };
}

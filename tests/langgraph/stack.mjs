// The local stack (scripts/stack.sh up --test-fixtures) as the tests see it: settings from
// $AGENTMEM_STACK_DIR/env, signed-in users with their own JWT, the service role, and the
// gateway's admin endpoints (fault rules, request log).
// Plain JS with node: imports only, so Deno runs it too (deno_saver_test.js).
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import process from "node:process";
import { createClient } from "agentmem";

const dir = process.env.AGENTMEM_STACK_DIR ?? "/tmp/agentmem-stack";
export const env = Object.fromEntries(
  readFileSync(`${dir}/env`, "utf8").split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);
export const url = env.SUPABASE_URL;

const text = new TextEncoder();
const b64url = (bytes) => Buffer.from(bytes).toString("base64url");

/** An HS256 JWT signed with the stack's secret, as Supabase Auth issues them. */
export async function mintJwt(sub, { role = "authenticated", expiresIn = 3600 } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const part = (o) => b64url(text.encode(JSON.stringify(o)));
  const body = `${part({ alg: "HS256", typ: "JWT" })}.${part({ sub, role, aud: "authenticated", iat: now, exp: now + expiresIn })}`;
  const key = await crypto.subtle.importKey("raw", text.encode(env.SUPABASE_JWT_SECRET), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `${body}.${b64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, text.encode(body))))}`;
}

export const service = () => createClient({ url, apiKey: env.SUPABASE_SERVICE_ROLE_KEY });

/** A new user in auth.users (checkpoint rows reference it) and a client acting as them. */
export async function newUser(options = {}) {
  const id = crypto.randomUUID();
  await service().rpc("test_create_user", { p_id: id });
  const token = await mintJwt(id);
  return { id, token, client: createClient({ url, apiKey: env.SUPABASE_ANON_KEY, accessToken: token, ...options }) };
}

async function admin(method, path, body) {
  const r = await fetch(`${url}/__gateway/${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
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

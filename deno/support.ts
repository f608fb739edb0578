// Stack helpers for Deno tests: users the way Supabase Auth makes them, and the
// gateway's request log.
import { createClient } from "agentmem-supabase";
import { readStackEnv } from "../tests/support/env.mjs";
import { mintJwt as signJwt } from "../tests/support/jwt.js";

export const env: Record<string, string> = readStackEnv();

/** An HS256 JWT signed with the stack's secret, as Supabase Auth issues them. */
export const mintJwt = (sub: string, role = "authenticated", expiresIn = 3600): Promise<string> =>
  signJwt(env.SUPABASE_JWT_SECRET, sub, { role, expiresIn });

export const service = () => createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_SERVICE_ROLE_KEY });

/** A new user registered in auth.users, with a client acting as them. */
export async function newUser() {
  const id = crypto.randomUUID();
  await service().rpc("test_create_user", { p_id: id });
  const token = await mintJwt(id);
  return { id, token, client: createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: token }) };
}

async function admin(method: string, path: string, body?: unknown) {
  const r = await fetch(`${env.SUPABASE_URL}/__gateway/${path}`, {
    method,
    headers: { apikey: env.SUPABASE_SECRET_KEY },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!r.ok) throw new Error(`gateway admin ${method} ${path}: ${r.status} ${await r.text()}`);
  return r.json();
}

/** Runs `body` with gateway fault rules in place; always clears them. */
export async function withFaults<T>(rules: unknown[], body: () => Promise<T>): Promise<T> {
  await admin("PUT", "faults", rules);
  try {
    return await body();
  } finally {
    await admin("DELETE", "faults");
  }
}

/** Runs `body` and returns how many requests reached the gateway meanwhile, by path. */
export async function countRequests(body: () => Promise<unknown>): Promise<string[]> {
  await admin("DELETE", "requests");
  await body();
  const { requests } = await admin("GET", "requests");
  return requests.map((r: { method: string; path: string }) => `${r.method} ${r.path.replace("/rest/v1", "")}`);
}

// Raw HTTP helpers for the attack tests (server_trust_test.ts, one_door_test.ts): requests
// as a user or as server code on the service role, the way an attacker holding a valid
// session (or a server passing on a visitor's input) makes them, and the deal fixtures.
import assert from "node:assert/strict";
import { env } from "./support.ts";

const REST = `${env.SUPABASE_URL}/rest/v1`;
export type Reply = { status: number; body: any };

export async function api(key: string, token: string | null, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const r = await fetch(`${REST}/${path}`, {
    method,
    headers: {
      apikey: key,
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      "Content-Type": "application/json",
      Prefer: "return=representation",
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, body: text ? JSON.parse(text) : null };
}
/** As a user (anon key + their JWT; null: the anon key alone). */
export const asUser = (token: string | null, method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  api(env.SUPABASE_ANON_KEY, token, method, path, body, headers);
/** As server code on the service role (its key is its JWT). */
export const asService = (method: string, path: string, body?: unknown, headers?: Record<string, string>) =>
  api(env.SUPABASE_SERVICE_ROLE_KEY, env.SUPABASE_SERVICE_ROLE_KEY, method, path, body, headers);

export const checkpoint = (thread: string, mark: string, id = "c1", version = "1.5") => ({
  p_thread_id: thread, p_checkpoint_ns: "", p_checkpoint_id: id, p_parent_checkpoint_id: null, p_type: null,
  p_checkpoint: { v: 4, id, ts: "2026-01-01T00:00:00Z", channel_versions: { text: version }, versions_seen: {} },
  p_metadata: { mark }, p_blobs: [{ channel: "text", version, type: "json", blob: btoa(JSON.stringify(mark)) }],
});
export const valueOf = (reply: Reply) => reply.body && JSON.parse(atob(reply.body.blobs[0].blob));
export const tuple = (token: string, thread: string) => asUser(token, "POST", "rpc/langgraph_get_tuple", { p_thread_id: thread });

export async function deal(members: string[], role = "member") {
  const org = crypto.randomUUID(), id = crypto.randomUUID();
  assert.equal((await asService("POST", "organizations", { id: org, name: "org" })).status, 201);
  for (const m of members) assert.equal((await asService("POST", "organization_members", { organization_id: org, user_id: m, role })).status, 201);
  assert.equal((await asService("POST", "deals", { id, organization_id: org, name: "deal" })).status, 201);
  return id;
}
/** The deal's key space, as anyone can compute it (md5('agentmem deal ' || deal id)). */
export async function dealTenant(dealId: string) {
  const { createHash } = await import("node:crypto");
  const h = createHash("md5").update(`agentmem deal ${dealId}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

// @supabase/auth-js and supabase-js's `auth` (from npm) against the gateway's local
// Supabase Auth (/auth/v1 of scripts/stack.sh up --test-fixtures). Each expectation is what
// Supabase Auth answers, read from its source (supabase/auth: internal/api/*.go,
// internal/tokens/service.go, internal/models/*.go; the case names the handler) and from
// auth-js's error handling (lib/fetch.ts handleError). Cases that need a short token life
// or reuse interval start a second gateway on the same database.
// Run by tests/auth/run.sh.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHmac, randomUUID } from "node:crypto";
import { spawn } from "node:child_process";
import { createServer } from "node:net";
import { AuthApiError, AuthClient, AuthWeakPasswordError, isAuthError } from "@supabase/auth-js";
import { createClient as supabaseClient } from "@supabase/supabase-js";
import ws from "ws";
import { readStackEnv } from "../support/env.mjs";

const env = readStackEnv();
const URL_ = env.SUPABASE_URL;
const ISS = `${URL_}/auth/v1`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** An auth-js client as supabase-js builds it: the anon key as apikey and default bearer. */
function authClient(url = URL_, key = env.SUPABASE_ANON_KEY) {
  return new AuthClient({
    url: `${url}/auth/v1`,
    headers: { apikey: key, Authorization: `Bearer ${key}` },
    persistSession: false,
    autoRefreshToken: false,
  });
}
/** The admin API as a server uses it: the service key. */
const admin = () => authClient(URL_, env.SUPABASE_SERVICE_ROLE_KEY).admin;
const supabase = (url = URL_, key = env.SUPABASE_ANON_KEY) =>
  supabaseClient(url, key, { auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: ws } });

const email = () => `auth-${randomUUID().slice(0, 8)}@Test.Local`;
const PASSWORD = "correct horse battery";

function claims(jwt) {
  const [h, p, s] = jwt.split(".");
  const expected = createHmac("sha256", env.SUPABASE_JWT_SECRET).update(`${h}.${p}`).digest("base64url");
  assert.equal(s, expected, "signed HS256 with the stack's JWT secret");
  assert.deepEqual(JSON.parse(Buffer.from(h, "base64url")), { alg: "HS256", typ: "JWT" });
  return JSON.parse(Buffer.from(p, "base64url"));
}

/** auth-js result → its data, or fail with the error. */
function ok({ data, error }) {
  assert.equal(error, null, `unexpected error: ${error?.name} ${error?.status} ${error?.code} ${error?.message}`);
  return data;
}

/** auth-js result → its AuthApiError, checked against status, code and message. */
function apiError({ error }, status, code, message) {
  assert.ok(error, `expected ${code}, got no error`);
  assert.ok(error instanceof AuthApiError, `expected AuthApiError, got ${error.name}: ${error.message}`);
  assert.equal(error.status, status, error.message);
  assert.equal(error.code, code, error.message);
  if (message !== undefined) assert.equal(error.message, message);
  return error;
}

/** A raw call to /auth/v1, for the answers auth-js hides. */
async function raw(method, path, { body, token, key = env.SUPABASE_ANON_KEY, headers = {}, url = URL_ } = {}) {
  const r = await fetch(`${url}/auth/v1${path}`, {
    method,
    headers: {
      apikey: key,
      ...(token ? { Authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await r.text();
  return { status: r.status, headers: r.headers, body: text ? JSON.parse(text) : null };
}
const refresh = (refresh_token, url = URL_) => raw("POST", "/token?grant_type=refresh_token", { body: { refresh_token }, url });

async function signUp(client = authClient(), address = email()) {
  const data = ok(await client.signUp({ email: address, password: PASSWORD, options: { data: { plan: "free" } } }));
  return { ...data, email: address.toLowerCase(), client };
}

/** A second gateway on the stack's database with short lifetimes: tokens live `exp`
 *  seconds, a revoked refresh token may be reused for `reuse` seconds. */
async function shortLivedGateway({ exp, reuse }) {
  const port = await new Promise((resolve) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
  const args = ["serve", "--db-url", env.AGENTMEM_AUTHENTICATOR_DB_URL, "--jwt-secret", env.SUPABASE_JWT_SECRET,
    "--listen", `127.0.0.1:${port}`, "--auth-db-url", env.AGENTMEM_AUTH_DB_URL,
    "--auth-jwt-exp", String(exp), "--auth-refresh-reuse-interval", String(reuse)];
  const gw = spawn(env.AGENTMEM_GATEWAY_BIN, args, { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise((resolve, reject) => {
    gw.stdout.once("data", resolve);
    gw.once("exit", (code) => reject(new Error(`gateway exited with ${code}`)));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => gw.kill() };
}

describe("service endpoints (api.go HealthCheck, settings.go)", () => {
  test("GET /health and /settings: email and anonymous sign-ins on, confirmations off", async () => {
    const health = await raw("GET", "/health");
    assert.equal(health.status, 200);
    assert.equal(health.body.name, "GoTrue");
    const settings = await raw("GET", "/settings");
    assert.equal(settings.status, 200);
    assert.equal(settings.body.external.email, true);
    assert.equal(settings.body.external.anonymous_users, true);
    assert.equal(settings.body.external.phone, false);
    assert.equal(settings.body.mailer_autoconfirm, true);
    assert.equal(settings.body.disable_signup, false);
  });

  test("Supabase's API gateway: no key, or an unknown one, is refused before Auth", async () => {
    const none = await fetch(`${URL_}/auth/v1/settings`);
    assert.equal(none.status, 401);
    assert.deepEqual(await none.json(), { message: "No API key found in request", hint: "No `apikey` request header or url param was found." });
    const wrong = await raw("GET", "/settings", { key: "sb_publishable_wrong" });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.body.message, "Invalid API key");
    assert.equal((await raw("GET", "/settings", { key: env.SUPABASE_PUBLISHABLE_KEY })).status, 200);
  });

  test("errors keep GoTrue's shapes: {code, error_code, msg} by default, {code, message} for API version 2024-01-01", async () => {
    const body = { email: "nobody@test.local", password: "whatever1" };
    const legacy = await raw("POST", "/token?grant_type=password", { body });
    assert.equal(legacy.status, 400);
    assert.deepEqual(legacy.body, { code: 400, error_code: "invalid_credentials", msg: "Invalid login credentials" });
    assert.equal(legacy.headers.get("x-sb-error-code"), "invalid_credentials");
    const v2024 = await raw("POST", "/token?grant_type=password", { body, headers: { "X-Supabase-Api-Version": "2024-01-01" } });
    assert.deepEqual(v2024.body, { code: "invalid_credentials", message: "Invalid login credentials" });
    assert.equal(v2024.headers.get("x-supabase-api-version"), "2024-01-01");
    const grant = await raw("POST", "/token?grant_type=magic", { body: {} });
    assert.deepEqual(grant.body, { code: 400, error_code: "invalid_credentials", msg: "unsupported_grant_type" });
    const json = await raw("POST", "/signup", { body: undefined, headers: { "content-type": "application/json" } });
    assert.equal(json.status, 400);
    assert.equal(json.body.error_code, "bad_json");
    const missing = await refresh("");
    assert.deepEqual(missing.body, { error: "invalid_request", error_description: "refresh_token required" });
  });
});

describe("sign-up and sign-in (signup.go, token.go ResourceOwnerPasswordGrant)", () => {
  test("signUp returns a session at once, with Supabase Auth's user and claims", async () => {
    const address = email();
    const { session, user } = await signUp(authClient(), address);
    assert.ok(session, "enable_confirmations = false: the session comes with the sign-up");
    assert.equal(user.email, address.toLowerCase());
    assert.equal(user.aud, "authenticated");
    assert.equal(user.role, "authenticated");
    assert.equal(user.is_anonymous, false);
    assert.ok(user.email_confirmed_at && user.last_sign_in_at && user.created_at);
    assert.deepEqual(user.app_metadata, { provider: "email", providers: ["email"] });
    assert.equal(user.user_metadata.plan, "free");
    assert.equal(user.identities.length, 1);
    assert.equal(user.identities[0].provider, "email");
    assert.equal(user.identities[0].identity_data.email, address.toLowerCase());
    assert.equal(session.token_type, "bearer");
    assert.equal(session.expires_in, 3600);
    const c = claims(session.access_token);
    assert.equal(c.sub, user.id);
    assert.equal(c.role, "authenticated");
    assert.equal(c.aud, "authenticated");
    assert.equal(c.iss, ISS);
    assert.equal(c.exp - c.iat, 3600);
    assert.equal(c.email, address.toLowerCase());
    assert.equal(c.phone, "");
    assert.deepEqual(c.app_metadata, { provider: "email", providers: ["email"] });
    assert.equal(c.user_metadata.plan, "free");
    assert.match(c.session_id, /^[0-9a-f-]{36}$/);
    assert.equal(c.is_anonymous, false);
    assert.equal(c.aal, "aal1");
    assert.equal(c.amr.length, 1);
    assert.equal(c.amr[0].method, "password");
    assert.ok(Math.abs(c.amr[0].timestamp - c.iat) < 5);
  });

  test("signing up twice is user_already_exists; a short password is weak_password", async () => {
    const { email: address } = await signUp();
    apiError(await authClient().signUp({ email: address, password: PASSWORD }), 422, "user_already_exists", "User already registered");
    const weak = await authClient().signUp({ email: email(), password: "12345" });
    assert.ok(weak.error instanceof AuthWeakPasswordError, weak.error?.name);
    assert.equal(weak.error.status, 422);
    assert.equal(weak.error.code, "weak_password");
    assert.deepEqual(weak.error.reasons, ["length"]);
    apiError(await authClient().signUp({ email: "not-an-email", password: PASSWORD }), 400, "validation_failed");
    apiError(await authClient().signUp({ phone: "+15555550100", password: PASSWORD }), 400, "phone_provider_disabled", "Phone signups are disabled");
  });

  test("signInWithPassword: a new session; a wrong password or an unknown address is invalid_credentials", async () => {
    const { user, session: first, email: address } = await signUp();
    const { session } = ok(await authClient().signInWithPassword({ email: address.toUpperCase(), password: PASSWORD }));
    assert.equal(session.user.id, user.id);
    assert.notEqual(claims(session.access_token).session_id, claims(first.access_token).session_id, "every sign-in is a new session");
    apiError(await authClient().signInWithPassword({ email: address, password: "wrong password" }), 400, "invalid_credentials", "Invalid login credentials");
    apiError(await authClient().signInWithPassword({ email: email(), password: PASSWORD }), 400, "invalid_credentials", "Invalid login credentials");
  });

  test("getUser answers the token's user; a forged token is bad_jwt", async () => {
    const { user, session, client } = await signUp();
    assert.equal(ok(await client.getUser(session.access_token)).user.id, user.id);
    const [h, p] = session.access_token.split(".");
    const forged = `${h}.${p}.${createHmac("sha256", "another secret").update(`${h}.${p}`).digest("base64url")}`;
    apiError(await authClient().getUser(forged), 403, "bad_jwt");
    // The anon key is a JWT without `sub`.
    const anonUser = await raw("GET", "/user");
    assert.equal(anonUser.status, 403);
    assert.equal(anonUser.body.msg, "invalid claim: missing sub claim");
  });
});

describe("anonymous users (anonymous.go, user.go UserUpdate)", () => {
  test("signInAnonymously: a real user with is_anonymous, role authenticated, amr anonymous", async () => {
    const { user, session } = ok(await authClient().signInAnonymously({ options: { data: { visitor: true } } }));
    assert.equal(user.is_anonymous, true);
    assert.equal(user.email, "");
    assert.deepEqual(user.app_metadata, {});
    assert.deepEqual(user.user_metadata, { visitor: true });
    assert.deepEqual(user.identities, []);
    const c = claims(session.access_token);
    assert.equal(c.is_anonymous, true);
    assert.equal(c.role, "authenticated");
    assert.equal(c.aud, "authenticated");
    assert.equal(c.sub, user.id);
    assert.equal(c.amr[0].method, "anonymous");
  });

  test("updateUser({email, password}) makes the anonymous user permanent with the same id", async () => {
    const client = authClient();
    const { user: visitor } = ok(await client.signInAnonymously());
    apiError(await client.updateUser({ password: PASSWORD }), 422, "validation_failed",
      "Updating password of an anonymous user without an email or phone is not allowed");
    const address = email();
    const { user } = ok(await client.updateUser({ email: address, password: PASSWORD }));
    assert.equal(user.id, visitor.id);
    assert.equal(user.is_anonymous, false);
    assert.equal(user.email, address.toLowerCase());
    assert.ok(user.email_confirmed_at);
    assert.deepEqual(user.app_metadata, { provider: "email", providers: ["email"] });
    assert.deepEqual(user.identities.map((i) => i.provider), ["email"]);
    const { session } = ok(await authClient().signInWithPassword({ email: address, password: PASSWORD }));
    assert.equal(session.user.id, visitor.id);
    assert.equal(claims(session.access_token).is_anonymous, false);
    // The anonymous session's refresh now issues tokens of the permanent user.
    const { session: refreshed } = ok(await client.refreshSession());
    assert.equal(claims(refreshed.access_token).is_anonymous, false);
    assert.equal(claims(refreshed.access_token).sub, visitor.id);
  });

  test("updateUser: metadata merges (null deletes a key), the same password again is same_password, a taken email is email_exists", async () => {
    const { client, email: taken } = await signUp();
    const other = await signUp();
    const { user } = ok(await other.client.updateUser({ data: { theme: "dark", plan: null } }));
    assert.equal(user.user_metadata.theme, "dark");
    assert.equal("plan" in user.user_metadata, false);
    apiError(await other.client.updateUser({ password: PASSWORD }), 422, "same_password");
    apiError(await other.client.updateUser({ email: taken }), 422, "email_exists");
    ok(await other.client.updateUser({ password: "a brand new one" }));
    ok(await authClient().signInWithPassword({ email: other.email, password: "a brand new one" }));
    assert.ok(client);
  });
});

describe("refresh tokens (tokens/service.go RefreshTokenGrant)", () => {
  test("refreshSession rotates: a new refresh token, the old one revoked, a fresh access token of the same session", async () => {
    const { client, session } = await signUp();
    const { session: next } = ok(await client.refreshSession());
    assert.notEqual(next.refresh_token, session.refresh_token);
    assert.equal(claims(next.access_token).sub, session.user.id);
    assert.equal(claims(next.access_token).session_id, claims(session.access_token).session_id);
    assert.equal(claims(next.access_token).amr[0].method, "password", "amr keeps the sign-in method");
    // The client lost the answer: the revoked parent of the active token gets the active one back.
    const again = await refresh(session.refresh_token);
    assert.equal(again.status, 200);
    assert.equal(again.body.refresh_token, next.refresh_token);
    apiError(await authClient().refreshSession({ refresh_token: "no-such-token" }), 400, "refresh_token_not_found",
      "Invalid Refresh Token: Refresh Token Not Found");
  });

  test("concurrent refreshes of one token (tabs waking up together) all get the same new token", async () => {
    const { session } = await signUp();
    const answers = await Promise.all(Array.from({ length: 6 }, () => refresh(session.refresh_token)));
    assert.deepEqual(answers.map((a) => a.status), [200, 200, 200, 200, 200, 200]);
    assert.equal(new Set(answers.map((a) => a.body.refresh_token)).size, 1);
    assert.notEqual(answers[0].body.refresh_token, session.refresh_token);
  });

  test("parallel anonymous sign-ins are distinct users", async () => {
    const users = await Promise.all(Array.from({ length: 12 }, async () => ok(await authClient().signInAnonymously()).user.id));
    assert.equal(new Set(users).size, 12);
  });

  describe("with a 1 s reuse interval and 2 s tokens", () => {
    let gw;
    before(async () => {
      gw = await shortLivedGateway({ exp: 2, reuse: 1 });
    });
    after(() => gw?.close());

    test("a revoked token reused after the interval is refresh_token_already_used and revokes the session", async () => {
      const client = authClient(gw.url);
      const { session } = ok(await client.signUp({ email: email(), password: PASSWORD }));
      const t1 = session.refresh_token;
      const t2 = (await refresh(t1, gw.url)).body.refresh_token;
      const t3 = (await refresh(t2, gw.url)).body.refresh_token;
      assert.ok(t2 && t3 && t2 !== t3);
      // Within the interval a revoked token that is not the active one's parent is still
      // exchanged (concurrent tabs): t4, a child of t1, becomes the active token.
      const t4 = (await refresh(t1, gw.url)).body.refresh_token;
      assert.ok(t4 && ![t1, t2, t3].includes(t4));
      await sleep(1300);
      // t1 is now the active token's parent: the client that lost the answer gets t4 back.
      assert.equal((await refresh(t1, gw.url)).body.refresh_token, t4);
      // t2, revoked longer than the interval ago, is a replay: refused, the session's tokens revoked.
      apiError(await authClient(gw.url).refreshSession({ refresh_token: t2 }), 400, "refresh_token_already_used",
        "Invalid Refresh Token: Already Used");
      await sleep(1300);
      for (const t of [t3, t4]) {
        const latest = await refresh(t, gw.url);
        assert.equal(latest.status, 400, t);
        assert.equal(latest.body.error_code, "refresh_token_already_used");
      }
    });

    test("an expired access token: Auth refuses it at once, a refreshed one works on /rest/v1", async () => {
      const client = authClient(gw.url);
      const { session } = ok(await client.signUp({ email: email(), password: PASSWORD }));
      assert.equal(session.expires_in, 2);
      await sleep(3100);
      // GoTrue's JWT parser allows no leeway (PostgREST allows 30 s: /rest/v1 still takes it).
      const expired = apiError(await authClient(gw.url).getUser(session.access_token), 403, "bad_jwt");
      assert.match(expired.message, /token is expired/);
      const { session: fresh } = ok(await client.refreshSession());
      assert.equal(fresh.expires_in, 2);
      const { data, error } = await supabaseClient(gw.url, env.SUPABASE_ANON_KEY, {
        global: { headers: { Authorization: `Bearer ${fresh.access_token}` } },
        realtime: { transport: ws },
      }).rpc("test_whoami");
      assert.equal(error, null);
      assert.equal(data.uid, session.user.id);
    });
  });
});

describe("sign-out (logout.go)", () => {
  async function sessions(n) {
    const { email: address, session: first } = await signUp();
    const out = [{ client: null, session: first }];
    for (let i = 1; i < n; i++) {
      const client = authClient();
      out.push({ client, session: ok(await client.signInWithPassword({ email: address, password: PASSWORD })).session });
    }
    return out;
  }
  const refreshes = async ({ session }) => (await refresh(session.refresh_token)).status === 200;

  test("scope local ends only this session: its tokens stop, the user's other sessions go on", async () => {
    const [a, b] = await sessions(2);
    const client = authClient();
    ok(await client.setSession({ access_token: b.session.access_token, refresh_token: b.session.refresh_token }));
    const { error } = await client.signOut({ scope: "local" });
    assert.equal(error, null);
    assert.equal(await refreshes(b), false);
    assert.equal(await refreshes(a), true);
    // Its access token still verifies but names a session that is gone.
    const gone = await raw("GET", "/user", { token: b.session.access_token });
    assert.equal(gone.status, 403);
    assert.equal(gone.body.error_code, "session_not_found");
  });

  test("scope others keeps only this session; global (the default) ends them all", async () => {
    const [a, b, c] = await sessions(3);
    assert.equal((await raw("POST", "/logout?scope=others", { token: c.session.access_token })).status, 204);
    assert.deepEqual([await refreshes(a), await refreshes(b)], [false, false]);
    const d = (await refresh(c.session.refresh_token)).body;
    assert.ok(d.refresh_token);
    const client = authClient();
    ok(await client.setSession({ access_token: d.access_token, refresh_token: d.refresh_token }));
    assert.equal((await client.signOut()).error, null);
    assert.equal((await refresh(d.refresh_token)).status, 400);
    const bad = await raw("POST", "/logout?scope=everywhere", { token: d.access_token });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.msg, 'Unsupported logout scope "everywhere"');
  });
});

describe("admin API with the service key (admin.go)", () => {
  test("createUser, getUserById, listUsers; only the service role may", async () => {
    const address = email();
    const { user } = ok(await admin().createUser({ email: address, password: PASSWORD, email_confirm: true, user_metadata: { name: "Ada" } }));
    assert.equal(user.email, address.toLowerCase());
    assert.equal(user.user_metadata.name, "Ada");
    assert.ok(user.email_confirmed_at);
    assert.equal(ok(await admin().getUserById(user.id)).user.id, user.id);
    ok(await authClient().signInWithPassword({ email: address, password: PASSWORD }));
    const { users } = ok(await admin().listUsers({ page: 1, per_page: 1000 }));
    assert.ok(users.some((u) => u.id === user.id));
    apiError(await admin().createUser({ email: address, password: PASSWORD }), 422, "email_exists");
    // Without email_confirm the address is unconfirmed: no password sign-in.
    const unconfirmed = email();
    ok(await admin().createUser({ email: unconfirmed, password: PASSWORD }));
    apiError(await authClient().signInWithPassword({ email: unconfirmed, password: PASSWORD }), 400, "email_not_confirmed", "Email not confirmed");
    apiError(await authClient().admin.createUser({ email: email(), password: PASSWORD }), 403, "not_admin", "User not allowed");
    apiError(await admin().getUserById(randomUUID()), 404, "user_not_found", "User not found");
    // The opaque secret key stands for the service role too.
    const bySecret = authClient(URL_, env.SUPABASE_SECRET_KEY).admin;
    assert.equal(ok(await bySecret.getUserById(user.id)).user.id, user.id);
  });

  test("updateUserById({ban_duration}): a banned user cannot sign in, refresh or use Auth; 'none' lifts it", async () => {
    const { user, session, email: address } = await signUp();
    const banned = ok(await admin().updateUserById(user.id, { ban_duration: "1h" })).user;
    const until = Date.parse(banned.banned_until);
    assert.ok(Math.abs(until - Date.now() - 3600_000) < 60_000, banned.banned_until);
    apiError(await authClient().signInWithPassword({ email: address, password: PASSWORD }), 400, "user_banned", "User is banned");
    apiError(await authClient().refreshSession({ refresh_token: session.refresh_token }), 400, "user_banned", "Invalid Refresh Token: User Banned");
    apiError(await authClient().getUser(session.access_token), 403, "user_banned", "User is banned");
    apiError(await admin().updateUserById(user.id, { ban_duration: "3 days" }), 400, "validation_failed");
    const lifted = ok(await admin().updateUserById(user.id, { ban_duration: "none" })).user;
    assert.equal(lifted.banned_until, undefined);
    ok(await authClient().signInWithPassword({ email: address, password: PASSWORD }));
    ok(await authClient().refreshSession({ refresh_token: session.refresh_token }));
  });

  test("deleteUser(id, true) soft-deletes: the row stays, marked and scrubbed; no sign-in, no refresh", async () => {
    const { user, session, email: address } = await signUp();
    // GoTrue answers {}; auth-js hands it over as the user.
    assert.deepEqual(ok(await admin().deleteUser(user.id, true)), { user: {} });
    const gone = ok(await admin().getUserById(user.id)).user;
    assert.ok(gone.deleted_at);
    assert.notEqual(gone.email, address);
    assert.deepEqual(gone.user_metadata, {});
    apiError(await authClient().signInWithPassword({ email: address, password: PASSWORD }), 400, "invalid_credentials");
    apiError(await authClient().refreshSession({ refresh_token: session.refresh_token }), 400, "refresh_token_not_found");
  });

  test("deleteUser(id) hard-deletes: the user is gone, their tokens find no user", async () => {
    const { user, session } = await signUp();
    ok(await admin().deleteUser(user.id));
    apiError(await admin().getUserById(user.id), 404, "user_not_found");
    apiError(await authClient().getUser(session.access_token), 403, "user_not_found", "User from sub claim in JWT does not exist");
    apiError(await authClient().refreshSession({ refresh_token: session.refresh_token }), 400, "refresh_token_not_found");
  });
});

describe("the REST API takes Auth's tokens (supabase-js)", () => {
  test("a signed-in and an anonymous user each reach /rest/v1 as themselves", async () => {
    const db = supabase();
    const address = email();
    ok(await db.auth.signUp({ email: address, password: PASSWORD }));
    const { data: me, error } = await db.rpc("test_whoami");
    assert.equal(error, null);
    const { data: { user } } = await db.auth.getUser();
    assert.deepEqual(me, {
      uid: user.id, role: "authenticated", email: address.toLowerCase(), is_anonymous: false,
      session_id: claims((await db.auth.getSession()).data.session.access_token).session_id, in_auth_users: true,
    });
    const visitor = supabase();
    const { data: anon } = ok(await visitor.auth.signInAnonymously()) && { data: (await visitor.rpc("test_whoami")).data };
    assert.equal(anon.role, "authenticated");
    assert.equal(anon.is_anonymous, true);
    assert.equal(anon.in_auth_users, true);
    assert.notEqual(anon.uid, user.id);
    // After sign-out supabase-js falls back to the anon key.
    assert.equal((await db.auth.signOut()).error, null);
    assert.equal((await db.rpc("test_whoami")).data.role, "anon");
    assert.ok(isAuthError(new AuthApiError("x", 400, "y")));
  });
});

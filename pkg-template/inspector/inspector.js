// agentmem inspector: a user's LangGraph threads, checkpoints and memories, read and
// changed through the package's browser entry with the user's own access token, so the
// database's row-level security decides what is shown. No server of its own: the page
// needs only the project URL, its anon/publishable key and a signed-in user (Supabase
// Auth's password grant or anonymous sign-in, or a pasted session).
//
// Values are decoded here, not with @langchain (an optional peer the page cannot assume):
// LangGraph's JsonPlusSerializer stores type "json" as UTF-8 JSON text, and LangChain
// messages as {lc:1, type:"constructor", id:[..., "HumanMessage"], kwargs:{content,...}}.
// A fork stores edited values in that same serialized form, so AgentmemSaver revives them.
import { analyse, decode, learnedEdges, versionLabel } from "./graph.js";
import { forkEditor, stateChannel } from "./editor.js";
import {
  chatView, copyButton, empty, h, isMessages, jsonDiffView, jsonView, loading, messageDiffView, rawJson, short, when,
} from "./views.js";
import { canonical } from "./graph.js";

/** @type {any} */
let agentmem; // the package's browser entry, loaded once the page has started
const SESSION_KEY = "agentmem-inspector-session";
const PROJECT_KEY = "agentmem-inspector-project";
const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const whoami = /** @type {HTMLElement} */ (document.getElementById("whoami"));

/** @type {{ url: string, apiKey: string, fixed: boolean, embedUrl?: string }} */
const project = { url: "", apiKey: "", fixed: false };
/** @type {any} the signed-in client, or null */
let client = null;

/** An error as the package types it: its code, message, and whatever the server added. */
function errorBox(e, doing) {
  const box = h("div", { class: "state error", role: "alert", "data-state": "error" });
  box.append(`${doing ? `${doing}: ` : ""}`);
  if (e && e.name === "AgentmemError") {
    box.append(h("code", null, e.code), ` ${e.message}`);
    for (const k of ["status", "pgrstCode", "hint", "details"]) if (e[k] !== undefined) box.append(h("div", null, `${k}: ${e[k]}`));
    if (e.cause?.message && !e.message.includes(e.cause.message)) box.append(h("div", null, `cause: ${e.cause.message}`));
  } else {
    box.append(h("code", null, e?.name ?? "Error"), ` ${e?.message ?? String(e)}`);
  }
  return box;
}
/** @param {...any} children */
function show(...children) {
  main.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
}

// -------------------------------------------------------------------------------- session
/**
 * The signed-in session, kept in sessionStorage (this tab only): an access token, and when
 * it came from Supabase Auth its refresh token, so the page follows the session as
 * supabase-js does (a token that expires within a minute is refreshed before a request;
 * refresh tokens rotate).
 * @typedef {{ access_token: string, refresh_token: string | null, via: string, email?: string | null, anonymous?: boolean }} Session
 */
/** @type {Session | null} */
let session = null;
/** @type {Promise<string> | null} */
let refreshing = null;
/** Why the session ended (a failed refresh), shown until the user signs in again. @type {any} */
let ended = null;

function claims(token) {
  try {
    return JSON.parse(atob(token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")));
  } catch {
    return {};
  }
}
const expOf = (s) => (s ? Number(claims(s.access_token).exp) || null : null);
const secondsLeft = (s) => (expOf(s) === null ? Infinity : /** @type {number} */ (expOf(s)) - Date.now() / 1000);

/** Supabase Auth's answer as an AgentmemError that keeps the server's own words. */
async function authError(r) {
  const text = await r.text().catch(() => "");
  let body = {};
  try {
    body = JSON.parse(text);
  } catch {
    // Not JSON (a proxy's page, a project without Auth): its text is the message.
  }
  const b = /** @type {any} */ (body);
  const said = b.msg ?? b.message ?? b.error_description ?? b.error ?? (text.trim().slice(0, 200) || `HTTP ${r.status}`);
  const code = b.error_code ?? (typeof b.code === "string" ? b.code : undefined) ?? b.error;
  return new agentmem.AgentmemError(r.status === 404 ? "not_found" : r.status === 422 ? "invalid_input" : r.status === 429 ? "rate_limited" : r.status >= 500 ? "server" : "unauthorized",
    `Supabase Auth: ${said}`, { status: r.status, details: code ? `error_code ${code}` : undefined });
}

/** POST to the project's Auth; the parsed answer, or Auth's error. */
async function auth(path, body, bearer) {
  let r;
  try {
    r = await fetch(`${project.url.replace(/\/+$/, "")}/auth/v1${path}`, {
      method: "POST",
      headers: { apikey: project.apiKey, "content-type": "application/json", ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify(body),
    });
  } catch (e) {
    throw new agentmem.AgentmemError("network", `Supabase Auth at ${project.url}/auth/v1 did not answer: ${/** @type {Error} */ (e).message}`, { cause: e });
  }
  if (!r.ok) throw await authError(r);
  return r.status === 204 ? null : r.json();
}

/** @param {any} answer Auth's session answer (access_token, refresh_token, user). @param {string} via */
function sessionFrom(answer, via) {
  if (typeof answer?.access_token !== "string") throw new agentmem.AgentmemError("server", "Supabase Auth answered without an access token");
  return { access_token: answer.access_token, refresh_token: answer.refresh_token ?? null, via, email: answer.user?.email || null, anonymous: answer.user?.is_anonymous === true };
}

function saveSession(s) {
  session = s;
  ended = null;
  if (s) sessionStorage.setItem(SESSION_KEY, JSON.stringify(s));
  else sessionStorage.removeItem(SESSION_KEY);
  makeClient();
}

/** The current access token: refreshed first when it expires within a minute (a quarter
 *  of its life, for short-lived ones), once for every request waiting on it. The client
 *  asks for it before each request. */
async function accessToken() {
  const s = session;
  if (!s) return null;
  const c = claims(s.access_token);
  const margin = Math.min(60, Math.max(1, ((Number(c.exp) || 0) - (Number(c.iat) || 0)) / 4));
  if (!s.refresh_token || secondsLeft(s) > margin) return s.access_token;
  refreshing ??= auth("/token?grant_type=refresh_token", { refresh_token: s.refresh_token })
    .then((answer) => {
      const next = { ...sessionFrom(answer, s.via), email: answer.user?.email || s.email };
      // The same client goes on: it asks this function for the token before each request.
      if (session === s) {
        session = next;
        sessionStorage.setItem(SESSION_KEY, JSON.stringify(next));
      }
      renderWho();
      return next.access_token;
    }, (e) => {
      if (session === s) {
        ended = e;
        session = { ...s, refresh_token: null };
        sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
      }
      renderWho();
      throw e;
    })
    .finally(() => { refreshing = null; });
  return refreshing;
}

function makeClient() {
  client = null;
  if (!project.url || !project.apiKey || !session) return;
  // createClient refuses secret and service-role keys in a browser (the package's rule).
  client = agentmem.createClient({ url: project.url, apiKey: project.apiKey, accessToken: accessToken });
}

function renderWho() {
  const link = document.querySelector('[data-nav="signin"]');
  if (link) link.textContent = session ? "Switch user" : "Sign in";
  whoami.dataset.sub = "";
  whoami.dataset.exp = "";
  if (!session) {
    whoami.replaceChildren("not signed in");
    return;
  }
  const c = claims(session.access_token);
  const left = secondsLeft(session);
  const expired = left <= 0 && !session.refresh_token;
  whoami.dataset.sub = c.sub ?? "";
  whoami.dataset.exp = String(c.exp ?? "");
  whoami.dataset.session = ended ? "ended" : expired ? "expired" : "active";
  const who = session.email || c.email || c.sub || "?";
  whoami.replaceChildren(...[`signed in as ${who} (${c.role ?? "?"}${c.is_anonymous || session.anonymous ? ", anonymous" : ""})`,
    expired || ended
      ? h("span", { class: "badge interrupt" }, ended ? "session ended" : "session expired")
      : Number.isFinite(left) ? h("span", { class: "badge", title: new Date(c.exp * 1000).toLocaleString() },
        session.refresh_token ? `refreshes ${new Date(c.exp * 1000).toLocaleTimeString()}` : `expires ${new Date(c.exp * 1000).toLocaleTimeString()}`) : null,
    expired || ended ? h("a", { href: "#/signin", "data-action": "sign-in-again" }, " Sign in again") : null].filter((c) => c !== null));
}

/** A banner over a view when the session can no longer be used. */
function sessionBanner() {
  if (!session) return null;
  const expired = secondsLeft(session) <= 0 && !session.refresh_token;
  if (!expired && !ended) return null;
  return h("div", { class: "state error", role: "alert", "data-state": "expired" },
    ended ? errorBox(ended, "Refreshing the session") : `This access token expired at ${new Date(/** @type {number} */ (expOf(session)) * 1000).toLocaleString()}; requests are refused. `,
    h("a", { href: "#/signin" }, "Sign in again"));
}

function signInView(problem) {
  const url = h("input", { id: "f-url", name: "url", value: project.url, required: true, size: 40, readonly: project.fixed || null });
  const key = h("input", { id: "f-key", name: "apiKey", value: project.apiKey, required: true, size: 40, readonly: project.fixed || null });
  const takeProject = () => {
    project.url = /** @type {HTMLInputElement} */ (url).value.trim().replace(/\/+$/, "");
    project.apiKey = /** @type {HTMLInputElement} */ (key).value.trim();
    if (!project.fixed) localStorage.setItem(PROJECT_KEY, JSON.stringify({ url: project.url, apiKey: project.apiKey }));
    // The key is checked the way the client checks it, before any token is involved.
    agentmem.createClient({ url: project.url, apiKey: project.apiKey });
  };
  /** Runs a sign-in; on success, the threads. */
  const signIn = (how) => async (ev) => {
    ev.preventDefault();
    try {
      takeProject();
      saveSession(await how());
      renderWho();
      if (location.hash === "#/threads") route();
      else location.hash = "#/threads";
    } catch (e) {
      signInView(e);
    }
  };
  const email = h("input", { id: "f-email", type: "email", autocomplete: "username", required: true });
  const password = h("input", { id: "f-password", type: "password", autocomplete: "current-password", required: true });
  const withPassword = h("form", { class: "panel", "aria-labelledby": "h-auth", "data-form": "password", onsubmit: signIn(async () =>
    sessionFrom(await auth("/token?grant_type=password", { email: /** @type {HTMLInputElement} */ (email).value, password: /** @type {HTMLInputElement} */ (password).value }), "password")) },
  h("h2", { id: "h-auth" }, "Email and password"),
  h("label", { for: "f-email" }, "Email", email),
  h("label", { for: "f-password" }, "Password", password),
  h("p", null, h("button", { type: "submit" }, "Sign in")));
  const anonymous = h("form", { class: "panel", "aria-labelledby": "h-anon", "data-form": "anonymous", onsubmit: signIn(async () =>
    sessionFrom(await auth("/signup", { data: {} }), "anonymous")) },
  h("h2", { id: "h-anon" }, "Anonymous"),
  h("p", null, "A new visitor without an account (Supabase's anonymous sign-in): what a visitor's session sees. To look at one visitor's data, paste their session (access and refresh token) instead."),
  h("p", null, h("button", { type: "submit", class: "secondary" }, "Sign in anonymously")));
  const token = h("textarea", { id: "f-token", name: "token", rows: 3, placeholder: "eyJhbGciOi… (a signed-in user's access token: supabase-js session.access_token)" });
  const refresh = h("input", { id: "f-refresh", name: "refresh", autocomplete: "off", placeholder: "optional: session.refresh_token" });
  const pasted = h("form", { class: "panel", "aria-labelledby": "h-token", "data-form": "token", onsubmit: signIn(async () => {
    const t = /** @type {HTMLTextAreaElement} */ (token).value.trim();
    if (!t) throw new agentmem.AgentmemError("invalid_input", "paste a user's access token", { field: "token" });
    // Checked as the client checks a token (a JWT, not a secret key).
    agentmem.createClient({ url: project.url, apiKey: project.apiKey, accessToken: t });
    const r = /** @type {HTMLInputElement} */ (refresh).value.trim();
    return { access_token: t, refresh_token: r || null, via: "token", email: claims(t).email || null, anonymous: claims(t).is_anonymous === true };
  }) },
  h("h2", { id: "h-token" }, "A session (access token)"),
  h("label", { for: "f-token" }, "Access token (JWT)", token),
  h("label", { for: "f-refresh" }, "Refresh token (to keep the session going)", refresh),
  h("p", null, h("button", { type: "submit", class: "secondary" }, "Sign in with token")));
  const out = h("button", { type: "button", class: "secondary", "data-action": "sign-out", onclick: async () => {
    const s = session;
    saveSession(null);
    renderWho();
    if (s?.refresh_token) await auth("/logout?scope=local", {}, s.access_token).catch(() => {});
    signInView();
  } }, "Sign out");
  show(h("h1", null, "Sign in"), problem ? errorBox(problem, "Sign-in") : null, sessionBanner(), session ? h("p", null, out) : null,
    h("section", { class: "panel", "aria-labelledby": "h-project" }, h("h2", { id: "h-project" }, "Project"),
      h("div", { class: "inline" }, h("label", { for: "f-url" }, "Project URL", url), h("label", { for: "f-key" }, "Anon / publishable key (secret keys are refused)", key))),
    h("div", { class: "grid3" }, withPassword, anonymous, pasted));
}

// ------------------------------------------------------------------------------- threads
/** A checkpoint's handle: step · node · time (the id is one click away). */
const handle = (r, by) => `step ${r.metadata?.step ?? "?"} · ${by?.kind === "update" ? "update " : ""}${by?.nodes?.length ? `${by.kind === "update" ? "as " : ""}${by.nodes.join("+")}` : r.metadata?.source ?? "?"} · ${r.checkpoint?.ts ? new Date(r.checkpoint.ts).toLocaleTimeString() : ""}`;

// How many threads the list reads at most, and checkpoints one thread.
const THREADS_CAP = 1000;
const THREAD_CAP = 5000;

/**
 * Every row of a read, page after page, up to `cap`: the server's max-rows (1000 on
 * Supabase) cuts an answer short without an error, which the exact count reveals. A row a
 * concurrent write pushed onto the next page is kept once (`key`).
 * @param {(page: { offset: number, limit: number, count: "exact" }) => Promise<{ data: any, count: number | null }>} read
 * @param {number} cap
 * @param {(row: any) => string} key
 * @returns {Promise<{ rows: any[], total: number }>}
 */
async function pages(read, cap, key) {
  /** @type {Map<string, any>} */
  const rows = new Map();
  for (let offset = 0; ;) {
    const { data, count } = await read({ offset, limit: cap - offset, count: "exact" });
    for (const row of data) if (!rows.has(key(row))) rows.set(key(row), row);
    offset += data.length;
    const total = count ?? offset;
    if (data.length === 0 || offset >= Math.min(total, cap)) return { rows: [...rows.values()], total: Math.max(total, rows.size) };
  }
}

async function threadsView(params) {
  const prefix = params.get("prefix") ?? "";
  const meta = params.get("meta") ?? "";
  const q = params.get("q") ?? "";
  const prefixIn = h("input", { id: "f-prefix", name: "prefix", value: prefix, placeholder: "thread id prefix" });
  const metaIn = h("input", { id: "f-meta", name: "meta", value: meta, placeholder: '{"source":"loop"}', class: "mono" });
  const textIn = h("input", { id: "f-text", name: "q", type: "search", value: q, placeholder: "words in the last messages" });
  const form = h("form", { class: "inline", role: "search", onsubmit: (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams();
    for (const [k, e] of /** @type {[string, any][]} */ ([["prefix", prefixIn], ["meta", metaIn], ["q", textIn]])) if (e.value) p.set(k, e.value);
    location.hash = `#/threads?${p}`;
  } },
  h("label", { for: "f-text" }, "Text (last human / AI message, id)", textIn),
  h("label", { for: "f-prefix" }, "Thread id starts with", prefixIn),
  h("label", { for: "f-meta" }, "Latest metadata contains (JSON)", metaIn),
  h("button", { type: "submit" }, "Filter"));
  show(h("h1", null, "Threads"), sessionBanner(), form, loading("threads"));
  try {
    let filter = null;
    if (meta) {
      try {
        filter = JSON.parse(meta);
      } catch (e) {
        throw new agentmem.AgentmemError("invalid_input", `the metadata filter is not JSON: ${/** @type {Error} */ (e).message}`, { field: "meta" });
      }
    }
    // AgentmemSaver.listThreads' RPC: one row per thread, most recently written first, with
    // its latest checkpoint and the last human and AI text. RLS: the user's threads and
    // those shared with them.
    const { rows: data, total } = await pages((page) => client.rpc("langgraph_list_threads",
      { p_prefix: prefix || null, p_filter: filter, p_limit: THREADS_CAP, p_offset: 0 }, { idempotent: true, ...page }),
    THREADS_CAP, (t) => t.threadId);
    const words = q.toLowerCase().split(/\s+/).filter(Boolean);
    const threads = data.filter((t) => words.every((w) => `${t.threadId}\n${t.lastHumanMessage ?? ""}\n${t.lastAiMessage ?? ""}`.toLowerCase().includes(w)));
    if (threads.length === 0) {
      show(h("h1", null, "Threads"), sessionBanner(), form, empty(prefix || meta || q ? "No thread matches this filter." : "No threads yet: this user has no LangGraph checkpoints."));
      return;
    }
    // Threads of other tenants the user may see (deal threads shared with them), to mark.
    const me = claims(session?.access_token ?? "").sub;
    const { data: others } = await client.select("langgraph_threads", { columns: "thread_id,tenant_id", filters: [["tenant_id", "neq", me]], limit: THREADS_CAP });
    const shared = new Map(others.map((o) => [o.thread_id, o.tenant_id]));
    const rows = threads.map((t) => h("tr", { "data-thread": t.threadId, "data-count": t.checkpointCount },
      h("td", { class: "id" }, h("a", { href: `#/thread/${encodeURIComponent(t.threadId)}` }, t.threadId),
        shared.has(t.threadId) ? h("span", { class: "badge shared", title: `owned by ${shared.get(t.threadId)}` }, "shared") : null,
        h("div", { class: "preview" },
          t.lastHumanMessage ? h("div", { class: "p-human", title: t.lastHumanMessage }, h("span", { class: "who" }, "Human "), t.lastHumanMessage.slice(0, 160)) : null,
          t.lastAiMessage ? h("div", { class: "p-ai", title: t.lastAiMessage }, h("span", { class: "who" }, "AI "), t.lastAiMessage.slice(0, 160)) : null)),
      h("td", null, `step ${t.metadata?.step ?? "?"} · ${t.metadata?.source ?? "?"}`, h("div", { class: "muted" }, short(t.checkpointId), copyButton(t.checkpointId))),
      h("td", null, String(t.checkpointCount)),
      h("td", { class: "hide-narrow" }, when(t.updatedAt))));
    show(h("h1", null, "Threads"), sessionBanner(), form,
      h("table", { "data-threads": threads.length },
        h("caption", { class: "skip" }, "The user's threads, most recently written first"),
        h("thead", null, h("tr", null, h("th", { scope: "col" }, "Thread"), h("th", { scope: "col" }, "Latest checkpoint"),
          h("th", { scope: "col" }, "Checkpoints"), h("th", { scope: "col", class: "hide-narrow" }, "Written"))),
        h("tbody", null, ...rows)),
      total > data.length
        ? h("p", { class: "state empty", "data-partial": `${data.length}/${total}` }, `Showing the ${data.length.toLocaleString("en")} most recently written of ${total.toLocaleString("en")} threads.`)
        : null);
  } catch (e) {
    show(h("h1", null, "Threads"), sessionBanner(), form, errorBox(e, "Listing threads"));
  }
}

// -------------------------------------------------------------------------------- thread
/**
 * The checkpoints of a thread (all namespaces, newest first, at most THREAD_CAP) with
 * channel values resolved, and how many it has: the list RPC sends each stored value once
 * and refers to it by (namespace, channel, version) after.
 */
async function loadThread(threadId) {
  // Later pages refer to values an earlier page sent, so the values are read from all rows.
  const { rows: data, total } = await pages((page) => client.rpc("langgraph_list", { p_thread_id: threadId }, { idempotent: true, ...page }),
    THREAD_CAP, (row) => JSON.stringify([row.checkpoint_ns, row.checkpoint_id]));
  /** @type {Map<string, any>} */
  const stored = new Map();
  for (const row of data) for (const b of row.blobs) stored.set(JSON.stringify([row.checkpoint_ns, b.channel, b.version]), b);
  const rows = data.map((row) => {
    /** @type {Record<string, any>} */
    const values = {};
    for (const [channel, version] of Object.entries(row.checkpoint?.channel_versions ?? {})) {
      const b = stored.get(JSON.stringify([row.checkpoint_ns, channel, String(version)]));
      values[channel] = b ? decode(b) : { kind: "opaque", type: "missing", bytes: 0 };
    }
    // A pending write arrives as [task_id, channel, type, text, blob, task_path] (the SQL's
    // agentmem.langgraph_write); the views read it by name.
    const writes = row.writes.map(([task_id, channel, type, text, blob, task_path]) => ({ task_id, channel, type, text, blob, task_path }));
    return { ...row, writes, values };
  });
  return { rows, total };
}

/** Parent links to a tree; the oldest child continues a line, later children are forks. */
function buildTree(rows) {
  const byId = new Map(rows.map((r) => [r.checkpoint_id, { row: r, children: /** @type {any[]} */ ([]) }]));
  const roots = [];
  for (const n of byId.values()) {
    const parent = n.row.parent_checkpoint_id && byId.get(n.row.parent_checkpoint_id);
    if (parent) parent.children.push(n);
    else roots.push(n);
  }
  for (const n of byId.values()) n.children.sort((a, b) => (a.row.checkpoint_id < b.row.checkpoint_id ? -1 : 1));
  roots.sort((a, b) => (a.row.checkpoint_id < b.row.checkpoint_id ? -1 : 1));
  return { byId, roots };
}

function treeView(tree, analysis, threadId, selected) {
  let tips = 0;
  const node = (n) => {
    const r = n.row;
    const i = analysis.info.get(r.checkpoint_id);
    const tip = n.children.length === 0;
    if (tip) tips += 1;
    const interrupted = i.tasks.some((t) => t.interrupts.length > 0);
    const latest = r.checkpoint_id === analysis.head;
    return h("li", null, h("button", {
      type: "button", class: "node", "data-checkpoint": r.checkpoint_id, "data-head": tip || null, "data-latest": latest || null,
      title: r.checkpoint_id, "aria-current": r.checkpoint_id === selected ? "true" : null,
      onclick: () => { location.hash = `#/thread/${encodeURIComponent(threadId)}/${encodeURIComponent(r.checkpoint_id)}`; },
    },
    h("span", { class: `dot${tip ? " head" : ""}`, "aria-hidden": "true" }), handle(r, i.by),
    i.next.length ? h("span", { class: "muted" }, ` → ${i.next.join(", ")}`) : null,
    latest ? h("span", { class: "badge head" }, "getState") : tip ? h("span", { class: "badge" }, "tip") : null,
    interrupted ? h("span", { class: "badge interrupt" }, "interrupt") : null,
    r.writes.length > 0 ? h("span", { class: "badge" }, `${r.writes.length} pending`) : null));
  };
  /** A line of checkpoints; forks nest under the checkpoint they start from. */
  const line = (start, ul) => {
    for (let n = start; n; n = n.children[0]) {
      const li = node(n);
      for (const fork of n.children.slice(1)) {
        const sub = h("ul", { "data-branch": "", "aria-label": `fork from step ${n.row.metadata?.step ?? "?"}` });
        li.append(h("p", { class: "branch-label" }, `fork from ${handle(n.row, analysis.info.get(n.row.checkpoint_id).by)}`), sub);
        line(fork, sub);
      }
      ul.append(li);
    }
    return ul;
  };
  // Tab reaches every checkpoint; arrow keys also move between them, in tree order.
  const ul = h("ul", { class: "tree", onkeydown: (ev) => {
    const step = { ArrowDown: 1, ArrowUp: -1 }[ev.key];
    if (!step) return;
    const nodes = [...ul.querySelectorAll("button.node")];
    const at = nodes.indexOf(/** @type {Element} */ (document.activeElement));
    const next = /** @type {HTMLElement | undefined} */ (nodes[at + step]);
    if (at >= 0 && next) {
      ev.preventDefault();
      next.focus();
    }
  } });
  for (const root of tree.roots) line(root, ul);
  ul.dataset.checkpoints = String(tree.byId.size);
  ul.dataset.branches = String(tips);
  return ul;
}

const valueOf = (v) => (v.kind === "value" ? jsonView(v.value) : v.kind === "empty" ? h("em", null, "empty") : h("em", null, `${v.type}, ${v.bytes} bytes`));

/** A task's writes as a small table: channel, value. */
function writesTable(writes) {
  return h("table", { class: "writes" }, h("tbody", null, ...writes.map((w) => {
    const v = decode(w);
    return h("tr", { "data-write": w.channel }, h("th", { scope: "row" }, w.channel, w.channel === "__interrupt__" ? h("span", { class: "badge interrupt" }, "interrupt") : null),
      h("td", null, v.kind === "value" ? jsonView(v.value) : h("em", null, v.kind)));
  })));
}

function checkpointDetail(r, analysis, ctx) {
  const i = analysis.info.get(r.checkpoint_id);
  const latest = r.checkpoint_id === analysis.head;
  const messages = Object.entries(r.values).filter(([, v]) => v.kind === "value" && isMessages(v.value));
  const channels = h("div", { "data-section": "channels" });
  for (const [channel, v] of Object.entries(r.values).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const version = r.checkpoint.channel_versions[channel];
    channels.append(h("details", { "data-channel": channel, open: stateChannel(channel) && !isMessages(v.value) || null },
      h("summary", null, h("strong", null, channel),
        h("span", { class: "badge", title: `version ${version}`, "data-version": String(version) }, versionLabel(version)),
        i.changed.has(channel) ? h("span", { class: "badge changed" }, "written in this step") : null),
      valueOf(v)));
  }
  const tasks = i.tasks.length === 0 ? empty("No task: the run ends here (getState's next is empty).")
    : h("ol", { class: "tasks", "data-section": "tasks" }, ...i.tasks.map((t) => h("li", { class: "panel task", "data-task": t.id, "data-task-name": t.name },
      h("div", null, h("strong", null, t.name), h("span", { class: "muted" }, ` task ${short(t.id)} · triggered by ${t.trigger}`), copyButton(t.id, "copy task id"),
        // A subgraph keeps its checkpoints in the namespace "<node>:<task id>".
        ctx.namespaces.includes(`${r.checkpoint_ns ? `${r.checkpoint_ns}|` : ""}${t.name}:${t.id}`)
          ? h("a", { "data-subgraph": "", href: `#/thread/${encodeURIComponent(r.thread_id)}?${new URLSearchParams({ ns: `${r.checkpoint_ns ? `${r.checkpoint_ns}|` : ""}${t.name}:${t.id}` })}` }, " subgraph state →") : null,
        t.done ? h("span", { class: "badge" }, "wrote") : null, t.error ? h("span", { class: "badge bad" }, "error") : null),
      ...t.interrupts.map((it) => h("div", { class: "interrupt", "data-interrupt": it?.id ?? "" },
        h("span", { class: "badge interrupt" }, "interrupt"), it?.id ? h("span", { class: "muted" }, ` ${short(String(it.id))} `) : null,
        h("div", { "data-interrupt-value": JSON.stringify(it?.value ?? it) }, jsonView(it?.value ?? it)))),
      t.error?.kind === "value" ? h("div", { class: "bad" }, jsonView(t.error.value)) : null,
      t.writes.filter((w) => w.channel !== "__interrupt__").length > 0 ? writesTable(t.writes.filter((w) => w.channel !== "__interrupt__")) : null)));
  const others = i.others.map((g) => h("div", { class: "panel", "data-other-writes": g.id }, h("strong", null, g.label), h("span", { class: "muted" }, ` ${short(g.id)}`), writesTable(g.writes)));
  const actions = h("div", { class: "row-actions" },
    h("button", { type: "button", onclick: () => ctx.fork(r), "data-action": "fork" }, "Fork from here…"),
    r.parent_checkpoint_id ? h("button", { type: "button", class: "secondary", "data-action": "diff-parent", onclick: () => ctx.compare(r.parent_checkpoint_id, r.checkpoint_id) }, "Diff with parent") : null);
  const nextNames = latest ? analysis.headNext : i.next;
  return h("section", { class: "panel", "aria-labelledby": "h-cp", "data-detail": r.checkpoint_id, "data-latest": latest || null },
    h("h2", { id: "h-cp" }, handle(r, i.by), latest ? h("span", { class: "badge head" }, "getState head") : null),
    h("p", { class: "mono" }, r.checkpoint_id, copyButton(r.checkpoint_id)),
    h("dl", { class: "facts" },
      h("dt", null, "Made by"), h("dd", { "data-by": i.by.nodes.join(","), "data-kind": i.by.kind },
        i.by.kind === "update" ? "updateState" : i.by.kind, i.by.nodes.length ? ` · ${i.by.kind === "update" ? "as " : ""}${i.by.nodes.join(", ")}` : "",
        h("span", { class: "muted" }, ` (${i.by.how})`)),
      h("dt", null, "Next"), h("dd", { "data-next": nextNames.join(",") }, nextNames.length ? nextNames.join(", ") : "nothing: the run ended",
        latest && analysis.headNext.length !== i.next.length ? h("span", { class: "muted" }, ` (getState of the thread leaves out tasks that already wrote: ${i.next.filter((n) => !analysis.headNext.includes(n)).join(", ")})`) : null),
      h("dt", null, "When"), h("dd", null, when(r.checkpoint?.ts)),
      h("dt", null, "Parent"), h("dd", null, r.parent_checkpoint_id ? h("a", { class: "mono", href: `#/thread/${encodeURIComponent(r.thread_id)}/${encodeURIComponent(r.parent_checkpoint_id)}` }, short(r.parent_checkpoint_id)) : "none (root)"),
      r.checkpoint_ns ? [h("dt", null, "Namespace"), h("dd", null, r.checkpoint_ns)] : null),
    actions,
    h("div", { "data-slot": "fork" }),
    h("h3", null, `Tasks (${i.tasks.length})`), tasks, ...others,
    ...messages.map(([channel, v]) => h("div", null, h("h3", null, `Conversation (${channel})`), chatView(v.value))),
    h("h3", null, "Channel values"), channels,
    h("h3", null, "Metadata"), jsonView(r.metadata),
    rawJson({ checkpoint: r.checkpoint, metadata: r.metadata, writes: r.writes }, "Raw checkpoint JSON"));
}

/** Differences of two checkpoints: changed channels only, messages by id, others key by key. */
function diffView(a, b, analysis) {
  const names = [...new Set([...Object.keys(a.values), ...Object.keys(b.values)])].sort();
  // A channel without a version and one stored "empty" both have no value (LangGraph
  // leaves both out of channel_values): not a change.
  const text = (v) => (v === undefined || v.kind === "empty" ? "empty" : v.kind === "value" ? canonical(v.value) : `${v.type}:${v.bytes}`);
  const changed = names.filter((n) => text(a.values[n]) !== text(b.values[n]));
  const plain = (v) => (v?.kind === "value" ? v.value : undefined);
  const body = (n) => {
    const x = plain(a.values[n]), y = plain(b.values[n]);
    if ((isMessages(x) || x === undefined || (Array.isArray(x) && x.length === 0)) && (isMessages(y) || y === undefined || (Array.isArray(y) && y.length === 0)) && (isMessages(x) || isMessages(y))) {
      return messageDiffView(x ?? [], y ?? []);
    }
    // A channel absent on one side: its keys are all added (or removed).
    const none = (other) => (other !== null && typeof other === "object" && !Array.isArray(other) ? {} : null);
    return jsonDiffView(x === undefined ? none(y) : x, y === undefined ? none(x) : y);
  };
  const unchanged = names.filter((n) => !changed.includes(n));
  return h("section", { class: "panel diff", "aria-labelledby": "h-diff", "data-diff": changed.join(",") },
    h("h2", { id: "h-diff" }, `Diff: ${changed.length} of ${names.length} channels changed`),
    h("p", null, `${handle(a, analysis.info.get(a.checkpoint_id)?.by)} → ${handle(b, analysis.info.get(b.checkpoint_id)?.by)}`),
    changed.length === 0 ? empty("The two checkpoints hold the same channel values.")
      : changed.map((n) => h("div", { class: "dchan", "data-changed": n }, h("h3", null, n), body(n))),
    unchanged.length ? h("details", { class: "same" }, h("summary", null, `${unchanged.length} unchanged channel${unchanged.length === 1 ? "" : "s"}`), h("p", { class: "mono" }, unchanged.join(", "))) : null);
}

async function threadView(threadId, selected, params) {
  const title = () => h("h1", null, "Thread ", h("span", { class: "mono" }, threadId));
  show(title(), sessionBanner(), loading("checkpoints"));
  let rows, total;
  try {
    ({ rows, total } = await loadThread(threadId));
  } catch (e) {
    show(title(), sessionBanner(), errorBox(e, "Reading the thread"));
    return;
  }
  if (rows.length === 0) {
    // RLS makes another user's thread indistinguishable from one that does not exist.
    show(title(), h("p", { class: "state empty", "data-state": "not-found", role: "status" }, "Thread not found: no checkpoints of this id are visible to you."),
      h("p", null, h("a", { href: "#/threads" }, "Back to threads")));
    return;
  }
  const namespaces = [...new Set(rows.map((r) => r.checkpoint_ns))].sort();
  const ns = params.get("ns") ?? (namespaces.includes("") ? "" : namespaces[0]);
  const inNs = rows.filter((r) => r.checkpoint_ns === ns);
  const analysis = analyse(inNs, agentmem.uuid5);
  const tree = buildTree(inNs);
  const byId = new Map(inNs.map((r) => [r.checkpoint_id, r]));
  const current = byId.get(selected) ?? byId.get(analysis.head) ?? inNs[0];
  const diffSlot = h("div", { "data-slot": "diff" });
  const pick = (id, value) => h("select", { id }, ...inNs.map((r) => h("option", { value: r.checkpoint_id, selected: r.checkpoint_id === value || null },
    `${handle(r, analysis.info.get(r.checkpoint_id).by)} · ${short(r.checkpoint_id)}`)));
  const [da, db] = (params.get("diff") ?? "").split("..");
  const selA = /** @type {HTMLSelectElement} */ (pick("f-diff-a", da || current.parent_checkpoint_id || current.checkpoint_id));
  const selB = /** @type {HTMLSelectElement} */ (pick("f-diff-b", db || current.checkpoint_id));
  const compare = (a, b) => {
    const ra = byId.get(a), rb = byId.get(b);
    if (ra && rb) diffSlot.replaceChildren(diffView(ra, rb, analysis));
  };
  const reload = (id) => {
    const target = `#/thread/${encodeURIComponent(threadId)}/${encodeURIComponent(id)}${ns ? `?${new URLSearchParams({ ns })}` : ""}`;
    if (location.hash === target) route();
    else location.hash = target;
  };
  const detail = checkpointDetail(current, analysis, {
    namespaces,
    fork: (r) => {
      const slot = /** @type {HTMLElement} */ (detail.querySelector('[data-slot="fork"]'));
      slot.replaceChildren(forkEditor({
        row: r, rows: inNs, analysis, edges: learnedEdges(inNs, analysis), uuid5: agentmem.uuid5, errorBox, AgentmemError: agentmem.AgentmemError,
        write: async (put) => { await client.rpc("langgraph_put", put); },
        done: reload,
      }));
      /** @type {HTMLElement | null} */ (slot.querySelector("select, textarea"))?.focus();
    },
    compare: (a, b) => {
      selA.value = a;
      selB.value = b;
      compare(a, b);
      diffSlot.scrollIntoView();
    },
  });
  const dialog = h("dialog", { "aria-labelledby": "h-del" },
    h("h2", { id: "h-del" }, "Delete this thread?"),
    h("p", null, `Every checkpoint (${total}), value and pending write of `, h("span", { class: "mono" }, threadId), " is deleted. This cannot be undone."),
    h("form", { method: "dialog", class: "row-actions" },
      h("button", { value: "cancel", class: "secondary", autofocus: true }, "Cancel"),
      h("button", { value: "delete", class: "danger", "data-action": "confirm-delete" }, "Delete thread")));
  dialog.addEventListener("close", async () => {
    if (/** @type {HTMLDialogElement} */ (dialog).returnValue !== "delete") return;
    try {
      await client.rpc("langgraph_delete_thread", { p_thread_id: threadId });
      location.hash = "#/threads";
    } catch (e) {
      main.prepend(errorBox(e, "Deleting the thread"));
    }
  });
  const nsPicker = namespaces.length > 1 ? h("label", { for: "f-ns" }, "Namespace", h("select", { id: "f-ns", onchange: (ev) => {
    location.hash = `#/thread/${encodeURIComponent(threadId)}?${new URLSearchParams({ ns: ev.target.value })}`;
  } }, ...namespaces.map((n) => h("option", { value: n, selected: n === ns || null }, n || "(root)")))) : null;
  show(
    title(), sessionBanner(),
    h("div", { class: "toolbar" }, h("a", { href: "#/threads" }, "← Threads"), nsPicker,
      h("span", null, `${tree.byId.size} checkpoints`),
      analysis.head ? h("a", { href: `#/thread/${encodeURIComponent(threadId)}/${encodeURIComponent(analysis.head)}`, "data-action": "head" }, `getState head: ${handle(/** @type {any} */ (byId.get(analysis.head)), analysis.info.get(analysis.head).by)}`) : null,
      h("button", { type: "button", class: "danger", "data-action": "delete", onclick: () => /** @type {HTMLDialogElement} */ (dialog).showModal() }, "Delete thread…")),
    total > rows.length
      ? h("p", { class: "state empty", "data-partial": `${rows.length}/${total}` },
        `Showing the newest ${rows.length.toLocaleString("en")} of this thread's ${total.toLocaleString("en")} checkpoints; older ones are not listed.`)
      : null,
    h("div", { class: "split" },
      h("nav", { class: "panel", "aria-label": "Checkpoint tree" }, h("h2", null, "Checkpoints"), treeView(tree, analysis, threadId, current.checkpoint_id)),
      h("div", null,
        h("form", { class: "inline panel", "aria-label": "Compare two checkpoints", onsubmit: (ev) => {
          ev.preventDefault();
          compare(selA.value, selB.value);
        } }, h("label", { for: "f-diff-a" }, "Compare", selA), h("label", { for: "f-diff-b" }, "with", selB), h("button", { type: "submit", "data-action": "diff" }, "Diff")),
        diffSlot, detail)),
    dialog);
  if (da && db) compare(da, db);
}

// ------------------------------------------------------------------------------ memories
/**
 * The embedder for searching by meaning, if the page has one: a function a deployment
 * defines before the page loads (`globalThis.agentmemInspector = { embed: async (texts) =>
 * vectors }`), or the endpoint `agentmem-inspect --embed-url` names (POST {"texts": [...]}
 * with the user's Authorization header, answering {"vectors": [...]}). Use the embedder the
 * memories and store items were stored with. The endpoint comes from the page's own
 * config.json only, never from storage: it receives the user's token.
 * @returns {((texts: string[]) => Promise<number[][]>) | null}
 */
function embedder() {
  const hook = /** @type {any} */ (globalThis).agentmemInspector?.embed;
  if (typeof hook === "function") return async (texts) => hook(texts);
  const url = project.embedUrl;
  if (!url) return null;
  return async (texts) => {
    const token = (await accessToken()) ?? "";
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ texts }) });
    if (!r.ok) throw new Error(`the embedding endpoint answered HTTP ${r.status}: ${(await r.text().catch(() => "")).slice(0, 200)}`);
    const body = await r.json();
    return body.vectors ?? body.embeddings;
  };
}

/** A search form: words or (with an embedder) meaning. */
function searchForm(view, params, label, extra = []) {
  const embed = embedder();
  const q = params.get("q") ?? "";
  const byMeaning = embed !== null && params.get("by") === "meaning";
  const input = h("input", { id: "f-q", type: "search", name: "q", value: q, placeholder: byMeaning ? "a question or a phrase" : "words" });
  const by = embed && h("select", { id: "f-by", name: "by" },
    h("option", { value: "words", selected: !byMeaning || null }, "words"), h("option", { value: "meaning", selected: byMeaning || null }, "meaning"));
  const form = h("form", { class: "inline", role: "search", onsubmit: (ev) => {
    ev.preventDefault();
    const p = new URLSearchParams();
    const v = /** @type {HTMLInputElement} */ (input).value;
    if (v) p.set("q", v);
    if (v && by && /** @type {HTMLSelectElement} */ (by).value === "meaning") p.set("by", "meaning");
    for (const e of extra) if (e.value) p.set(e.name, e.value);
    location.hash = `#/${view}${p.size ? `?${p}` : ""}`;
  } }, h("label", { for: "f-q" }, label, input), by && h("label", { for: "f-by" }, "by", by),
  ...extra.map((e) => h("label", { for: e.id }, e.dataset.label, e)), h("button", { type: "submit" }, "Search"));
  return { form, q, byMeaning, embed };
}

/** The Memory view's heading: one page for what an agent remembers, in its two places. */
function memoryHead(active) {
  const tab = (view, label) => h("a", { href: `#/${view}`, "aria-current": view === active ? "page" : null }, label);
  return [
    h("h1", null, "Memory"),
    h("nav", { class: "tabs", "aria-label": "Memory" }, tab("memories", "Memory tools"), tab("store", "LangGraph store")),
    h("p", { class: "muted" }, active === "memories"
      ? "Memories the model created, searched and updated through the memory tools (MemoryTools, table agent_memories)."
      : "Items the graph keeps with LangGraph's store API (AgentmemStore: store.put / search, table langgraph_store_items)."),
  ];
}

async function memoriesView(params) {
  const { form, q, byMeaning, embed } = searchForm("memories", params, "Search memories");
  show(...memoryHead("memories"), sessionBanner(), form, loading("memories"));
  try {
    let data;
    if (byMeaning && q && embed) {
      // The search the memory tools run, with every score (threshold 0) and without
      // counting as an access.
      const [vector] = await embed([q]);
      ({ data } = await client.rpc("search_agent_memories", {
        p_query_embedding: JSON.stringify(Array.from(vector)), p_match_threshold: 0, p_match_count: 50, p_record_access: false,
      }));
    } else {
      ({ data } = await client.select("agent_memories", {
        columns: "id,agent_id,session_id,content,memory_type,importance_score,metadata,expires_at,created_at",
        filters: q ? [["content_tsv", "wfts", { query: q, config: "english" }]] : [],
        order: [{ column: "created_at", ascending: false }],
        limit: 200,
      }));
    }
    if (data.length === 0) {
      show(...memoryHead("memories"), sessionBanner(), form, empty(q ? "No memory matches this search." : "No memories yet."));
      return;
    }
    // Access counts live in a table of their own (agent_memory_counters), written on reads.
    const { data: counters } = await client.select("agent_memory_counters", {
      columns: "memory_id,access_count,last_accessed_at",
      filters: [["memory_id", "in", data.map((m) => m.id)]],
    });
    const count = new Map(counters.map((c) => [c.memory_id, c]));
    const rows = data.map((m) => {
      const del = async () => {
        if (!confirm(`Delete this memory?\n\n${m.content.slice(0, 200)}`)) return;
        try {
          await client.rpc("delete_agent_memory", { p_memory_id: m.id });
          route();
        } catch (e) {
          main.prepend(errorBox(e, "Deleting the memory"));
        }
      };
      const edit = async () => {
        const content = prompt("Memory content", m.content);
        if (content === null || content === m.content) return;
        try {
          await client.rpc("update_agent_memory", { p_memory_id: m.id, p_content: content });
          route();
        } catch (e) {
          main.prepend(errorBox(e, "Updating the memory"));
        }
      };
      const c = count.get(m.id);
      return h("tr", { "data-memory": m.id },
        h("td", null, m.content),
        byMeaning && h("td", { "data-similarity": m.similarity }, Number(m.similarity).toFixed(3)),
        h("td", null, m.memory_type),
        h("td", null, Number(m.importance_score).toFixed(2)),
        h("td", { class: "mono hide-narrow" }, m.agent_id),
        h("td", { "data-created": m.created_at ?? "" }, when(m.created_at)),
        h("td", { class: "hide-narrow" }, m.expires_at ? when(m.expires_at) : "never"),
        h("td", null, String(c?.access_count ?? 0)),
        h("td", null, h("div", { class: "row-actions" },
          h("button", { type: "button", class: "secondary", onclick: edit, "aria-label": `Edit memory ${short(m.id)}` }, "Edit"),
          h("button", { type: "button", class: "danger", onclick: del, "aria-label": `Delete memory ${short(m.id)}` }, "Delete"))));
    });
    show(...memoryHead("memories"), sessionBanner(), form,
      h("table", { "data-memories": data.length },
        h("thead", null, h("tr", null, ...["Content", byMeaning && "Similarity", "Type", "Importance", "Agent", "Created", "Expires", "Accessed", "Actions"]
          .filter((t) => t).map((t) => h("th", { scope: "col", class: t === "Agent" || t === "Expires" ? "hide-narrow" : null }, /** @type {string} */ (t))))),
        h("tbody", null, ...rows)));
  } catch (e) {
    show(...memoryHead("memories"), sessionBanner(), form, errorBox(e, "Listing memories"));
  }
}

// --------------------------------------------------------------------------------- store
async function storeView(params) {
  const nsIn = h("input", { id: "f-ns-prefix", name: "ns", value: params.get("ns") ?? "", placeholder: "prefs / food", "data-label": "Namespace starts with" });
  const { form, q, byMeaning, embed } = searchForm("store", params, "Search items", [nsIn]);
  const prefix = (params.get("ns") ?? "").split("/").map((s) => s.trim()).filter(Boolean);
  show(...memoryHead("store"), sessionBanner(), form, loading("store items"));
  try {
    let data;
    if (byMeaning && q && embed) {
      // AgentmemStore.search's RPC, ranked by the items' vectors; does not refresh TTLs.
      const [vector] = await embed([q]);
      const { data: answer } = await client.rpc("langgraph_store_batch", { p_ops: [{ op: "search", prefix, limit: 50, offset: 0, refresh: false, vector: Array.from(vector) }] });
      data = answer[0].map((it) => ({ namespace: it.namespace, key: it.key, value: it.value, created_at: it.createdAt, updated_at: it.updatedAt, score: it.score }));
      // TTL and expiry are columns of the table, not of the search's answer.
      if (data.length > 0) {
        const { data: more } = await client.select("langgraph_store_items", { columns: "namespace,key,expires_at,ttl_minutes", filters: [["key", "in", data.map((d) => d.key)]], limit: 500 });
        const extra = new Map(more.map((m) => [JSON.stringify([m.namespace, m.key]), m]));
        for (const d of data) Object.assign(d, extra.get(JSON.stringify([d.namespace, d.key])) ?? {});
      }
    } else {
      ({ data } = await client.select("langgraph_store_items", {
        columns: "namespace,key,value,created_at,updated_at,expires_at,ttl_minutes",
        order: [{ column: "namespace" }, { column: "key" }],
        limit: 500,
      }));
      const words = q.toLowerCase().split(/\s+/).filter(Boolean);
      data = data.filter((it) => prefix.every((p, i) => it.namespace[i] === p) &&
        words.every((w) => `${it.namespace.join(" / ")} ${it.key} ${JSON.stringify(it.value)}`.toLowerCase().includes(w)));
    }
    if (data.length === 0) {
      show(...memoryHead("store"), sessionBanner(), form, empty(q || prefix.length ? "No store item matches this search." : "No store items yet (AgentmemStore)."));
      return;
    }
    /** @type {Map<string, any[]>} */
    const groups = new Map();
    for (const it of data) {
      const ns = it.namespace.join(" / ");
      groups.set(ns, [...(groups.get(ns) ?? []), it]);
    }
    const ttl = (it) => (it.ttl_minutes ? `TTL ${it.ttl_minutes} min (refreshed on read)` : "no TTL");
    show(...memoryHead("store"), sessionBanner(), form,
      h("p", null, `${groups.size} namespace${groups.size === 1 ? "" : "s"}, ${data.length} item${data.length === 1 ? "" : "s"}`),
      ...[...groups].map(([ns, items]) => h("details", { class: "panel", open: true, "data-namespace": ns },
        h("summary", null, h("strong", null, ns), h("span", { class: "badge" }, String(items.length))),
        ...items.map((it) => h("div", { class: "item", "data-item": it.key },
          h("h3", { class: "mono" }, it.key, it.score !== undefined ? h("span", { class: "badge", "data-score": it.score }, `score ${Number(it.score).toFixed(3)}`) : null),
          h("p", { class: "muted", "data-times": "" }, `created ${when(it.created_at)} · updated ${when(it.updated_at)} · ${ttl(it)} · `,
            h("span", { "data-expires": it.expires_at ?? "never" }, it.expires_at ? `expires ${when(it.expires_at)}` : "never expires")),
          jsonView(it.value))))));
  } catch (e) {
    show(...memoryHead("store"), sessionBanner(), form, errorBox(e, "Listing the store"));
  }
}

// -------------------------------------------------------------------------------- router
async function route() {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const view = client ? parts[0] ?? "threads" : "signin";
  for (const a of document.querySelectorAll("[data-nav]")) {
    const nav = view === "thread" ? "threads" : view === "memories" || view === "store" ? "memory" : view;
    if (/** @type {HTMLElement} */ (a).dataset.nav === nav) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  renderWho();
  if (view === "signin" || !client) return signInView();
  if (view === "thread" && parts[1]) return threadView(parts[1], parts[2], params);
  if (view === "memories" || view === "memory") return memoriesView(params);
  if (view === "store") return storeView(params);
  return threadsView(params);
}

async function start() {
  try {
    agentmem = await import("../browser.js");
  } catch (e) {
    show(errorBox(e, "Loading the agentmem module"));
    return;
  }
  // config.json: written by `agentmem-inspect` (project URL and anon key only; the token
  // never leaves the browser). A static deployment without it asks in the sign-in form.
  try {
    const r = await fetch("./config.json", { cache: "no-store" });
    if (r.ok) {
      const c = await r.json();
      if (typeof c.url === "string" && typeof c.apiKey === "string") Object.assign(project, { url: c.url, apiKey: c.apiKey, fixed: true });
      if (typeof c.embedUrl === "string") project.embedUrl = c.embedUrl;
    }
  } catch {
    // No config: the form asks.
  }
  if (!project.fixed) {
    // Only what the form saved there, the project URL and key, each a string: anything else
    // in the page's storage (written by any script that once ran on this origin) is ignored,
    // so no stored value names an endpoint that would receive the user's token.
    try {
      const saved = JSON.parse(localStorage.getItem(PROJECT_KEY) ?? "{}");
      if (typeof saved?.url === "string") project.url = saved.url;
      if (typeof saved?.apiKey === "string") project.apiKey = saved.apiKey;
    } catch {
      // A damaged saved project: the form asks again.
    }
  }
  let problem = null;
  try {
    const s = JSON.parse(sessionStorage.getItem(SESSION_KEY) ?? "null");
    if (typeof s?.access_token === "string") session = s;
    makeClient();
  } catch (e) {
    problem = e;
    session = null;
  }
  window.addEventListener("hashchange", route);
  // The header's expiry follows the clock.
  setInterval(renderWho, 15000);
  if (problem) signInView(problem);
  else await route();
  document.body.dataset.ready = "true";
}

start();

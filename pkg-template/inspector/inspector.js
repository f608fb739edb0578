// agentmem inspector: a user's LangGraph threads, checkpoints and memories, read and
// changed through the package's browser entry with the user's own access token, so the
// database's row-level security decides what is shown. No server of its own: the page
// needs only the project URL, its anon/publishable key and a signed-in user's JWT.
//
// Values are decoded here, not with @langchain (an optional peer the page cannot assume):
// LangGraph's JsonPlusSerializer stores type "json" as UTF-8 JSON text, and LangChain
// messages as {lc:1, type:"constructor", id:[..., "HumanMessage"], kwargs:{content,...}}.
// A fork stores edited values in that same serialized form, so AgentmemSaver revives them.

/** @type {any} */
let agentmem; // the package's browser entry, loaded once the page has started
const TOKEN_KEY = "agentmem-inspector-token";
const PROJECT_KEY = "agentmem-inspector-project";
const main = /** @type {HTMLElement} */ (document.getElementById("main"));
const whoami = /** @type {HTMLElement} */ (document.getElementById("whoami"));

/** @type {{ url: string, apiKey: string, fixed: boolean, embedUrl?: string }} */
const project = { url: "", apiKey: "", fixed: false };
/** @type {any} the signed-in client, or null */
let client = null;
/** @type {{ role: string | null, sub: string | null } | null} */
let identity = null;

// ---------------------------------------------------------------------------- DOM helpers
/**
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElement}
 */
function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}
/** @param {...(Node | string | null | undefined | false)} children */
function show(...children) {
  main.replaceChildren(...children.filter((c) => c !== null && c !== undefined && c !== false).map((c) => /** @type {Node | string} */ (c)));
}
const loading = (what) => h("p", { class: "state loading", role: "status" }, `Loading ${what}…`);
const empty = (text) => h("p", { class: "state empty", "data-state": "empty" }, text);

/** An error as the package types it: its code, message, and whatever PostgREST added. */
function errorBox(e, doing) {
  const box = h("div", { class: "state error", role: "alert", "data-state": "error" });
  box.append(`${doing ? `${doing}: ` : ""}`);
  if (e && e.name === "AgentmemError") {
    box.append(h("code", null, e.code), ` ${e.message}`);
    for (const k of ["status", "pgrstCode", "hint", "details"]) if (e[k] !== undefined) box.append(h("div", null, `${k}: ${e[k]}`));
  } else {
    box.append(h("code", null, e?.name ?? "Error"), ` ${e?.message ?? String(e)}`);
  }
  return box;
}
const short = (id) => (id && id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id ?? "");
const when = (iso) => (iso ? new Date(iso).toLocaleString() : "");

// ------------------------------------------------------------------------- value decoding
/** @param {string} b64 */
function bytesOf(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}
/**
 * A stored value as the RPCs answer it ({type, text} or {type, blob}) decoded for display.
 * @returns {{ kind: "value", value: any } | { kind: "empty" } | { kind: "opaque", type: string, bytes: number, text?: string }}
 */
function decode(stored) {
  if (!stored || stored.type === "empty") return { kind: "empty" };
  const text = typeof stored.text === "string" ? stored.text : stored.blob != null ? null : "";
  if (stored.type === "json") {
    const t = text ?? new TextDecoder().decode(bytesOf(stored.blob));
    try {
      return { kind: "value", value: JSON.parse(t) };
    } catch {
      return { kind: "opaque", type: "json (not parseable)", bytes: t.length, text: t };
    }
  }
  const bytes = text !== null ? new TextEncoder().encode(text) : bytesOf(stored.blob);
  return { kind: "opaque", type: stored.type, bytes: bytes.length };
}
const isMessage = (v) =>
  v !== null && typeof v === "object" && v.lc === 1 && v.type === "constructor" && Array.isArray(v.id) &&
  /Message(Chunk)?$/.test(String(v.id[v.id.length - 1]));
const isMessages = (v) => Array.isArray(v) && v.length > 0 && v.every(isMessage);

/** Key-sorted JSON: the same value compares equal whatever order its keys were written in. */
function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "undefined";
}

// ------------------------------------------------------------------------------ JSON view
/** Collapsible JSON: objects and arrays are <details>, open near the top. */
function jsonView(value, depth = 0, label = null) {
  const key = label === null ? null : h("span", { class: "k" }, `${label}: `);
  if (value === null || typeof value !== "object") {
    const cls = typeof value === "string" ? "s" : typeof value === "number" ? "n" : "l";
    return h("div", { class: depth === 0 ? "json" : "row" }, key, h("span", { class: cls }, JSON.stringify(value) ?? "undefined"));
  }
  const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v]) : Object.entries(value);
  const kind = isMessage(value) ? String(value.id[value.id.length - 1]) : Array.isArray(value) ? `[${entries.length}]` : `{${entries.length}}`;
  const d = h("details", { class: depth === 0 ? "json" : "" }, h("summary", null, key, kind));
  if (depth < 2) d.open = true;
  for (const [k, v] of entries) d.append(jsonView(v, depth + 1, k));
  return d;
}

/** LangChain messages as a conversation. */
function chatView(messages) {
  const box = h("div", { class: "chat", "data-chat": "" });
  for (const m of messages) {
    const cls = String(m.id[m.id.length - 1]).replace(/Message(Chunk)?$/, "");
    const role = { Human: "human", AI: "ai", Tool: "tool", System: "system" }[cls] ?? "other";
    const k = m.kwargs ?? {};
    const content = typeof k.content === "string"
      ? k.content
      : Array.isArray(k.content) ? k.content.map((p) => (typeof p === "string" ? p : p?.text ?? JSON.stringify(p))).join("\n") : JSON.stringify(k.content);
    const calls = Array.isArray(k.tool_calls) && k.tool_calls.length > 0
      ? h("div", { class: "mono" }, k.tool_calls.map((c) => `→ ${c.name}(${JSON.stringify(c.args)})`).join("\n")) : null;
    box.append(h("div", { class: `msg ${role}` }, h("span", { class: "who" }, `${cls}${k.name ? ` · ${k.name}` : ""}`), content, calls));
  }
  return box;
}

// ------------------------------------------------------------------------------- session
function loadSession() {
  const token = sessionStorage.getItem(TOKEN_KEY);
  client = null;
  identity = null;
  if (!project.url || !project.apiKey) return null;
  try {
    // createClient refuses secret and service-role keys in a browser (the package's rule).
    const c = agentmem.createClient({ url: project.url, apiKey: project.apiKey, accessToken: token || undefined });
    identity = c.identity;
    if (token) client = c;
    return null;
  } catch (e) {
    return e;
  }
}
function renderWho() {
  whoami.textContent = client && identity ? `signed in as ${identity.sub ?? "?"} (${identity.role ?? "?"})` : "not signed in";
  whoami.dataset.sub = client ? identity?.sub ?? "" : "";
  const link = document.querySelector('[data-nav="signin"]');
  if (link) link.textContent = client ? "Switch user" : "Sign in";
}

function signInView(problem) {
  const url = h("input", { id: "f-url", name: "url", value: project.url, required: true, size: 40, readonly: project.fixed || null });
  const key = h("input", { id: "f-key", name: "apiKey", value: project.apiKey, required: true, size: 40, readonly: project.fixed || null });
  const token = h("textarea", { id: "f-token", name: "token", rows: 3, placeholder: "eyJhbGciOi… (a signed-in user's access token: supabase-js session.access_token)" });
  const pasted = h("form", { class: "panel", "aria-labelledby": "h-token", onsubmit: (ev) => {
    ev.preventDefault();
    project.url = /** @type {HTMLInputElement} */ (url).value.trim();
    project.apiKey = /** @type {HTMLInputElement} */ (key).value.trim();
    if (!project.fixed) localStorage.setItem(PROJECT_KEY, JSON.stringify({ url: project.url, apiKey: project.apiKey }));
    sessionStorage.setItem(TOKEN_KEY, /** @type {HTMLTextAreaElement} */ (token).value.trim());
    const e = loadSession();
    renderWho();
    if (e || !client) return signInView(e ?? new Error("paste a user's access token"));
    location.hash = "#/threads";
    route();
  } },
    h("h2", { id: "h-token" }, "Project and access token"),
    h("label", { for: "f-url" }, "Project URL", url),
    h("label", { for: "f-key" }, "Anon / publishable key (secret keys are refused)", key),
    h("label", { for: "f-token" }, "User access token (JWT)", token),
    h("p", null, h("button", { type: "submit" }, "Sign in with token")));
  const email = h("input", { id: "f-email", type: "email", autocomplete: "username" });
  const password = h("input", { id: "f-password", type: "password", autocomplete: "current-password" });
  const auth = h("form", { class: "panel", "aria-labelledby": "h-auth", onsubmit: async (ev) => {
    ev.preventDefault();
    project.url = /** @type {HTMLInputElement} */ (url).value.trim().replace(/\/+$/, "");
    project.apiKey = /** @type {HTMLInputElement} */ (key).value.trim();
    try {
      // Supabase Auth's password grant; projects without Auth (the local stack) answer 404.
      const r = await fetch(`${project.url}/auth/v1/token?grant_type=password`, {
        method: "POST",
        headers: { apikey: project.apiKey, "content-type": "application/json" },
        body: JSON.stringify({ email: /** @type {HTMLInputElement} */ (email).value, password: /** @type {HTMLInputElement} */ (password).value }),
      });
      const body = await r.json().catch(() => ({}));
      if (!r.ok || typeof body.access_token !== "string") {
        throw new agentmem.AgentmemError("unauthorized", body.error_description ?? body.msg ?? `Supabase Auth answered ${r.status}`, { status: r.status });
      }
      sessionStorage.setItem(TOKEN_KEY, body.access_token);
      const e = loadSession();
      renderWho();
      if (e) throw e;
      location.hash = "#/threads";
    } catch (e) {
      signInView(e);
    }
  } },
    h("h2", { id: "h-auth" }, "Or sign in with Supabase Auth"),
    h("label", { for: "f-email" }, "Email", email),
    h("label", { for: "f-password" }, "Password", password),
    h("p", null, h("button", { type: "submit", class: "secondary" }, "Sign in")));
  const out = h("button", { type: "button", class: "secondary", onclick: () => {
    sessionStorage.removeItem(TOKEN_KEY);
    loadSession();
    renderWho();
    signInView();
  } }, "Sign out");
  show(h("h1", null, "Sign in"), problem ? errorBox(problem, "Sign-in") : null, client ? h("p", null, out) : null,
    h("div", { class: "split" }, pasted, auth));
}

// ------------------------------------------------------------------------------- threads
async function threadsView(params) {
  const prefix = params.get("prefix") ?? "";
  const meta = params.get("meta") ?? "";
  const prefixIn = h("input", { id: "f-prefix", name: "prefix", value: prefix, placeholder: "thread id prefix" });
  const metaIn = h("input", { id: "f-meta", name: "meta", value: meta, placeholder: '{"source":"loop"}', class: "mono" });
  const form = h("form", { class: "inline", role: "search", onsubmit: (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    if (/** @type {HTMLInputElement} */ (prefixIn).value) q.set("prefix", /** @type {HTMLInputElement} */ (prefixIn).value);
    if (/** @type {HTMLInputElement} */ (metaIn).value) q.set("meta", /** @type {HTMLInputElement} */ (metaIn).value);
    location.hash = `#/threads?${q}`;
  } },
    h("label", { for: "f-prefix" }, "Thread id starts with", prefixIn),
    h("label", { for: "f-meta" }, "Metadata contains (JSON)", metaIn),
    h("button", { type: "submit" }, "Filter"));
  show(h("h1", null, "Threads"), form, loading("threads"));
  /** @type {any[]} */
  const filters = [["checkpoint_ns", "eq", ""]];
  try {
    if (meta) {
      let parsed;
      try {
        parsed = JSON.parse(meta);
      } catch (e) {
        throw new agentmem.AgentmemError("invalid_input", `the metadata filter is not JSON: ${/** @type {Error} */ (e).message}`, { field: "meta" });
      }
      filters.push(["metadata", "cs", parsed]);
    }
    // Newest checkpoints first; the first row seen of a thread is its latest. RLS limits
    // the rows to the user's own threads (and those shared with them).
    const { rows: data, total } = await pages((page) => client.select("langgraph_checkpoints", {
      columns: "thread_id,checkpoint_id,metadata,created_at,tenant_id",
      filters,
      order: [{ column: "checkpoint_id", ascending: false }, { column: "thread_id", ascending: true }],
      ...page,
    }), THREADS_CAP, (row) => JSON.stringify([row.tenant_id, row.thread_id, row.checkpoint_id]));
    /** @type {Map<string, any>} */
    const threads = new Map();
    for (const row of data) {
      if (prefix && !row.thread_id.startsWith(prefix)) continue;
      const t = threads.get(row.thread_id);
      if (t) t.count += 1;
      else threads.set(row.thread_id, { ...row, count: 1 });
    }
    if (threads.size === 0) {
      show(h("h1", null, "Threads"), form, empty(prefix || meta ? "No thread matches this filter." : "No threads yet: this user has no LangGraph checkpoints."));
      return;
    }
    const rows = [...threads.values()].map((t) =>
      h("tr", { "data-thread": t.thread_id },
        h("td", { class: "id" }, h("a", { href: `#/thread/${encodeURIComponent(t.thread_id)}` }, t.thread_id),
          t.tenant_id !== identity?.sub ? h("span", { class: "badge shared", title: `owned by ${t.tenant_id}` }, "shared") : null),
        h("td", { class: "id hide-narrow" }, short(t.checkpoint_id)),
        h("td", null, String(t.metadata?.step ?? "")),
        h("td", null, String(t.metadata?.source ?? "")),
        h("td", null, String(t.count)),
        h("td", { class: "hide-narrow" }, when(t.created_at))));
    show(h("h1", null, "Threads"), form,
      h("table", { "data-threads": threads.size },
        h("caption", { class: "skip" }, "The user's threads, latest checkpoint first"),
        h("thead", null, h("tr", null, h("th", { scope: "col" }, "Thread"), h("th", { scope: "col", class: "hide-narrow" }, "Latest checkpoint"),
          h("th", { scope: "col" }, "Step"), h("th", { scope: "col" }, "Source"), h("th", { scope: "col" }, "Checkpoints"),
          h("th", { scope: "col", class: "hide-narrow" }, "Time"))),
        h("tbody", null, ...rows)),
      total > data.length
        ? h("p", { class: "state empty", "data-partial": `${data.length}/${total}` },
          `Showing the threads of the newest ${data.length.toLocaleString("en")} of ${total.toLocaleString("en")} checkpoints.`)
        : null);
  } catch (e) {
    show(h("h1", null, "Threads"), form, errorBox(e, "Listing threads"));
  }
}

// How many checkpoints a view reads at most: the threads list (newest first), one thread.
const THREADS_CAP = 2000;
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
    return { ...row, values };
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

function treeView(tree, threadId, selected) {
  let heads = 0;
  const node = (n) => {
    const r = n.row;
    const head = n.children.length === 0;
    if (head) heads += 1;
    const interrupted = r.writes.some((w) => w.channel === "__interrupt__");
    return h("li", null, h("button", {
      type: "button", class: "node", "data-checkpoint": r.checkpoint_id, "data-head": head || null,
      "aria-current": r.checkpoint_id === selected ? "true" : null,
      onclick: () => { location.hash = `#/thread/${encodeURIComponent(threadId)}/${encodeURIComponent(r.checkpoint_id)}`; },
    },
      h("span", { class: `dot${head ? " head" : ""}`, "aria-hidden": "true" }),
      `step ${r.metadata?.step ?? "?"} · ${r.metadata?.source ?? "?"} · `, h("span", { class: "mono" }, short(r.checkpoint_id)),
      head ? h("span", { class: "badge head" }, "head") : null,
      interrupted ? h("span", { class: "badge interrupt" }, "interrupt") : null,
      r.writes.length > 0 ? h("span", { class: "badge" }, `${r.writes.length} pending`) : null));
  };
  /** A line of checkpoints; forks nest under the checkpoint they start from. */
  const line = (start, ul) => {
    for (let n = start; n; n = n.children[0]) {
      const li = node(n);
      for (const fork of n.children.slice(1)) {
        const sub = h("ul", { "data-branch": "", "aria-label": `fork from step ${n.row.metadata?.step ?? "?"}` });
        li.append(h("p", { class: "branch-label" }, `fork from ${short(n.row.checkpoint_id)}`), sub);
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
  ul.dataset.branches = String(heads);
  return ul;
}

function checkpointDetail(r, ctx) {
  const messages = Object.entries(r.values).filter(([, v]) => v.kind === "value" && isMessages(v.value));
  const channels = h("div", { "data-section": "channels" });
  for (const [channel, v] of Object.entries(r.values).sort(([a], [b]) => (a < b ? -1 : 1))) {
    const body = v.kind === "value" ? jsonView(v.value) : v.kind === "empty" ? h("em", null, "empty") : h("em", null, `${v.type}, ${v.bytes} bytes`);
    channels.append(h("details", { "data-channel": channel, open: !channel.startsWith("branch:") && !channel.startsWith("__") || null },
      h("summary", null, h("strong", null, channel), h("span", { class: "badge" }, `v ${r.checkpoint.channel_versions[channel]}`)), body));
  }
  const writes = r.writes.length === 0 ? empty("No pending writes.") : h("table", { "data-section": "writes" },
    h("thead", null, h("tr", null, h("th", { scope: "col" }, "Task"), h("th", { scope: "col" }, "Channel"), h("th", { scope: "col" }, "Value"))),
    h("tbody", null, ...r.writes.map((w) => {
      const v = decode(w);
      return h("tr", { "data-write": w.channel }, h("td", { class: "id" }, `${short(w.task_id)}${w.task_path ? ` ${w.task_path}` : ""}`),
        h("td", null, w.channel, w.channel === "__interrupt__" ? h("span", { class: "badge interrupt" }, "interrupt") : null),
        h("td", null, v.kind === "value" ? jsonView(v.value) : h("em", null, v.kind)));
    })));
  const actions = h("div", { class: "row-actions" },
    h("button", { type: "button", onclick: () => ctx.fork(r), "data-action": "fork" }, "Fork from here…"),
    r.parent_checkpoint_id ? h("button", { type: "button", class: "secondary", onclick: () => ctx.compare(r.parent_checkpoint_id, r.checkpoint_id) }, "Diff with parent") : null);
  return h("section", { class: "panel", "aria-labelledby": "h-cp", "data-detail": r.checkpoint_id },
    h("h2", { id: "h-cp" }, "Checkpoint ", h("span", { class: "mono" }, r.checkpoint_id)),
    h("p", null, `step ${r.metadata?.step} · ${r.metadata?.source} · ${when(r.checkpoint?.ts)}`,
      r.parent_checkpoint_id ? h("span", null, " · parent ", h("a", { class: "mono", href: `#/thread/${encodeURIComponent(r.thread_id)}/${encodeURIComponent(r.parent_checkpoint_id)}` }, short(r.parent_checkpoint_id))) : " · root",
      r.checkpoint_ns ? ` · namespace ${r.checkpoint_ns}` : ""),
    actions,
    h("div", { "data-slot": "fork" }),
    ...messages.map(([channel, v]) => h("div", null, h("h3", null, `Conversation (${channel})`), chatView(v.value))),
    h("h3", null, "Channel values"), channels,
    h("h3", null, "Pending writes"), writes,
    h("h3", null, "Metadata"), jsonView(r.metadata));
}

/** Differences of two checkpoints, channel by channel. */
function diffView(a, b) {
  const names = [...new Set([...Object.keys(a.values), ...Object.keys(b.values)])].sort();
  // A channel without a version and one stored "empty" both have no value (LangGraph
  // leaves both out of channel_values): not a change.
  const text = (v) => (v === undefined || v.kind === "empty" ? "empty" : v.kind === "value" ? canonical(v.value) : `${v.type}:${v.bytes}`);
  const changed = names.filter((n) => text(a.values[n]) !== text(b.values[n]));
  const cell = (v) => (v === undefined ? h("em", null, "absent")
    : v.kind === "value" ? (isMessages(v.value) ? chatView(v.value) : jsonView(v.value))
    : h("em", null, v.kind === "empty" ? "empty" : `${v.type}, ${v.bytes} bytes`));
  return h("section", { class: "panel diff", "aria-labelledby": "h-diff", "data-diff": changed.join(",") },
    h("h2", { id: "h-diff" }, `Diff: ${changed.length} of ${names.length} channels changed`),
    h("p", { class: "mono" }, `${short(a.checkpoint_id)} (step ${a.metadata?.step}) → ${short(b.checkpoint_id)} (step ${b.metadata?.step})`),
    changed.length === 0 ? empty("The two checkpoints hold the same channel values.") : h("table", null,
      h("thead", null, h("tr", null, h("th", { scope: "col" }, "Channel"), h("th", { scope: "col" }, "Before"), h("th", { scope: "col" }, "After"))),
      h("tbody", null, ...changed.map((n) => h("tr", { class: "changed", "data-changed": n }, h("th", { scope: "row" }, n), h("td", null, cell(a.values[n])), h("td", null, cell(b.values[n])))))),
    names.length > changed.length ? h("p", { class: "state empty" }, `Unchanged: ${names.filter((n) => !changed.includes(n)).join(", ")}`) : null);
}

/** A time-ordered UUIDv6, as LangGraph's checkpoint ids: a fork made now sorts after every
 *  checkpoint made before, so it becomes the thread's latest, as updateState's does. */
function uuid6() {
  const t = BigInt(Date.now()) * 10000n + 122192928000000000n + BigInt(Math.floor(Math.random() * 10000));
  const hex = t.toString(16).padStart(15, "0");
  const rnd = crypto.getRandomValues(new Uint8Array(8));
  rnd[0] = (rnd[0] & 0x3f) | 0x80;
  const r = [...rnd].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-6${hex.slice(12, 15)}-${r.slice(0, 4)}-${r.slice(4, 16)}`;
}

/** The next channel version after every version of the checkpoint, in the saver's style:
 *  numbers step+fraction (AgentmemSaver.getNextVersion), strings zero-padded. Three
 *  decimals: the same text in JavaScript and in Postgres, which looks blobs up by it. */
function nextVersion(versions) {
  const all = Object.values(versions);
  if (all.some((v) => typeof v === "string")) {
    const step = Math.max(0, ...all.map((v) => Number.parseInt(String(v).split(".")[0], 10) || 0)) + 1;
    return `${String(step).padStart(32, "0")}.${String(Math.random()).slice(2, 18).padEnd(16, "0")}`;
  }
  const step = Math.floor(Math.max(0, ...all.map(Number))) + 1;
  return step + (1 + Math.floor(Math.random() * 998)) / 1000;
}

/** A new checkpoint whose parent is `r`, with `edits` (channel → value in stored form). */
async function createFork(r, edits) {
  const versions = { ...(r.checkpoint.channel_versions ?? {}) };
  const version = nextVersion(versions);
  const blobs = [];
  for (const [channel, value] of Object.entries(edits)) {
    versions[channel] = version;
    blobs.push({ channel, version: String(version), type: "json", text: JSON.stringify(value) });
  }
  const id = uuid6();
  const checkpoint = { ...r.checkpoint, id, ts: new Date().toISOString(), channel_versions: versions };
  delete checkpoint.channel_values;
  const metadata = { source: "update", step: (r.metadata?.step ?? -1) + 1, parents: r.metadata?.parents ?? {}, writes: { inspector: edits } };
  await client.rpc("langgraph_put", {
    p_thread_id: r.thread_id, p_checkpoint_ns: r.checkpoint_ns, p_checkpoint_id: id, p_parent_checkpoint_id: r.checkpoint_id,
    p_type: null, p_checkpoint: checkpoint, p_metadata: metadata, p_blobs: blobs,
  });
  return id;
}

function forkForm(r, slot, reload) {
  const editable = Object.entries(r.values).filter(([, v]) => v.kind === "value");
  const areas = editable.map(([channel, v]) => {
    const id = `fork-${channel.replace(/[^\w-]/g, "_")}`;
    const ta = h("textarea", { id, "data-fork-channel": channel, rows: Math.min(12, JSON.stringify(v.value, null, 2).split("\n").length + 1) });
    /** @type {HTMLTextAreaElement} */ (ta).value = JSON.stringify(v.value, null, 2);
    return h("label", { for: id }, channel, ta);
  });
  const status = h("div", { "aria-live": "polite" });
  const form = h("form", { class: "panel", "data-form": "fork", onsubmit: async (ev) => {
    ev.preventDefault();
    /** @type {Record<string, any>} */
    const edits = {};
    try {
      for (const ta of form.querySelectorAll("textarea")) {
        const channel = /** @type {HTMLElement} */ (ta).dataset.forkChannel ?? "";
        let value;
        try {
          value = JSON.parse(/** @type {HTMLTextAreaElement} */ (ta).value);
        } catch (e) {
          throw new agentmem.AgentmemError("invalid_input", `${channel} is not JSON: ${/** @type {Error} */ (e).message}`, { field: channel });
        }
        const before = r.values[channel];
        if (canonical(value) !== canonical(before.value)) edits[channel] = value;
      }
      if (Object.keys(edits).length === 0) throw new agentmem.AgentmemError("invalid_input", "change at least one channel value to fork", { field: "channels" });
      status.replaceChildren(loading("the fork"));
      const id = await createFork(r, edits);
      reload(id);
    } catch (e) {
      status.replaceChildren(errorBox(e, "Fork"));
    }
  } },
    h("h3", null, "Fork from this checkpoint"),
    h("p", null, "Edit values in their stored form (LangChain messages as {lc, type, id, kwargs}). Changed channels get a new version; the new checkpoint's parent is this one, as updateState does."),
    ...areas, status,
    h("div", { class: "row-actions" }, h("button", { type: "submit" }, "Create fork"),
      h("button", { type: "button", class: "secondary", onclick: () => slot.replaceChildren() }, "Cancel")));
  slot.replaceChildren(form);
  /** @type {HTMLElement | null} */ (form.querySelector("textarea"))?.focus();
}

async function threadView(threadId, selected, params) {
  show(h("h1", null, "Thread ", h("span", { class: "mono" }, threadId)), loading("checkpoints"));
  let rows, total;
  try {
    ({ rows, total } = await loadThread(threadId));
  } catch (e) {
    show(h("h1", null, "Thread ", h("span", { class: "mono" }, threadId)), errorBox(e, "Reading the thread"));
    return;
  }
  if (rows.length === 0) {
    // RLS makes another user's thread indistinguishable from one that does not exist.
    show(h("h1", null, "Thread ", h("span", { class: "mono" }, threadId)),
      h("p", { class: "state empty", "data-state": "not-found", role: "status" }, "Thread not found: no checkpoints of this id are visible to you."),
      h("p", null, h("a", { href: "#/threads" }, "Back to threads")));
    return;
  }
  const namespaces = [...new Set(rows.map((r) => r.checkpoint_ns))].sort();
  const ns = params.get("ns") ?? (namespaces.includes("") ? "" : namespaces[0]);
  const inNs = rows.filter((r) => r.checkpoint_ns === ns);
  const tree = buildTree(inNs);
  const byId = new Map(inNs.map((r) => [r.checkpoint_id, r]));
  const current = byId.get(selected) ?? inNs[0];
  const diffSlot = h("div", { "data-slot": "diff" });
  const pick = (id, value) => h("select", { id }, ...inNs.map((r) => {
    const o = h("option", { value: r.checkpoint_id }, `step ${r.metadata?.step} · ${r.metadata?.source} · ${short(r.checkpoint_id)}`);
    if (r.checkpoint_id === value) /** @type {HTMLOptionElement} */ (o).selected = true;
    return o;
  }));
  const [da, db] = (params.get("diff") ?? "").split("..");
  const selA = pick("f-diff-a", da || current.parent_checkpoint_id || current.checkpoint_id);
  const selB = pick("f-diff-b", db || current.checkpoint_id);
  const compare = (a, b) => {
    const ra = byId.get(a), rb = byId.get(b);
    if (ra && rb) diffSlot.replaceChildren(diffView(ra, rb));
  };
  const reload = (id) => {
    const target = `#/thread/${encodeURIComponent(threadId)}/${encodeURIComponent(id)}`;
    if (location.hash === target) route();
    else location.hash = target;
  };
  const detail = checkpointDetail(current, {
    fork: (r) => forkForm(r, /** @type {HTMLElement} */ (detail.querySelector('[data-slot="fork"]')), reload),
    compare: (a, b) => {
      /** @type {HTMLSelectElement} */ (selA).value = a;
      /** @type {HTMLSelectElement} */ (selB).value = b;
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
    const q = new URLSearchParams({ ns: ev.target.value });
    location.hash = `#/thread/${encodeURIComponent(threadId)}?${q}`;
  } }, ...namespaces.map((n) => { const o = h("option", { value: n }, n || "(root)"); if (n === ns) /** @type {HTMLOptionElement} */ (o).selected = true; return o; }))) : null;
  show(
    h("h1", null, "Thread ", h("span", { class: "mono" }, threadId)),
    h("div", { class: "toolbar" }, h("a", { href: "#/threads" }, "← Threads"), nsPicker,
      h("span", null, `${tree.byId.size} checkpoints`),
      h("button", { type: "button", class: "danger", "data-action": "delete", onclick: () => /** @type {HTMLDialogElement} */ (dialog).showModal() }, "Delete thread…")),
    total > rows.length
      ? h("p", { class: "state empty", "data-partial": `${rows.length}/${total}` },
        `Showing the newest ${rows.length.toLocaleString("en")} of this thread's ${total.toLocaleString("en")} checkpoints; older ones are not listed.`)
      : null,
    h("div", { class: "split" },
      h("nav", { class: "panel", "aria-label": "Checkpoint tree" }, h("h2", null, "Checkpoints"), treeView(tree, threadId, current.checkpoint_id)),
      h("div", null,
        h("form", { class: "inline panel", "aria-label": "Compare two checkpoints", onsubmit: (ev) => {
          ev.preventDefault();
          compare(/** @type {HTMLSelectElement} */ (selA).value, /** @type {HTMLSelectElement} */ (selB).value);
        } }, h("label", { for: "f-diff-a" }, "Compare", selA), h("label", { for: "f-diff-b" }, "with", selB), h("button", { type: "submit", "data-action": "diff" }, "Diff")),
        diffSlot, detail)),
    dialog);
  if (da && db) compare(da, db);
}

// ------------------------------------------------------------------------------ memories
/**
 * The embedder for searching memories by meaning, if the page has one: a function a
 * deployment defines before the page loads (`globalThis.agentmemInspector = { embed:
 * async (texts) => vectors }`), or the endpoint `agentmem-inspect --embed-url` names
 * (POST {"texts": [...]} with the user's Authorization header, answering {"vectors": [...]}).
 * Use the embedder your memories were stored with. The endpoint comes from the page's own
 * config.json only, never from storage: it receives the user's token.
 * @returns {((texts: string[]) => Promise<number[][]>) | null}
 */
function embedder() {
  const hook = /** @type {any} */ (globalThis).agentmemInspector?.embed;
  if (typeof hook === "function") return async (texts) => hook(texts);
  const url = project.embedUrl;
  if (!url) return null;
  return async (texts) => {
    const token = sessionStorage.getItem(TOKEN_KEY) ?? "";
    const r = await fetch(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${token}` }, body: JSON.stringify({ texts }) });
    if (!r.ok) throw new Error(`the embedding endpoint answered HTTP ${r.status}`);
    const body = await r.json();
    return body.vectors ?? body.embeddings;
  };
}

async function memoriesView(params) {
  const q = params.get("q") ?? "";
  const embed = embedder();
  const byMeaning = embed !== null && params.get("by") === "meaning";
  const input = h("input", { id: "f-q", type: "search", name: "q", value: q, placeholder: byMeaning ? "a question or a phrase" : "words (full-text, english)" });
  const by = embed && h("select", { id: "f-by", name: "by" },
    h("option", { value: "words", selected: !byMeaning }, "words"), h("option", { value: "meaning", selected: byMeaning }, "meaning"));
  const form = h("form", { class: "inline", role: "search", onsubmit: (ev) => {
    ev.preventDefault();
    const v = /** @type {HTMLInputElement} */ (input).value;
    const mode = by ? /** @type {HTMLSelectElement} */ (by).value : "words";
    location.hash = v ? `#/memories?${new URLSearchParams(mode === "meaning" ? { q: v, by: mode } : { q: v })}` : "#/memories";
  } }, h("label", { for: "f-q" }, "Search memories", input), by && h("label", { for: "f-by" }, "by", by), h("button", { type: "submit" }, "Search"));
  show(h("h1", null, "Memories"), form, loading("memories"));
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
      show(h("h1", null, "Memories"), form, empty(q ? "No memory matches this search." : "No memories yet."));
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
        h("td", { class: "hide-narrow" }, m.expires_at ? when(m.expires_at) : "never"),
        h("td", null, String(c?.access_count ?? 0)),
        h("td", null, h("div", { class: "row-actions" },
          h("button", { type: "button", class: "secondary", onclick: edit, "aria-label": `Edit memory ${short(m.id)}` }, "Edit"),
          h("button", { type: "button", class: "danger", onclick: del, "aria-label": `Delete memory ${short(m.id)}` }, "Delete"))));
    });
    show(h("h1", null, "Memories"), form,
      h("table", { "data-memories": data.length },
        h("thead", null, h("tr", null, ...["Content", byMeaning && "Similarity", "Type", "Importance", "Agent", "Expires", "Accessed", "Actions"]
          .filter((t) => t).map((t) => h("th", { scope: "col", class: t === "Agent" || t === "Expires" ? "hide-narrow" : null }, /** @type {string} */ (t))))),
        h("tbody", null, ...rows)));
  } catch (e) {
    show(h("h1", null, "Memories"), form, errorBox(e, "Listing memories"));
  }
}

// --------------------------------------------------------------------------------- store
async function storeView() {
  show(h("h1", null, "Long-term store"), loading("store items"));
  try {
    const { data } = await client.select("langgraph_store_items", {
      columns: "namespace,key,value,updated_at,expires_at",
      order: [{ column: "namespace" }, { column: "key" }],
      limit: 500,
    });
    if (data.length === 0) {
      show(h("h1", null, "Long-term store"), empty("No store items yet (AgentmemStore)."));
      return;
    }
    /** @type {Map<string, any[]>} */
    const groups = new Map();
    for (const it of data) {
      const ns = it.namespace.join(" / ");
      groups.set(ns, [...(groups.get(ns) ?? []), it]);
    }
    show(h("h1", null, "Long-term store"), h("p", null, `${groups.size} namespace${groups.size === 1 ? "" : "s"}, ${data.length} item${data.length === 1 ? "" : "s"}`),
      ...[...groups].map(([ns, items]) => h("details", { class: "panel", open: true, "data-namespace": ns },
        h("summary", null, h("strong", null, ns), h("span", { class: "badge" }, String(items.length))),
        ...items.map((it) => h("div", { "data-item": it.key }, h("h3", { class: "mono" }, it.key,
          it.expires_at ? h("span", { class: "badge" }, `expires ${when(it.expires_at)}`) : null), jsonView(it.value))))));
  } catch (e) {
    show(h("h1", null, "Long-term store"), errorBox(e, "Listing the store"));
  }
}

// -------------------------------------------------------------------------------- router
async function route() {
  const [path, query = ""] = location.hash.replace(/^#/, "").split("?");
  const params = new URLSearchParams(query);
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const view = client ? parts[0] ?? "threads" : "signin";
  for (const a of document.querySelectorAll("[data-nav]")) {
    if (/** @type {HTMLElement} */ (a).dataset.nav === (view === "thread" ? "threads" : view)) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  if (view === "signin" || !client) return signInView();
  if (view === "thread" && parts[1]) return threadView(parts[1], parts[2], params);
  if (view === "memories") return memoriesView(params);
  if (view === "store") return storeView();
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
  const problem = loadSession();
  renderWho();
  window.addEventListener("hashchange", route);
  if (problem) signInView(problem);
  else await route();
  document.body.dataset.ready = "true";
}

start();

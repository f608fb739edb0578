// The inspector's building blocks: DOM helper, collapsible JSON, LangChain messages as a
// developer reads them (roles, tool calls with their results, content blocks, ids, raw
// JSON), and the diffs (messages matched by id, other values key by key).
//
// Messages are read in their stored form (LangGraph's JsonPlusSerializer):
// {lc: 1, type: "constructor", id: [..., "AIMessage"], kwargs: {content, id, tool_calls, ...}}.
import { canonical } from "./graph.js";

/**
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...any} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k === "class") e.className = v;
    else e.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) e.append(c);
  return e;
}
export const short = (id) => (id && id.length > 14 ? `${id.slice(0, 8)}…${id.slice(-4)}` : id ?? "");
export const when = (iso) => (iso ? new Date(iso).toLocaleString() : "");
export const empty = (text) => h("p", { class: "state empty", "data-state": "empty" }, text);
export const loading = (what) => h("p", { class: "state loading", role: "status" }, `Loading ${what}…`);
const clip = (s, n = 300) => (s.length > n ? `${s.slice(0, n)}…` : s);
const compact = (v) => clip(JSON.stringify(v) ?? "undefined");

/** A button that copies `text` (a full id behind a short handle). */
export function copyButton(text, label = "copy id") {
  return h("button", { type: "button", class: "copy", title: text, "aria-label": `${label}: ${text}`, "data-copy": text, onclick: async (ev) => {
    const b = /** @type {HTMLElement} */ (ev.currentTarget);
    try {
      await navigator.clipboard.writeText(text);
      b.textContent = "copied";
    } catch {
      // No clipboard permission (an http page on another host): select the id to copy by hand.
      b.textContent = text;
    }
  } }, "copy");
}

/** Collapsible JSON: objects and arrays are <details>, open near the top. */
export function jsonView(value, depth = 0, label = null) {
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

/** JSON one click away, built when first opened. */
export function rawJson(value, label = "JSON") {
  const d = h("details", { class: "raw" }, h("summary", null, label));
  d.addEventListener("toggle", () => {
    if (d.open && d.children.length === 1) d.append(jsonView(value));
  });
  return d;
}

export const isMessage = (v) =>
  v !== null && typeof v === "object" && v.lc === 1 && v.type === "constructor" && Array.isArray(v.id) &&
  /Message(Chunk)?$/.test(String(v.id[v.id.length - 1]));
export const isMessages = (v) => Array.isArray(v) && v.length > 0 && v.every(isMessage);

const ROLES = { Human: "human", AI: "ai", Tool: "tool", System: "system", Remove: "remove" };
/** The message's class ("AIMessage") and role ("ai"). */
export function roleOf(m) {
  const cls = String(m.id[m.id.length - 1]);
  return { cls, role: ROLES[/** @type {keyof ROLES} */ (cls.replace(/Message(Chunk)?$/, ""))] ?? "other" };
}

/** A content's text: the string, or its text blocks. */
export function textOf(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return content === undefined ? "" : JSON.stringify(content);
  return content.map((p) => (typeof p === "string" ? p : p?.type === "text" ? p.text ?? "" : "")).filter(Boolean).join("\n");
}

/** Content blocks: text as text, images (and other media) as placeholders. */
function contentView(content) {
  if (typeof content === "string") return h("div", { class: "content" }, content);
  if (!Array.isArray(content)) return h("div", { class: "content" }, compact(content));
  return h("div", { class: "content" }, ...content.map((p) => {
    if (typeof p === "string") return h("div", null, p);
    if (p?.type === "text") return h("div", null, p.text ?? "");
    const url = typeof p?.image_url === "string" ? p.image_url : p?.image_url?.url ?? p?.url ?? (p?.source_type === "base64" || p?.data ? `data:${p.mime_type ?? ""};base64,…` : "");
    const what = /image/.test(String(p?.type)) ? "image" : String(p?.type ?? "block");
    return h("div", { class: "block", "data-block": what }, `[${what}${url ? `: ${clip(url.startsWith("data:") ? `${url.slice(0, url.indexOf(",") + 1)}… (${url.length} chars)` : url, 80)}` : ""}]`);
  }));
}

function callView(c, result) {
  const k = result?.kwargs ?? {};
  const status = k.status === "error" ? "error" : "success";
  return h("li", { class: "call", "data-call": c.id ?? "" },
    h("div", null, h("code", { class: "fn" }, c.name ?? "?"), h("span", { class: "muted", title: c.id ? `tool call id: ${c.id}` : null }, c.id ? ` ${short(c.id)}` : "")),
    h("pre", { class: "args" }, JSON.stringify(c.args ?? {}, null, 1)),
    result
      ? h("div", { class: `result ${status}`, "data-status": status, "data-msg-id": k.id ?? null, title: k.id ? `ToolMessage id: ${k.id}` : null },
        h("span", { class: `badge ${status === "error" ? "bad" : "ok"}` }, status === "error" ? "error" : "result"), contentView(k.content))
      : h("div", { class: "result pending", "data-status": "none" }, h("span", { class: "badge" }, "no result")));
}

/**
 * One message. `results`: tool_call_id → ToolMessage, to show each AI tool call with its
 * result; a ToolMessage shown there is not shown again.
 */
export function messageView(m, results = new Map(), extra = null) {
  const { cls, role } = roleOf(m);
  const k = m.kwargs ?? {};
  const calls = Array.isArray(k.tool_calls) ? k.tool_calls : [];
  const invalid = Array.isArray(k.invalid_tool_calls) ? k.invalid_tool_calls : [];
  return h("div", { class: `msg ${role}`, "data-role": role, "data-msg-id": k.id ?? null, title: k.id ? `${cls} id: ${k.id}` : `${cls} (no id)` },
    h("span", { class: "who" }, cls.replace(/Message$/, ""), k.name ? ` · ${k.name}` : "",
      role === "tool" ? ` · ${k.status ?? "success"} · call ${short(k.tool_call_id ?? "?")}` : "", extra),
    contentView(k.content),
    calls.length > 0 ? h("ol", { class: "calls", "aria-label": "tool calls" }, ...calls.map((c) => callView(c, results.get(c.id)))) : null,
    invalid.length > 0 ? h("div", { class: "bad" }, `invalid tool calls: ${compact(invalid)}`) : null,
    rawJson(m));
}

/** Tool results by the id of the call they answer, for calls present in `messages`. */
export function resultsOf(messages) {
  const ids = new Set(messages.flatMap((m) => (Array.isArray(m.kwargs?.tool_calls) ? m.kwargs.tool_calls.map((c) => c.id) : [])));
  return new Map(messages.filter((m) => roleOf(m).role === "tool" && ids.has(m.kwargs?.tool_call_id)).map((m) => [m.kwargs.tool_call_id, m]));
}

/** LangChain messages as a conversation, each ToolMessage under the call it answers. */
export function chatView(messages) {
  const results = resultsOf(messages);
  const attached = new Set([...results.values()]);
  return h("div", { class: "chat", "data-chat": "" }, ...messages.filter((m) => !attached.has(m)).map((m) => messageView(m, results)));
}

// ---------------------------------------------------------------------------------- diffs
/** Word-level difference of two texts: removed words struck, added ones marked. */
export function wordDiff(a, b) {
  const x = a.split(/(\s+)/), y = b.split(/(\s+)/);
  const out = h("div", { class: "wdiff" });
  if (x.length * y.length > 250000) return h("div", { class: "wdiff" }, h("del", null, a), h("ins", null, b));
  const n = x.length, m = y.length;
  const L = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) L[i][j] = x[i] === y[j] ? L[i + 1][j + 1] + 1 : Math.max(L[i + 1][j], L[i][j + 1]);
  let i = 0, j = 0;
  const push = (tag, s) => {
    const last = out.lastChild;
    if (last && /** @type {Element} */ (last).tagName?.toLowerCase() === tag) last.textContent += s;
    else out.append(tag === "span" ? s : h(tag, null, s));
  };
  while (i < n && j < m) {
    if (x[i] === y[j]) { push("span", x[i]); i++; j++; }
    else if (L[i + 1][j] >= L[i][j + 1]) push("del", x[i++]);
    else push("ins", y[j++]);
  }
  while (i < n) push("del", x[i++]);
  while (j < m) push("ins", y[j++]);
  return out;
}

/**
 * Two message lists matched by id (by position for messages without one): each message of
 * either side once, in conversation order, as added, removed, edited or same.
 * @returns {{ status: string, before?: any, after?: any }[]}
 */
export function matchMessages(before, after) {
  const key = (m, i) => m?.kwargs?.id ?? `#${i}`;
  const a = before.map((m, i) => [key(m, i), m]), b = after.map((m, i) => [key(m, i), m]);
  const inA = new Map(a.map(([k], i) => [k, i])), inB = new Set(b.map(([k]) => k));
  /** @type {{ status: string, before?: any, after?: any }[]} */
  const out = [];
  let ai = 0;
  for (const [k, m] of b) {
    const at = inA.get(k);
    if (at === undefined) { out.push({ status: "added", after: m }); continue; }
    for (; ai < at; ai++) if (!inB.has(a[ai][0])) out.push({ status: "removed", before: a[ai][1] });
    ai = Math.max(ai, at + 1);
    out.push({ status: canonical(a[at][1]) === canonical(m) ? "same" : "edited", before: a[at][1], after: m });
  }
  for (; ai < a.length; ai++) if (!inB.has(a[ai][0])) out.push({ status: "removed", before: a[ai][1] });
  return out;
}

function editedView(before, after) {
  const kb = before.kwargs ?? {}, ka = after.kwargs ?? {};
  const notes = [];
  if (roleOf(before).cls !== roleOf(after).cls) notes.push(h("div", null, `role: ${roleOf(before).cls} → ${roleOf(after).cls}`));
  if (canonical(kb.content) !== canonical(ka.content)) notes.push(wordDiff(textOf(kb.content), textOf(ka.content)));
  if (canonical(kb.tool_calls ?? []) !== canonical(ka.tool_calls ?? [])) notes.push(h("div", null, "tool calls:"), jsonDiffView(kb.tool_calls ?? [], ka.tool_calls ?? []));
  const rest = (k) => Object.fromEntries(Object.entries(k).filter(([n]) => n !== "content" && n !== "tool_calls"));
  if (canonical(rest(kb)) !== canonical(rest(ka))) notes.push(jsonDiffView(rest(kb), rest(ka)));
  return h("div", { class: "edit" }, ...notes);
}

/** The message diff: changes marked, runs of unchanged messages collapsed. */
export function messageDiffView(before, after) {
  const rows = matchMessages(before, after);
  const box = h("div", { class: "chat mdiff", "data-mdiff": "" });
  let same = [];
  const flush = () => {
    if (same.length === 0) return;
    box.append(h("details", { class: "same" }, h("summary", null, `${same.length} unchanged message${same.length === 1 ? "" : "s"}`),
      ...same.map((m) => h("div", { class: "drow", "data-msg-status": "same" }, messageView(m)))));
    same = [];
  };
  for (const r of rows) {
    if (r.status === "same") { same.push(r.after); continue; }
    flush();
    const m = r.after ?? r.before;
    box.append(h("div", { class: `drow ${r.status}`, "data-msg-status": r.status },
      messageView(m, undefined, h("span", { class: `badge d-${r.status}` }, r.status)),
      r.status === "edited" ? editedView(r.before, r.after) : null));
  }
  flush();
  return box;
}

/**
 * A structural difference: every path whose value was added, removed or changed.
 * @returns {{ op: "+" | "-" | "~", path: string, before?: any, after?: any }[]}
 */
export function jsonDiff(a, b, path = "") {
  if (canonical(a) === canonical(b)) return [];
  const obj = (v) => v !== null && typeof v === "object";
  if (obj(a) && obj(b) && Array.isArray(a) === Array.isArray(b)) {
    const keys = Array.isArray(a) ? [...Array(Math.max(a.length, b.length)).keys()].map(String) : [...new Set([...Object.keys(a), ...Object.keys(b)])];
    return keys.flatMap((k) => {
      const p = Array.isArray(a) ? `${path}[${k}]` : `${path}${path ? "." : ""}${k}`;
      if (!(k in a)) return [{ op: /** @type {"+"} */ ("+"), path: p, after: b[k] }];
      if (!(k in b)) return [{ op: /** @type {"-"} */ ("-"), path: p, before: a[k] }];
      return jsonDiff(a[k], b[k], p);
    });
  }
  return [{ op: "~", path: path || "(value)", before: a, after: b }];
}

export function jsonDiffView(a, b) {
  const changes = jsonDiff(a, b);
  const name = { "+": "added", "-": "removed", "~": "changed" };
  return h("ul", { class: "jdiff", "data-jdiff": changes.length }, ...changes.map((c) => h("li", { class: `d-${name[c.op]}`, "data-op": name[c.op], "data-path": c.path },
    h("code", null, c.path), ` ${name[c.op]}: `,
    c.op === "~" ? [h("del", null, compact(c.before)), " → ", h("ins", null, compact(c.after))]
      : c.op === "+" ? h("ins", null, compact(c.after)) : h("del", null, compact(c.before)))));
}

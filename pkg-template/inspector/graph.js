// What a LangGraph 1.x checkpoint says about the run, computed from the checkpoint alone
// (channel versions, versions_seen, stored values, pending writes), without the graph's
// definition: which node's run produced it, what getState reports as `next` and `tasks`
// (with their interrupts and writes), and what a fork written "as updateState would" holds.
// The rules are LangGraph's (its Pregel loop's _prepareNextTasks and _prepareSingleTask,
// tasksWithWrites, bulkUpdateState), read from @langchain/langgraph 1.7; where a rule
// needs the graph itself, the result says so instead of guessing.
//
// A row is a checkpoint as the inspector loads it: {checkpoint_ns, checkpoint_id,
// parent_checkpoint_id, checkpoint: {id, channel_versions, versions_seen}, metadata,
// writes: [{task_id, channel, type, text, blob, task_path}] in LangGraph's order, values: {channel: decoded}}, where a
// decoded value is {kind: "value", value} | {kind: "empty"} | {kind: "opaque", ...}.

export const NULL_TASK_ID = "00000000-0000-0000-0000-000000000000";
const RESERVED_SEEN = new Set(["__input__", "__interrupt__", "__snapshot_bumps__"]);
const NOT_OUTPUT = new Set(["__error__", "__interrupt__", "__scheduled__"]);

/** JsonPlusSerializer's `undefined` ({lc: 2, type: "undefined"}): a key holding it is absent
 *  once revived, so a value that lost it on a round trip is the same value. */
const isUndefined = (v) => v !== null && typeof v === "object" && v.lc === 2 && v.type === "undefined";

/** Key-sorted JSON: the same value compares equal whatever order its keys were written in. */
export function canonical(v) {
  if (Array.isArray(v)) return `[${v.map(canonical).join(",")}]`;
  if (v !== null && typeof v === "object") {
    return `{${Object.keys(v).filter((k) => !isUndefined(v[k])).sort().map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`).join(",")}}`;
  }
  return JSON.stringify(v) ?? "undefined";
}

/** The base64 text of a blob as bytes. */
export function bytesOf(b64) {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

/**
 * A stored value as the RPCs answer it ({type, text} or {type, blob}) decoded for display.
 * @returns {{ kind: "value", value: any } | { kind: "empty" } | { kind: "opaque", type: string, bytes: number, text?: string }}
 */
export function decode(stored) {
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

/** What a channel version reads as: its counter (LangGraph's versions count up; the
 *  saver adds a random fraction so concurrent branches never share one). */
export function versionLabel(v) {
  if (v === undefined || v === null) return "–";
  const n = typeof v === "number" ? Math.floor(v) : Number.parseInt(String(v).split(".")[0], 10);
  return Number.isFinite(n) ? `v${n}` : String(v);
}

/** The null version LangGraph compares against (its getNullChannelVersion). */
function nullVersion(versions) {
  const start = typeof versions.__start__;
  if (start === "number") return 0;
  if (start === "string") return "";
  for (const k in versions) {
    const t = typeof versions[k];
    return t === "number" ? 0 : t === "string" ? "" : undefined;
  }
  return undefined;
}

/**
 * The nodes a checkpoint can trigger, each with its trigger channels in LangGraph's order:
 * `__start__` by the `__start__` channel; a StateGraph node X by `branch:to:X`, then by the
 * `join:a+b:X` channels of its waiting edges (in the order the edges were added, which the
 * checkpoint does not keep: sorted here). Nodes named only in versions_seen are included.
 * @returns {Map<string, string[]>}
 */
export function triggers(checkpoint) {
  /** @type {Map<string, string[]>} */
  const nodes = new Map();
  const add = (node, channel) => {
    if (!nodes.has(node)) nodes.set(node, []);
    if (channel) /** @type {string[]} */ (nodes.get(node)).push(channel);
  };
  const channels = Object.keys(checkpoint.channel_versions ?? {}).sort();
  if (channels.includes("__start__")) add("__start__", "__start__");
  for (const c of channels) if (c.startsWith("branch:to:")) add(c.slice(10), c);
  for (const c of channels) {
    const m = /^join:(.+):([^:]+)$/.exec(c);
    if (m) add(m[2], c);
  }
  for (const n of Object.keys(checkpoint.versions_seen ?? {})) if (!RESERVED_SEEN.has(n)) add(n, null);
  return nodes;
}

/** Whether a channel holds a value a trigger can read (EmptyChannel otherwise); a waiting
 *  edge's barrier is available once every node it waits for has written. */
function available(row, channel) {
  const v = row.values[channel];
  if (!v || v.kind !== "value") return false;
  const m = /^join:(.+):[^:]+$/.exec(channel);
  if (m) {
    const seen = Array.isArray(v.value) ? v.value : [];
    return m[1].split("+").every((n) => seen.includes(n));
  }
  return true;
}

/** The node a PUSH packet (a Send in `__pregel_tasks`) goes to, as stored. */
const sendNode = (p) => { const n = p?.node ?? p?.kwargs?.node; return typeof n === "string" ? n : null; };

/**
 * The tasks LangGraph prepares from this checkpoint (getState's `tasks`), each with its
 * pending writes: [{id, name, path, trigger, writes, interrupts, error, done}].
 * `done`: the task has written something other than an error, interrupt or schedule,
 * which getState on the thread (no checkpoint id) leaves out of `next`.
 * @param {any} row
 * @param {(name: string, namespace: string) => string} uuid5
 */
export function tasksOf(row, uuid5) {
  const cp = row.checkpoint;
  const versions = cp.channel_versions ?? {};
  const nullV = nullVersion(versions);
  const step = (row.metadata?.step ?? -1) + 1;
  const ns = (name) => (row.checkpoint_ns ? `${row.checkpoint_ns}|${name}` : name);
  const writes = row.writes ?? [];
  /** @type {any[]} */
  const tasks = [];
  const sends = row.values.__pregel_tasks;
  if (sends?.kind === "value" && Array.isArray(sends.value)) {
    sends.value.forEach((p, i) => {
      const node = sendNode(p);
      if (node) tasks.push({ id: uuid5(JSON.stringify([ns(node), String(step), node, "__pregel_push", String(i)]), cp.id), name: node, path: ["__pregel_push", i, false], trigger: "__pregel_push" });
    });
  }
  if (nullV !== undefined && Object.values(versions).some((v) => v !== null)) {
    for (const [name, chans] of triggers(cp)) {
      if (writes.length > 0) {
        // An id of an older LangGraph (the node's name in place of its trigger): a task
        // that already wrote under it does not run again.
        const legacy = uuid5(JSON.stringify([ns(name), String(step), name, "__pregel_pull", name]), cp.id);
        if (writes.some((w) => w.task_id === legacy && w.channel !== "__error__")) continue;
      }
      const seen = cp.versions_seen?.[name] ?? {};
      const trigger = chans.find((c) => available(row, c) && (versions[c] ?? nullV) > (seen[c] ?? nullV));
      if (trigger === undefined) continue;
      tasks.push({ id: uuid5(JSON.stringify([ns(name), String(step), name, "__pregel_pull", [trigger]]), cp.id), name, path: ["__pregel_pull", name], trigger });
    }
  }
  for (const t of tasks) {
    t.writes = writes.filter((w) => w.task_id === t.id);
    t.interrupts = t.writes.filter((w) => w.channel === "__interrupt__").flatMap((w) => {
      const v = decode(w);
      return v.kind === "value" ? (Array.isArray(v.value) ? v.value : [v.value]) : [];
    });
    const error = t.writes.find((w) => w.channel === "__error__");
    t.error = error ? decode(error) : null;
    t.done = t.writes.some((w) => !NOT_OUTPUT.has(w.channel));
  }
  return tasks;
}

/** Pending writes of no prepared task: the null task (Command resume / update values),
 *  an updateState's task, or tasks of a graph this checkpoint cannot name. */
export function otherWrites(row, tasks, uuid5) {
  const known = new Set(tasks.map((t) => t.id));
  const update = uuid5("__interrupt__", row.checkpoint.id);
  /** @type {Map<string, { id: string, label: string, writes: any[] }>} */
  const groups = new Map();
  for (const w of row.writes ?? []) {
    if (known.has(w.task_id)) continue;
    const label = w.task_id === NULL_TASK_ID ? "input to the next run (Command resume / update)"
      : w.task_id === update ? "updateState (writes of the update made from here)"
      : `task ${w.task_path || "?"}`;
    if (!groups.has(w.task_id)) groups.set(w.task_id, { id: w.task_id, label, writes: [] });
    /** @type {any} */ (groups.get(w.task_id)).writes.push(w);
  }
  return [...groups.values()];
}

/** versions_seen as the nodes read it (LangGraph's versionsSeenWithoutBumps). */
function seenWithoutBumps(seen) {
  const marks = seen?.__snapshot_bumps__;
  if (!marks || Object.keys(marks).length === 0) return seen ?? {};
  /** @type {Record<string, any>} */
  const out = {};
  for (const [node, chans] of Object.entries(seen)) {
    if (node === "__snapshot_bumps__") continue;
    out[node] = {};
    for (const [k, v] of Object.entries(/** @type {Record<string, any>} */ (chans))) {
      const advanced = `${node}|${k}`, read = `${node}:${k}`;
      if (marks[advanced] !== v) out[node][k] = v;
      else if (read in marks) out[node][k] = marks[read];
    }
  }
  return out;
}

/** The node updateState attributes an update to when given none (bulkUpdateState): the
 *  one that saw the newest version, or null when that is ambiguous. */
export function defaultAsNode(row) {
  const seen = seenWithoutBumps(row.checkpoint.versions_seen);
  const nodes = Object.keys(seen).filter((n) => n !== "__snapshot_bumps__");
  const last = nodes.flatMap((n) => Object.values(seen[n]).map((v) => [v, n])).filter(([, n]) => n !== "__interrupt__")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (last.length === 0) return null;
  if (last.length === 1 || last[last.length - 1][0] !== last[last.length - 2][0]) return last[last.length - 1][1];
  return null;
}

/** Channels whose version differs between two checkpoints. */
function changedChannels(a, b) {
  const va = a.checkpoint.channel_versions ?? {}, vb = b.checkpoint.channel_versions ?? {};
  return Object.keys(vb).filter((c) => va[c] !== vb[c]);
}

/**
 * Which run produced a checkpoint: {kind, nodes, how}. `how` says where it was read from,
 * or why it cannot be known.
 */
export function producedBy(row, parent, parentTasks) {
  const source = row.metadata?.source;
  const recorded = row.metadata?.writes;
  if (recorded && typeof recorded === "object" && !Array.isArray(recorded) && Object.keys(recorded).length > 0) {
    return { kind: source ?? "?", nodes: Object.keys(recorded).sort(), how: "metadata.writes" };
  }
  if (source === "input") return { kind: "input", nodes: [], how: "the run's input: no node ran" };
  if (source === "fork") return { kind: "fork", nodes: [], how: "a copy of its parent (updateState as __copy__)" };
  if (!parent) return { kind: source ?? "?", nodes: [], how: row.parent_checkpoint_id ? "unknown: its parent is not loaded" : "unknown: no parent" };
  const now = row.checkpoint.versions_seen ?? {}, before = parent.checkpoint.versions_seen ?? {};
  const moved = Object.keys(now).filter((n) => !RESERVED_SEEN.has(n) && canonical(now[n]) !== canonical(before[n] ?? null)).sort();
  if (source === "update") {
    if (moved.length > 0) return { kind: "update", nodes: moved, how: "versions_seen (updateState as this node)" };
    // A conditional edge writes its source node's name into branch:to:<target>.
    const by = [...new Set(changedChannels(parent, row).filter((c) => c.startsWith("branch:to:"))
      .map((c) => row.values[c]).filter((v) => v?.kind === "value" && typeof v.value === "string").map((v) => v.value))].sort();
    if (by.length > 0) return { kind: "update", nodes: by, how: "the conditional edge it wrote (branch:to:… names its source)" };
    return { kind: "update", nodes: [], how: "updateState: LangGraph does not record the node it was made as" };
  }
  if (moved.length > 0) return { kind: source ?? "loop", nodes: moved, how: "versions_seen: the nodes whose triggers it marks as seen" };
  // PUSH tasks (Send) record no trigger; the tasks the parent prepared ran in this step.
  const ran = [...new Set((parentTasks ?? []).map((t) => t.name))].sort();
  return ran.length > 0
    ? { kind: source ?? "loop", nodes: ran, how: "the tasks its parent prepared (Send tasks mark nothing as seen)" }
    : { kind: source ?? "loop", nodes: [], how: "unknown: no node marked a trigger as seen" };
}

/**
 * Every checkpoint of one namespace analysed: rows by id, each with `tasks`, `next`,
 * `others` (writes of no prepared task), `by` (producedBy), `changed` (channels whose
 * version moved since the parent); `head`: the checkpoint getState returns for the thread
 * (the greatest id), with `headNext` (its next without tasks that already wrote).
 * @param {any[]} rows
 * @param {(name: string, namespace: string) => string} uuid5
 */
export function analyse(rows, uuid5) {
  const byId = new Map(rows.map((r) => [r.checkpoint_id, r]));
  /** @type {Map<string, any>} */
  const info = new Map();
  for (const r of rows) {
    const tasks = tasksOf(r, uuid5);
    info.set(r.checkpoint_id, { tasks, next: tasks.map((t) => t.name), others: otherWrites(r, tasks, uuid5) });
  }
  for (const r of rows) {
    const parent = byId.get(r.parent_checkpoint_id);
    const i = info.get(r.checkpoint_id);
    i.by = producedBy(r, parent, parent ? info.get(parent.checkpoint_id).tasks : null);
    i.changed = parent ? new Set(changedChannels(parent, r)) : new Set(Object.keys(r.checkpoint.channel_versions ?? {}));
  }
  const head = rows.reduce((a, b) => (a === null || b.checkpoint_id > a.checkpoint_id ? b : a), null);
  const headNext = head ? info.get(head.checkpoint_id).tasks.filter((t) => !t.done).map((t) => t.name) : [];
  return { info, head: head?.checkpoint_id ?? null, headNext };
}

/**
 * The edges each node was seen to take in this thread: for every checkpoint one node's run
 * produced, the trigger channels (branch:to:…, join:…) that run wrote, with the value
 * written (null for a plain edge, the source's name for a conditional one). Oldest first.
 * @returns {Map<string, { id: string, edges: Map<string, any> }[]>}
 */
export function learnedEdges(rows, analysis) {
  const byId = new Map(rows.map((r) => [r.checkpoint_id, r]));
  /** @type {Map<string, { id: string, edges: Map<string, any> }[]>} */
  const edges = new Map();
  for (const r of [...rows].sort((a, b) => (a.checkpoint_id < b.checkpoint_id ? -1 : 1))) {
    const i = analysis.info.get(r.checkpoint_id);
    if (!byId.has(r.parent_checkpoint_id) || i.by.nodes.length !== 1 || r.metadata?.source !== "loop") continue;
    const node = i.by.nodes[0];
    /** @type {Map<string, any>} */
    const took = new Map();
    for (const c of i.changed) {
      if ((c.startsWith("branch:to:") || c.startsWith("join:")) && r.values[c]?.kind === "value") took.set(c, c.startsWith("join:") ? node : r.values[c].value);
    }
    if (!edges.has(node)) edges.set(node, []);
    /** @type {any[]} */ (edges.get(node)).push({ id: r.checkpoint_id, edges: took });
  }
  return edges;
}

/** The next channel version after every version of the checkpoint, as the saver's
 *  getNextVersion makes them (numbers step+fraction, strings zero-padded). Three decimals:
 *  the same text in JavaScript and in Postgres, which looks blobs up by it. */
export function nextVersion(versions) {
  const all = Object.values(versions);
  if (all.some((v) => typeof v === "string")) {
    const step = Math.max(0, ...all.map((v) => Number.parseInt(String(v).split(".")[0], 10) || 0)) + 1;
    return `${String(step).padStart(32, "0")}.${String(Math.random()).slice(2, 18).padEnd(16, "0")}`;
  }
  const step = Math.floor(Math.max(0, ...all.map(Number))) + 1;
  return step + (1 + Math.floor(Math.random() * 998)) / 1000;
}

/** A time-ordered UUIDv6, as LangGraph's checkpoint ids: a fork made now sorts after every
 *  checkpoint made before, so it becomes the thread's latest, as updateState's does. */
export function uuid6() {
  const t = BigInt(Date.now()) * 10000n + 122192928000000000n + BigInt(Math.floor(Math.random() * 10000));
  const hex = t.toString(16).padStart(15, "0");
  const rnd = crypto.getRandomValues(new Uint8Array(8));
  rnd[0] = (rnd[0] & 0x3f) | 0x80;
  const r = [...rnd].map((x) => x.toString(16).padStart(2, "0")).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-6${hex.slice(12, 15)}-${r.slice(0, 4)}-${r.slice(4, 16)}`;
}

/** Ephemeral channels: a step that writes anything clears them (EphemeralValue, Topic). */
const ephemeral = (c) => c === "__start__" || c === "__pregel_tasks" || c.startsWith("branch:to:");

/**
 * The checkpoint updateState(parent config, values, asNode) writes, with `edits` (channel →
 * value, stored form) as the node's state writes and `edges` (trigger channel → value) as
 * the edges it takes: a new version for every written channel, the ephemeral channels the
 * step consumes cleared, versions_seen[asNode] present, metadata source "update" at the
 * next step. Returns {row (as analyse reads it), put (langgraph_put's arguments)}.
 * Not done: the writes updateState also records on the parent when it is the latest
 * checkpoint (history only: they never change what runs).
 */
export function forkOf(parent, edits, asNode, edges, preview) {
  const versions = { ...(parent.checkpoint.channel_versions ?? {}) };
  const version = nextVersion(versions);
  /** @type {Record<string, any>} */
  const values = { ...parent.values };
  const blobs = [];
  const written = { ...edits, ...Object.fromEntries(edges) };
  for (const [channel, value] of Object.entries(written)) {
    versions[channel] = version;
    values[channel] = { kind: "value", value };
    blobs.push({ channel, version: String(version), type: "json", text: JSON.stringify(value) });
  }
  for (const c of Object.keys(versions)) {
    if (c in written || !ephemeral(c) || parent.values[c]?.kind !== "value") continue;
    versions[c] = version;
    values[c] = { kind: "empty" };
    blobs.push({ channel: c, version: String(version), type: "empty", blob: null });
  }
  const id = uuid6();
  const seen = { ...(parent.checkpoint.versions_seen ?? {}) };
  seen[asNode] = { ...(seen[asNode] ?? {}) };
  if ("__interrupt__" in versions) seen[asNode].__interrupt__ = versions.__interrupt__;
  const checkpoint = { ...parent.checkpoint, id, ts: new Date().toISOString(), channel_versions: versions, versions_seen: seen };
  delete checkpoint.channel_values;
  // `writes` names the node and the channels it wrote (older LangGraph kept the values
  // there; these can be whole conversations, which the thread's row would then carry).
  const metadata = { source: "update", step: (parent.metadata?.step ?? -1) + 1, parents: parent.metadata?.parents ?? {}, writes: { [asNode]: Object.keys(edits) } };
  const row = { ...parent, checkpoint_id: id, parent_checkpoint_id: parent.checkpoint_id, checkpoint, metadata, writes: [], values };
  const put = {
    p_thread_id: parent.thread_id, p_checkpoint_ns: parent.checkpoint_ns, p_checkpoint_id: id, p_parent_checkpoint_id: parent.checkpoint_id,
    p_type: null, p_checkpoint: checkpoint, p_metadata: metadata, p_blobs: blobs, p_preview: preview,
  };
  return { row, put };
}

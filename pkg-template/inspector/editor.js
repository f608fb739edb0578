// The fork editor: a checkpoint's conversation as editable chat bubbles (role, content, tool
// calls, tool results), its other values as JSON checked before anything is written, the
// node the update is made as and the edges it takes, a preview of the resulting state
// (values, message diff, what runs next), then one langgraph_put: the checkpoint
// updateState would write (graph.js forkOf).
import { canonical, defaultAsNode, forkOf, tasksOf, triggers } from "./graph.js";
import { chatView, h, isMessage, isMessages, jsonDiffView, messageDiffView, roleOf, textOf } from "./views.js";

const CLASS = { human: "HumanMessage", ai: "AIMessage", tool: "ToolMessage", system: "SystemMessage" };
/** Channels a user edits: state keys, not LangGraph's own (branch:to:…, join:…, __…__). */
export const stateChannel = (c) => !c.startsWith("branch:") && !c.startsWith("join:") && !c.startsWith("__");

/** A stored message as the editor holds it. */
function model(m) {
  const k = m.kwargs ?? {};
  const blocks = Array.isArray(k.content) && k.content.some((p) => typeof p !== "string" && p?.type !== "text");
  return {
    orig: m, role: roleOf(m).role in CLASS ? roleOf(m).role : "human",
    content: blocks ? JSON.stringify(k.content, null, 1) : textOf(k.content), blocks,
    calls: (Array.isArray(k.tool_calls) ? k.tool_calls : []).map((c) => ({ id: c.id ?? "", name: c.name ?? "", args: JSON.stringify(c.args ?? {}) })),
    toolCallId: k.tool_call_id ?? "", name: k.name ?? "", status: k.status ?? "success",
  };
}

/**
 * The message a model stands for, in stored form; its own id kept (a new message gets one,
 * as add_messages gives one), fields of another role dropped.
 * @param {(field: string, message: string) => never} fail
 */
function stored(mm, at, fail) {
  const keep = mm.orig && roleOf(mm.orig).role === mm.role;
  /** @type {Record<string, any>} */
  const k = keep ? { ...mm.orig.kwargs } : { additional_kwargs: {}, response_metadata: {}, ...(mm.orig?.kwargs?.id ? { id: mm.orig.kwargs.id } : {}) };
  k.id ??= crypto.randomUUID();
  if (mm.blocks) {
    try {
      k.content = JSON.parse(mm.content);
    } catch (e) {
      fail(`${at}.content`, `content blocks are not JSON: ${/** @type {Error} */ (e).message}`);
    }
  } else k.content = mm.content;
  if (mm.role === "ai") {
    k.tool_calls = mm.calls.map((c, i) => {
      if (!c.name.trim()) fail(`${at}.tool_calls[${i}].name`, "a tool call needs a name");
      let args;
      try {
        args = JSON.parse(c.args || "{}");
      } catch (e) {
        fail(`${at}.tool_calls[${i}].args`, `arguments are not JSON: ${/** @type {Error} */ (e).message}`);
      }
      if (args === null || typeof args !== "object" || Array.isArray(args)) fail(`${at}.tool_calls[${i}].args`, "arguments must be a JSON object");
      return { id: c.id || `call_${crypto.randomUUID().slice(0, 8)}`, name: c.name.trim(), args, type: "tool_call" };
    });
    k.invalid_tool_calls ??= [];
  } else {
    delete k.tool_calls;
    delete k.invalid_tool_calls;
    delete k.tool_call_chunks;
  }
  if (mm.role === "tool") {
    if (!mm.toolCallId.trim()) fail(`${at}.tool_call_id`, "a tool message answers a tool call: give its id");
    Object.assign(k, { tool_call_id: mm.toolCallId.trim(), status: mm.status });
    if (mm.name) k.name = mm.name;
  } else {
    delete k.tool_call_id;
    delete k.status;
    delete k.artifact;
  }
  const id = keep ? mm.orig.id : ["langchain_core", "messages", CLASS[/** @type {keyof CLASS} */ (mm.role)]];
  return { lc: 1, type: "constructor", id, kwargs: k };
}

/** The last human and AI text of a message list: the thread's preview (langgraph_put p_preview). */
export function previewOf(values) {
  const found = { human: /** @type {string | null} */ (null), ai: /** @type {string | null} */ (null) };
  const list = Object.values(values).find((v) => v?.kind === "value" && isMessages(v.value))?.value ?? [];
  for (let i = list.length - 1; i >= 0; i--) {
    const role = roleOf(list[i]).role;
    if ((role === "human" || role === "ai") && found[role] === null) {
      const t = textOf(list[i].kwargs?.content).trim();
      if (t) found[role] = t.slice(0, 2000);
    }
  }
  return found.human === null && found.ai === null ? null : found;
}

/**
 * @param {{ row: any, rows: any[], analysis: any, edges: Map<string, { id: string, edges: Map<string, any> }[]>,
 *   uuid5: (n: string, ns: string) => string, write: (put: any) => Promise<void>, done: (id: string) => void,
 *   errorBox: (e: any, doing: string) => HTMLElement, AgentmemError: any }} ctx
 */
export function forkEditor(ctx) {
  const { row } = ctx;
  /** @param {string} field @param {string} message @returns {never} */
  const fail = (field, message) => {
    throw new ctx.AgentmemError("invalid_input", `${field}: ${message}`, { field });
  };
  const channels = Object.entries(row.values).filter(([c, v]) => stateChannel(c) && v.kind === "value");
  const messageChannels = channels.filter(([c, v]) => isMessages(v.value) || (c === "messages" && Array.isArray(v.value) && v.value.every(isMessage)));
  const jsonChannels = channels.filter(([c]) => !messageChannels.some(([m]) => m === c));
  /** @type {Record<string, any[]>} */
  const models = Object.fromEntries(messageChannels.map(([c, v]) => [c, v.value.map(model)]));

  // As node: every node the thread names; by default the one updateState picks.
  const nodes = [...triggers(row.checkpoint).keys()].filter((n) => n !== "__start__").sort();
  const asDefault = defaultAsNode(row) ?? nodes[0] ?? "";
  const asSel = /** @type {HTMLSelectElement} */ (h("select", { id: "f-asnode", "data-f": "as-node" },
    ...nodes.map((n) => h("option", { value: n, selected: n === asDefault || null }, n))));
  // Every node's trigger: those the checkpoint has, and those of nodes it names elsewhere.
  const targets = [...new Set([...Object.keys(row.checkpoint.channel_versions ?? {}).filter((c) => c.startsWith("branch:to:") || c.startsWith("join:")),
    ...nodes.map((n) => `branch:to:${n}`)])].sort();
  const edgeBoxes = h("fieldset", { class: "edges", "data-f": "edges" }, h("legend", null, "Then run (the edges the update takes)"));
  /** The edges `node` took when its run produced this checkpoint, else when last seen. */
  const seenEdges = (node) => {
    const seen = ctx.edges.get(node) ?? [];
    return (seen.find((s) => s.id === row.checkpoint_id) ?? seen[seen.length - 1])?.edges ?? new Map();
  };
  const renderEdges = () => {
    const known = seenEdges(asSel.value);
    edgeBoxes.replaceChildren(edgeBoxes.firstChild ?? "", ...targets.map((c) => {
      const id = `f-edge-${c.replace(/[^\w-]/g, "_")}`;
      return h("label", { for: id, class: "check" }, h("input", { type: "checkbox", id, "data-edge": c, checked: known.has(c) || null }), c.replace(/^branch:to:/, ""));
    }), h("p", { class: "muted" }, known.size > 0
      ? `Checked: the edges ${asSel.value} took in this thread. A conditional edge is evaluated by updateState; here you choose.`
      : `${asSel.value} was not seen running in the loaded checkpoints: choose what runs next.`));
  };
  asSel.addEventListener("change", renderEdges);
  renderEdges();

  const status = h("div", { "aria-live": "polite", "data-slot": "fork-status" });
  const preview = h("div", { "data-slot": "fork-preview" });
  const lists = new Map();

  const bubble = (channel, i) => {
    const list = models[channel];
    const mm = list[i];
    const at = `${channel}[${i}]`;
    const fid = (f) => `f-${channel.replace(/[^\w-]/g, "_")}-${i}-${f}`;
    const rerender = () => renderList(channel);
    const role = h("select", { id: fid("role"), "data-f": "role", onchange: (ev) => { mm.role = ev.target.value; rerender(); } },
      ...Object.keys(CLASS).map((r) => h("option", { value: r, selected: r === mm.role || null }, r)));
    const text = h("textarea", { id: fid("content"), "data-f": "content", rows: Math.min(8, mm.content.split("\n").length + 1), oninput: (ev) => { mm.content = ev.target.value; } });
    /** @type {HTMLTextAreaElement} */ (text).value = mm.content;
    const calls = mm.role !== "ai" ? null : h("div", { class: "calls-edit" },
      ...mm.calls.map((c, j) => {
        const cid = (f) => fid(`call${j}-${f}`);
        const args = h("textarea", { id: cid("args"), "data-f": "call-args", rows: 2, oninput: (ev) => {
          c.args = ev.target.value;
          let ok = true;
          try { JSON.parse(c.args || "{}"); } catch { ok = false; }
          ev.target.setAttribute("aria-invalid", String(!ok));
        } });
        /** @type {HTMLTextAreaElement} */ (args).value = c.args;
        return h("div", { class: "call-edit", "data-call-edit": j },
          h("label", { for: cid("name") }, "Tool", h("input", { id: cid("name"), "data-f": "call-name", value: c.name, oninput: (ev) => { c.name = ev.target.value; } })),
          h("label", { for: cid("args") }, "Arguments (JSON)", args),
          h("label", { for: cid("id") }, "Call id", h("input", { id: cid("id"), "data-f": "call-id", value: c.id, oninput: (ev) => { c.id = ev.target.value; } })),
          h("button", { type: "button", class: "secondary", onclick: () => { mm.calls.splice(j, 1); rerender(); } }, "Remove call"));
      }),
      h("button", { type: "button", class: "secondary", "data-action": "add-call", onclick: () => { mm.calls.push({ id: "", name: "", args: "{}" }); rerender(); } }, "Add tool call"));
    const tool = mm.role !== "tool" ? null : h("div", { class: "row-actions" },
      h("label", { for: fid("callid") }, "Answers call", h("input", { id: fid("callid"), "data-f": "tool-call-id", value: mm.toolCallId, oninput: (ev) => { mm.toolCallId = ev.target.value; } })),
      h("label", { for: fid("tname") }, "Tool", h("input", { id: fid("tname"), "data-f": "tool-name", value: mm.name, oninput: (ev) => { mm.name = ev.target.value; } })),
      h("label", { for: fid("status") }, "Status", h("select", { id: fid("status"), "data-f": "status", onchange: (ev) => { mm.status = ev.target.value; } },
        ...["success", "error"].map((s) => h("option", { value: s, selected: s === mm.status || null }, s)))));
    return h("fieldset", { class: `msg edit ${mm.role}`, "data-medit": i, title: mm.orig?.kwargs?.id ? `id: ${mm.orig.kwargs.id}` : "new message" },
      h("legend", null, `${at}${mm.orig ? "" : " (new)"}`),
      h("label", { for: fid("role") }, "Role", role),
      h("label", { for: fid("content") }, mm.blocks ? "Content blocks (JSON)" : "Content", text),
      calls, tool,
      h("div", { class: "row-actions" },
        h("button", { type: "button", class: "secondary", "data-action": "insert-after", onclick: () => { list.splice(i + 1, 0, { ...model({ id: ["", "", "HumanMessage"], kwargs: { content: "" } }), orig: null }); rerender(); } }, "Insert after"),
        h("button", { type: "button", class: "danger", "data-action": "remove-message", onclick: () => { list.splice(i, 1); rerender(); } }, "Remove")));
  };
  const renderList = (channel) => {
    const box = lists.get(channel);
    const list = models[channel];
    box.replaceChildren(...list.map((_, i) => bubble(channel, i)),
      h("button", { type: "button", class: "secondary", "data-action": "add-message", onclick: () => {
        list.push({ ...model({ id: ["", "", "HumanMessage"], kwargs: { content: "" } }), orig: null });
        renderList(channel);
      } }, "Add message"));
  };
  for (const [c] of messageChannels) {
    lists.set(c, h("div", { class: "chat editor", "data-edit-channel": c }));
    renderList(c);
  }
  const areas = jsonChannels.map(([channel, v]) => {
    const id = `fork-${channel.replace(/[^\w-]/g, "_")}`;
    const note = h("span", { class: "bad", id: `${id}-err` });
    const ta = h("textarea", { id, "data-fork-channel": channel, "aria-describedby": `${id}-err`, rows: Math.min(12, JSON.stringify(v.value, null, 2).split("\n").length + 1), oninput: () => {
      try {
        JSON.parse(/** @type {HTMLTextAreaElement} */ (ta).value);
        note.textContent = "";
        ta.setAttribute("aria-invalid", "false");
      } catch (e) {
        note.textContent = `not JSON: ${/** @type {Error} */ (e).message}`;
        ta.setAttribute("aria-invalid", "true");
      }
    } });
    /** @type {HTMLTextAreaElement} */ (ta).value = JSON.stringify(v.value, null, 2);
    return h("label", { for: id }, `${channel} (JSON)`, ta, note);
  });

  /** The fork as it would be written; throws invalid_input (nothing written) on bad input. */
  const build = () => {
    /** @type {Record<string, any>} */
    const edits = {};
    for (const [c, list] of Object.entries(models)) {
      const value = list.map((mm, i) => stored(mm, `${c}[${i}]`, fail));
      if (canonical(value) !== canonical(row.values[c].value)) edits[c] = value;
    }
    for (const ta of form.querySelectorAll("textarea[data-fork-channel]")) {
      const c = /** @type {HTMLElement} */ (ta).dataset.forkChannel ?? "";
      let value;
      try {
        value = JSON.parse(/** @type {HTMLTextAreaElement} */ (ta).value);
      } catch (e) {
        fail(c, `not JSON: ${/** @type {Error} */ (e).message}`);
      }
      if (canonical(value) !== canonical(row.values[c].value)) edits[c] = value;
    }
    if (Object.keys(edits).length === 0) fail("channels", "change at least one value to fork");
    const asNode = asSel.value;
    if (!asNode) fail("asNode", "choose the node the update is made as");
    const known = seenEdges(asNode);
    const edges = [...form.querySelectorAll("input[data-edge]")].filter((b) => /** @type {HTMLInputElement} */ (b).checked)
      .map((b) => {
        const c = /** @type {HTMLElement} */ (b).dataset.edge ?? "";
        return /** @type {[string, any]} */ ([c, known.has(c) ? known.get(c) : c.startsWith("join:") ? asNode : null]);
      });
    const values = { ...row.values };
    for (const [c, v] of Object.entries(edits)) values[c] = { kind: "value", value: v };
    return forkOf(row, edits, asNode, edges, previewOf(values));
  };

  const showPreview = () => {
    try {
      const { row: next } = build();
      const tasks = tasksOf(next, ctx.uuid5);
      preview.replaceChildren(h("section", { class: "panel preview", "data-preview": "" },
        h("h3", null, "Preview: the new checkpoint"),
        h("p", null, `step ${next.metadata.step} · update as ${asSel.value} · next: `, h("strong", { "data-preview-next": tasks.map((t) => t.name).join(",") }, tasks.map((t) => t.name).join(", ") || "nothing (the run would end)")),
        ...next.metadata.writes[asSel.value].map((c) => h("div", null, h("h4", null, c),
          isMessages(next.values[c].value) ? messageDiffView(row.values[c].value, next.values[c].value) : jsonDiffView(row.values[c].value, next.values[c].value))),
        ...messageChannels.map(([c]) => h("details", null, h("summary", null, `${c} after the fork`), chatView(next.values[c].value)))));
      status.replaceChildren();
    } catch (e) {
      preview.replaceChildren();
      status.replaceChildren(ctx.errorBox(e, "Preview"));
    }
  };

  const form = h("form", { class: "panel", "data-form": "fork", "aria-labelledby": "h-fork", onsubmit: async (ev) => {
    ev.preventDefault();
    try {
      const { put } = build();
      status.replaceChildren(h("p", { class: "state loading", role: "status" }, "Writing the fork…"));
      await ctx.write(put);
      ctx.done(put.p_checkpoint_id);
    } catch (e) {
      status.replaceChildren(ctx.errorBox(e, "Fork"));
    }
  } },
    h("h3", { id: "h-fork" }, "Fork from this checkpoint"),
    h("p", { class: "muted" }, "The new checkpoint's parent is this one; the values you change and the edges you choose get a new version, as updateState writes them. It becomes the thread's latest checkpoint, which getState and the next run start from."),
    h("div", { class: "row-actions" }, h("label", { for: "f-asnode" }, "Update as node", asSel)), edgeBoxes,
    ...messageChannels.map(([c]) => h("div", null, h("h4", null, `Conversation (${c})`), lists.get(c))),
    ...areas, status, preview,
    h("div", { class: "row-actions" },
      h("button", { type: "button", class: "secondary", "data-action": "preview", onclick: showPreview }, "Preview"),
      h("button", { type: "submit" }, "Create fork"),
      h("button", { type: "button", class: "secondary", "data-action": "cancel-fork", onclick: () => form.remove() }, "Cancel")));
  return form;
}

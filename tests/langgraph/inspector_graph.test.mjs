// The inspector answering "why did my graph do that", in headless Chromium against the
// stack, on a real LangGraph graph with tools (ToolNode, one call failing), a conditional
// edge, an interrupt, forks made by resuming differently and by updateState, and a fork
// made in the page's editor:
// - every checkpoint's node, next, tasks (ids) and interrupt values are what LangGraph's
//   getStateHistory says, and the getState head and its next what getState says;
// - tool calls show with their results (success and error), content blocks, message ids
//   and raw JSON;
// - the diff marks the message updateState edited (by id), collapses the unchanged ones,
//   and diffs other values key by key;
// - a fork made in the editor (an edited AI message, as node "agent", then approve) is the
//   thread's getState head with the next LangGraph computes, and the graph continues from
//   it in Node;
// - a subgraph's checkpoints, in their own namespace (linked from the parent's task), read
//   as LangGraph reads them there.
// Screenshots of each view go to inspector_support.mjs `shots`.
import { AIMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import { tool } from "@langchain/core/tools";
import { Annotation, Command, END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph";
import { ToolNode, toolsCondition } from "@langchain/langgraph/prebuilt";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { newUser } from "./stack.mjs";
import { accessible, go, launch, newPage, screenshot, serve, shotsDir, signIn } from "./inspector_support.mjs";

const weather = tool(async ({ city }) => {
  if (city === "Atlantis") throw new Error(`no weather station in ${city}`);
  return `${city}: 14°C, light rain`;
}, {
  name: "get_weather", description: "Current weather of a city",
  schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
});

const State = Annotation.Root({
  ...MessagesAnnotation.spec,
  approved: Annotation({ reducer: (_, b) => b, default: () => null }),
});

/** agent (asks for the weather of two cities, then answers) ⇄ tools; then a person
 *  approves the answer (interrupt) before the run ends. */
function buildGraph(checkpointer) {
  return new StateGraph(State)
    .addNode("agent", (s) => {
      const last = s.messages.at(-1);
      if (last._getType() === "human") {
        return { messages: [new AIMessage({ content: "Let me check both.", tool_calls: [
          { id: "call_oslo", name: "get_weather", args: { city: "Oslo" }, type: "tool_call" },
          { id: "call_atlantis", name: "get_weather", args: { city: "Atlantis" }, type: "tool_call" },
        ] })] };
      }
      return { messages: [new AIMessage("Oslo: 14°C and light rain. Atlantis has no weather station.")] };
    })
    .addNode("tools", new ToolNode([weather]))
    .addNode("approve", (s) => ({ approved: interrupt({ question: "send this answer?", draft: s.messages.at(-1).content }) }))
    .addEdge(START, "agent")
    .addConditionalEdges("agent", toolsCondition, { tools: "tools", __end__: "approve" })
    .addEdge("tools", "agent")
    .addEdge("approve", END)
    .compile({ checkpointer });
}

const sorted = (a) => [...a].sort();
const attr = async (page, selector, name) => (await page.getAttribute(selector, name)) ?? "";
const list = (s) => (s ? s.split(",") : []);

/** What the page says about one checkpoint. */
async function pageSays(page, thread, id) {
  await go(page, `#/thread/${encodeURIComponent(thread)}/${encodeURIComponent(id)}`);
  await page.waitForSelector(`[data-detail="${id}"]`);
  return page.evaluate(() => ({
    next: document.querySelector("[data-next]")?.getAttribute("data-next") ?? "",
    by: document.querySelector("[data-by]")?.getAttribute("data-by") ?? "",
    kind: document.querySelector("[data-kind]")?.getAttribute("data-kind") ?? "",
    latest: document.querySelector("[data-detail]")?.hasAttribute("data-latest") ?? false,
    tasks: [...document.querySelectorAll("[data-task]")].map((t) => ({
      id: t.getAttribute("data-task"), name: t.getAttribute("data-task-name"),
      interrupts: [...t.querySelectorAll("[data-interrupt-value]")].map((i) => JSON.parse(i.getAttribute("data-interrupt-value") ?? "null")),
    })),
  }));
}

test("the inspector explains a run with tools, forks and an interrupt as LangGraph's getState does, diffs messages by id, and forks in an editor", { timeout: 300_000 }, async () => {
  shotsDir();
  const a = await newUser();
  const saver = new AgentmemSaver(a.client);
  const graph = buildGraph(saver);
  const thread = `tools-${crypto.randomUUID()}`;
  const config = { configurable: { thread_id: thread } };

  // The run: tools, a failing tool call, the answer, the approval interrupt.
  await graph.invoke({ messages: [new SystemMessage("You are terse."), new HumanMessage({ content: [
    { type: "text", text: "Weather in Oslo and Atlantis?" },
    { type: "image_url", image_url: { url: "data:image/png;base64,iVBORw0KGgoAAAANSUhEUg==" } },
  ] })] }, config);
  const asking = await graph.getState(config);
  expect(asking.next).toEqual(["approve"]);
  const askingId = asking.config.configurable.checkpoint_id;
  await graph.invoke(new Command({ resume: { ok: true, note: "ship it" } }), config);
  const yesId = (await graph.getState(config)).config.configurable.checkpoint_id;
  // Fork 1: the question answered again (LangGraph reuses the approve task's writes there).
  // Fork 2: the answer edited by updateState.
  await graph.invoke(new Command({ resume: { ok: false, note: "too vague" } }), asking.config);
  const noId = (await graph.getState(config)).config.configurable.checkpoint_id;
  const answer = asking.values.messages.at(-1);
  const edited = await graph.updateState(asking.config, { messages: [new AIMessage({ id: answer.id, content: "Oslo: 14°C, light rain. Atlantis: no station." })] }, "agent");
  const editedId = edited.configurable.checkpoint_id;

  /** Every checkpoint as LangGraph sees it, and the thread's getState. */
  const lg = async () => {
    const history = [];
    for await (const s of graph.getStateHistory(config)) history.push(s);
    return { history, state: await graph.getState(config) };
  };
  const { history, state } = await lg();
  expect(history.length).toBeGreaterThan(7);

  const { url, child } = await serve();
  const browser = await launch();
  const logs = [];
  try {
    const page = await newPage(browser, logs);
    await signIn(page, url, a.token);
    // The threads list: one request (listThreads), with the last human and AI text.
    const row = page.locator(`tr[data-thread="${thread}"]`);
    expect(await row.locator(".p-human").textContent()).toContain("Weather in Oslo and Atlantis?");
    expect(await row.locator(".p-ai").textContent()).toContain("Atlantis: no station.");
    expect(await row.getAttribute("data-count")).toBe(String(history.length));
    await screenshot(page, "threads-preview.png");
    await page.fill("#f-text", "no station");
    await page.click('form[role="search"] button');
    await page.waitForFunction(() => document.querySelector("[data-threads]")?.getAttribute("data-threads") === "1");
    await page.fill("#f-text", "no such words anywhere");
    await page.click('form[role="search"] button');
    await page.waitForSelector('[data-state="empty"]');

    // Every checkpoint: node, next, tasks and interrupts as LangGraph computes them.
    const byId = new Map(history.map((s) => [s.config.configurable.checkpoint_id, s]));
    const head = state.config.configurable.checkpoint_id;
    expect(head).toBe(editedId);
    for (const s of history) {
      const id = s.config.configurable.checkpoint_id;
      const says = await pageSays(page, thread, id);
      const where = `step ${s.metadata.step} (${s.metadata.source}) ${id}`;
      expect(says.latest, where).toBe(id === head);
      expect(sorted(list(says.next)), where).toEqual(sorted(id === head ? state.next : s.next));
      expect(sorted(says.tasks.map((t) => `${t.name}:${t.id}`)), where).toEqual(sorted(s.tasks.map((t) => `${t.name}:${t.id}`)));
      for (const t of s.tasks) {
        expect(says.tasks.find((x) => x.id === t.id)?.interrupts, where).toEqual(t.interrupts.map((i) => i.value));
      }
      // Made by: the tasks its parent prepared (each ran in the step that made it).
      const parent = byId.get(s.parentConfig?.configurable?.checkpoint_id);
      if (s.metadata.source === "input") expect(says.kind, where).toBe("input");
      else if (id === editedId) expect([says.kind, says.by], where).toEqual(["update", "agent"]);
      else expect(sorted(list(says.by)), where).toEqual(sorted(new Set(parent.tasks.map((t) => t.name))));
    }
    expect(await page.locator(".tree [data-latest]").getAttribute("data-checkpoint")).toBe(head);

    // The question: its interrupt with the value, tool calls with their results.
    await pageSays(page, thread, askingId);
    expect(await page.locator("[data-interrupt-value]").count()).toBe(1);
    expect(JSON.parse(await attr(page, "[data-interrupt-value]", "data-interrupt-value"))).toEqual(asking.tasks[0].interrupts[0].value);
    const chat = page.locator('[data-detail] [data-chat]');
    expect(await chat.locator('[data-call="call_oslo"] [data-status="success"]').textContent()).toContain("Oslo: 14°C, light rain");
    expect(await chat.locator('[data-call="call_atlantis"] [data-status="error"]').textContent()).toContain("no weather station in Atlantis");
    expect(await chat.locator('[data-call="call_oslo"] .fn').textContent()).toBe("get_weather");
    expect(await chat.locator('[data-call="call_oslo"] pre.args').textContent()).toContain('"city": "Oslo"');
    // Tool results are under their calls, not bubbles of their own.
    expect(await chat.locator(':scope > .msg[data-role="tool"]').count()).toBe(0);
    expect(await chat.locator('[data-block="image"]').textContent()).toContain("[image: data:image/png;base64,");
    expect(await chat.locator(':scope > .msg[data-role="system"]').count()).toBe(1);
    // Ids on hover, raw JSON one click away.
    const aiId = asking.values.messages[2].id;
    expect(await chat.locator(`[data-msg-id="${aiId}"]`).getAttribute("title")).toContain(aiId);
    await chat.locator(`[data-msg-id="${aiId}"] > details.raw > summary`).click();
    expect(await chat.locator(`[data-msg-id="${aiId}"] > details.raw .json`).textContent()).toContain("tool_calls");
    await screenshot(page, "checkpoint-tools.png");
    await accessible(page, "checkpoint");
    await page.locator('[data-section="tasks"]').scrollIntoViewIfNeeded();
    await screenshot(page, "checkpoint-interrupt.png");

    // Diff: the question vs the edited fork: one message edited, the others collapsed.
    await page.selectOption("#f-diff-a", askingId);
    await page.selectOption("#f-diff-b", editedId);
    await page.click('[data-action="diff"]');
    await page.waitForSelector("[data-diff]");
    expect(list(await attr(page, "[data-diff]", "data-diff"))).toContain("messages");
    const mdiff = page.locator('[data-changed="messages"] [data-mdiff]');
    expect(await mdiff.locator('[data-msg-status="edited"]').count()).toBe(1);
    expect(await mdiff.locator('[data-msg-status="added"], [data-msg-status="removed"]').count()).toBe(0);
    // Inline: "Oslo: 14°C and light rain. Atlantis has no weather station." → "Oslo: 14°C, light rain. Atlantis: no station."
    const marked = (tag) => mdiff.locator(`[data-msg-status="edited"] .wdiff ${tag}`).evaluateAll((els) => els.map((e) => e.textContent.trim()).join(" "));
    expect(await marked("ins")).toBe("14°C, Atlantis:");
    expect(await marked("del")).toBe("14°C and Atlantis has weather");
    expect(await mdiff.locator("details.same > summary").first().textContent()).toMatch(/^\d+ unchanged messages?$/);
    await page.locator("[data-diff]").scrollIntoViewIfNeeded();
    await screenshot(page, "diff-messages.png");
    await accessible(page, "message diff");
    // The fork editor: from the question, the answer edited as a chat bubble.
    await pageSays(page, thread, askingId);
    await page.click('[data-action="fork"]');
    await page.waitForSelector('[data-form="fork"]');
    expect(await page.inputValue("#f-asnode")).toBe("agent"); // what updateState would pick
    expect(await page.isChecked('input[data-edge="branch:to:approve"]')).toBe(true);
    expect(await page.isChecked('input[data-edge="branch:to:tools"]')).toBe(false);
    const bubbles = page.locator('[data-edit-channel="messages"] [data-medit]');
    expect(await bubbles.count()).toBe(asking.values.messages.length);
    const last = bubbles.nth(asking.values.messages.length - 1);
    // Bad input is refused before anything is written: a tool call's arguments must be JSON.
    await bubbles.nth(2).locator('[data-f="call-args"]').first().fill("{not json");
    await page.click('[data-form="fork"] button[type="submit"]');
    await page.waitForSelector('[data-slot="fork-status"] [data-state="error"]');
    expect(await page.textContent('[data-slot="fork-status"] code')).toBe("invalid_input");
    expect(await page.textContent('[data-slot="fork-status"]')).toContain("messages[2].tool_calls[0].args");
    await bubbles.nth(2).locator('[data-f="call-args"]').first().fill('{"city": "Oslo"}');
    await last.locator('[data-f="content"]').fill("Oslo is rainy today (edited in the inspector).");
    await page.click('[data-action="preview"]');
    await page.waitForSelector("[data-preview-next]");
    expect(await attr(page, "[data-preview-next]", "data-preview-next")).toBe("approve");
    expect(await page.locator('[data-preview] [data-msg-status="edited"]').count()).toBe(1);
    await page.locator('[data-form="fork"]').evaluate((e) => e.scrollIntoView({ block: "start" }));
    await screenshot(page, "fork-editor.png");
    await accessible(page, "fork editor");
    await page.locator("[data-preview]").scrollIntoViewIfNeeded();
    await screenshot(page, "fork-preview.png");
    await page.click('[data-form="fork"] button[type="submit"]');
    await page.waitForFunction((id) => {
      const d = document.querySelector("[data-detail]");
      return d && d.getAttribute("data-detail") !== id;
    }, askingId);
    const forkId = await attr(page, "[data-detail]", "data-detail");
    expect(await page.locator("[data-detail][data-latest]").count()).toBe(1);
    await screenshot(page, "fork-head.png");

    // LangGraph agrees: the fork is the head, with the edited message, next approve.
    const forked = await graph.getState(config);
    expect(forked.config.configurable.checkpoint_id).toBe(forkId);
    expect(forked.next).toEqual(["approve"]);
    expect(forked.values.messages.at(-1)).toBeInstanceOf(AIMessage);
    expect(forked.values.messages.at(-1).content).toBe("Oslo is rainy today (edited in the inspector).");
    expect(forked.values.messages.at(-1).id).toBe(answer.id);
    expect(forked.values.messages.map((m) => m.id)).toEqual(asking.values.messages.map((m) => m.id));
    const says = await pageSays(page, thread, forkId);
    expect(says).toMatchObject({ next: "approve", kind: "update", by: "agent", latest: true });
    expect(says.tasks.map((t) => t.id)).toEqual(forked.tasks.map((t) => t.id));
    // Its diff with its parent: the edited message.
    await page.click('[data-action="diff-parent"]');
    await page.waitForSelector('[data-changed="messages"] [data-msg-status="edited"]');

    // The graph continues from the fork in Node.
    const done = await graph.invoke(new Command({ resume: { ok: true, note: "from the fork" } }), config);
    expect(done.approved).toEqual({ ok: true, note: "from the fork" });
    expect(done.messages.at(-1).content).toBe("Oslo is rainy today (edited in the inspector).");
    const end = await graph.getState(config);
    expect(end.next).toEqual([]);
    expect(end.parentConfig.configurable.checkpoint_id).toBe(forkId);
    // And the page reads the end as LangGraph does.
    const endSays = await pageSays(page, thread, end.config.configurable.checkpoint_id);
    expect(endSays).toMatchObject({ next: "", by: "approve", latest: true });

    // The two approvals: a structural diff of `approved` (resuming "no" from the question
    // changed nothing: the approve task had already written there, so LangGraph reused it).
    await page.selectOption("#f-diff-a", yesId);
    await page.selectOption("#f-diff-b", end.config.configurable.checkpoint_id);
    await page.click('[data-action="diff"]');
    await page.waitForSelector('[data-changed="approved"] [data-jdiff]');
    expect(await page.locator('[data-changed="approved"] [data-op]').evaluateAll((els) => els.map((e) => `${e.getAttribute("data-op")} ${e.getAttribute("data-path")}`))).toEqual(["changed note"]);
    expect(await page.locator('[data-changed="messages"] [data-msg-status="edited"]').count()).toBe(1);
    expect(list(await attr(page, "[data-diff]", "data-diff")).sort()).toEqual(["approved", "messages"]);
    await page.locator("[data-diff]").scrollIntoViewIfNeeded();
    await screenshot(page, "diff-json.png");
    expect(noId).not.toBe(yesId);

    // Phone width: the thread, its tree and detail in one column.
    await page.setViewportSize({ width: 390, height: 844 });
    await screenshot(page, "checkpoint-phone.png");
    await accessible(page, "checkpoint at phone width");
    expect(logs).toEqual([]);
  } finally {
    await browser.close();
    child.kill();
  }
});

test("a subgraph's namespace: its checkpoints' next, tasks and interrupts as LangGraph's getState for that namespace", { timeout: 120_000 }, async () => {
  const a = await newUser();
  const Inner = Annotation.Root({ text: Annotation({ reducer: (_, b) => b, default: () => "" }) });
  const inner = new StateGraph(Inner)
    .addNode("s1", (s) => ({ text: `${s.text}>s1` }))
    .addNode("s2", (s) => ({ text: `${s.text}>s2(${interrupt(`inner ${s.text}`)})` }))
    .addEdge(START, "s1").addEdge("s1", "s2").addEdge("s2", END)
    .compile();
  const graph = new StateGraph(Inner)
    .addNode("prep", (s) => ({ text: `${s.text}>prep` }))
    .addNode("sub", inner)
    .addEdge(START, "prep").addEdge("prep", "sub").addEdge("sub", END)
    .compile({ checkpointer: new AgentmemSaver(a.client) });
  const thread = `sub-${crypto.randomUUID()}`;
  const config = { configurable: { thread_id: thread } };
  await graph.invoke({ text: "in" }, config);
  const paused = await graph.getState(config, { subgraphs: true });
  const subState = paused.tasks[0].state;
  const ns = subState.config.configurable.checkpoint_ns;
  expect(ns).toMatch(/^sub:/);
  const history = [];
  for await (const s of graph.getStateHistory({ configurable: { thread_id: thread, checkpoint_ns: ns } })) history.push(s);
  expect(history.length).toBeGreaterThan(2);

  const { url, child } = await serve();
  const browser = await launch();
  const logs = [];
  try {
    const page = await newPage(browser, logs);
    await signIn(page, url, a.token);
    // The parent: its "sub" task interrupted by the subgraph, with a link to its namespace.
    const parentHistory = [];
    for await (const s of graph.getStateHistory(config)) parentHistory.push(s);
    for (const s of parentHistory) {
      const says = await pageSays(page, thread, s.config.configurable.checkpoint_id);
      const where = `root step ${s.metadata.step}`;
      expect(sorted(says.tasks.map((t) => `${t.name}:${t.id}`)), where).toEqual(sorted(s.tasks.map((t) => `${t.name}:${t.id}`)));
      for (const t of s.tasks) expect(says.tasks.find((x) => x.id === t.id)?.interrupts, where).toEqual(t.interrupts.map((i) => i.value));
    }
    await pageSays(page, thread, paused.config.configurable.checkpoint_id);
    await page.click("[data-subgraph]");
    await page.waitForFunction((n) => document.querySelector("#f-ns")?.value === n, ns);
    for (const s of history) {
      const id = s.config.configurable.checkpoint_id;
      await go(page, `#/thread/${encodeURIComponent(thread)}/${encodeURIComponent(id)}?${new URLSearchParams({ ns })}`);
      await page.waitForSelector(`[data-detail="${id}"]`);
      const says = await page.evaluate(() => ({
        next: document.querySelector("[data-next]")?.getAttribute("data-next") ?? "",
        tasks: [...document.querySelectorAll("[data-task]")].map((t) => `${t.getAttribute("data-task-name")}:${t.getAttribute("data-task")}`),
        interrupts: [...document.querySelectorAll("[data-interrupt-value]")].map((i) => JSON.parse(i.getAttribute("data-interrupt-value") ?? "null")),
      }));
      const where = `${ns} step ${s.metadata.step} ${id}`;
      const expected = id === subState.config.configurable.checkpoint_id ? subState : s;
      expect(sorted(list(says.next)), where).toEqual(sorted(expected.next));
      expect(sorted(says.tasks), where).toEqual(sorted(s.tasks.map((t) => `${t.name}:${t.id}`)));
      expect(says.interrupts, where).toEqual(s.tasks.flatMap((t) => t.interrupts.map((i) => i.value)));
    }
    expect(await page.locator("#f-ns").inputValue()).toBe(ns);
    await screenshot(page, "subgraph-namespace.png");
    expect(logs).toEqual([]);
  } finally {
    await browser.close();
    child.kill();
  }
});

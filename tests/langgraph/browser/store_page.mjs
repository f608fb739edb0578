// Bundled by store_browser.test.mjs for headless Chromium: AgentmemStore and InMemoryStore
// side by side in a page, as a browser app would use the store (a user's JWT, the
// package's "browser" entry, LangGraph's checkpoint package bundled in).
import { InMemoryStore } from "@langchain/langgraph-checkpoint";
import { AgentmemError, createClient } from "agentmem-supabase";
import { AgentmemStore } from "agentmem-supabase/langgraph";
import { bagOfWords as vectorOf } from "../bag_of_words.mjs";

const plain = (items) => items.map(({ namespace, key, value, score }) => ({ namespace, key, value, score: score === undefined ? null : Math.round(score * 1e5) / 1e5 }));

try {
  const env = await (await fetch("/__env.json")).json();
  const client = createClient({ url: env.SUPABASE_URL, apiKey: env.SUPABASE_ANON_KEY, accessToken: env.USER_JWT });
  const stores = [
    new AgentmemStore(client, { index: { dims: 384, embed: (texts) => texts.map(vectorOf), fields: ["text"] } }),
    new InMemoryStore({ index: { dims: 384, embeddings: { embedDocuments: async (t) => t.map(vectorOf), embedQuery: async (q) => vectorOf(q) }, fields: ["text"] } }),
  ];
  const answers = [];
  for (const store of stores) {
    await store.put(["prefs", "food"], "a", { text: "likes pizza and pasta" });
    await store.put(["prefs", "travel"], "b", { text: "window seats on long flights" });
    await store.put(["prefs", "food"], "c", { text: "no mushrooms", n: 3 });
    answers.push({
      search: plain(await store.search(["prefs"], { query: "pizza", limit: 5 })),
      filtered: plain(await store.search(["prefs"], { filter: { n: { $gte: 3 } } })),
      namespaces: await store.listNamespaces({ prefix: ["prefs"] }),
      get: (await store.get(["prefs", "travel"], "b"))?.value,
    });
  }
  let error;
  try {
    await stores[0].put(["prefs"], "k", ["not an object"]);
  } catch (e) {
    error = { agentmem: e instanceof AgentmemError, code: e.code };
  }
  globalThis.__result = { agentmem: answers[0], reference: answers[1], error };
} catch (e) {
  globalThis.__result = { failure: String(e?.stack ?? e) };
}

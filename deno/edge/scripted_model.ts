// A scripted model for the LangGraph agent example and its test: it plays the part an LLM
// would, deterministically. "Remember <fact>" → create_memory; a question → search_memories;
// after a tool result, a reply that says what the tool did or found.
import { AIMessage, type BaseMessage } from "@langchain/core/messages";
import type { Model } from "../../supabase/functions/langgraph-agent/index.ts";

export const scriptedModel: Model = (messages: BaseMessage[]) => {
  const last = messages.at(-1)!;
  const text = String(last.content);
  if (last.getType() === "tool") {
    const result = JSON.parse(text);
    if (!result.success) return Promise.resolve(new AIMessage(`That failed: ${result.error.message}`));
    if (result.memory) return Promise.resolve(new AIMessage("I'll remember that."));
    const found = (result.memories ?? []).map((m: { content: string }) => m.content);
    return Promise.resolve(new AIMessage(found.length ? `You told me: ${found.join("; ")}` : "You have not told me yet."));
  }
  const id = `call_${messages.length}`;
  const remember = /^remember:?\s+(.+)$/i.exec(text);
  if (remember) {
    return Promise.resolve(new AIMessage({ content: "", tool_calls: [{ id, name: "create_memory", args: { content: remember[1], memory_type: "preference" } }] }));
  }
  if (text.trim().endsWith("?")) {
    return Promise.resolve(new AIMessage({ content: "", tool_calls: [{ id, name: "search_memories", args: { query: text } }] }));
  }
  return Promise.resolve(new AIMessage("OK."));
};

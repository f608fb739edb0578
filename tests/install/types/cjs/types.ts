// `import type` in a "type": "commonjs" file: TypeScript resolves it with the `require`
// condition, so the package's types come from its .d.cts files, whose LangGraph types are
// LangGraph's .d.cts ones, the same as this file's own LangGraph imports.
import type { BaseCheckpointSaver, BaseStore, CompiledStateGraph } from "@langchain/langgraph";
import type { AgentmemError, AgentmemErrorCode, MemoryTools, MemoryToolResult } from "__PACKAGE__";
import type { AgentmemSaver, AgentmemStore } from "__PACKAGE__/langgraph";
import type { uuid5 } from "__PACKAGE__/ids";

export function asLangGraph(saver: AgentmemSaver, store: AgentmemStore): { checkpointer: BaseCheckpointSaver; store: BaseStore } {
  return { checkpointer: saver, store };
}
export const code = (e: AgentmemError): AgentmemErrorCode => e.code;
export type Tools = MemoryTools;
export type Result = MemoryToolResult;
export type Uuid5 = typeof uuid5;
export type Graph = CompiledStateGraph<unknown, unknown>;

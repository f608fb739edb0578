/* @ts-self-types="./langgraph.d.ts" */
// @ts-check
// agentmem-supabase/langgraph for node: the runtime entry first (it loads and initialises the .wasm),
// then the saver, which relies on that.
import "./node.js";
export * from "./langgraph.js";

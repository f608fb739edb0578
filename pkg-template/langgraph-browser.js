/* @ts-self-types="./langgraph.d.ts" */
// @ts-check
// agentmem-supabase/langgraph for browser: the runtime entry first (it loads and initialises the .wasm),
// then the saver, which relies on that.
import "./browser.js";
export * from "./langgraph.js";

// The facades as the type checker reads their JSDoc, assigned to what the hand-written
// declarations promise. A class, method, parameter or result that the JavaScript no longer
// has as declared (or a declared export it lacks) fails `deno check` here. Only checked,
// never run (tests/facades/check.sh).
//
// The modules come in through files without `@ts-self-types` (api.js, langgraph.js):
// importing an entry file instead would give the declarations themselves. index.d.ts
// gathers client.d.ts, memory.d.ts and state.d.ts (through `@ts-types` lines, which Deno
// follows: client.js, memory.js and state.js carry no `@ts-self-types`, so api.js's names
// are typed from their JavaScript) and ids.d.ts, whose helpers api.js exports from wasm.js
// (agentmem-supabase/ids exports the same from its own generated glue). AgentmemError is
// typed by errors.js's own `@ts-self-types`, so that class is held to errors.d.ts by its
// `@implements` (check.sh).
import * as api from "../../pkg/unbundled/api.js";
import * as langgraph from "../../pkg/unbundled/langgraph.js";
import type * as Main from "../../pkg/unbundled/index.d.ts";
import type * as Saver from "../../pkg/unbundled/langgraph.d.ts";

export const main: typeof Main = api;
export const saver: typeof Saver = langgraph;

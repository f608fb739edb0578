// Public types of the agentmem package. Written by hand, once: the generated glue is
// internal and typed as `any`. Each capability's types sit in a file of their own, named
// after its facade: client.d.ts (the PostgREST client), memory.d.ts (the memory tools),
// state.d.ts (the state stores). This file gathers them, and is what the package's
// "types" and the entries' `@ts-self-types` name.
//
// They are named by their `.js` specifier (a `.d.ts` specifier is refused by some tsc
// versions). TypeScript, with any moduleResolution, and Deno for npm: packages, take the
// x.d.ts next to x.js. Deno for a copied folder or a URL does not look for it: it reads
// the `@ts-types` line before the statement. client.js, memory.js and state.js carry no
// `@ts-self-types` (ids.js and errors.js do): client.js exports helpers the other facades
// import, and such a line would stop the repository's type check of the facades from
// holding their JavaScript to these declarations. A split file that imports another does the same.

// The error class and the id helpers are shared with agentmem-supabase/ids (ids.d.ts).
export * from "./ids.js";
// @ts-types="./client.d.ts"
export * from "./client.js";
// @ts-types="./memory.d.ts"
export * from "./memory.js";
// @ts-types="./state.d.ts"
export * from "./state.js";

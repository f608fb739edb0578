// A real trap, provoked from outside the module, for the tests of trap recovery. The
// released modules have no export that panics on request (nothing a caller could reach
// by accident or on purpose), so the tests take what a long-lived worker can really run
// into: a module whose memory cannot grow any more. They grow the instance's memory to
// the engine's limit from JavaScript; the module's next allocation that its free lists
// cannot serve fails, and a failed allocation aborts, which traps. The glue must then
// cost exactly that call: a fresh instance (fresh memory) runs the next one.

/** The part of a wasm-bindgen glue module (agentmem.js, agentmem_ids.js) used here. */
export type Glue = { initSync(options: { module: Uint8Array }): unknown };

/** The memory of the instance the glue runs now. Once the glue is initialised, initSync
 *  ignores its argument and returns the live instance's exports. */
export function memoryOf(glue: Glue): WebAssembly.Memory {
  const exports = glue.initSync({ module: new Uint8Array() }) as { memory?: unknown };
  if (!(exports.memory instanceof WebAssembly.Memory)) throw new Error("the glue has no live instance yet: call into it first");
  return exports.memory;
}

/** Grows the live instance's memory until the engine refuses a single page more. */
export function exhaustMemory(glue: Glue): void {
  const memory = memoryOf(glue);
  for (let pages = 1 << 16; pages > 0;) {
    try {
      memory.grow(pages);
    } catch {
      pages >>= 1;
    }
  }
}

/** A string the module must copy into its memory to read, larger than any block the tests
 *  allocate and free, so that no free list can serve it: on an exhausted memory, reading
 *  it traps. */
export const TOO_BIG = "x".repeat(16 << 20);

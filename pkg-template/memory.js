// @ts-check
// Memory tools for an LLM tool loop. The module validates input, calls the
// injected embedding callback, and makes one PostgREST call per tool call; this class only
// keeps what the module must not: the client, the callback, and what content it has seen.
import { clientState } from "./client.js";
import { AgentmemError } from "./errors.js";
import { optionsJson, toJson } from "./json.js";
import { CAPABILITY, MEMORY_TOOL, MEMORY_TOOLS } from "./names.js";
import { call, checkMemoryOptions, memoryDefinitions, memoryId, prim, unreadable } from "./wasm.js";
/**
 * @import { CreateMemoryInput, DefinitionOptions, DeleteMemoryInput, EmbedFn, GetMemoryContextInput, Memory,
 *   MemoryToolName, MemoryToolResult, MemoryTools as Declared, MemoryToolsOptions, SearchMemoriesInput,
 *   ToolDefinition, ToolFormat, UpdateMemoryInput } from "./memory.d.ts"
 * @import { ClientState } from "./wasm.js"
 * @import { MemoryCall } from "./names.js"
 */

// Enough for any conversation; old entries only cost a possible extra embedding call.
const KNOWN_CONTENT_LIMIT = 1000;

/** @param {string} text */
function parseArguments(text) {
  try {
    return JSON.parse(text);
  } catch (e) {
    // JSON.parse throws SyntaxErrors only.
    throw new AgentmemError("invalid_input", `the tool arguments are not valid JSON: ${/** @type {SyntaxError} */ (e).message}`, { field: "input" });
  }
}

/** @implements {Declared} */
export class MemoryTools {
  /** @type {Readonly<ClientState>} */
  #client;
  /** JSON text. @type {string | undefined} */
  #options;
  /** @type {EmbedFn} */
  #embed;
  /**
   * memory id → content as last returned, so an update that keeps it skips the embedding.
   * @type {Map<string, string>}
   */
  #known = new Map();

  /** @param {MemoryToolsOptions} options */
  constructor(options) {
    if (options === null || typeof options !== "object") {
      throw new AgentmemError("invalid_input", "MemoryTools needs { client, embed, agentId, ... }", { field: "options" });
    }
    /** @type {Partial<MemoryToolsOptions>} */
    let own;
    try {
      own = { ...options };
    } catch (e) {
      throw unreadable("options", e);
    }
    const { client, embed, ...rest } = own;
    if (typeof embed !== "function") {
      throw new AgentmemError("invalid_input", "embed must be a function (texts: string[], { signal }) => Promise<number[][]>", { field: "embed" });
    }
    // A missing client is refused by clientState (as options without a URL).
    this.#client = clientState(/** @type {MemoryToolsOptions["client"]} */ (client));
    // JSON text, once: NaN or Infinity (dimensions, matchThreshold) is an error naming the
    // option, where JSON.stringify would have made it null, i.e. the default.
    this.#options = optionsJson(rest);
    this.#embed = embed;
    /** The user (JWT `sub`) these tools act for. */
    this.userId = checkMemoryOptions(this.#client, this.#options);
    Object.freeze(this);
  }

  /** The tool names, in the order of `definitions()` (each tool is one file in
   *  src/memory/tools, its definition with it; names.js is written from their list). */
  /** @returns {MemoryToolName[]} */
  static get toolNames() {
    return [...MEMORY_TOOLS];
  }

  /** Tool definitions for the model: `"anthropic"` (`input_schema`), `"openai"` (Chat
   *  Completions) or `"openai-responses"`; `{ strict: true }` for the vendor's strict mode. */
  /**
   * @template {ToolFormat} [F="anthropic"]
   * @param {F} [format]
   * @param {DefinitionOptions} [options]
   * @returns {ToolDefinition<F>[]}
   */
  static definitions(format = /** @type {F} */ ("anthropic"), options) {
    // The module answers the definitions of the format it was given: F's.
    return /** @type {ToolDefinition<F>[]} */ (memoryDefinitions(format, options));
  }

  /**
   * @template {ToolFormat} [F="anthropic"]
   * @param {F} [format]
   * @param {DefinitionOptions} [options]
   * @returns {ToolDefinition<F>[]}
   */
  definitions(format = /** @type {F} */ ("anthropic"), options) {
    // The module answers the definitions of the format it was given: F's.
    return /** @type {ToolDefinition<F>[]} */ (memoryDefinitions(format, options));
  }

  /**
   * Runs the tool call a model asked for: `input` is Anthropic's `input` object or
   * OpenAI's `arguments` JSON string. Never throws for a failed call: returns
   * `{ success: false, error: { code, message, field? } }`, which the model can read and
   * correct. An `internal` error (a bug in agentmem) rejects instead.
   * @param {string} name
   * @param {unknown} input
   * @returns {Promise<MemoryToolResult>}
   */
  async handle(name, input) {
    try {
      // OpenAI hands the arguments over as a JSON string; Anthropic as an object.
      if (typeof input === "string") input = parseArguments(input);
      return await this.#call(name, input);
    } catch (e) {
      if (!(e instanceof AgentmemError) || e.code === "internal") throw e;
      // status and pgrstCode tell a server problem (schema_not_installed, unauthorized,
      // network, ...) from a model mistake (invalid_input, not_found of a memory).
      /** @type {Extract<MemoryToolResult, { success: false }>["error"]} */
      const error = { code: e.code, message: e.message };
      for (const key of /** @type {const} */ (["field", "status", "pgrstCode"])) if (e[key] !== undefined) /** @type {any} */ (error)[key] = e[key];
      return { success: false, error };
    }
  }

  /**
   * @param {CreateMemoryInput} input
   * @returns {Promise<{ success: true, memory: Memory }>}
   */
  createMemory(input) {
    return this.#call(MEMORY_TOOL.create_memory, input);
  }
  /**
   * @param {SearchMemoriesInput} input
   * @returns {Promise<{ success: true, count: number, memories: Memory[] }>}
   */
  searchMemories(input) {
    return this.#call(MEMORY_TOOL.search_memories, input);
  }
  /**
   * @param {UpdateMemoryInput} input
   * @returns {Promise<{ success: true, memory: Memory }>}
   */
  updateMemory(input) {
    return this.#call(MEMORY_TOOL.update_memory, input);
  }
  /**
   * @param {DeleteMemoryInput} input
   * @returns {Promise<{ success: true, deleted: string }>}
   */
  deleteMemory(input) {
    return this.#call(MEMORY_TOOL.delete_memory, input);
  }
  /**
   * @param {GetMemoryContextInput} [input]
   * @returns {Promise<{ success: true, count: number, memories: Memory[], context: string }>}
   */
  getMemoryContext(input = {}) {
    return this.#call(MEMORY_TOOL.get_memory_context, input);
  }

  /**
   * @param {string} name
   * @param {unknown} input
   * @returns {Promise<any>} the tool's result, as memory.d.ts declares it per tool
   */
  async #call(name, input) {
    // Read once, here: NaN or Infinity anywhere in the input is an error naming its path,
    // not a silent null, and a throwing getter is an invalid_input, not a crash.
    const text = toJson("", input, "input");
    const plain = text === undefined ? undefined : JSON.parse(text);
    // Keyed as the module reads ids, so an id in another form still finds what was seen.
    const id = name === MEMORY_TOOL.update_memory ? memoryId(plain?.memory_id) : undefined;
    /** @type {MemoryCall["args"]} */
    const args = [this.#options, text, id && this.#known.get(id)];
    /** @type {MemoryCall["result"]} */
    const result = await call(this.#client, CAPABILITY.memory, prim(name), args, this.#embed);
    this.#remember(name, plain, result);
    return result;
  }

  /**
   * @param {string} name
   * @param {any} input the tool input as JSON read it back
   * @param {MemoryToolResult} answer
   */
  #remember(name, input, answer) {
    const result = /** @type {{ memories?: Memory[], memory?: Memory }} */ (answer);
    if (name === MEMORY_TOOL.delete_memory) {
      const id = memoryId(input?.memory_id);
      if (id !== undefined) this.#known.delete(id);
    }
    for (const m of result.memories ?? (result.memory ? [result.memory] : [])) {
      this.#known.delete(m.id);
      this.#known.set(m.id, m.content);
    }
    // The map is not empty while over the limit, so there is a first key.
    while (this.#known.size > KNOWN_CONTENT_LIMIT) this.#known.delete(/** @type {string} */ (this.#known.keys().next().value));
  }
}

// Compile-time proof that agentmem's tool definitions fit the vendors' own SDK types, with
// no casts: if a definition type drifts from what the SDK accepts, tsc fails here.
import type Anthropic from "@anthropic-ai/sdk";
import type OpenAI from "openai";
import type { MemoryTools, ToolFormat } from "../../pkg/index.d.ts";

declare const tools: MemoryTools;

// Anthropic Messages API: `tools: Anthropic.Tool[]`, strict or not.
const anthropic: Anthropic.Tool[] = tools.definitions("anthropic");
const anthropicStrict: Anthropic.Tool[] = tools.definitions("anthropic", { strict: true });
const byDefault: Anthropic.Tool[] = tools.definitions();
const staticDefs: Anthropic.Tool[] = (null as unknown as typeof MemoryTools).definitions("anthropic");

// OpenAI Chat Completions: `tools: ChatCompletionTool[]`.
const chat: OpenAI.Chat.Completions.ChatCompletionTool[] = tools.definitions("openai", { strict: true });
// OpenAI Responses API: `tools: Responses.Tool[]` (FunctionTool requires `strict`).
const responses: OpenAI.Responses.Tool[] = tools.definitions("openai-responses", { strict: true });
const responsesLoose: OpenAI.Responses.FunctionTool[] = tools.definitions("openai-responses");

// A format chosen at run time gives the union of the definition types (no overload error).
declare const fmt: "anthropic" | "openai";
const either = tools.definitions(fmt);
const narrowed: Array<Anthropic.Tool | OpenAI.Chat.Completions.ChatCompletionTool> = either;
declare const any: ToolFormat;
tools.definitions(any, { strict: false });

// What each SDK hands back goes straight into handle(): Anthropic's `input` object, and
// OpenAI's `arguments` JSON string.
declare const toolUse: Anthropic.ToolUseBlock;
void tools.handle(toolUse.name, toolUse.input);
declare const call: OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
void tools.handle(call.function.name, call.function.arguments);
declare const item: OpenAI.Responses.ResponseFunctionToolCall;
void tools.handle(item.name, item.arguments);

export { anthropic, anthropicStrict, byDefault, chat, narrowed, responses, responsesLoose, staticDefs };

// The time-travel scenarios of timetravel.mjs in Deno, through the package's deno entry:
// AgentmemSaver's transcripts must equal MemorySaver's, as in Node (timetravel.test.mjs).
import assert from "node:assert/strict";
import { MemorySaver } from "@langchain/langgraph";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { scenarios } from "./timetravel.mjs";
import { newUser } from "./stack.mjs";

for (const [name, scenario] of Object.entries(scenarios)) {
  Deno.test(`time travel in Deno, ${name}: AgentmemSaver's transcript equals MemorySaver's`, async () => {
    const thread = `tt-deno-${name}-${crypto.randomUUID()}`;
    const expected = await scenario(new MemorySaver(), thread);
    const actual = await scenario(new AgentmemSaver((await newUser()).client), thread);
    assert.deepEqual(actual, expected);
  });
}

// The upstream conformance suite, unmodified, against the real stack. Each checkpointer
// is a fresh signed-in user and nothing is deleted between suites: the suite's fixed
// thread ids ("1", "2", "thread-1") are reused by every user, and each must see exactly
// its own threads (per-tenant key spaces), including `list` without a thread id.
import { validate } from "@langchain/langgraph-checkpoint-validation";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { newUser } from "./stack.mjs";

validate({
  checkpointerName: "agentmem",
  async createCheckpointer() {
    return new AgentmemSaver((await newUser()).client);
  },
});

// The upstream conformance suite, unmodified, against the real stack. Each checkpointer
// is a fresh signed-in user, so it sees only its own threads (RLS) and `list` without a
// thread id lists exactly what that checkpointer stored.
import { validate } from "@langchain/langgraph-checkpoint-validation";
import { AgentmemSaver } from "agentmem/langgraph";
import { newUser, service } from "./stack.mjs";

// Thread ids the suite hard-codes. A thread belongs to its first writer, so a run that was
// killed before destroyCheckpointer would leave them to a user that no longer signs in.
const FIXED_THREADS = ["1", "2", "thread-1"];

validate({
  checkpointerName: "agentmem",
  async beforeAll() {
    for (const t of FIXED_THREADS) await service().rpc("langgraph_delete_thread", { p_thread_id: t });
  },
  async createCheckpointer() {
    return new AgentmemSaver((await newUser()).client);
  },
  async destroyCheckpointer(saver) {
    const threads = new Set();
    for await (const t of saver.list({})) threads.add(t.config.configurable.thread_id);
    for (const t of threads) await saver.deleteThread(t);
  },
});

// The ids agentmem derives without a database, from the built package.
import { cimThreadId, coiaThread, conversationId, extractDealId, uuid5 } from "agentmem-supabase";

console.log("uuid5('python.org', dns)     =", uuid5("python.org", "dns"));
const landing = coiaThread("landing");
console.log("new landing visitor          =", landing);
console.log("their conversation id        =", conversationId(landing.thread_id));
const thread = cimThreadId("3F2B8A9E-1C4D-4E5F-9A0B-1C2D3E4F5A6B", "draft-1");
console.log("CIM thread                   =", thread);
console.log("deal id RLS will see         =", extractDealId(thread));

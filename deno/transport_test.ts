// The transport against the real stack, in Deno. The cases are shared with the Chromium
// run (tests/browser/transport.html), so both runtimes are held to the same behaviour.
import * as agentmem from "agentmem-supabase";
import { transportCases } from "../tests/transport/cases.js";
import { env } from "./support.ts";

for (const { name, fn } of transportCases({ agentmem, env })) {
  Deno.test(name, fn);
}

// The shared transport cases (tests/transport/cases.js) in Node >= 20, whose fetch is
// undici: the one runtime here that does not silently re-send a dropped request.
import { test } from "node:test";
import * as agentmem from "agentmem-supabase";
import { readStackEnv } from "../support/env.mjs";
import { transportCases } from "../transport/cases.js";

for (const { name, fn } of transportCases({ agentmem, env: readStackEnv() })) {
  test(name, fn);
}

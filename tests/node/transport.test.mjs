// The shared transport cases (tests/transport/cases.js) in Node >= 20, whose fetch is
// undici: the one runtime here that does not silently re-send a dropped request.
import { test } from "node:test";
import { readFileSync } from "node:fs";
import * as agentmem from "agentmem";
import { transportCases } from "../transport/cases.js";

const dir = process.env.AGENTMEM_STACK_DIR ?? "/tmp/agentmem-stack";
const env = Object.fromEntries(
  readFileSync(`${dir}/env`, "utf8").split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
);

for (const { name, fn } of transportCases({ agentmem, env })) {
  test(name, fn);
}

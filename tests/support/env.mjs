// The local stack's settings (URL, keys, JWT secret) as `scripts/stack.sh up` writes them
// to $AGENTMEM_STACK_DIR/env. node: imports only, so Node and Deno both run it.
import { readFileSync } from "node:fs";
import process from "node:process";

export function readStackEnv() {
  const dir = process.env.AGENTMEM_STACK_DIR ?? "/tmp/agentmem-stack";
  let text;
  try {
    text = readFileSync(`${dir}/env`, "utf8");
  } catch {
    throw new Error(`no stack settings in ${dir}/env: start the stack with scripts/stack.sh up --test-fixtures`);
  }
  return Object.fromEntries(
    text.split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

// The local stack's settings (URL, keys, JWT secret) as written by `scripts/stack.sh up`.
export function stackEnv(): Record<string, string> {
  const dir = Deno.env.get("AGENTMEM_STACK_DIR") ?? "/tmp/agentmem-stack";
  let text: string;
  try {
    text = Deno.readTextFileSync(`${dir}/env`);
  } catch {
    throw new Error(`no stack settings in ${dir}/env: start the stack with scripts/stack.sh up --test-fixtures`);
  }
  return Object.fromEntries(
    text.split("\n").filter((l) => l.includes("=")).map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]),
  );
}

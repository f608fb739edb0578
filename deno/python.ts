// Reference values from the machine's CPython, computed at test time.

/** `str(uuid.uuid5(<namespace>, name))` for each name, in order. */
export async function pythonUuid5(names: string[], namespace: string): Promise<string[]> {
  const ns = ["dns", "url", "oid", "x500"].includes(namespace)
    ? `uuid.NAMESPACE_${namespace.toUpperCase()}`
    : `uuid.UUID(${JSON.stringify(namespace)})`;
  const script = `import json, sys, uuid\nfor n in json.load(sys.stdin): print(uuid.uuid5(${ns}, n))`;
  const child = new Deno.Command(Deno.env.get("PYTHON") ?? "python3", {
    args: ["-c", script],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(JSON.stringify(names)));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error("python3 failed");
  return new TextDecoder().decode(out.stdout).trim().split("\n");
}

/** Deterministic pseudo-random Unicode strings covering every UTF-8 length. */
export function generatedNames(count: number, seed = 42): string[] {
  let s = seed >>> 0;
  const rand = (n: number) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s % n;
  };
  const ranges: [number, number][] = [[0x20, 0x7e], [0x00, 0x1f], [0x80, 0x7ff], [0x800, 0xd7ff], [0xe000, 0xfffd], [0x10000, 0x10ffff]];
  const names: string[] = [];
  for (let i = 0; i < count; i++) {
    let name = "";
    const len = rand(30);
    for (let j = 0; j < len; j++) {
      const [lo, hi] = ranges[rand(ranges.length)];
      name += String.fromCodePoint(lo + rand(hi - lo + 1));
    }
    names.push(name);
  }
  return names;
}

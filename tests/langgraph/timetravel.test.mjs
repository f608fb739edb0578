// Time travel with AgentmemSaver equals time travel with LangGraph's MemorySaver: the same
// scenarios (timetravel.mjs), the same transcripts. Fresh thread ids per run.
import { MemorySaver } from "@langchain/langgraph";
import { AgentmemSaver } from "agentmem-supabase/langgraph";
import { scenarios } from "./timetravel.mjs";
import { newUser } from "./stack.mjs";

for (const [name, scenario] of Object.entries(scenarios)) {
  test(`${name}: AgentmemSaver's transcript equals MemorySaver's`, async () => {
    const thread = `tt-${name}-${crypto.randomUUID()}`;
    const expected = await scenario(new MemorySaver(), thread);
    const actual = await scenario(new AgentmemSaver((await newUser()).client), thread);
    expect(actual).toEqual(expected);
  });
}

test("sibling forks keep their own values (the case LangGraph's integer versions get wrong)", async () => {
  const t = await scenarios.forks(new AgentmemSaver((await newUser()).client), `tt-${crypto.randomUUID()}`);
  expect(t.fork1.values.text).toBe("EDIT-1");
  expect(t.fork2.values.text).toBe("EDIT-2");
  expect(t.continue2.text).toBe("EDIT-2+b");
  expect(t.continue1.text).toBe("EDIT-1+b");
  expect(t.asDraft.next).toEqual(["review"]);
  expect(t.continueAsDraft.text).toBe("AS-DRAFT+b");
});

test("channel versions are ordered numbers, practically unique per write, and continue integer threads", () => {
  const saver = AgentmemSaver.inMemory();
  const seen = new Set();
  for (let i = 0; i < 10_000; i += 1) {
    const v = saver.getNextVersion(7);
    expect(v > 7 && v < 9).toBe(true);
    expect(Math.floor(v)).toBe(8);
    seen.add(v);
  }
  // 33 random bits per version: among 10,000 draws from one version a repeat has a chance
  // of about 0.6% (birthday bound), three or more of about 1 in 10^7. A weak or fixed
  // fraction would repeat by the thousands.
  expect(seen.size).toBeGreaterThanOrEqual(9_998);
  expect(Math.floor(saver.getNextVersion(undefined))).toBe(1);
  const next = saver.getNextVersion(8.25);
  expect(next > 9 && next < 10).toBe(true);
  // Python's PostgresSaver writes "<32-digit step>.<random>" strings: continued as strings.
  const py = saver.getNextVersion("00000000000000000000000000000004.0.5398419612");
  expect(py.startsWith("00000000000000000000000000000005.")).toBe(true);
  expect(py > "00000000000000000000000000000004.9").toBe(true);
  expect(() => saver.getNextVersion(Number.NaN)).toThrow(/finite number/);
  expect(() => saver.getNextVersion("x.1")).toThrow(/cannot continue/);
  // A value the message must not walk into (fuzzing once found a RangeError here): typed,
  // also when the method is called on something that is not a saver.
  let deep = [];
  for (let i = 0; i < 10_000; i += 1) deep = [deep];
  for (const self of [saver, {}]) {
    expect(() => AgentmemSaver.prototype.getNextVersion.call(self, deep)).toThrow(expect.objectContaining({ code: "invalid_input" }));
  }
});

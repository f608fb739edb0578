# The default matchThreshold of the memory tools, measured: all-MiniLM-L6-v2 (the test
# embedder, tests/embedder/minilm.py, installed by scripts/bootstrap.sh) scores 20
# memory-tool queries against 15 memories; for each query one memory is the one it is
# about. Run: ~/.cache/agentmem/minilm/bin/python bench/match_threshold.py
import sys
sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parent.parent / "tests" / "embedder"))
import minilm
import numpy as np
W, tok = minilm.load()
E = lambda t: minilm.embed_one(W, tok, t)
memories = [
  "The user prefers environmentally friendly suppliers",
  "The company's office is located in Denver, Colorado",
  "They decided to postpone the roof replacement until spring",
  "The user is allergic to peanuts",
  "User prefers vendors located within 50 miles of the job site",
  "The budget for the kitchen remodel is $40,000",
  "Prefers to be contacted by email, not phone",
  "The project manager is named Priya Shah",
  "They chose Acme Roofing for the last two projects",
  "The warehouse lighting must use LED fixtures",
  "User works night shifts and is available after 6pm",
  "Invoices must be paid within 30 days",
  "The user's dog is named Biscuit",
  "They want quotes from at least three contractors",
  "Insurance certificates are required before work starts",
]
queries = [
  ("green vendors", 0), ("which city is the headquarters in?", 1), ("delaying the repairs to next year", 2),
  ("nut allergy", 3), ("which vendors does the user prefer", 4), ("how much can they spend on the kitchen", 5),
  ("how should I reach the user", 6), ("who manages the project", 7), ("which roofer did they use before", 8),
  ("lighting requirements for the warehouse", 9), ("when is the user available", 10), ("payment terms", 11),
  ("what is the pet's name", 12), ("how many bids do they need", 13), ("what paperwork is needed before starting", 14),
  ("vendor location preferences", 4), ("preferred supplier distance", 4), ("contact preferences", 6),
  ("remodel budget", 5), ("previous contractors", 8),
]
mv = [E(m) for m in memories]
rel, unrel = [], []
for q, i in queries:
    qv = E(q)
    for j, m in enumerate(mv):
        s = float(np.dot(qv, m))
        (rel if j == i else unrel).append((s, q, memories[j]))
rel.sort(); unrel.sort()
print("relevant: min %.3f p10 %.3f median %.3f" % (rel[0][0], rel[len(rel)//10][0], rel[len(rel)//2][0]))
print("unrelated: max %.3f p99 %.3f p95 %.3f median %.3f" % (unrel[-1][0], unrel[int(len(unrel)*0.99)][0], unrel[int(len(unrel)*0.95)][0], unrel[len(unrel)//2][0]))
print("lowest relevant:", rel[:5])
print("highest unrelated:", unrel[-5:])
for t in [0.2, 0.25, 0.3, 0.35, 0.4, 0.5]:
    print(t, "recall", sum(1 for s,_,_ in rel if s >= t)/len(rel), "false", sum(1 for s,_,_ in unrel if s >= t), "/", len(unrel))

// The deterministic embedder of the store and inspector tests: the words of a text hashed
// (FNV-1a) into 384 counts. Small integers are exact in float4 (pgvector) and float64
// (InMemoryStore), so equal scores are equal in both and no rounding reorders results.
// Self-contained, so that a test can also hand its source to a page (`String(bagOfWords)`).

/**
 * @param {string} text
 * @returns {number[]}
 */
export function bagOfWords(text) {
  const v = new Array(384).fill(0);
  for (const word of text.toLowerCase().split(/[^\p{L}\p{N}]+/u)) {
    if (!word) continue;
    let h = 2166136261;
    for (const c of word) h = Math.imul(h ^ c.codePointAt(0), 16777619) >>> 0;
    v[h % 384] += 1;
  }
  return v;
}

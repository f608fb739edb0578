// A deterministic, offline text embedder for local development and tests: the feature
// hashing trick over words and character trigrams, L2-normalised. Texts that share words
// get a high cosine similarity, unrelated texts a low one. It knows no synonyms: use a
// real model in production (see supabase/functions/memory-tools/README.md).

const WORD_WEIGHT = 1.0;
const TRIGRAM_WEIGHT = 0.35;

/** FNV-1a, 32 bit. */
function fnv1a(text: string): number {
  let h = 0x811c9dc5;
  for (const byte of new TextEncoder().encode(text)) {
    h ^= byte;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

const STOP = new Set(["a", "an", "the", "and", "or", "of", "to", "in", "for", "on", "with", "is", "are", "i", "my", "me", "at", "be", "it", "that", "this"]);

export function hashEmbed(text: string, dimensions = 384): Float32Array {
  const v = new Float32Array(dimensions);
  const add = (feature: string, weight: number) => {
    const h = fnv1a(feature);
    v[h % dimensions] += (h & 0x80000000 ? -1 : 1) * weight;
  };
  const words = text.toLowerCase().normalize("NFKC").match(/[\p{L}\p{N}]+/gu) ?? [];
  for (const w of words) {
    if (STOP.has(w)) continue;
    // Crude stemming so "vendor" and "vendors" meet.
    add(`w:${w.replace(/(ies|es|s)$/u, "")}`, WORD_WEIGHT);
    const padded = ` ${w} `;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, TRIGRAM_WEIGHT);
  }
  const norm = Math.hypot(...v);
  if (norm === 0) v[0] = 1; // empty or stop-word-only text: any fixed unit vector
  else for (let i = 0; i < dimensions; i++) v[i] /= norm;
  return v;
}

/** The `embed` callback shape agentmem's MemoryTools expects. */
export function hashEmbedder(dimensions = 384): (texts: string[]) => Promise<Float32Array[]> {
  return (texts) => Promise.resolve(texts.map((t) => hashEmbed(t, dimensions)));
}

// Supabase Auth's user tokens, minted for tests: HS256 JWTs signed with the stack's secret.
// WebCrypto and btoa only, so the same file runs in Deno, Node >= 20 and browsers.
const text = new TextEncoder();
const b64url = (bytes) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");

/**
 * @param {string} secret the stack's SUPABASE_JWT_SECRET
 * @param {string} sub the user id
 * @param {{ role?: string, expiresIn?: number }} [options] seconds until `exp` (negative: expired)
 */
export async function mintJwt(secret, sub, { role = "authenticated", expiresIn = 3600 } = {}) {
  const now = Math.floor(Date.now() / 1000);
  const part = (o) => b64url(text.encode(JSON.stringify(o)));
  const body = `${part({ alg: "HS256", typ: "JWT" })}.${part({ sub, role, aud: "authenticated", iat: now, exp: now + expiresIn })}`;
  const key = await crypto.subtle.importKey("raw", text.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return `${body}.${b64url(new Uint8Array(await crypto.subtle.sign("HMAC", key, text.encode(body))))}`;
}

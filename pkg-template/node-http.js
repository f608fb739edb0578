// @ts-check
// The Node entry's default transport: HTTP/1.1 over node:http(s) with keep-alive, used
// when the caller injects no `fetch`. Node's global fetch (undici) spends about three
// times the CPU per request (measured: ~1.8 ms vs ~0.6 ms on the development machine),
// which dominates a small checkpoint operation and caps concurrent throughput. It answers
// what io.js reads of a Response (status, headers.get, text) and nothing more; callers who
// want the real fetch (proxies, tracing) pass `fetch` as usual.
import http from "node:http";
import https from "node:https";

// timeout: a pooled connection idle this long is closed before the server would close it
// (undici's default too); a server's `Keep-Alive: timeout=n` hint shortens it further.
/** @type {Record<string, http.Agent | undefined>} */
const agents = {
  "http:": new http.Agent({ keepAlive: true, timeout: 4000 }),
  "https:": new https.Agent({ keepAlive: true, timeout: 4000 }),
};

/** @param {AbortSignal} signal */
function abortReason(signal) {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/**
 * `fetch(url, { method, headers, body, signal })` for agentmem's own requests.
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: string | null, signal?: AbortSignal }} [init]
 * @returns {Promise<{ status: number | undefined, headers: { get(name: string): string | null }, text(): Promise<string> }>}
 */
export function nodeHttpFetch(url, init = {}) {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const agent = agents[target.protocol];
    if (!agent) return reject(new TypeError(`unsupported protocol ${target.protocol}`));
    const { signal } = init;
    if (signal?.aborted) return reject(abortReason(signal));
    const client = target.protocol === "https:" ? https : http;
    const body = init.body === undefined || init.body === null ? undefined : Buffer.from(String(init.body));
    const headers = { ...init.headers };
    if (body !== undefined) headers["content-length"] = String(body.length);
    const req = client.request(target, { method: init.method ?? "GET", headers, agent }, (res) => {
      /** @type {Buffer[]} */
      const chunks = [];
      res.on("data", (chunk) => chunks.push(chunk));
      res.on("error", fail);
      res.on("close", () => {
        if (!res.complete) fail(new Error("the connection closed before the whole response arrived"));
      });
      res.on("end", () => {
        done();
        const text = Buffer.concat(chunks).toString("utf8");
        const lower = res.headers;
        resolve({
          status: res.statusCode,
          headers: {
            /** @param {string} name */
            get(name) {
              const v = lower[String(name).toLowerCase()];
              return v === undefined ? null : Array.isArray(v) ? v.join(", ") : v;
            },
          },
          text: () => Promise.resolve(text),
        });
      });
    });
    /** @param {Error} e */
    function fail(e) {
      done();
      reject(e);
    }
    const onAbort = () => {
      // Only listened to when there is a signal.
      req.destroy(abortReason(/** @type {AbortSignal} */ (signal)));
    };
    function done() {
      signal?.removeEventListener("abort", onAbort);
    }
    signal?.addEventListener("abort", onAbort, { once: true });
    req.on("error", fail);
    req.end(body);
  });
}

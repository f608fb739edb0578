// @ts-check
// The Node entry's default transport: HTTP/1.1 with keep-alive straight over node:net /
// node:tls, used when the caller injects no `fetch`. A small checkpoint operation is one
// short request, and the client's CPU per request decides both its latency and how many
// run side by side: Node's global fetch (undici) and node:http spend several times the CPU
// per request that this does (the benchmarks measure them). It sends one write per request
// and reads exactly what agentmem needs of a Response (status, headers.get, text); callers
// who want the real fetch (proxies, tracing, HTTP/2) pass `fetch` as usual.
import net from "node:net";
import tls from "node:tls";

// A pooled connection idle this long is closed before the server would close it (node:http
// and undici use the same default); a server's `Keep-Alive: timeout=n` shortens it.
const IDLE_MS = 4000;
const MAX_IDLE_PER_ORIGIN = 64;
// What node:http accepts (its checkIsHttpToken / checkInvalidHeaderChar): a value must not be
// able to end its line or the header block.
const TOKEN = /^[\^_`a-zA-Z\-0-9!#$%&'*+.|~]+$/;
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const NOT_ASCII = /[^\x00-\x7f]/;

/** @typedef {{ status: number, headers: { get(name: string): string | null }, text(): Promise<string> }} NodeResponse */

/** @type {Map<string, Connection[]>} */
const idle = new Map();

/** @param {AbortSignal} signal */
function abortReason(signal) {
  return signal.reason ?? new DOMException("This operation was aborted", "AbortError");
}

/** One socket and the response being read from it. */
class Connection {
  /**
   * @param {string} origin
   * @param {URL} target
   */
  constructor(origin, target) {
    this.origin = origin;
    const secure = target.protocol === "https:";
    const host = target.hostname.startsWith("[") ? target.hostname.slice(1, -1) : target.hostname;
    const port = Number(target.port) || (secure ? 443 : 80);
    /** @type {net.Socket} */
    this.socket = secure
      ? tls.connect({ host, port, servername: net.isIP(host) ? undefined : host, ALPNProtocols: ["http/1.1"] })
      : net.connect({ host, port });
    this.socket.setNoDelay(true);
    /** @type {Buffer[]} what arrived and is not read yet */
    this.parts = [];
    this.size = 0;
    /** the reader wants at least this many bytes before it looks again */
    this.need = 0;
    /** @type {((error: Error | null) => void) | null} the reader of the response in flight */
    this.wake = null;
    this.ended = false;
    /** @type {NodeJS.Timeout | undefined} */
    this.idleTimer = undefined;
    this.socket.on("data", (chunk) => {
      // Bytes on an idle connection belong to no request: it cannot be reused.
      if (this.wake === null) return this.socket.destroy();
      this.parts.push(chunk);
      this.size += chunk.length;
      if (this.size >= this.need) this.wake(null);
    });
    const closed = (/** @type {Error | undefined} */ error) => {
      this.ended = true;
      this.forget();
      this.wake?.(error ?? null);
    };
    this.socket.on("end", () => closed(undefined));
    this.socket.on("close", () => closed(undefined));
    this.socket.on("error", closed);
  }

  /** Everything unread, as one buffer. */
  get buffer() {
    if (this.parts.length !== 1) this.parts = [this.parts.length === 0 ? Buffer.alloc(0) : Buffer.concat(this.parts)];
    return this.parts[0];
  }

  /** @param {number} n drops the first n unread bytes */
  consume(n) {
    const rest = this.buffer.subarray(n);
    this.parts = rest.length === 0 ? [] : [rest];
    this.size = rest.length;
  }

  /** Takes the connection out of the idle pool (it was closed or is about to be). */
  forget() {
    clearTimeout(this.idleTimer);
    const list = idle.get(this.origin);
    const at = list ? list.indexOf(this) : -1;
    if (list && at >= 0) list.splice(at, 1);
  }

  /** @param {number} ms */
  release(ms) {
    const list = idle.get(this.origin) ?? [];
    if (this.ended || list.length >= MAX_IDLE_PER_ORIGIN) return this.socket.destroy();
    list.push(this);
    idle.set(this.origin, list);
    this.idleTimer = setTimeout(() => {
      this.forget();
      this.socket.destroy();
    }, ms);
    this.idleTimer.unref();
  }
}

/** @param {string} origin @param {URL} target */
function connection(origin, target) {
  const list = idle.get(origin);
  while (list && list.length > 0) {
    const c = /** @type {Connection} */ (list.pop());
    clearTimeout(c.idleTimer);
    if (!c.ended && !c.socket.destroyed) return c;
  }
  return new Connection(origin, target);
}

/**
 * Reads one response from `c`: resolves once it is complete, rejects when the connection
 * fails or closes before that.
 * @param {Connection} c
 * @param {boolean} head
 * @returns {Promise<{ status: number, fields: Map<string, string>, body: Buffer, reusable: boolean }>}
 */
function readResponse(c, head) {
  return new Promise((resolve, reject) => {
    /** @type {{ status: number, fields: Map<string, string>, keepAlive: boolean } | null} */
    let start = null;
    /** @type {Buffer[]} */
    const chunks = [];
    let length = -1; // content-length, or -1: chunked (`chunked`) or until close
    let chunked = false;
    const step = (/** @type {Error | null} */ error) => {
      c.need = 0;
      try {
        for (;;) {
          if (start === null) {
            const end = c.buffer.indexOf("\r\n\r\n");
            if (end < 0) break;
            const lines = c.buffer.toString("latin1", 0, end).split("\r\n");
            c.consume(end + 4);
            const m = /^HTTP\/1\.([01]) (\d{3})/.exec(lines[0]);
            if (!m) throw new Error(`not an HTTP/1.x response: ${JSON.stringify(lines[0].slice(0, 40))}`);
            const status = Number(m[2]);
            if (status < 200) continue; // 100 Continue, 103 Early Hints: the answer follows
            /** @type {Map<string, string>} */
            const fields = new Map();
            for (let i = 1; i < lines.length; i += 1) {
              const colon = lines[i].indexOf(":");
              if (colon <= 0) continue;
              const name = lines[i].slice(0, colon).trim().toLowerCase();
              const value = lines[i].slice(colon + 1).trim();
              const seen = fields.get(name);
              fields.set(name, seen === undefined ? value : `${seen}, ${value}`);
            }
            const connectionField = (fields.get("connection") ?? "").toLowerCase();
            const keepAlive = m[1] === "1" ? !connectionField.includes("close") : connectionField.includes("keep-alive");
            start = { status, fields, keepAlive };
            if (head || status === 204 || status === 304) length = 0;
            else if ((fields.get("transfer-encoding") ?? "").toLowerCase().includes("chunked")) chunked = true;
            else if (fields.has("content-length")) length = Number(fields.get("content-length"));
            if (!Number.isSafeInteger(length) || length < -1) throw new Error("invalid content-length in the response");
          }
          if (chunked) {
            const eol = c.buffer.indexOf("\r\n");
            if (eol < 0) break;
            const size = parseInt(c.buffer.toString("latin1", 0, eol).split(";")[0].trim(), 16);
            if (!Number.isSafeInteger(size) || size < 0) throw new Error("invalid chunk size in the response");
            if (size === 0) {
              // Trailer fields (if any) end with an empty line.
              const end = c.buffer.indexOf("\r\n\r\n", eol);
              if (end < 0) break;
              c.consume(end + 4);
              return done(true);
            }
            if (c.size < eol + 2 + size + 2) {
              c.need = eol + 2 + size + 2;
              break;
            }
            chunks.push(c.buffer.subarray(eol + 2, eol + 2 + size));
            c.consume(eol + 2 + size + 2);
            continue;
          }
          if (length >= 0) {
            if (c.size < length) {
              c.need = length;
              break;
            }
            chunks.push(c.buffer.subarray(0, length));
            c.consume(length);
            return done(true);
          }
          // No length: the body ends when the server closes the connection.
          chunks.push(c.buffer);
          c.consume(c.size);
          if (c.ended && !error) return done(false);
          break;
        }
        if (error || c.ended) throw error ?? new Error("the connection closed before the whole response arrived");
      } catch (e) {
        c.wake = null;
        reject(e);
      }
    };
    /** @param {boolean} complete */
    const done = (complete) => {
      c.wake = null;
      const s = /** @type {NonNullable<typeof start>} */ (start);
      resolve({ status: s.status, fields: s.fields, body: chunks.length === 1 ? chunks[0] : Buffer.concat(chunks), reusable: complete && s.keepAlive && c.size === 0 });
    };
    c.wake = step;
    step(null);
  });
}

/** @param {Map<string, string>} fields */
function keepAliveMs(fields) {
  const hint = /timeout=(\d+)/i.exec(fields.get("keep-alive") ?? "");
  // Give the connection back a second before the server's own limit.
  return hint ? Math.min(IDLE_MS, Math.max(0, Number(hint[1]) * 1000 - 1000)) : IDLE_MS;
}

/**
 * `fetch(url, { method, headers, body, signal })` for agentmem's own requests.
 * @param {string} url
 * @param {{ method?: string, headers?: Record<string, string>, body?: string | null, signal?: AbortSignal }} [init]
 * @returns {Promise<NodeResponse>}
 */
export async function nodeHttpFetch(url, init = {}) {
  const target = new URL(url);
  if (target.protocol !== "http:" && target.protocol !== "https:") {
    throw new TypeError(`unsupported protocol ${target.protocol}`);
  }
  const { signal } = init;
  if (signal?.aborted) throw abortReason(signal);
  const method = init.method ?? "GET";
  const body = init.body === undefined || init.body === null ? undefined : String(init.body);
  let head = `${method} ${target.pathname}${target.search} HTTP/1.1\r\nhost: ${target.host}\r\n`;
  for (const [name, value] of Object.entries(init.headers ?? {})) {
    if (!TOKEN.test(name) || INVALID_VALUE.test(String(value))) throw new TypeError(`invalid header ${JSON.stringify(name)}: not a token, or its value holds a character HTTP does not allow`);
    const lower = name.toLowerCase();
    // This transport frames the message itself.
    if (lower === "host" || lower === "content-length" || lower === "connection" || lower === "transfer-encoding") continue;
    head += `${name}: ${value}\r\n`;
  }
  if (body !== undefined || method === "POST" || method === "PUT" || method === "PATCH") {
    head += `content-length: ${body === undefined ? 0 : Buffer.byteLength(body)}\r\n`;
  }
  head += "\r\n";
  const origin = `${target.protocol}//${target.host}`;
  const c = connection(origin, target);
  const onAbort = () => c.socket.destroy(abortReason(/** @type {AbortSignal} */ (signal)));
  signal?.addEventListener("abort", onAbort, { once: true });
  try {
    // One write, as one string when the head is ASCII (UTF-8 then gives the same bytes as
    // Latin-1 for it): no Buffers to allocate and join for every request.
    c.socket.write(body === undefined ? head : NOT_ASCII.test(head) ? Buffer.concat([Buffer.from(head, "latin1"), Buffer.from(body)]) : head + body);
    const answer = await readResponse(c, method === "HEAD");
    if (answer.reusable) c.release(keepAliveMs(answer.fields));
    else c.socket.destroy();
    const text = answer.body.toString("utf8");
    return {
      status: answer.status,
      headers: { get: (name) => answer.fields.get(String(name).toLowerCase()) ?? null },
      text: () => Promise.resolve(text),
    };
  } catch (e) {
    c.socket.destroy();
    throw signal?.aborted ? abortReason(signal) : e;
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
}

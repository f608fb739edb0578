// The Node entry's own HTTP/1.1 transport (node-http.js) against real sockets: servers that
// answer with a length, in chunks, until close, with informational responses first, that
// close idle connections, reset mid-body or never answer; over TLS too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import net from "node:net";
import { fileURLToPath } from "node:url";

const moduleUrl = new URL("./node-http.js", import.meta.resolve("agentmem-supabase"));
const { nodeHttpFetch } = await import(moduleUrl.href);

/**
 * A raw TCP server that hands each request (head and body) to `answer(request, socket,
 * connectionNo)`, which writes whatever bytes it likes. Counts connections.
 */
async function rawServer(answer) {
  const state = { connections: 0, requests: [] };
  const sockets = new Set();
  const server = net.createServer((socket) => {
    const no = ++state.connections;
    sockets.add(socket);
    let buffered = Buffer.alloc(0);
    socket.on("data", (chunk) => {
      buffered = Buffer.concat([buffered, chunk]);
      for (;;) {
        const end = buffered.indexOf("\r\n\r\n");
        if (end < 0) return;
        const head = buffered.toString("latin1", 0, end);
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
        if (buffered.length < end + 4 + length) return;
        const body = buffered.toString("utf8", end + 4, end + 4 + length);
        buffered = buffered.subarray(end + 4 + length);
        const request = { head, body, connection: no };
        state.requests.push(request);
        answer(request, socket, no);
      }
    });
    socket.on("error", () => {});
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;
  const close = () => new Promise((resolve) => {
    server.close(resolve);
    for (const socket of sockets) socket.destroy();
  });
  return { url, state, close };
}

const ok = (body, extra = "") => `HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\n${extra}\r\n${body}`;

test("a response with a length; the connection is kept and reused", async () => {
  const s = await rawServer((req, socket) => socket.write(ok(JSON.stringify({ got: req.body }), "content-range: 0-0/1\r\n")));
  try {
    const r1 = await nodeHttpFetch(`${s.url}/rest/v1/rpc/f?x=1`, { method: "POST", headers: { "x-a": "1" }, body: "{\"é\":1}" });
    assert.equal(r1.status, 200);
    assert.equal(r1.headers.get("Content-Range"), "0-0/1");
    assert.equal(r1.headers.get("x-missing"), null);
    assert.deepEqual(JSON.parse(await r1.text()), { got: "{\"é\":1}" });
    const r2 = await nodeHttpFetch(`${s.url}/b`, { method: "GET", headers: {} });
    assert.equal(r2.status, 200);
    assert.equal(s.state.connections, 1, "the second request reused the connection");
    const [first, second] = s.state.requests;
    assert.match(first.head, /^POST \/rest\/v1\/rpc\/f\?x=1 HTTP\/1\.1\r\n/);
    assert.match(first.head, /\r\nhost: 127\.0\.0\.1:\d+\r\n/);
    assert.match(first.head, /\r\nx-a: 1\r\n/);
    assert.match(first.head, /\r\ncontent-length: 8(\r\n|$)/, "the length counts UTF-8 bytes");
    assert.doesNotMatch(second.head, /content-length/i, "a GET without a body sends no length");
  } finally {
    await s.close();
  }
});

test("a chunked response with chunk extensions and trailers, split across writes", async () => {
  const s = await rawServer((req, socket) => {
    const parts = ["HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\nX-Two: a\r\nX-Two: b\r\n\r\n", "5;ext=1\r\nhel", "lo\r\n", "6\r\n wörl\r\n", "1\r\nd\r\n0\r\nx-trailer: t\r\n\r\n"];
    parts.forEach((p, i) => setTimeout(() => socket.write(p), i * 5));
  });
  try {
    for (let i = 0; i < 2; i += 1) {
      const r = await nodeHttpFetch(`${s.url}/c`, { method: "GET" });
      assert.equal(r.status, 201);
      assert.equal(r.headers.get("x-two"), "a, b");
      assert.equal(await r.text(), "hello wörld");
    }
    assert.equal(s.state.connections, 1, "after a complete chunked body the connection is reused");
  } finally {
    await s.close();
  }
});

test("Connection: close, a body until close, 204 and HEAD without bodies, 100 Continue first", async () => {
  const s = await rawServer((req, socket) => {
    const path = req.head.split(" ")[1];
    if (path === "/close") socket.end(ok("{}", "connection: close\r\n"));
    else if (path === "/eof") socket.end("HTTP/1.0 200 OK\r\ncontent-type: text/plain\r\n\r\nuntil the end");
    else if (path === "/none") socket.write("HTTP/1.1 204 No Content\r\ncontent-range: */0\r\n\r\n");
    else if (path === "/head") socket.write("HTTP/1.1 200 OK\r\ncontent-length: 1234\r\n\r\n");
    else socket.write(`HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n${ok("[1]")}`);
  });
  try {
    assert.equal(await (await nodeHttpFetch(`${s.url}/close`, { method: "POST", body: "" })).text(), "{}");
    assert.equal(await (await nodeHttpFetch(`${s.url}/eof`)).text(), "until the end");
    const none = await nodeHttpFetch(`${s.url}/none`, { method: "DELETE" });
    assert.equal(none.status, 204);
    assert.equal(await none.text(), "");
    const head = await nodeHttpFetch(`${s.url}/head`, { method: "HEAD" });
    assert.equal(head.headers.get("content-length"), "1234");
    assert.equal(await head.text(), "");
    const cont = await nodeHttpFetch(`${s.url}/continue`);
    assert.equal(cont.status, 200);
    assert.equal(await cont.text(), "[1]");
    assert.equal(s.state.connections, 3, "close and until-close need new connections; 204, HEAD and 100 do not");
  } finally {
    await s.close();
  }
});

test("a large body arriving in many pieces is read exactly", async () => {
  const big = "x".repeat(3_000_000) + "é";
  const s = await rawServer((req, socket) => {
    const bytes = Buffer.from(ok(big));
    for (let at = 0; at < bytes.length; at += 65536) socket.write(bytes.subarray(at, at + 65536));
  });
  try {
    const text = await (await nodeHttpFetch(`${s.url}/big`)).text();
    assert.equal(text.length, big.length);
    assert.equal(text, big);
  } finally {
    await s.close();
  }
});

test("an idle connection the server closed or wrote to is not reused; a reset mid-body rejects", async () => {
  const s = await rawServer((req, socket) => {
    const path = req.head.split(" ")[1];
    if (path === "/then-close") {
      socket.write(ok("1"));
      setTimeout(() => socket.destroy(), 10);
    } else if (path === "/then-more") {
      socket.write(ok("1"));
      setTimeout(() => socket.write(ok("stale")), 10);
    } else if (path === "/reset") {
      socket.write("HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\npartial");
      setTimeout(() => socket.resetAndDestroy(), 10);
    } else socket.write(ok("2"));
  });
  try {
    assert.equal(await (await nodeHttpFetch(`${s.url}/then-close`)).text(), "1");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await (await nodeHttpFetch(`${s.url}/next`)).text(), "2");
    assert.equal(s.state.connections, 2);
    assert.equal(await (await nodeHttpFetch(`${s.url}/then-more`)).text(), "1");
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(await (await nodeHttpFetch(`${s.url}/next`)).text(), "2", "bytes that arrived on an idle connection are not taken for the next answer");
    assert.equal(s.state.connections, 3);
    await assert.rejects(nodeHttpFetch(`${s.url}/reset`), (e) => e instanceof Error);
    assert.equal(await (await nodeHttpFetch(`${s.url}/after`)).text(), "2", "later requests work");
  } finally {
    await s.close();
  }
});

test("an aborted request rejects with the signal's reason and its connection is dropped", async () => {
  const s = await rawServer((req, socket) => {
    if (req.head.startsWith("GET /slow")) return; // never answers
    socket.write(ok("fast"));
  });
  try {
    const controller = new AbortController();
    const pending = nodeHttpFetch(`${s.url}/slow`, { signal: controller.signal });
    setTimeout(() => controller.abort(new Error("deadline")), 20);
    await assert.rejects(pending, { message: "deadline" });
    const already = new AbortController();
    already.abort();
    await assert.rejects(nodeHttpFetch(`${s.url}/fast`, { signal: already.signal }), { name: "AbortError" });
    assert.equal(await (await nodeHttpFetch(`${s.url}/fast`)).text(), "fast");
    assert.equal(s.state.connections, 2, "the aborted connection was not reused");
  } finally {
    await s.close();
  }
});

test("header names and values that could split the request are refused before sending", async () => {
  const s = await rawServer((req, socket) => socket.write(ok("{}")));
  try {
    await assert.rejects(nodeHttpFetch(`${s.url}/`, { headers: { authorization: "Bearer x\r\nx-injected: 1" } }), TypeError);
    await assert.rejects(nodeHttpFetch(`${s.url}/`, { headers: { "bad name": "1" } }), TypeError);
    await assert.rejects(nodeHttpFetch(`${s.url}/`, { headers: { "x-a": "é€" } }), TypeError);
    await assert.rejects(nodeHttpFetch("ftp://127.0.0.1/"), TypeError);
    assert.equal(s.state.requests.length, 0);
  } finally {
    await s.close();
  }
});

test("a refused connection rejects", async () => {
  const probe = net.createServer();
  await new Promise((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const port = probe.address().port;
  await new Promise((resolve) => probe.close(resolve));
  await assert.rejects(nodeHttpFetch(`http://127.0.0.1:${port}/`), { code: "ECONNREFUSED" });
});

test("https: verified TLS with SNI (a self-signed localhost certificate trusted through NODE_EXTRA_CA_CERTS)", async () => {
  const fixtures = fileURLToPath(new URL("../fixtures/", import.meta.url));
  const script = `
    import https from "node:https";
    import { readFileSync } from "node:fs";
    const { nodeHttpFetch } = await import(${JSON.stringify(moduleUrl.href)});
    const server = https.createServer({ key: readFileSync("${fixtures}tls-localhost.key"), cert: readFileSync("${fixtures}tls-localhost.crt") },
      (req, res) => { res.setHeader("x-sni", req.socket.servername || ""); res.end("secure " + req.method); });
    await new Promise((r) => server.listen(0, "127.0.0.1", r));
    const r = await nodeHttpFetch("https://localhost:" + server.address().port + "/x", { method: "PATCH", body: "{}" });
    console.log(r.status, r.headers.get("x-sni"), await r.text());
    server.close();
    server.closeAllConnections();`;
  const run = (extra) => spawnSync(process.execPath, ["--input-type=module", "-e", script], { encoding: "utf8", env: { ...process.env, ...extra } });
  const trusted = run({ NODE_EXTRA_CA_CERTS: `${fixtures}tls-localhost.crt` });
  assert.equal(trusted.stdout.trim(), "200 localhost secure PATCH", trusted.stderr);
  const untrusted = run({ NODE_EXTRA_CA_CERTS: "" });
  assert.notEqual(untrusted.status, 0, "an unknown certificate is refused");
  assert.match(untrusted.stderr, /self-signed|SELF_SIGNED|unable to verify/i);
});

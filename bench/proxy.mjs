// A TCP proxy that delays every chunk by `delayMs` in each direction, so one request/
// response exchange costs about 2 × delayMs more: a network round trip that loopback
// hides. Put in front of Postgres AND the gateway, it charges every peer the same price
// per round trip, whatever protocol it speaks. Chunks keep their order (one timer queue
// per direction).
import { createServer, connect } from "node:net";

/** Calls `fn` once `performance.now()` reaches `due`, not before. Node's timers count
 *  whole milliseconds from a clock read at the start of the loop's turn, so a
 *  `setTimeout(fn, 2)` may run after 1.1 ms (measured through this proxy: a "2 ms" round
 *  trip took 2.6 ms, not 4): a timer covers all but the last 1.5 ms, and the loop's
 *  following turns (setImmediate, which lets I/O through) the rest. */
function at(due, fn) {
  const wait = due - performance.now();
  if (wait <= 0) fn();
  else if (wait > 1.5) setTimeout(() => at(due, fn), wait - 1.5);
  else setImmediate(() => at(due, fn));
}

export function delayProxy(targetPort, delayMs) {
  // 0 ms is the direct connection: a pass-through proxy would add a loopback hop and, in
  // this process, CPU that neither client spends in production.
  if (delayMs === 0) return Promise.resolve({ port: targetPort, close: () => {} });
  const server = createServer((client) => {
    client.setNoDelay(true);
    const upstream = connect({ host: "127.0.0.1", port: targetPort });
    upstream.setNoDelay(true);
    const pipe = (from, to) => {
      let chain = Promise.resolve();
      from.on("data", (chunk) => {
        const due = performance.now() + delayMs;
        chain = chain.then(() => new Promise((resolve) => {
          at(due, () => {
            if (!to.destroyed) to.write(chunk);
            resolve();
          });
        }));
      });
      from.on("end", () => chain.then(() => to.end()));
      from.on("error", () => to.destroy());
    };
    pipe(client, upstream);
    pipe(upstream, client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  return new Promise((resolve) => server.listen(0, "127.0.0.1", () => resolve({ port: server.address().port, close: () => server.close() })));
}

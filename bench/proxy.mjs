// A TCP proxy that delays every chunk by `delayMs` in each direction, so one request/
// response exchange costs about 2 × delayMs more: a network round trip that loopback
// hides. Put in front of Postgres AND the gateway, it charges every peer the same price
// per round trip, whatever protocol it speaks. Chunks keep their order (one timer queue
// per direction).
import { createServer, connect } from "node:net";

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
          setTimeout(() => {
            if (!to.destroyed) to.write(chunk);
            resolve();
          }, Math.max(0, due - performance.now()));
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

// Serves the COIA landing edge function with the scripted model against the local stack,
// for the Chromium test (tests/visitors/landing.test.mjs) and for trying the page by hand.
// Prints the function's URL on its first line of output.
//   deno run --config supabase/functions/coia-landing/deno.json \
//     --allow-read --allow-env --allow-net --allow-sys deno/edge/coia_landing_serve.ts [port]
import { createHandler } from "../../supabase/functions/coia-landing/index.ts";
import { env } from "../support.ts";
import { landingModel } from "./landing_model.ts";

const handler = createHandler({ model: landingModel, url: env.SUPABASE_URL, anonKey: env.SUPABASE_ANON_KEY });
Deno.serve({
  port: Number(Deno.args[0] ?? 0),
  hostname: "127.0.0.1",
  onListen: ({ port }) => console.log(`http://127.0.0.1:${port}/functions/v1/coia-landing`),
}, handler);

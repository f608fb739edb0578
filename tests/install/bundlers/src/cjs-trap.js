// deno.mjs's first check, as a .js file of this "type": "commonjs" project and without a
// top-level await of its own: esbuild then wraps it as CommonJS, and the package's
// top-level await lands inside that wrapper, where no runtime accepts it (README, Bundlers).
import { uuid5 } from "__PACKAGE__";

if (uuid5("python.org", "dns") !== "886313e1-3b8a-5372-9b90-0c9aee199e5d") throw new Error("uuid5");
console.log("bundle ok");

// Fails when src/schema.ts is not what openapi-typescript makes of the spec
// (`npm run check-generated [-- <path or URL>]`; default the repository's
// openapi/openapi.json): run `npm run generate` and commit.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

import { spec } from "./spec.mjs";

const cli = fileURLToPath(new URL("../node_modules/openapi-typescript/bin/cli.js", import.meta.url));
const committed = fileURLToPath(new URL("../src/schema.ts", import.meta.url));
const fresh = join(mkdtempSync(join(tmpdir(), "tabula-schema-")), "schema.ts");
execFileSync(process.execPath, [cli, spec, "--output", fresh], { stdio: ["ignore", "ignore", "inherit"] });
if (readFileSync(fresh, "utf8") !== readFileSync(committed, "utf8")) {
  console.error("src/schema.ts is out of date: run `npm run generate` in clients/typescript and commit it");
  process.exit(1);
}
console.log(`src/schema.ts matches ${spec}`);

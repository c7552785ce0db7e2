// Fails when src/schema.d.ts is not what openapi-typescript makes of the
// committed openapi/openapi.json (run `npm run generate` and commit).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const fresh = join(mkdtempSync(join(tmpdir(), "tabula-schema-")), "schema.d.ts");
execFileSync(
  process.execPath,
  ["node_modules/openapi-typescript/bin/cli.js", "../../openapi/openapi.json", "--output", fresh],
  { stdio: ["ignore", "ignore", "inherit"] },
);
if (readFileSync(fresh, "utf8") !== readFileSync("src/schema.d.ts", "utf8")) {
  console.error("src/schema.d.ts is out of date: run `npm run generate` in clients/typescript and commit it");
  process.exit(1);
}
console.log("src/schema.d.ts matches openapi/openapi.json");

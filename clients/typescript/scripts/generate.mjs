// Writes src/schema.ts from the spec: `npm run generate [-- <path or URL>]`.
import { execFileSync } from "node:child_process";
import { fileURLToPath } from "node:url";

import { spec } from "./spec.mjs";

const cli = fileURLToPath(new URL("../node_modules/openapi-typescript/bin/cli.js", import.meta.url));
const out = fileURLToPath(new URL("../src/schema.ts", import.meta.url));
execFileSync(process.execPath, [cli, spec, "--output", out], { stdio: "inherit" });

// Bundles the page into dist/ (play.js, play.css, index.html), which the
// binary embeds; `--check` builds into a temporary directory and fails when
// the committed dist/ differs (run `npm run build` and commit it).
// esbuild is pinned in package-lock.json: the same sources give the same bytes.
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const check = process.argv.includes("--check");
const out = check ? mkdtempSync(join(tmpdir(), "tabula-play-")) : join(root, process.argv[2] ?? "dist");
mkdirSync(out, { recursive: true });

const common = { bundle: true, minify: true, legalComments: "none", charset: "utf8", logLevel: "warning" };
await esbuild.build({
  ...common,
  entryPoints: [join(root, "src/play.ts")],
  outfile: join(out, "play.js"),
  format: "iife",
  target: ["es2020", "chrome100", "firefox100", "safari15"],
});
await esbuild.build({
  ...common,
  entryPoints: [join(root, "src/play.css")],
  outfile: join(out, "play.css"),
  target: ["chrome100", "firefox100", "safari15"],
});
writeFileSync(join(out, "index.html"), readFileSync(join(root, "index.html")));

const files = ["index.html", "play.js", "play.css"];
if (check) {
  const stale = files.filter((f) => {
    const committed = join(root, "dist", f);
    return !existsSync(committed) || !readFileSync(committed).equals(readFileSync(join(out, f)));
  });
  if (stale.length) {
    console.error(`web/dist is out of date (${stale.join(", ")}): run \`npm run build\` in web/ and commit it`);
    process.exit(1);
  }
  console.log("web/dist matches the sources");
} else {
  for (const f of files) console.log(`${f}: ${readFileSync(join(out, f)).length} bytes`);
}

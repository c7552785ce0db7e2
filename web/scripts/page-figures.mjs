// The page's figures for docs/benchmarks.md: its weight (gzip -9 of what a
// browser loads: index.html, play.js, play.css) and the lobby's first
// contentful paint against the release build (median of 7 loads in a fresh
// context each, Chromium, desktop viewport).
//   node scripts/page-figures.mjs     (TABULA_BIN as the browser tests take it)
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";

import { launch, openPage, startService } from "../tests/helpers.mjs";

const dist = join(dirname(fileURLToPath(import.meta.url)), "../dist");
let total = 0;
for (const file of ["index.html", "play.js", "play.css"]) {
  const size = gzipSync(readFileSync(join(dist, file)), { level: 9 }).length;
  total += size;
  console.log(`${file}: ${(size / 1024).toFixed(1)} KB gzip`);
}
console.log(`the page in all: ${(total / 1024).toFixed(1)} KB gzip`);

const service = await startService();
const browser = await launch();
try {
  const paints = [];
  for (let i = 0; i < 7; i++) {
    const page = await openPage(browser, service.base);
    await page.goto("/play");
    await page.getByRole("button", { name: "Create game" }).waitFor();
    paints.push(await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN));
    await page.context().close();
  }
  paints.sort((a, b) => a - b);
  console.log(`lobby first contentful paint: median ${paints[3].toFixed(0)} ms (of ${paints.map((p) => p.toFixed(0)).join(", ")})`);
} finally {
  await browser.close();
  await service.stop();
}

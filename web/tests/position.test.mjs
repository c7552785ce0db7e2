// A position without a game (/play/position, issue 69): a line pasted or
// clicked out, the position the rules make of it, its analysis, a bad
// line told by its move; nothing is stored. Screenshots on desktop and
// phone, light and dark.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { DESKTOP, PHONE, launch, openPage, screenshotDir, startService, statusIs } from "./helpers.mjs";

let service;
let browser;

before(async () => {
  service = await startService();
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

test("a shared address shows its position, a click extends the line, and the analysis lists every move", async () => {
  const page = await openPage(browser, service.base, { viewport: DESKTOP });
  await page.goto("/play/position?kind=connect_four&moves=4453");
  await statusIs(page, "X to move");
  await page.getByText("Connect Four, move 4: X to move.").waitFor();
  await page.getByRole("button", { name: "Column 1", exact: true }).click();
  await statusIs(page, "O to move");
  assert.match(page.url(), /moves=44531/);
  await page.getByRole("button", { name: "Analyze" }).click();
  const evaluations = page.getByRole("list", { name: "Move evaluations" }).getByRole("listitem");
  await evaluations.first().waitFor();
  assert.equal(await evaluations.count(), 7);
  await page.getByText(/^Best: column \d( \(every result proven\))?\.$/).waitFor();
  await page.screenshot({ path: join(screenshotDir, "position-desktop.png"), fullPage: true });
  // Nothing was made: no game is listed.
  const listed = await (await fetch(`${service.base}/v1/games`)).json();
  assert.deepEqual(listed.items, []);
  await page.context().close();
});

test("a pasted line is read on the kind's board, and a bad one is told by its move", async () => {
  const page = await openPage(browser, service.base, { viewport: PHONE, colorScheme: "dark" });
  await page.goto("/play/position");
  await page.getByLabel("Kind", { exact: true }).selectOption("gomoku");
  await page.getByLabel("Size", { exact: true }).fill("9");
  await page.getByLabel("Moves", { exact: true }).fill("e5 f6 e6 f5 e7 f7 e8");
  await page.getByRole("button", { name: "Show" }).click();
  await statusIs(page, "O to move");
  await page.getByText(/X wins at e9; X wins at e4/).waitFor();
  assert.match(page.url(), /kind=gomoku/);
  assert.match(page.url(), /size=9/);
  await page.getByRole("button", { name: "e9", exact: true }).waitFor();
  await page.screenshot({ path: join(screenshotDir, "position-phone-dark.png"), fullPage: true });
  await page.getByLabel("Kind", { exact: true }).selectOption("connect_four");
  await page.getByLabel("Moves", { exact: true }).fill("4444444");
  await page.getByRole("button", { name: "Show" }).click();
  await page.getByText(/move 7 \(4\) is illegal: the column is full/i).waitFor();
  await page.context().close();
});

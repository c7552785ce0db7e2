// The page's third round (issue 76): a claim when the other side is gone,
// the help the other side asked for, the game in two columns on a wide
// screen, the board's keyboard (its first focus, Home and End), the sound
// toggle, and a position page whose bad line clears the board and whose
// clicks Back undoes. Screenshots on desktop and phone, light and dark.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { PHONE, launch, openPage, screenshotDir, startService, statusIs, until } from "./helpers.mjs";

let service;
let browser;

before(async () => {
  // A claim opens two seconds after the side to move stopped moving.
  service = await startService({ TABULA_CLAIM_AFTER: "2" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

/** Ann (X) and Bob (O) in a game of `kind` between two people. */
async function pair(kind = "connect_four", { viewport, colorScheme } = {}) {
  const x = await openPage(browser, service.base, { viewport: { width: 1280, height: 800 }, colorScheme });
  await x.goto(`/play/new?kind=${kind}&opponent=human&name=Ann`);
  await x.getByRole("grid").waitFor();
  const o = await openPage(browser, service.base, { ...(viewport ? { viewport } : {}), colorScheme });
  await o.goto(x.url().split("#")[0]);
  await o.getByLabel("Your name").fill("Bob");
  await o.getByRole("button", { name: "Join" }).click();
  await statusIs(x, "X to move (you)");
  return { x, o };
}

test("the one who stayed sees when a claim opens, then claims the game", async () => {
  const { x, o } = await pair("connect_four", { viewport: PHONE, colorScheme: "dark" });
  await x.getByRole("button", { name: "Column 4", exact: true }).click();
  await statusIs(o, "O to move (you)");
  await o.getByRole("button", { name: "Column 4", exact: true }).click();
  await statusIs(x, "X to move (you)");
  // Ann (to move) goes quiet: Bob is told how long until he may claim.
  await until(o, () => /you may claim the game in 0:0\d/.test(document.querySelector(".claim")?.textContent ?? ""));
  assert.equal(await o.getByRole("button", { name: "Claim victory" }).count(), 0);
  await o.getByRole("button", { name: "Claim victory" }).waitFor({ timeout: 5000 });
  await o.getByRole("button", { name: "Claim a draw" }).waitFor();
  // Never to the side to move.
  assert.equal(await x.getByRole("button", { name: /^Claim/ }).count(), 0);
  await o.screenshot({ path: join(screenshotDir, "claim-phone-dark.png"), fullPage: true });
  await o.getByRole("button", { name: "Claim victory" }).click();
  await statusIs(o, /^You won: O wins \(X left; claimed\)/);
  await statusIs(x, /^You lost/);
  for (const p of [x, o]) await p.context().close();
});

test("help the other side asked for is shown; a game without help refuses it", async () => {
  const { x, o } = await pair("tic_tac_toe");
  // Ann turns the hints on and asks for one.
  await x.getByLabel("Hints and threats").check();
  await x.getByRole("button", { name: "Hint" }).click();
  await until(o, () => /Ann used the bots' help 1 time this round/.test(document.querySelector(".info").textContent));
  // Not told to Ann of herself.
  assert.doesNotMatch(await x.locator(".info").textContent(), /used the bots' help/);
  await o.screenshot({ path: join(screenshotDir, "assistance-seen-desktop.png") });
  for (const p of [x, o]) await p.context().close();
});

test("from 1,024 px the game is two columns with every action in view, and Rematch stays while looking back", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const { x, o } = await pair("gomoku", { colorScheme });
    for (const [page, cell] of [
      [x, "h8"],
      [o, "h9"],
      [x, "g8"],
    ]) {
      await page.getByRole("button", { name: cell, exact: true }).click();
      await until(page, (c) => document.querySelector(`[aria-label^="${c}"] .stone`) !== null, cell);
    }
    await until(x, () => document.querySelector('[aria-label="Moves"]').textContent === "1. h8 h92. g8");
    assert.deepEqual(await x.getByRole("list", { name: "Moves" }).getByRole("listitem").allTextContents(), ["1. h8 h9", "2. g8"]);
    // Board beside the panel: the panel's top is level with the board's, to its right.
    const [board, panel] = await x.evaluate(() =>
      [".board-box", ".panel"].map((s) => {
        const r = document.querySelector(s).getBoundingClientRect();
        return { left: r.left, right: r.right, top: r.top };
      }),
    );
    assert.ok(panel.left >= board.right, `the panel (x ${panel.left}) is beside the board (right ${board.right})`);
    // Every action button is in view at 1280x800, without scrolling.
    const out = await x.evaluate(() =>
      [...document.querySelectorAll(".controls button, .offer-box button, .stepper button")]
        .filter((b) => b.getBoundingClientRect().bottom > innerHeight)
        .map((b) => b.textContent),
    );
    assert.deepEqual(out, [], "buttons below the fold");
    await x.screenshot({ path: join(screenshotDir, `two-columns-${colorScheme}.png`) });
    // Resigned, then looked back at: Rematch is still there.
    await o.getByRole("button", { name: "Resign" }).click();
    await o.getByRole("dialog").getByRole("button", { name: "Resign" }).click();
    await statusIs(x, /^You won/);
    await x.getByRole("button", { name: "Previous move" }).click();
    await statusIs(x, /after move 2 of 3/);
    await x.getByRole("button", { name: "Rematch" }).waitFor();
    for (const p of [x, o]) await p.context().close();
  }
});

test("the board's focus starts on the last move, Home and End reach a row's ends, and the ring stands out", async () => {
  const page = await openPage(browser, service.base, { viewport: PHONE });
  await page.goto("/play/new?kind=gomoku&opponent=hotseat");
  await page.getByRole("grid").waitFor();
  // The empty board: the centre first (not a corner 14 presses away).
  await page.locator('.board [tabindex="0"]').focus();
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), "h8");
  await page.keyboard.press("Enter");
  await until(page, () => document.querySelectorAll(".board .stone").length === 1);
  await page.keyboard.press("End");
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), "o8");
  await page.keyboard.press("Home");
  assert.equal(await page.evaluate(() => document.activeElement.getAttribute("aria-label")), "a8");
  // The focus ring against the board behind it: 3:1 and more.
  const ratio = await page.evaluate(() => {
    const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
    const lum = ([r, g, b]) =>
      [r, g, b].map((v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
    const ring = lum(rgb(getComputedStyle(document.activeElement).outlineColor));
    const board = lum(rgb(getComputedStyle(document.querySelector(".gomoku")).backgroundColor));
    return (Math.max(ring, board) + 0.05) / (Math.min(ring, board) + 0.05);
  });
  assert.ok(ratio >= 3, `focus ring ${ratio.toFixed(2)}:1`);
  // A new page of the game: the focus comes back to the last move.
  await page.reload();
  await page.getByRole("grid").waitFor();
  await until(page, () => document.querySelector('.board [tabindex="0"]')?.getAttribute("aria-label") === "h8, X");
  await page.screenshot({ path: join(screenshotDir, "keyboard-phone.png") });
  await page.context().close();
});

test("ultimate's won boards are marked at 3:1, light and dark", async () => {
  for (const colorScheme of ["light", "dark"]) {
    const page = await openPage(browser, service.base, { colorScheme });
    // O takes board 1's bottom row (board then cell, in the kind's notation).
    await page.goto("/play/new?kind=ultimate_tic_tac_toe&opponent=hotseat&moves=51 19 91 18 81 17");
    await page.getByRole("grid").waitFor();
    const won = page.getByRole("group", { name: "Board 1, won by O" });
    await won.waitFor();
    const ratio = await page.evaluate(() => {
      const rgb = (c) => c.match(/[\d.]+/g).slice(0, 3).map(Number);
      const lum = ([r, g, b]) =>
        [r, g, b].map((v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
      const frame = lum(rgb(getComputedStyle(document.querySelector(".inner.won-O")).borderTopColor));
      const card = lum(rgb(getComputedStyle(document.querySelector(".card")).backgroundColor));
      return (Math.max(frame, card) + 0.05) / (Math.min(frame, card) + 0.05);
    });
    assert.ok(ratio >= 3, `won board's frame ${ratio.toFixed(2)}:1 (${colorScheme})`);
    await page.screenshot({ path: join(screenshotDir, `ultimate-won-board-${colorScheme}.png`) });
    await page.context().close();
  }
});

test("the sound toggle is remembered, and the other side's move chimes", async () => {
  const { x, o } = await pair("connect_four");
  const sound = o.getByLabel("Sound");
  assert.equal(await sound.isChecked(), true, "on by default");
  await x.getByRole("button", { name: "Column 4", exact: true }).click();
  await until(o, () => /^move /.test(document.body.dataset.chimed ?? ""));
  await sound.uncheck();
  await o.reload();
  await o.getByRole("grid").waitFor();
  assert.equal(await o.getByLabel("Sound").isChecked(), false, "remembered");
  for (const p of [x, o]) await p.context().close();
});

test("a position page: a bad line clears the board and says why with its move; Back undoes a click", async () => {
  const page = await openPage(browser, service.base);
  await page.goto("/play/position?kind=connect_four&moves=44");
  await statusIs(page, "X to move");
  await page.getByRole("button", { name: "Column 5", exact: true }).click();
  await statusIs(page, "O to move");
  assert.match(page.url(), /moves=445/);
  await page.goBack();
  await statusIs(page, "X to move");
  assert.match(page.url(), /moves=44(&|$)/);
  await page.getByLabel("Moves", { exact: true }).fill("4444444");
  await page.getByRole("button", { name: "Show" }).click();
  await page.getByText(/^Move 7 \(4\) is illegal: the column is full\.$/).waitFor();
  assert.equal(await page.getByRole("grid").count(), 0, "the old board is gone");
  assert.equal(await page.getByRole("status").textContent(), "");
  await page.screenshot({ path: join(screenshotDir, "position-bad-line.png"), fullPage: true });
  await page.context().close();
});

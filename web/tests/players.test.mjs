// The page for players (issue 27): "Play as …" makes a player whose key
// stays in this browser, a Rated game from the form, ratings beside the
// names and in the result, the player's page with ratings and games, the
// leaderboard. Two browser contexts are two people; screenshots on desktop
// and phone.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { DESKTOP, PHONE, keepKey, launch, openPage, playAs, screenshotDir, startService, statusIs, statusText, until } from "./helpers.mjs";

let service;
let browser;

before(async () => {
  // Players are made here faster than --player-rate's hour allows.
  service = await startService({ TABULA_PLAYER_RATE: "0" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

/** Plays Connect Four column `col` as the page's seat, once it is its turn. */
async function drop(page, col) {
  const cell = page.locator(`[data-move="c${col}"]`).first();
  await until(page, (c) => document.querySelector(`.board .legal[data-move="c${c}"]`) !== null, col, 10000);
  await cell.click();
}

test("two players play a rated game from the page: ratings move and show, the player's page and the leaderboard", async () => {
  const ann = await openPage(browser, service.base);
  const bob = await openPage(browser, service.base, { viewport: PHONE, hasTouch: true, isMobile: true });
  const annPlayer = await playAs(ann, "Ann");
  assert.ok(annPlayer.key.startsWith("tpk_"), "the key is kept in this browser");

  await ann.goto("/play");
  await ann.getByLabel("Game", { exact: true }).selectOption("connect_four");
  await ann.getByLabel("Opponent", { exact: true }).selectOption("anyone");
  await ann.getByLabel("Rated", { exact: true }).check();
  await ann.getByRole("button", { name: "Create game" }).click();
  await ann.waitForURL(/\/play\/games\/[0-9a-f-]+/);
  const url = ann.url();
  await ann.getByRole("grid").waitFor();

  // Bob sees it listed as rated, and joins from the lobby: he does not
  // press "Play as", the rated game makes his player on demand.
  await bob.goto("/play");
  await bob.getByLabel("Your name").first().fill("Bob");
  const row = bob.getByRole("list", { name: "Open games" }).getByRole("listitem").filter({ hasText: "(rated)" });
  await row.waitFor();
  await row.getByRole("button", { name: "Join" }).click();
  await bob.waitForURL(url);
  const bobPlayer = JSON.parse(await bob.evaluate(() => localStorage.getItem("tabula.player")));
  assert.equal(bobPlayer.name, "Bob");
  // The key made on demand is shown as it is made, over the game.
  await keepKey(bob, bobPlayer.key);

  // No hints in a rated round in progress.
  for (const page of [ann, bob]) assert.equal(await page.getByLabel("Hints and threats").count(), 0);
  // X (Ann) wins down column 0; the players' names link to their pages.
  for (let i = 0; i < 3; i++) {
    await drop(ann, 0);
    await drop(bob, 1);
  }
  await drop(ann, 0);
  await statusIs(ann, /You won/);
  assert.match(await statusText(ann), /your rating 1500 → 1662/);
  await statusIs(bob, /You lost/);
  assert.match(await statusText(bob), /your rating 1500 → 1338/);
  await until(ann, () => /\(1662\)/.test(document.querySelector(".seats")?.textContent ?? ""));
  await ann.screenshot({ path: join(screenshotDir, "players-rated-result-desktop.png"), fullPage: true });
  await bob.screenshot({ path: join(screenshotDir, "players-rated-result-phone.png"), fullPage: true });

  // Ann's page: her rating in Connect Four and the game.
  await ann.getByRole("link", { name: "Ann" }).first().click();
  await ann.waitForURL(/\/play\/players\//);
  const ratings = ann.getByRole("list", { name: "Ratings" });
  await ratings.getByRole("listitem").filter({ hasText: "Connect Four" }).waitFor();
  assert.match(await ratings.textContent(), /1662 ± 290 · 1 rated game · provisional/);
  const games = ann.getByRole("list", { name: "Games" });
  await games.getByRole("link", { name: /Connect Four \(rated\) against Bob · Ann won/ }).waitFor();
  await ann.screenshot({ path: join(screenshotDir, "players-page-desktop.png"), fullPage: true });
  await bob.goto(`/play/players/${encodeURIComponent(annPlayer.id)}`);
  await bob.getByRole("list", { name: "Ratings" }).getByRole("listitem").first().waitFor();
  await bob.screenshot({ path: join(screenshotDir, "players-page-phone.png"), fullPage: true });
  await bob.goto("/play/players/nobody");
  await bob.getByRole("link", { name: "Lobby" }).waitFor();

  // The leaderboard lists the two, provisional: their ratings marked `?`.
  await ann.goto("/play");
  const board = ann.getByRole("list", { name: "Leaderboard" });
  await board.getByRole("link", { name: "Bob" }).waitFor();
  const rows = await board.getByRole("listitem").allTextContents();
  assert.match(rows[0], /^Ann 1662\? · 1 rated game · provisional$/);
  assert.match(rows[1], /^Bob 1338\? · 1 rated game · provisional$/);
  assert.match(rows[2], /provisional: it settles/);
  await ann.getByLabel("Leaderboard kind").selectOption("tic_tac_toe");
  await board.getByText("No rated games yet").waitFor();
  await ann.setViewportSize(DESKTOP);
  await ann.screenshot({ path: join(screenshotDir, "players-lobby-desktop.png"), fullPage: true });
  await ann.context().close();
  await bob.context().close();
});

test("the leaderboard shows players once their ratings settle, best first", async () => {
  // Ratings settle after a couple of dozen games: played through the API,
  // then read on the page.
  const api = async (path, body, key) => {
    const res = await fetch(`${service.base}${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
      body: JSON.stringify(body),
    });
    assert.ok(res.ok, `${path}: ${res.status}`);
    return res.json();
  };
  const cy = await api("/v1/players", { name: "Cy" });
  const di = await api("/v1/players", { name: "Di" });
  // Two players' rated rounds together move ratings 3 times a day, so Cy and
  // Di each meet seven others three times: Cy loses the first (resigning)
  // and wins the next two, Di loses two and wins the third (the other
  // resigns); 21 games settle their deviations under 110, while the seven
  // others (6 games each) stay provisional.
  const win = async (x, o) => {
    const grant = await api("/v1/games", { kind: "tic_tac_toe", rated: true, clock: { per_move_ms: 86_400_000 } }, x.key);
    const id = grant.game.id;
    await api(`/v1/games/${id}/join`, {}, o.key);
    const moves = [
      [x, 0, 0],
      [o, 1, 0],
      [x, 0, 1],
      [o, 1, 1],
      [x, 0, 2],
    ];
    for (const [p, row, col] of moves) await api(`/v1/games/${id}/moves`, { row, col }, p.key);
  };
  const resign = async (x, o) => {
    const grant = await api("/v1/games", { kind: "tic_tac_toe", rated: true, clock: { per_move_ms: 86_400_000 } }, x.key);
    const id = grant.game.id;
    await api(`/v1/games/${id}/join`, {}, o.key);
    // Each side moves first: a round resigned before that is aborted.
    await api(`/v1/games/${id}/moves`, { row: 1, col: 1 }, x.key);
    await api(`/v1/games/${id}/moves`, { row: 0, col: 0 }, o.key);
    await api(`/v1/games/${id}/resign`, {}, x.key);
  };
  for (let j = 0; j < 7; j++) {
    const other = await api("/v1/players", { name: `Opponent ${j + 1}` });
    await resign(cy, other);
    await win(cy, other);
    await win(cy, other);
    await win(other, di);
    await win(other, di);
    await resign(other, di);
  }
  // Cy's browser: Cy has played only tic-tac-toe, so the lobby's leaderboard
  // starts there.
  const page = await openPage(browser, service.base, { viewport: PHONE });
  await page.goto("/play");
  await page.evaluate(
    ([id, key]) => localStorage.setItem("tabula.player", JSON.stringify({ id, key, name: "Cy" })),
    [cy.player.id, cy.key],
  );
  await page.reload();
  const board = page.getByRole("list", { name: "Leaderboard" });
  await board.getByRole("link", { name: "Cy" }).waitFor();
  assert.equal(await page.getByLabel("Leaderboard kind").inputValue(), "tic_tac_toe");
  // The name to play under is the player's, though this page never saved one.
  assert.equal(await page.getByLabel("Your name").first().inputValue(), "Cy");
  const rows = await board.getByRole("listitem").allTextContents();
  // The ranked first; then the provisional ones, marked.
  assert.equal(rows.length, 9, rows.join("|"));
  assert.match(rows[0], /^Cy 1\d{3} · 21 rated games$/);
  assert.match(rows[1], /^Di 1\d{3} · 21 rated games$/);
  for (const row of rows.slice(2)) assert.match(row, /^Opponent \d 1\d{3}\? · 6 rated games · provisional$/);
  await board.scrollIntoViewIfNeeded();
  await page.screenshot({ path: join(screenshotDir, "players-leaderboard-phone.png"), fullPage: true });
  // A kind chosen is the one shown next time.
  await page.getByLabel("Leaderboard kind").selectOption("gomoku");
  await board.getByText("No rated games yet").waitFor();
  await page.reload();
  await board.getByText("No rated games yet").waitFor();
  assert.equal(await page.getByLabel("Leaderboard kind").inputValue(), "gomoku");
  await page.context().close();
});

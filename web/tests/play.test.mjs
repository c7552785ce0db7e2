// The page at /play in a real Chromium, against the release build.
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { DESKTOP, PHONE, launch, openPage, readyOrOver, screenshotDir, startService, statusIs, statusText, stones, until } from "./helpers.mjs";

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

function newPage(viewport = DESKTOP, colorScheme = "light") {
  return openPage(browser, service.base, { viewport, colorScheme });
}

/** Opens /play/new with `query` and waits for the game's address. */
async function create(page, query) {
  await page.goto(`/play/new?${new URLSearchParams(query)}`);
  await page.waitForURL(/\/play\/games\/[0-9a-f-]+$/);
  await page.getByRole("grid").waitFor();
  return page.url();
}

test("/ leads to the lobby, which lists open games and creates one from its form", async () => {
  const page = await newPage();
  await page.goto("/");
  assert.match(page.url(), /\/play$/);
  await page.getByRole("heading", { name: "New game" }).waitFor();
  await page.getByLabel("Game", { exact: true }).selectOption("gomoku");
  await page.getByLabel("Size").fill("9");
  await page.getByLabel("Opponent").selectOption("anyone");
  await page.getByRole("button", { name: "Create game" }).click();
  await page.waitForURL(/\/play\/games\/[0-9a-f-]+$/);
  const grid = page.getByRole("grid", { name: "Gomoku board" });
  await grid.waitFor();
  assert.equal(await grid.getByRole("button").count(), 81);
  assert.match(await statusText(page), /Waiting for O to join; X to move/);
  const id = page.url().split("/").pop();

  const other = await newPage();
  await other.goto("/play");
  await other.getByLabel("Show").selectOption("gomoku");
  const row = other.getByRole("listitem").filter({ has: other.getByRole("link", { name: "Watch" }) }).first();
  await row.waitFor();
  await row.getByRole("link", { name: "Watch" }).click();
  await other.waitForURL(new RegExp(`/play/games/${id}$`));
  await other.getByRole("button", { name: "Join" }).waitFor();
  await page.context().close();
  await other.context().close();
});

test("two people play Connect Four to a win, each move appearing in the other's window within 2 s", async () => {
  const x = await newPage();
  const url = await create(x, { kind: "connect_four", opponent: "human" });
  const invite = await x.getByLabel("Invite link").inputValue();
  assert.equal(invite, url);
  // The token stays in localStorage, never in the address.
  const id = url.split("/").pop();
  const held = await x.evaluate((id) => localStorage.getItem(`tabula.seat.${id}`), id);
  assert.equal(JSON.parse(held).seat, "X");
  assert.ok(!url.includes(JSON.parse(held).token));

  const o = await newPage();
  await o.goto(invite);
  // The status is written once the game is read, after the page loads.
  await statusIs(o, "A player waits for an opponent: join to play O");
  await o.getByRole("button", { name: "Join" }).click();
  await statusIs(x, "X to move (you)");
  await statusIs(o, "X to move");

  const moves = [
    [x, 1],
    [o, 2],
    [x, 1],
    [o, 2],
    [x, 1],
    [o, 2],
    [x, 1],
  ];
  for (const [i, [mover, column]] of moves.entries()) {
    const watcher = mover === x ? o : x;
    await mover.getByRole("button", { name: `Column ${column}`, exact: true }).click();
    const started = Date.now();
    await until(watcher, (n) => document.querySelectorAll(".board .stone").length === n, i + 1, 2000);
    assert.ok(Date.now() - started < 2000);
  }
  for (const page of [x, o]) {
    await statusIs(page, /X wins/);
    assert.equal(await page.locator(".board .win").count(), 4);
    // Each of the four discs wears the win ring, the last one played too.
    const rings = await page.evaluate(() => [...document.querySelectorAll(".board .win .stone")].map((s) => getComputedStyle(s).boxShadow));
    assert.equal(rings.length, 4);
    for (const ring of rings) assert.match(ring, /rgb\(250, 204, 21\)/, rings.join(" | "));
  }
  // Nothing is playable once the round is over.
  assert.equal(await o.locator(".board .legal").count(), 0);
  await x.context().close();
  await o.context().close();
});

test("a spectator watches live and cannot play", async () => {
  const x = await newPage();
  const url = await create(x, { kind: "tic_tac_toe", opponent: "human" });
  const o = await newPage();
  await o.goto(url);
  await o.getByRole("button", { name: "Join" }).click();
  const watcher = await newPage();
  await watcher.goto(url);
  await watcher.getByRole("grid", { name: "Tic-tac-toe board" }).waitFor();
  assert.equal(await watcher.getByRole("button", { name: "Join" }).count(), 0);
  assert.equal(await watcher.locator(".board .legal").count(), 0);
  await x.getByRole("button", { name: "Row 2, column 2", exact: true }).click();
  await until(watcher, () => document.querySelectorAll(".board .stone").length === 1, undefined, 2000);
  assert.match(await watcher.getByText("You are watching").textContent(), /watching/);
  for (const p of [x, o, watcher]) await p.context().close();
});

for (const [kind, extra] of [
  ["tic_tac_toe", {}],
  ["connect_four", {}],
  ["gomoku", { size: "9" }],
  ["ultimate_tic_tac_toe", {}],
]) {
  test(`a game of ${kind} against a bot is played to its end`, async () => {
    const page = await newPage();
    await create(page, { kind, opponent: "bot", level: "random", ...extra });
    await readyOrOver(page);
    await page.locator(".board .legal").first().click();
    // The bot's reply comes with the answer.
    await until(page, () => document.querySelectorAll(".board .stone").length === 2);
    await until(page, () => /\(bot\) played/.test(document.querySelector(".threats").textContent));
    for (let turn = 0; turn < 81; turn++) {
      await readyOrOver(page);
      if (/wins|draw/.test(await statusText(page))) break;
      await page.locator(".board .legal").first().click();
    }
    // The viewer holds a seat: the result is told as theirs.
    assert.match(await statusText(page), /^(You won: X wins|You won: O wins|You lost: X wins|You lost: O wins|Draw: It's a draw between X and O)/);
    assert.equal(await page.locator(".board .legal").count(), 0);
    if (kind === "ultimate_tic_tac_toe") {
      // Finished inner boards are shown as won or drawn.
      assert.ok((await page.getByRole("group", { name: /won by|drawn/ }).count()) > 0);
    }
    await page.context().close();
  });
}

test("a page whose event stream drops catches up on the moves it missed, without a reload", async () => {
  const x = await newPage();
  const url = await create(x, { kind: "connect_four", opponent: "human" });
  const o = await newPage();
  await o.goto(url);
  await o.getByRole("button", { name: "Join" }).click();
  await statusIs(x, "X to move (you)");
  await until(o, () => document.querySelector(".live.live") !== null);

  // The service goes away and comes back: the stream drops, and X moves
  // before O's browser reconnects (EventSource waits a few seconds).
  await service.halt();
  await until(o, () => document.querySelector(".live.reconnecting") !== null);
  await service.restart();
  const res = await fetch(`${service.base}/v1/games/${url.split("/").pop()}/moves`, {
    method: "POST",
    headers: {
      authorization: `Bearer ${await x.evaluate((id) => JSON.parse(localStorage.getItem(`tabula.seat.${id}`)).token, url.split("/").pop())}`,
      "content-type": "application/json",
    },
    body: JSON.stringify({ column: 3 }),
  });
  assert.equal(res.status, 201);
  // Last-Event-ID brings the missed move.
  await statusIs(o, "O to move (you)", 15000);
  assert.equal(await stones(o), 1);
  await until(o, () => document.querySelector(".live.live") !== null);

  // A server that stops answering while the stream stays open is not shown
  // as live; when it answers again, the page is live again.
  service.freeze();
  try {
    await until(o, () => document.querySelector(".live.reconnecting") !== null, undefined, 12000);
  } finally {
    service.thaw();
  }
  await until(o, () => document.querySelector(".live.live") !== null, undefined, 15000);
  await x.context().close();
  await o.context().close();
});

test("a threat is highlighted, a hint shown, the history stepped through, the round resigned and restarted", async () => {
  const page = await newPage();
  await create(page, { kind: "connect_four", opponent: "hotseat" });
  assert.equal(await statusText(page), "X to move (you)");
  for (const column of [1, 2, 1, 2, 1]) {
    const before = await stones(page);
    await page.getByRole("button", { name: `Column ${column}`, exact: true }).click();
    await until(page, (n) => document.querySelectorAll(".board .stone").length === n && document.querySelector(".board .legal"), before + 1);
  }
  // O to move, X wins at column 1 next: the threat is on the board and in words.
  await until(page, () => document.querySelector(".board .threat") !== null);
  assert.equal(await page.locator(".board .threat").getAttribute("aria-label"), "Column 1");
  assert.match(await page.locator(".threats").textContent(), /X wins at column 1 next move/);

  await page.getByLabel("level").selectOption("easy");
  await page.getByRole("button", { name: "Hint" }).click();
  await until(page, () => document.querySelector(".board .hint") !== null);
  assert.match(await page.locator(".threats").textContent(), /Hint \(easy\): column \d/);

  await page.getByRole("button", { name: "First position" }).click();
  await statusIs(page, /after move 0 of 5/);
  assert.equal(await stones(page), 0);
  await page.getByRole("button", { name: "Next move" }).click();
  await until(page, () => document.querySelectorAll(".board .stone").length === 1);
  assert.equal(await page.locator(".board .legal").count(), 0, "a past position is read-only");
  await page.getByRole("button", { name: "Last position" }).click();
  await until(page, () => document.querySelectorAll(".board .stone").length === 5);
  assert.equal(await statusText(page), "O to move (you)");

  // Resign asks first: Cancel keeps playing, Resign in the dialog resigns.
  await page.getByRole("button", { name: "Resign" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Cancel" }).click();
  assert.equal(await page.getByRole("dialog").count(), 0);
  assert.equal(await statusText(page), "O to move (you)");
  await page.getByRole("button", { name: "Resign" }).click();
  await page.getByRole("dialog").getByRole("button", { name: "Resign" }).click();
  await statusIs(page, /wins \(. resigned\)/);
  await page.getByRole("button", { name: "Restart" }).click();
  await statusIs(page, "X to move (you)");
  assert.equal(await stones(page), 0);
  // The first round stays readable.
  await page.getByLabel("Round").selectOption("1");
  await statusIs(page, /Round 1, after move 5 of 5/);
  assert.equal(await stones(page), 5);
  await page.context().close();
});

test("the board is played with the keyboard, and errors show the problem's detail", async () => {
  const page = await newPage();
  await create(page, { kind: "tic_tac_toe", opponent: "hotseat" });
  await page.getByRole("button", { name: "Row 1, column 1", exact: true }).focus();
  await page.keyboard.press("ArrowRight");
  await page.keyboard.press("ArrowDown");
  await page.keyboard.press("Enter");
  await statusIs(page, "O to move (you)");
  assert.equal(await page.getByRole("button", { name: "Row 2, column 2, X" }).count(), 1);

  // A refused line: the problem's detail, its moves counted from 1.
  await page.goto("/play/new?kind=connect_four&opponent=hotseat&moves=4444444");
  await until(page, () => /move 7 \(4\) is illegal: the column is full/.test(document.getElementById("error").textContent));
  assert.equal(await page.getByRole("alert").isVisible(), true);
  // A missing game is said once, with the way back, not as an error too.
  const res = await page.goto("/play/games/00000000-0000-4000-8000-000000000000");
  assert.equal(res.status(), 404);
  await statusIs(page, "No such game");
  await page.getByRole("main").getByRole("link", { name: "Lobby" }).waitFor();
  assert.equal(await page.getByRole("alert").isVisible(), false);
  await page.context().close();
});

test("screenshots of each kind at desktop and phone width, light and dark", async () => {
  mkdirSync(screenshotDir, { recursive: true });
  const games = [
    ["tic_tac_toe", {}, ["Row 2, column 2", "Row 1, column 1", "Row 1, column 3", "Row 3, column 1"]],
    ["connect_four", {}, ["Column 4", "Column 4", "Column 5", "Column 3", "Column 6"]],
    ["gomoku", { size: "15" }, ["h8", "i9", "i8", "g7", "j8", "j10"]],
    ["ultimate_tic_tac_toe", {}, ["Board 5, cell 5", "Board 5, cell 1", "Board 1, cell 5", "Board 5, cell 9", "Board 9, cell 5"]],
  ];
  for (const [name, viewport, scheme] of [
    ["desktop", DESKTOP, "light"],
    ["phone", PHONE, "light"],
    ["desktop-dark", DESKTOP, "dark"],
    ["phone-dark", PHONE, "dark"],
  ]) {
    for (const [kind, extra, moves] of games) {
      const page = await newPage(viewport, scheme);
      await create(page, { kind, opponent: "hotseat", ...extra });
      for (const cell of moves) {
        const before = await stones(page);
        await page.getByRole("button", { name: cell, exact: true }).click();
        await until(page, (n) => document.querySelectorAll(".board .stone").length === n && document.querySelector(".board .legal"), before + 1);
      }
      // At phone width nothing sticks out sideways, and the board stays
      // inside its box (Ultimate's stuck out 32 px over the line below it).
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `${kind} at ${name} width overflows by ${overflow} px`);
      const out = await page.evaluate(() => {
        const grid = document.querySelector(".board > div").getBoundingClientRect();
        const box = document.querySelector(".board").getBoundingClientRect();
        const below = document.querySelector(".threats").getBoundingClientRect();
        // Each cell too: Connect Four's columns stuck out of a row that fit,
        // past the board's right edge on a phone (its "!" cut off).
        const cells = [...document.querySelectorAll(".board .cell")].map((c) => c.getBoundingClientRect());
        const sides = cells.flatMap((c) => [c.right - box.right, box.left - c.left, c.bottom - box.bottom]);
        return Math.max(grid.right - box.right, grid.bottom - box.bottom, box.bottom - below.top, ...sides);
      });
      assert.ok(out <= 0.5, `${kind} at ${name} width: the board sticks out ${out} px`);
      await page.mouse.move(0, 0);
      await page.screenshot({ path: join(screenshotDir, `${name}-${kind}.png`), fullPage: true });
      await page.context().close();
    }
  }
});

// The page for two people (issue 26): names, private invites, clocks,
// offers, resign that asks first, quick match, the move list and the
// last-move marker, "You won / You lost", the own-game Join case, the 404
// page. Two browser contexts are two people; a third watches.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { DESKTOP, PHONE, launch, openPage, screenshotDir, startService, statusIs, statusText, until } from "./helpers.mjs";

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

function person(viewport = DESKTOP) {
  return openPage(browser, service.base, { viewport });
}

/** Creates a game from the lobby's form; returns its address (with any fragment). */
async function createFromForm(page, { kind = "connect_four", name, priv = false, clock } = {}) {
  await page.goto("/play");
  await page.getByLabel("Game", { exact: true }).selectOption(kind);
  // A friend is invited by a link (a private game); anyone finds it listed.
  await page.getByLabel("Opponent", { exact: true }).selectOption(priv ? "friend" : "anyone");
  if (name) await page.getByLabel("Your name").first().fill(name);
  if (clock) await page.locator("form.create").getByLabel("Clock", { exact: true }).selectOption(clock);
  await page.getByRole("button", { name: "Create game" }).click();
  await page.waitForURL(/\/play\/games\/[0-9a-f-]+/);
  await page.getByRole("grid").waitFor();
  return page.url();
}

async function joinAs(page, url, name) {
  await page.goto(url);
  await page.getByRole("button", { name: "Join" }).waitFor();
  if (name) await page.getByLabel("Your name").fill(name);
  await page.getByRole("button", { name: "Join" }).click();
  await statusIs(page, /\(you\)|to move/);
}

test("joining your own waiting game from the lobby is never offered, and a reload keeps your seat", async () => {
  const x = await person();
  const url = await createFromForm(x, { name: "Ann" });
  const id = new URL(url).pathname.split("/").pop();
  const token = JSON.parse(await x.evaluate((id) => localStorage.getItem(`tabula.seat.${id}`), id)).token;
  await x.goto("/play");
  const row = x.getByRole("list", { name: "Open games" }).getByRole("listitem").filter({ hasText: "Ann" });
  await row.waitFor();
  assert.equal(await row.getByRole("button", { name: "Join" }).count(), 0);
  await row.getByRole("link", { name: "Your game" }).click();
  await x.getByRole("grid").waitFor();
  assert.equal(await x.getByRole("button", { name: "Join" }).count(), 0);
  await x.reload();
  await x.getByRole("grid").waitFor();
  const held = JSON.parse(await x.evaluate((id) => localStorage.getItem(`tabula.seat.${id}`), id));
  assert.deepEqual([held.seat, held.token], ["X", token]);
  // "Your games" names the kind and the state, not a truncated id.
  await x.goto("/play");
  const mine = x.getByRole("list", { name: "Your games" });
  await mine.getByRole("link").first().waitFor();
  assert.match(await mine.getByRole("link").first().textContent(), /Connect Four · waiting for an opponent · you play X/);
  await x.context().close();
});

test("two people with names and a clock play, offer both ways, resign after confirming; a spectator watches", async () => {
  const x = await person();
  const url = await createFromForm(x, { name: "Ann", clock: "5+0" });
  const o = await person(PHONE);
  await joinAs(o, url, "Bob");
  const watcher = await person();
  await watcher.goto(url);
  await watcher.getByRole("grid").waitFor();
  for (const page of [x, o, watcher]) {
    await until(page, () => /Ann/.test(document.querySelector(".info").textContent) && /Bob/.test(document.querySelector(".info").textContent));
    // Nobody's clock runs before their first move: X's first move does.
    assert.match(await page.getByRole("timer", { name: "X clock" }).textContent(), /^5:00$/);
    assert.match(await page.getByRole("timer", { name: "O clock" }).textContent(), /^5:00$/);
    assert.match(await page.getByRole("timer", { name: "First move" }).textContent(), /^0:[0-3]\d$/);
    // Hints and threat marks are off between two people.
    assert.equal(await page.getByRole("button", { name: "Hint" }).count(), 0);
  }
  // The first move's countdown runs.
  const first = await x.getByRole("timer", { name: "First move" }).textContent();
  await until(x, (t) => document.querySelector('[aria-label="First move"]').textContent !== t, first, 3000);
  await x.screenshot({ path: join(screenshotDir, "people-first-move-desktop.png") });

  await x.getByRole("button", { name: "Column 4", exact: true }).click();
  await until(o, () => document.querySelectorAll(".board .stone").length === 1);
  // O's own first move now; X's clock still at 5:00.
  await o.getByRole("timer", { name: "First move" }).waitFor();
  assert.equal(await o.getByRole("timer", { name: "X clock" }).textContent(), "5:00");
  await o.getByRole("button", { name: "Column 4", exact: true }).click();
  await until(x, () => document.querySelectorAll(".board .stone").length === 2);
  // From O's first move on, X's clock runs and no first-move timer is left.
  await until(x, () => document.querySelector('[aria-label="First move"]') === null);
  await until(x, () => document.querySelector('[aria-label="X clock"]').textContent !== "5:00", undefined, 3000);
  // The move list, in notation, paired by number, and one cell marked as the last move.
  for (const page of [x, o, watcher]) {
    await until(page, () => document.querySelector('[aria-label="Moves"]').textContent === "1. 4 4");
    assert.deepEqual(await page.getByRole("list", { name: "Moves" }).getByRole("listitem").allTextContents(), ["1. 4 4"]);
    assert.equal(await page.locator('.board [aria-current="true"]').count(), 1);
    assert.equal(await page.locator('.board [aria-current="true"]').getAttribute("aria-label"), "Column 4");
  }
  // A reload keeps the marker.
  await watcher.reload();
  await until(watcher, () => document.querySelectorAll('.board [aria-current="true"]').length === 1);

  // X offers a draw; O declines. O offers a takeback; X accepts.
  await x.getByRole("button", { name: "Offer draw" }).click();
  await x.getByRole("button", { name: "Withdraw" }).waitFor();
  const ask = o.getByRole("alertdialog");
  await ask.waitFor();
  await ask.getByRole("button", { name: "Decline" }).click();
  await until(x, () => document.querySelector(".offer-box").textContent === "");
  await o.getByRole("button", { name: "Take back" }).click();
  await x.getByRole("alertdialog").getByRole("button", { name: "Accept" }).click();
  await until(o, () => document.querySelectorAll(".board .stone").length === 1);
  await until(watcher, () => document.querySelector('[aria-label="Moves"]').textContent === "1. 4");

  // O resigns, after confirming; each side hears the result as theirs.
  await o.getByRole("button", { name: "Resign" }).click();
  const dialog = o.getByRole("dialog");
  await dialog.getByRole("button", { name: "Cancel" }).waitFor();
  await dialog.getByRole("button", { name: "Resign" }).click();
  await statusIs(x, /^You won/);
  await statusIs(o, /^You lost/);
  await statusIs(watcher, /X wins/);
  assert.doesNotMatch(await statusText(watcher), /You/);
  await x.screenshot({ path: join(screenshotDir, "people-desktop.png"), fullPage: true });
  await o.screenshot({ path: join(screenshotDir, "people-phone.png"), fullPage: true });
  for (const page of [x, o, watcher]) await page.context().close();
});

test("a private game is joined by its link and refused without the invite", async () => {
  const x = await person();
  const url = await createFromForm(x, { priv: true });
  assert.match(url, /#invite=/);
  const link = await x.getByLabel("Invite link").inputValue();
  assert.match(link, /#invite=[^&]+$/);
  const stranger = await person();
  await stranger.goto(link.split("#")[0]);
  await stranger.getByRole("button", { name: "Join" }).click();
  await until(stranger, () => /invite/.test(document.getElementById("error").textContent));
  const friend = await person();
  await joinAs(friend, link);
  await statusIs(x, "X to move (you)");
  for (const page of [x, stranger, friend]) await page.context().close();
});

test("a per-move clock: a first move missed aborts the round, a later one runs out and loses", async () => {
  const x = await person();
  await x.goto("/play/new?kind=tic_tac_toe&opponent=human&clock=m2");
  await x.waitForURL(/\/play\/games\//);
  const url = x.url();
  const o = await person();
  await joinAs(o, url);
  // X never makes a first move: nobody wins, nothing counts.
  await statusIs(x, /^Aborted/, 8000);
  await statusIs(o, /^Aborted/, 8000);
  assert.equal(await x.getByRole("timer", { name: "X clock" }).textContent(), "0:02");
  // The next: each side moves once, then X's time runs out.
  await x.goto("/play/new?kind=tic_tac_toe&opponent=human&clock=m2");
  await x.waitForURL((u) => u.pathname !== new URL(url).pathname && /\/play\/games\//.test(u.pathname));
  await joinAs(o, x.url());
  await x.getByRole("button", { name: "Row 2, column 2", exact: true }).click();
  await until(o, () => document.querySelectorAll(".board .legal").length === 8);
  await o.getByRole("button", { name: "Row 1, column 1", exact: true }).click();
  await statusIs(x, /ran out of time/, 8000);
  assert.match(await statusText(x), /^You lost: O wins \(X ran out of time\)/);
  await statusIs(o, /^You won/, 8000);
  assert.equal(await x.getByRole("timer", { name: "X clock" }).textContent(), "0:00");
  for (const page of [x, o]) await page.context().close();
});

test("quick match meets only the same clock", async () => {
  const a = await person();
  const b = await person();
  const c = await person();
  const ask = async (page, clock) => {
    await page.goto("/play");
    await page.getByLabel("Kind", { exact: true }).selectOption("ultimate_tic_tac_toe");
    await page.locator("form.quick").getByLabel("Clock").selectOption(clock);
    await page.getByRole("button", { name: "Quick match" }).click();
    await page.waitForURL(/\/play\/games\//);
    await page.getByRole("grid").waitFor();
    return new URL(page.url()).pathname;
  };
  const blitz = await ask(a, "3+2");
  const none = await ask(b, "");
  assert.notEqual(none, blitz, "no clock never meets a clock");
  const same = await ask(c, "3+2");
  assert.equal(same, blitz);
  const game = await (await fetch(`${service.base}/v1/games/${blitz.split("/").pop()}`)).json();
  assert.deepEqual([game.status, game.clock.initial_ms, game.clock.increment_ms], ["in_progress", 180_000, 2000]);
  // Rated needs a clock: checking it picks one, in view.
  await b.goto("/play");
  const quick = b.locator("form.quick");
  await quick.getByLabel("Clock").selectOption("");
  await quick.getByLabel("Rated match").check();
  assert.equal(await quick.getByLabel("Clock").inputValue(), "10+5");
  for (const page of [a, b, c]) await page.context().close();
});

test("quick match pairs two people", async () => {
  const a = await person();
  const b = await person();
  await a.goto("/play");
  await a.getByLabel("Kind", { exact: true }).selectOption("gomoku");
  await a.getByRole("button", { name: "Quick match" }).click();
  await a.waitForURL(/\/play\/games\//);
  await a.getByRole("grid").waitFor();
  await b.goto("/play");
  await b.getByLabel("Kind", { exact: true }).selectOption("gomoku");
  await b.getByRole("button", { name: "Quick match" }).click();
  await b.waitForURL(/\/play\/games\//);
  assert.equal(new URL(a.url()).pathname, new URL(b.url()).pathname);
  await statusIs(a, "X to move (you)");
  await statusIs(b, "X to move");
  // Back in the lobby, the kind asked for last is chosen again.
  await a.goto("/play");
  assert.equal(await a.getByLabel("Kind", { exact: true }).inputValue(), "gomoku");
  for (const page of [a, b]) await page.context().close();
});

test("a refused create keeps every field as entered", async () => {
  const page = await person();
  await page.goto("/play");
  await page.getByLabel("Game", { exact: true }).selectOption("tic_tac_toe");
  await page.getByLabel("Opponent", { exact: true }).selectOption("friend");
  await page.getByLabel("Your name").first().fill("Zed");
  await page.getByLabel("Your seat").selectOption("O");
  await page.locator("form.create").getByLabel("Clock", { exact: true }).selectOption("3+2");
  // Two moves on the same cell: no line of tic-tac-toe.
  await page.getByLabel("Start from moves").fill("55");
  await page.getByRole("button", { name: "Create game" }).click();
  await statusIs(page, "The game could not be created");
  await until(page, () => (document.getElementById("error")?.textContent ?? "").length > 0);
  assert.equal(await page.getByLabel("Game", { exact: true }).inputValue(), "tic_tac_toe");
  assert.equal(await page.getByLabel("Opponent", { exact: true }).inputValue(), "friend");
  assert.equal(await page.getByLabel("Your name").first().inputValue(), "Zed");
  assert.equal(await page.getByLabel("Your seat").inputValue(), "O");
  assert.equal(await page.locator("form.create").getByLabel("Clock", { exact: true }).inputValue(), "3+2");
  assert.equal(await page.getByLabel("Start from moves").inputValue(), "55");
  // The retry goes in as it was meant: mended, it makes that game.
  await page.getByLabel("Start from moves").fill("5");
  await page.getByRole("button", { name: "Create game" }).click();
  await page.waitForURL(/\/play\/games\/[0-9a-f-]+#invite=/);
  const id = new URL(page.url()).pathname.split("/").pop();
  const game = await (await fetch(`${service.base}/v1/games/${id}`)).json();
  assert.deepEqual([game.kind, game.visibility, game.ply, game.clock.initial_ms], ["tic_tac_toe", "private", 1, 180_000]);
  await page.context().close();
});

test("an invite link game is private, never listed; Anyone's is", async () => {
  const page = await person();
  const friendly = await createFromForm(page, { name: "Pia", priv: true });
  const open = await createFromForm(page, { name: "Quin" });
  const listed = (await (await fetch(`${service.base}/v1/games?status=waiting`)).json()).items.map((g) => g.id);
  assert.ok(!listed.includes(new URL(friendly).pathname.split("/").pop()), "the friend's game is not listed");
  assert.ok(listed.includes(new URL(open).pathname.split("/").pop()), "Anyone's game is listed");
  await page.context().close();
});

test("the form offers each kind only its levels, and a refused create keeps the form", async () => {
  const page = await person();
  await page.goto("/play");
  await page.getByLabel("Opponent", { exact: true }).selectOption("bot");
  await page.getByLabel("Game", { exact: true }).selectOption("gomoku");
  const levels = await page.getByLabel("Bot level").locator("option").allTextContents();
  assert.ok(!levels.includes("perfect"), levels.join());
  await page.getByLabel("Game", { exact: true }).selectOption("connect_four");
  assert.ok((await page.getByLabel("Bot level").locator("option").allTextContents()).includes("perfect"));
  await page.goto("/play/new?kind=gomoku&opponent=bot&level=perfect");
  // The refusal comes back after the page loads: the form, then its reason.
  await statusIs(page, "The game could not be created");
  await until(page, () => (document.querySelector("[role=alert]")?.textContent ?? "").length > 0);
  await page.getByRole("button", { name: "Create game" }).waitFor();
  const error = await page.getByRole("alert").textContent();
  assert.ok(error.length > 0 && !error.includes("`"), error);
  await page.context().close();
});

test("another address under /play is a 404 page with the way back to the lobby", async () => {
  const page = await person();
  const res = await page.goto("/play/typo");
  assert.equal(res.status(), 404);
  await page.getByRole("link", { name: "Lobby" }).click();
  await page.getByRole("button", { name: "Create game" }).waitFor();
  await page.goto("/play/games/00000000-0000-4000-8000-000000000000");
  await statusIs(page, "No such game");
  await page.getByRole("main").getByRole("link", { name: "Lobby" }).waitFor();
  await page.context().close();
});

test("gomoku shows its coordinates as its notation counts, and a small cell takes two taps on a phone", async () => {
  const page = await openPage(browser, service.base, { viewport: PHONE, hasTouch: true, isMobile: true });
  await page.goto("/play/new?kind=gomoku&opponent=hotseat");
  await page.getByRole("grid").waitFor();
  const letters = await page.locator(".framed .lets span").allTextContents();
  const numbers = await page.locator(".framed .nums span").allTextContents();
  assert.equal(letters.join(""), "abcdefghijklmno");
  assert.deepEqual([numbers[0], numbers.at(-1)], ["15", "1"]);
  const centre = page.getByRole("button", { name: "h8", exact: true });
  const width = (await centre.boundingBox()).width;
  assert.ok(width < 30, `cells of ${width}px`);
  await centre.tap();
  assert.equal(await page.locator(".board .stone").count(), 0, "one tap only points");
  assert.equal(await page.locator(".board .aim").count(), 1);
  await page.getByRole("button", { name: "h8", exact: true }).tap();
  await until(page, () => document.querySelectorAll(".board .stone").length === 1);
  await until(page, () => document.querySelectorAll('[aria-label="Moves"] li').length === 1);
  assert.equal(await page.getByRole("list", { name: "Moves" }).getByRole("listitem").textContent(), "1. h8");
  await page.screenshot({ path: join(screenshotDir, "phone-gomoku-coordinates.png") });
  await page.context().close();
});

test("a game's notation is copied, and a game starts from a pasted line", async () => {
  const page = await person();
  await page.goto("/play/new?kind=connect_four&opponent=hotseat");
  await page.getByRole("grid").waitFor();
  for (const [n, column] of [4, 4, 5, 3].entries()) {
    await page.getByRole("button", { name: `Column ${column}`, exact: true }).click();
    await until(page, (n) => document.querySelectorAll(".board .stone").length === n, n + 1);
  }
  // Copied, said so, and no text field left in view.
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"]);
  await page.getByRole("button", { name: "Copy notation" }).click();
  await statusIs(page, "Copied");
  assert.equal(await page.evaluate(() => navigator.clipboard.readText()), "4453");
  assert.equal(await page.getByRole("textbox").count(), 0);
  await page.goto("/play");
  await page.getByLabel("Opponent", { exact: true }).selectOption("hotseat");
  await page.getByLabel("Start from moves").fill("4453");
  await page.getByRole("button", { name: "Create game" }).click();
  await page.waitForURL(/\/play\/games\//);
  await until(page, () => document.querySelectorAll(".board .stone").length === 4);
  await until(page, () => document.querySelector('[aria-label="Moves"]').textContent === "1. 4 42. 5 3");
  assert.equal(await statusText(page), "X to move (you)");
  // A line that is not one is refused with its reason, and the form stays.
  await page.goto("/play");
  await page.getByLabel("Opponent", { exact: true }).selectOption("hotseat");
  await page.getByLabel("Start from moves").fill("4 4");
  await page.getByRole("button", { name: "Create game" }).click();
  await until(page, () => document.getElementById("error").textContent.length > 0);
  await page.getByRole("button", { name: "Create game" }).waitFor();
  await page.context().close();
});

test("after a game its analysis shows every move against the best one and the moment it was lost", async () => {
  // X 1, O 5, X 2, O 4?? (3 had to be blocked), X 3 wins.
  for (const [viewport, scheme, name] of [
    [DESKTOP, "light", "desktop-analysis"],
    [PHONE, "dark", "phone-analysis-dark"],
  ]) {
    const page = await person(viewport);
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto("/play/new?kind=tic_tac_toe&opponent=hotseat&moves=15243");
    await statusIs(page, /X wins/);
    await page.getByRole("button", { name: "Analyze the game" }).click();
    const list = page.getByRole("list", { name: "Move evaluations" });
    await until(page, () => /lost at move/.test(document.querySelector(".verdict-line")?.textContent ?? ""), undefined, 15000);
    assert.equal(await list.getByRole("listitem").count(), 5);
    assert.match(await page.locator(".verdict-line").textContent(), /lost at move 4: O played 4 \(loses in \d+ pl(y|ies)\) where 3 held the draw/);
    assert.match(await list.getByRole("listitem").nth(3).textContent(), /^4\. O 4: loses in \d+ pl(y|ies); best 3: draws$/);
    // A click shows the position before that move, with the best move marked.
    await list.getByRole("button").nth(3).click();
    await statusIs(page, /after move 3 of 5/);
    assert.match(await page.locator(".threats").textContent(), /Best here: 3 \(draws\); played 4/);
    assert.equal(await page.locator(".board .cell.hint").count(), 1);
    assert.equal(await page.getByRole("button", { name: "Row 1, column 3", exact: true }).evaluate((e) => e.classList.contains("hint")), true);
    await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: true });
    // Not said of a move as good as the one played (X's first: every move draws).
    await list.getByRole("button").nth(0).click();
    await statusIs(page, /after move 0 of 5/);
    assert.equal(await page.locator(".threats").textContent(), "");
    await page.context().close();
  }
});

test("after a game either side asks for a rematch: the seats swap, and the other side is shown the way there", async () => {
  const x = await person();
  const url = await createFromForm(x, { name: "Ann" });
  const o = await person(PHONE);
  await joinAs(o, url, "Bob");
  // X (Ann) wins down column 1.
  for (let i = 0; i < 3; i++) {
    await x.getByRole("button", { name: "Column 1", exact: true }).click();
    await until(o, (n) => document.querySelectorAll(".board .stone").length === n, 2 * i + 1);
    await o.getByRole("button", { name: "Column 2", exact: true }).click();
    await until(x, (n) => document.querySelectorAll(".board .stone").length === n, 2 * i + 2);
  }
  await x.getByRole("button", { name: "Column 1", exact: true }).click();
  await statusIs(o, /You lost/);
  // Looking back at the game, the rematch is still at hand.
  await o.getByRole("button", { name: "First position" }).click();
  await statusIs(o, /after move 0 of 7/);
  // An offer: no game (no clock) starts before Ann accepts.
  await o.getByRole("button", { name: "Rematch" }).click();
  await o.getByText("You offered a rematch.").waitFor();
  const ask = x.getByRole("alertdialog", { name: "O offers a rematch" });
  await ask.waitFor();
  assert.match(await ask.textContent(), /Bob offers a rematch/);
  assert.equal(await x.getByRole("button", { name: "Restart" }).count(), 0, "one choice after a round");
  await x.screenshot({ path: join(screenshotDir, "rematch-offer-desktop.png"), fullPage: true });
  await ask.getByRole("button", { name: "Accept" }).click();
  // Both are taken to it: Ann by her answer, Bob by the stream.
  await x.waitForURL((u) => u.pathname !== new URL(url).pathname);
  const rematch = new URL(x.url()).pathname;
  await o.waitForURL((u) => u.pathname === rematch);
  // Bob was O: now he holds X and opens.
  await statusIs(o, "X to move (you)");
  await statusIs(x, "X to move");
  await o.getByRole("button", { name: "Column 4", exact: true }).click();
  await statusIs(x, "O to move (you)");
  await x.screenshot({ path: join(screenshotDir, "rematch-desktop.png"), fullPage: true });
  await o.screenshot({ path: join(screenshotDir, "rematch-phone.png"), fullPage: true });
  for (const page of [x, o]) await page.context().close();
});

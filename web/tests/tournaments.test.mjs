// Tournaments on the page (issue 77): the lobby's list named `Tournaments`
// and its form with a `System` select; a tournament's page with Join, the
// creator's bots and Start, the `Standings` table, and the entrant taken to
// its game when paired (then a `Your game` link). Screenshots on desktop and
// phone, light and dark.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { PHONE, launch, openPage, screenshotDir, startService } from "./helpers.mjs";

let service;
let browser;

before(async () => {
  service = await startService({ TABULA_ROUND_PAUSE: "1" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

async function post(path, body, key) {
  const res = await fetch(`${service.base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify(body),
  });
  assert.ok(res.ok, `${path}: ${res.status}`);
  return res.json();
}

/** A page whose browser plays as a new player named `name`. */
async function asPlayer(name, options = {}) {
  const made = await post("/v1/players", { name });
  const page = await openPage(browser, service.base, options);
  await page.goto("/play");
  await page.evaluate(
    ([id, key, who]) => localStorage.setItem("tabula.player", JSON.stringify({ id, key, name: who })),
    [made.player.id, made.key, name],
  );
  await page.reload();
  return { page, player: made };
}

test("a swiss created in the lobby, joined, filled with a bot, started: the entrant is taken to its game", async () => {
  const { page } = await asPlayer("Ann");
  const card = page.getByRole("list", { name: "Tournaments" });
  await card.getByText("No tournaments now").waitFor();
  await page.getByLabel("Tournament name").fill("Club swiss");
  await page.getByLabel("System").selectOption("swiss");
  await page.getByLabel("Rounds").fill("2");
  await page.getByLabel("Tournament game").selectOption("tic_tac_toe");
  await page.getByRole("button", { name: "Create tournament" }).click();
  await page.waitForURL(/\/play\/tournaments\//);
  const standings = page.getByRole("table", { name: "Standings" });
  await standings.waitFor();
  await page.getByRole("button", { name: "Join" }).click();
  await standings.getByRole("cell", { name: "Ann" }).waitFor();
  await page.getByLabel("Bot level").selectOption("random");
  await page.getByRole("button", { name: "Add a bot" }).click();
  await standings.getByRole("cell", { name: "Bot (random)", exact: true }).waitFor();
  assert.equal(await standings.locator("tbody tr").count(), 2);
  await page.screenshot({ path: join(screenshotDir, "tournament-open-desktop.png"), fullPage: true });
  const tournament = page.url();
  await page.getByRole("button", { name: "Start" }).click();
  // Paired: Ann is taken to her game, whose seat her key plays.
  await page.waitForURL(/\/play\/games\//);
  await page.getByRole("grid").waitFor();
  // Back on the tournament's page: a link to the game, the round's pairing.
  await page.goto(tournament);
  await page.getByRole("link", { name: "Your game" }).waitFor();
  await page.getByRole("list", { name: "Pairings" }).getByRole("link").first().waitFor();
  await page.screenshot({ path: join(screenshotDir, "tournament-running-desktop.png"), fullPage: true });
  // The lobby lists it while it runs.
  await page.goto("/play");
  await page.getByRole("list", { name: "Tournaments" }).getByRole("link", { name: "Club swiss" }).waitFor();
  await page.context().close();
});

test("on a phone in the dark, a round robin of bots is followed to its end", async () => {
  const { page, player } = await asPlayer("Bo", { viewport: PHONE, colorScheme: "dark" });
  const t = await post(
    "/v1/tournaments",
    { name: "Bots all play all", kind: "connect_four", system: "round_robin", clock: { initial_ms: 60000, increment_ms: 0 } },
    player.key,
  );
  for (const level of ["random", "easy", "random"]) {
    await post(`/v1/tournaments/${t.id}/entrants`, { bot: { level } }, player.key);
  }
  await page.goto(`/play/tournaments/${t.id}`);
  const standings = page.getByRole("table", { name: "Standings" });
  await standings.waitFor();
  await page.getByRole("button", { name: "Start" }).click();
  // The page follows the tournament's events to its end.
  await page.getByText(/Bots all play all: finished/).waitFor({ timeout: 60000 });
  const rows = await standings.locator("tbody tr").allTextContents();
  assert.equal(rows.length, 3, rows.join("|"));
  assert.match(rows[0], /^1Bot/);
  await page.screenshot({ path: join(screenshotDir, "tournament-finished-phone-dark.png"), fullPage: true });
  await page.context().close();
});

// Challenges on the page (issue 78): a signed-in person challenges a player
// from the player's page; the challenged sees it in the lobby with Accept
// and Decline; an accepted challenge opens the game for both; a bot's page
// says it is a bot. Two browser contexts are two people; screenshots on
// desktop and phone, light and dark.
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, test } from "node:test";

import { PHONE, launch, openPage, playAs, screenshotDir, startService, until } from "./helpers.mjs";

let service;
let browser;

before(async () => {
  service = await startService({ TABULA_PLAYER_RATE: "0" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

test("a person challenges another from their page; accepted in the lobby, the game opens for both; a decline is told", async () => {
  const ann = await openPage(browser, service.base);
  const bob = await openPage(browser, service.base, { viewport: PHONE, hasTouch: true, isMobile: true, colorScheme: "dark" });
  await playAs(ann, "Ann");
  const bobPlayer = await playAs(bob, "Bob");

  // Nobody is challenged yet: the lobby shows no challenges.
  assert.equal(await bob.getByRole("region", { name: "Challenges" }).count(), 0);

  await ann.goto(`/play/players/${bobPlayer.id}`);
  const card = ann.getByRole("region", { name: "Challenge" });
  await card.getByRole("heading", { name: "Challenge Bob" }).waitFor();
  await card.getByLabel("Game").selectOption("connect_four");
  await card.getByLabel("Clock").selectOption("5+0");
  await card.getByLabel("Your seat").selectOption("X");
  await card.getByRole("button", { name: "Challenge", exact: true }).click();
  await card.getByText(/Waiting for Bob to answer/).waitFor();
  await ann.screenshot({ path: join(screenshotDir, "challenge-sent-desktop.png"), fullPage: true });

  // Bob's lobby lists it (read again every few seconds) with Accept and Decline.
  const waiting = bob.getByRole("region", { name: "Challenges" });
  await waiting.getByText("Ann challenges you").waitFor({ timeout: 10000 });
  assert.match(await waiting.textContent(), /Ann challenges youConnect Four · 5 min/);
  await bob.screenshot({ path: join(screenshotDir, "challenge-received-phone-dark.png"), fullPage: true });
  await waiting.getByRole("button", { name: "Accept", exact: true }).click();
  await bob.waitForURL(/\/play\/games\/[0-9a-f-]+/);
  const game = bob.url().split("/").pop();
  // Ann's page follows the challenge into the game, her seat held by her key.
  await ann.waitForURL(`**/play/games/${game}`, { timeout: 10000 });
  await ann.getByRole("grid").waitFor();
  await until(ann, () => document.querySelector(".board .legal") !== null, undefined, 10000);
  await ann.locator('[data-move="c3"]').first().click();
  await until(bob, () => document.querySelectorAll(".board .stone").length === 1, undefined, 10000);
  await bob.screenshot({ path: join(screenshotDir, "challenge-game-phone-dark.png"), fullPage: true });

  // A second challenge, declined: Ann's page says so.
  await ann.goto(`/play/players/${bobPlayer.id}`);
  await ann.getByRole("region", { name: "Challenge" }).getByRole("button", { name: "Challenge", exact: true }).click();
  await ann.getByText(/Waiting for Bob to answer/).waitFor();
  await bob.goto("/play");
  await bob.getByRole("region", { name: "Challenges" }).getByRole("button", { name: "Decline", exact: true }).click();
  await ann.getByText("Bob declined: declined.").waitFor({ timeout: 10000 });
  await bob.getByRole("region", { name: "Challenges" }).waitFor({ state: "hidden" });
});

test("a bot's page says it is a bot; a challenge to it waits for its answer and can be cancelled", async () => {
  const made = await fetch(`${service.base}/v1/players`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name: "Robo", bot: true }),
  }).then((r) => r.json());
  const ann = await openPage(browser, service.base, { colorScheme: "dark" });
  await playAs(ann, "Cleo");
  await ann.goto(`/play/players/${made.player.id}`);
  await ann.getByRole("heading", { name: "Robo bot" }).waitFor();
  await ann.getByText("A bot: its moves come from a program.").waitFor();
  await ann.screenshot({ path: join(screenshotDir, "bot-page-desktop-dark.png"), fullPage: true });
  // An untimed challenge to a bot that listens waits for its answer.
  await ann.getByRole("button", { name: "Challenge", exact: true }).click();
  await ann.getByText(/Waiting for Robo to answer/).waitFor();
  await ann.getByRole("button", { name: "Cancel challenge" }).click();
  await ann.getByText("Challenge cancelled.").waitFor();
});

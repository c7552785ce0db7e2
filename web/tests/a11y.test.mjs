// axe-core (npm) in the page, on every state a player meets: 0 serious or
// critical findings. The page's CSP forbids injected scripts, so these
// contexts bypass it (only here).
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { after, before, test } from "node:test";

import { DESKTOP, PHONE, keepKey, launch, openPage, startService, statusIs, until } from "./helpers.mjs";

const axePath = createRequire(import.meta.url).resolve("axe-core/axe.min.js");
let service;
let browser;

before(async () => {
  // A claim opens a second after the side to move stopped moving.
  service = await startService({ TABULA_CLAIM_AFTER: "1" });
  browser = await launch();
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

function person(viewport = DESKTOP, colorScheme = "light") {
  return openPage(browser, service.base, { viewport, colorScheme, bypassCSP: true });
}

/** The serious and critical findings of axe on the page as it is. */
async function findings(page, state) {
  await page.addScriptTag({ path: axePath });
  const found = await page.evaluate(async () => {
    const result = await window.axe.run(document, { resultTypes: ["violations"] });
    return result.violations
      .filter((v) => v.impact === "serious" || v.impact === "critical")
      .map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(" ")).slice(0, 4).join(", ")}`);
  });
  assert.deepEqual(found, [], `${state}: ${found.join("; ")}`);
}

for (const scheme of ["light", "dark"]) {
  test(`every page state has no serious or critical axe finding (${scheme})`, async () => {
    const x = await person(DESKTOP, scheme);
    await x.goto("/play");
    await x.getByRole("button", { name: "Create game" }).waitFor();
    await findings(x, "lobby");
    for (const kind of ["tic_tac_toe", "connect_four", "gomoku", "ultimate_tic_tac_toe"]) {
      await x.goto(`/play/new?kind=${kind}&opponent=hotseat`);
      await x.getByRole("grid").waitFor();
      await x.locator(".board .legal").first().click();
      await until(x, () => document.querySelectorAll(".board .stone").length === 1);
      await x.locator(".board .legal").first().click();
      await until(x, () => document.querySelectorAll(".board .stone").length === 2);
      await findings(x, `${kind} in play`);
      // Stones against what they sit on: 3:1 at least (WCAG 1.4.11).
      const ratios = await x.evaluate(() => {
        const rgb = (el, prop) => getComputedStyle(el)[prop].match(/[\d.]+/g).slice(0, 3).map(Number);
        const lum = ([r, g, b]) =>
          [r, g, b].map((v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4)).reduce((a, v, i) => a + v * [0.2126, 0.7152, 0.0722][i], 0);
        // The nearest ancestor with a background of its own (a Connect Four
        // disc fills its hole: what it stands against is the board).
        const behind = (el) => {
          for (let e = el.parentElement; e; e = e.parentElement) {
            if (e.classList.contains("slot")) continue;
            // Opaque backgrounds only (a hover tint is not the board).
            const c = getComputedStyle(e).backgroundColor.match(/[\d.]+/g) ?? [];
            if (c.length === 3 || (c.length === 4 && Number(c[3]) === 1)) return e;
          }
          return document.body;
        };
        return ["X", "O"].map((side) => {
          const stone = document.querySelector(`.board .stone.${side}`);
          const [a, b] = [lum(rgb(stone, "backgroundColor")), lum(rgb(behind(stone), "backgroundColor"))];
          return [side, (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05)];
        });
      });
      for (const [side, ratio] of ratios) assert.ok(ratio >= 3, `${kind} ${side} stones: ${ratio.toFixed(2)}:1 (${scheme})`);
    }
    // Two people, with a clock, an offer received and the resign dialog.
    await x.goto("/play/new?kind=connect_four&opponent=human&clock=5%2B0&name=Ann");
    await x.getByRole("grid").waitFor();
    const url = x.url();
    const o = await person(PHONE, scheme);
    await o.goto(url);
    await o.getByRole("button", { name: "Join" }).click();
    await statusIs(x, "X to move (you)");
    await x.getByRole("timer", { name: "First move" }).waitFor();
    await findings(x, "a first move's countdown");
    await x.getByRole("button", { name: "Offer draw" }).click();
    await o.getByRole("alertdialog").waitFor();
    await findings(o, "an offer received, on a phone");
    await x.getByRole("button", { name: "Resign" }).click();
    await x.getByRole("dialog").waitFor();
    await findings(x, "the resign dialog");
    await x.getByRole("dialog").getByRole("button", { name: "Resign" }).click();
    await statusIs(o, /^You won/);
    await findings(o, "a finished game");
    await o.getByRole("button", { name: "Rematch" }).click();
    await x.getByRole("alertdialog", { name: "O offers a rematch" }).waitFor();
    await findings(x, "a rematch offered");
    await findings(o, "a rematch offer made, on a phone");
    // Without a clock, the side to move gone: a claim, waited for, then open.
    await x.goto("/play/new?kind=tic_tac_toe&opponent=human&name=Ann");
    await x.getByRole("grid").waitFor();
    await o.goto(x.url());
    await o.getByRole("button", { name: "Join" }).click();
    await statusIs(x, "X to move (you)");
    await x.getByRole("button", { name: "Row 2, column 2", exact: true }).click();
    await statusIs(o, "O to move (you)");
    await x.getByRole("button", { name: "Claim victory" }).waitFor({ timeout: 5000 });
    await findings(x, "a claim open");
    // A finished game's analysis, a position of it shown.
    await x.goto("/play/new?kind=tic_tac_toe&opponent=hotseat&moves=15243");
    await x.getByRole("button", { name: "Analyze the game" }).click();
    await until(x, () => /lost at move/.test(document.querySelector(".verdict-line")?.textContent ?? ""), undefined, 15000);
    await x.getByRole("list", { name: "Move evaluations" }).getByRole("button").nth(3).click();
    await until(x, () => document.querySelector(".board .cell.hint") !== null);
    await findings(x, "a finished game's analysis");
    await x.goto("/play/typo");
    await findings(x, "the 404 page");
    // The second round's states: quick match looking, the player's key
    // shown, the stop dialog, sign-in with a key, a waiting game's invite.
    await x.goto("/play");
    await x.getByRole("button", { name: "Quick match" }).click();
    await statusIs(x, "Looking for an opponent");
    await findings(x, "quick match looking for an opponent");
    await x.getByRole("button", { name: "Cancel" }).click();
    const you = x.getByRole("region", { name: "Player" });
    await you.getByLabel("Your name").fill("Ann");
    await you.getByRole("button", { name: "Play as Ann" }).click();
    await x.getByRole("dialog", { name: "Keep your player key" }).waitFor();
    await findings(x, "a new player's key, to keep");
    await keepKey(x);
    await you.getByRole("button", { name: "Show key" }).click();
    await findings(x, "the player's key shown");
    await you.getByRole("button", { name: "Stop playing as Ann" }).click();
    await findings(x, "the stop dialog");
    await x.getByRole("dialog").getByRole("button", { name: "Stop" }).click();
    await you.getByRole("button", { name: "Sign in with a key" }).click();
    await findings(x, "sign in with a key");
    await x.goto("/play/new?kind=gomoku&opponent=human&name=Ann");
    await x.getByLabel("Invite link").waitFor();
    await findings(x, "a waiting game with its invite");
    // A position without a game, analysed.
    await x.goto("/play/position?kind=connect_four&moves=4453");
    await x.getByRole("button", { name: "Analyze" }).click();
    await x.getByRole("list", { name: "Move evaluations" }).getByRole("listitem").first().waitFor();
    await findings(x, "a position and its analysis");
    await x.context().close();
    await o.context().close();
  });
}

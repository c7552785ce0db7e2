// Shared by the browser tests: the release binary on a free port with a
// temporary database, a static server for "another origin", and Chromium.
//
// TABULA_BIN names the binary (default ../target/release/tabula), CHROMIUM
// the browser (default: chromium on the PATH, as Debian's package installs
// it), SCREENSHOT_DIR where screenshots go (default test-results/).
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = dirname(fileURLToPath(import.meta.url));
export const bin = resolve(process.env.TABULA_BIN ?? join(here, "../../target/release/tabula"));
export const screenshotDir = resolve(process.env.SCREENSHOT_DIR ?? join(here, "../test-results"));

/** A free TCP port on 127.0.0.1. */
export async function freePort() {
  const server = createServer();
  await new Promise((done) => server.listen(0, "127.0.0.1", done));
  const { port } = server.address();
  await new Promise((done) => server.close(done));
  return port;
}

/** Starts the service; `env` adds variables (e.g. TABULA_CORS_ORIGINS). */
export async function startService(env = {}) {
  const dir = mkdtempSync(join(tmpdir(), "tabula-web-"));
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const run = async () => {
    const child = spawn(
      bin,
      ["--addr", `127.0.0.1:${port}`, "--database-url", `sqlite://${dir}/tabula.db`, "--log", "warn", "--bot-budget-ms", "50"],
      { env: { ...process.env, ...env }, stdio: ["ignore", "ignore", "inherit"] },
    );
    for (let i = 0; ; i++) {
      if (child.exitCode !== null) throw new Error(`${bin} exited with ${child.exitCode}`);
      try {
        if ((await fetch(`${base}/readyz`)).ok) return child;
      } catch {
        // not listening yet
      }
      if (i > 200) throw new Error("the service did not become ready");
      await new Promise((done) => setTimeout(done, 50));
    }
  };
  const halt = async (child) => {
    child.kill("SIGTERM");
    await new Promise((done) => (child.exitCode !== null ? done() : child.once("exit", done)));
  };
  let child = await run();
  return {
    base,
    /** Stops the service; `restart()` starts it again on the same port and database. */
    halt: () => halt(child),
    /** Freezes the process (it answers nothing, its connections stay open) or thaws it. */
    freeze: () => child.kill("SIGSTOP"),
    thaw: () => child.kill("SIGCONT"),
    async restart() {
      child = await run();
    },
    async stop() {
      await halt(child);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Serves one HTML page on another port: another origin than the service. */
export async function startStaticPage(html) {
  const server = createServer((_, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
  const port = await freePort();
  await new Promise((done) => server.listen(port, "127.0.0.1", done));
  return { origin: `http://127.0.0.1:${port}`, stop: () => new Promise((done) => server.close(done)) };
}

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM ?? execFileSync("sh", ["-c", "command -v chromium"], { encoding: "utf8" }).trim(),
    args: ["--no-sandbox", "--disable-dev-shm-usage"],
  });
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844 };

/** Waits until `check()` (run in the page) is truthy, failing after `ms`. */
export async function until(page, check, arg, ms = 5000) {
  await page.waitForFunction(check, arg, { timeout: ms });
}

/** The text of the page's one status element (waiting for it at most `ms`, when given). */
export async function statusText(page, ms) {
  return (await page.getByRole("status").textContent(ms === undefined ? {} : { timeout: ms })) ?? "";
}

/**
 * Waits until the page's status line reads `expected` (a string: the whole
 * text) or matches it (a RegExp), failing after `ms` with what it reads.
 * The page writes its status after it has read the game, which may come
 * after the load event: read it through this, not at once.
 */
export async function statusIs(page, expected, ms = 5000) {
  const want = typeof expected === "string" ? { text: expected } : { source: expected.source, flags: expected.flags };
  try {
    await page.waitForFunction(
      (w) => {
        const text = document.querySelector("[role=status]")?.textContent ?? "";
        return w.text !== undefined ? text === w.text : new RegExp(w.source, w.flags).test(text);
      },
      want,
      { timeout: ms },
    );
  } catch (e) {
    const now = await statusText(page, 1000).catch(() => null);
    throw new Error(`the status never read ${expected} within ${ms} ms; it reads ${JSON.stringify(now)}`, { cause: e });
  }
}

/** A new player's key is shown as it is made: checks the dialog shows
 * `key` (when given) and closes it with "I have kept it". */
export async function keepKey(page, key) {
  const dialog = page.getByRole("dialog", { name: "Keep your player key" });
  await dialog.waitFor();
  const shown = await dialog.getByLabel("Player key").inputValue();
  if (key !== undefined) assert.equal(shown, key);
  assert.ok(shown.startsWith("tpk_"), shown);
  await dialog.getByRole("button", { name: "I have kept it" }).click();
  await dialog.waitFor({ state: "detached" });
  return shown;
}

/** Plays as a new player named `name` from the lobby ("Play as …"): the
 * key is kept in this browser and shown once; answers the player kept. */
export async function playAs(page, name) {
  await page.goto("/play");
  await page.getByLabel("Your name").first().fill(name);
  await page.getByRole("button", { name: `Play as ${name}` }).click();
  await page.getByRole("region", { name: "Player" }).getByRole("link", { name }).waitFor();
  const player = JSON.parse(await page.evaluate(() => localStorage.getItem("tabula.player")));
  await keepKey(page, player.key);
  return player;
}

/** Waits until the page can play (a legal cell) or the round is over. */
export async function readyOrOver(page) {
  await until(
    page,
    () =>
      document.querySelector(".board .legal") !== null ||
      /wins|draw/.test(document.querySelector("[role=status]")?.textContent ?? ""),
    undefined,
    10000,
  );
}

/** The number of X and O stones on the board. */
export async function stones(page) {
  return page.locator(".board .stone").count();
}

/** A page in a context of its own (one person), on the service at `base`;
 * `options` go to the context (viewport, colour scheme, touch…). With
 * PLAY_FROM_DISK the page's script and style come from web/dist, so a
 * change of web/src is tested without building the binary. A script error
 * in the page fails the test. */
export async function openPage(browser, base, options = {}) {
  const context = await browser.newContext({ viewport: DESKTOP, baseURL: base, ...options });
  if (process.env.PLAY_FROM_DISK) {
    await context.route(/\/play\/play\.(js|css)$/, (route) =>
      route.fulfill({ path: join(here, "../dist", new URL(route.request().url()).pathname.split("/").pop()) }),
    );
  }
  const page = await context.newPage();
  page.on("pageerror", (e) => assert.fail(`page error: ${e.message}`));
  return page;
}

// A page on another origin calls the API from Chromium: allowed with
// TABULA_CORS_ORIGINS naming that origin, refused without it.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";

import { launch, startService, startStaticPage } from "./helpers.mjs";

// The page creates a game, reads the exposed Location and ETag, gets a
// problem's `code` from a refused move (a preflighted request with
// Authorization and Content-Type), and follows the event stream.
const PAGE = `<!doctype html><title>other origin</title><script>
window.run = async (api) => {
  const out = {};
  try {
    const created = await fetch(api + "/v1/games", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ kind: "tic_tac_toe" }),
    });
    out.status = created.status;
    out.location = created.headers.get("location");
    out.etag = created.headers.get("etag");
    const { game, token } = await created.json();
    const refused = await fetch(api + "/v1/games/" + game.id + "/moves", {
      method: "POST",
      headers: { authorization: "Bearer " + token, "content-type": "application/json", "idempotency-key": "k1" },
      body: JSON.stringify({ row: 0, col: 0 }),
    });
    out.refused = refused.status;
    out.code = (await refused.json()).code;
    out.event = await new Promise((done, fail) => {
      const source = new EventSource(api + "/v1/games/" + game.id + "/events?last_event_id=0");
      source.addEventListener("join", (e) => { source.close(); done(JSON.parse(e.data).type); });
      source.onerror = () => { source.close(); fail(new Error("event stream refused")); };
      setTimeout(() => fetch(api + "/v1/games/" + game.id + "/join", { method: "POST" }), 100);
    });
  } catch (e) {
    out.error = String(e);
  }
  return out;
};
</script>`;

let browser;
let other;

before(async () => {
  browser = await launch();
  other = await startStaticPage(PAGE);
});

after(async () => {
  await browser?.close();
  await other?.stop();
});

async function runFromOtherOrigin(api) {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(other.origin);
  const out = await page.evaluate((api) => window.run(api), api);
  await context.close();
  return out;
}

test("a page on an allowed origin calls the API, reads exposed headers and error codes, and follows events", async () => {
  const service = await startService({ TABULA_CORS_ORIGINS: other.origin });
  try {
    const out = await runFromOtherOrigin(service.base);
    assert.equal(out.error, undefined);
    assert.equal(out.status, 201);
    assert.match(out.location, /^\/v1\/games\//);
    assert.equal(out.etag, '"1"');
    assert.equal(out.refused, 409);
    assert.equal(out.code, "waiting_for_opponent");
    assert.equal(out.event, "join");
  } finally {
    await service.stop();
  }
});

test("without TABULA_CORS_ORIGINS the browser refuses the other origin's call", async () => {
  const service = await startService({ TABULA_CORS_ORIGINS: "" });
  try {
    const out = await runFromOtherOrigin(service.base);
    assert.match(out.error ?? "", /TypeError|Failed to fetch/);
    assert.equal(out.status, undefined);
  } finally {
    await service.stop();
  }
});

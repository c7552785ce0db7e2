// A swiss of the service's bots, created, filled, started and followed to its
// end through the generated client, with the standings it gives.
import assert from "node:assert/strict";
import { test } from "node:test";

import { bearer, createTabulaClient, must, TabulaError, type Standings, type Tournament } from "../src/index.js";

const baseUrl = process.env.BASE_URL;
if (!baseUrl) {
  throw new Error("set BASE_URL to the service under test, e.g. http://127.0.0.1:8080");
}
const client = createTabulaClient(baseUrl);

test("a swiss of bots runs to its end and ranks its entrants", async () => {
  const me = must(await client.POST("/v1/players", { body: { name: "Organiser" } }));
  const auth = { headers: bearer(me.key) };
  const created: Tournament = must(
    await client.POST("/v1/tournaments", {
      ...auth,
      body: {
        name: "Client swiss",
        kind: "tic_tac_toe",
        system: "swiss",
        rounds: 2,
        clock: { initial_ms: 60000, increment_ms: 0 },
      },
    }),
  );
  assert.equal(created.status, "open");
  const id = created.id;
  for (let i = 0; i < 4; i++) {
    const entrant = must(
      await client.POST("/v1/tournaments/{id}/entrants", {
        ...auth,
        params: { path: { id } },
        body: { bot: { level: "random" } },
      }),
    );
    assert.equal(entrant.player.bot, true);
  }
  // A problem comes back typed: a second start is refused.
  must(await client.POST("/v1/tournaments/{id}/start", { ...auth, params: { path: { id } } }));
  await assert.rejects(
    async () => must(await client.POST("/v1/tournaments/{id}/start", { ...auth, params: { path: { id } } })),
    (e: unknown) => e instanceof TabulaError && e.problem?.code === "tournament_started",
  );
  let t: Tournament = created;
  for (let i = 0; i < 600 && t.status !== "finished"; i++) {
    await new Promise((r) => setTimeout(r, 100));
    t = must(await client.GET("/v1/tournaments/{id}", { params: { path: { id } } }));
  }
  assert.equal(t.status, "finished");
  const standings: Standings = must(await client.GET("/v1/tournaments/{id}/standings", { params: { path: { id } } }));
  assert.equal(standings.items.length, 4);
  const total = standings.items.reduce((sum, line) => sum + line.points, 0);
  assert.equal(total, 4, "two games a round, a point each");
  const round = must(await client.GET("/v1/tournaments/{id}/rounds/{n}", { params: { path: { id, n: 1 } } }));
  assert.equal(round.pairings.length, 2);
});

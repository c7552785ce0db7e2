// A real game of Connect Four against a running service, through the client
// generated from the committed spec. BASE_URL names the service, e.g.
// BASE_URL=http://127.0.0.1:8080 npm test
//
// Only the generated types are used: a response shape, status or error code
// that the spec does not describe either fails to compile or fails here.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { test } from "node:test";

import { bearer, createTabulaClient, ifMatch, minimal, must, TabulaError, type Game, type Move } from "../src/index.js";

const baseUrl = process.env.BASE_URL;
if (!baseUrl) {
  throw new Error("set BASE_URL to the service under test, e.g. http://127.0.0.1:8080");
}
const client = createTabulaClient(baseUrl);

type Seat = { id: string; token: string; seat: "X" | "O" };

async function createConnectFour(): Promise<{ x: Seat; game: Game; etag: string | null; location: string | null }> {
  const { data, error, response } = await client.POST("/v1/games", {
    body: { kind: "connect_four", opponent: { type: "human" } },
  });
  assert.equal(response.status, 201, JSON.stringify(error));
  assert.ok(data, "a created game");
  return {
    x: { id: data.game.id, token: data.token, seat: data.seat },
    game: data.game,
    etag: response.headers.get("etag"),
    location: response.headers.get("location"),
  };
}

async function join(id: string): Promise<Seat> {
  // must(): the data, defined (a problem is thrown as a TabulaError).
  const data = must(await client.POST("/v1/games/{id}/join", { params: { path: { id } } }));
  return { id, token: data.token, seat: data.seat };
}

test("must() gives a checked answer's data, and throws a problem with its code", async () => {
  const created = must(await client.POST("/v1/games", { body: { kind: "tic_tac_toe" } }));
  assert.equal(created.game.status, "waiting");
  const full = must(await client.POST("/v1/games/{id}/join", { params: { path: { id: created.game.id } } }));
  assert.equal(full.seat, "O");
  await assert.rejects(
    async () => must(await client.POST("/v1/games/{id}/join", { params: { path: { id: created.game.id } } })),
    (e: unknown) => e instanceof TabulaError && e.status === 409 && e.problem?.code === "no_open_seat",
  );
  // A 204 under `Prefer: return=minimal` has no data to give.
  await assert.rejects(
    async () =>
      must(
        await client.POST("/v1/games/{id}/moves", {
          params: { path: { id: created.game.id } },
          headers: { ...bearer(created.token), ...minimal },
          body: { row: 1, col: 1 },
        }),
      ),
    (e: unknown) => e instanceof TabulaError && e.status === 204,
  );
});

async function play(seat: Seat, column: number): Promise<Game> {
  const { data, error, response } = await client.POST("/v1/games/{id}/moves", {
    params: { path: { id: seat.id } },
    headers: bearer(seat.token),
    body: { column },
  });
  assert.equal(response.status, 201, `${seat.seat} plays ${column}: ${JSON.stringify(error)}`);
  assert.ok(data);
  assert.equal(response.headers.get("etag"), ifMatch(data.game.version));
  assert.deepEqual(data.move.move, { column });
  assert.equal(data.move.player, seat.seat);
  assert.deepEqual(data.replies, []);
  return data.game;
}

test("two people play Connect Four to a win, with the documented refusals on the way", async () => {
  // Create: X's seat and token, the game's URL and version.
  const created = await createConnectFour();
  const { x } = created;
  assert.equal(created.game.status, "waiting");
  assert.equal(created.game.kind, "connect_four");
  assert.deepEqual(created.game.options, { rows: 6, columns: 7 });
  assert.equal(created.game.board.length, 6);
  assert.equal(created.game.ultimate, null);
  assert.equal(created.location, `/v1/games/${x.id}`);
  assert.equal(created.etag, ifMatch(created.game.version));
  assert.equal(x.seat, "X");

  // Before anyone joins, moves wait for the opponent.
  {
    const { error, response } = await client.POST("/v1/games/{id}/moves", {
      params: { path: { id: x.id } },
      headers: bearer(x.token),
      body: { column: 3 },
    });
    assert.equal(response.status, 409);
    assert.equal(error?.code, "waiting_for_opponent");
  }

  // Join: O's seat.
  const o = await join(x.id);
  assert.equal(o.seat, "O");

  // A wrong turn: O may not open.
  {
    const { error, response } = await client.POST("/v1/games/{id}/moves", {
      params: { path: { id: o.id } },
      headers: bearer(o.token),
      body: { column: 3 },
    });
    assert.equal(response.status, 409);
    assert.ok(error);
    assert.equal(error.code, "not_your_turn");
    assert.equal(error.turn, "X");
    assert.equal(response.headers.get("content-type"), "application/problem+json");
  }

  // Fill column 6, alternating, so that no one has four.
  let game: Game | undefined;
  for (let i = 0; i < 6; i++) {
    game = await play(i % 2 === 0 ? x : o, 6);
  }
  assert.ok(game);
  assert.equal(game.board[0], "......O");
  assert.equal(game.turn, "X");
  const fullColumn: Move = { column: 6 };
  assert.ok(!game.legal_moves.some((m) => JSON.stringify(m) === JSON.stringify(fullColumn)));

  // An illegal move: the column is full.
  {
    const { error, response } = await client.POST("/v1/games/{id}/moves", {
      params: { path: { id: x.id } },
      headers: bearer(x.token),
      body: fullColumn,
    });
    assert.equal(response.status, 422);
    assert.ok(error);
    assert.equal(error.code, "illegal_move");
    assert.equal(error.reason, "column_full");
    assert.equal(error.legal_moves?.length, 6);
  }

  // A stale If-Match: the game has moved on since version 2; nothing changes.
  const version = game.version;
  {
    const { error, response } = await client.POST("/v1/games/{id}/moves", {
      params: { path: { id: x.id }, header: { "If-Match": ifMatch(2), "Idempotency-Key": randomUUID() } },
      headers: bearer(x.token),
      body: { column: 0 },
    });
    assert.equal(response.status, 412);
    assert.ok(error);
    assert.equal(error.code, "version_mismatch");
    assert.equal(error.game?.version, version);
    assert.equal(response.headers.get("etag"), ifMatch(version));
  }

  // The current If-Match is accepted. Then X stacks column 0, O column 1.
  {
    const { data, response } = await client.POST("/v1/games/{id}/moves", {
      params: { path: { id: x.id }, header: { "If-Match": ifMatch(version) } },
      headers: bearer(x.token),
      body: { column: 0 },
    });
    assert.equal(response.status, 201);
    assert.equal(data?.game.version, version + 1);
  }
  await play(o, 1);
  await play(x, 0);
  await play(o, 1);
  await play(x, 0);
  await play(o, 1);
  game = await play(x, 0);

  // X wins with four in column 0.
  assert.equal(game.status, "won");
  assert.equal(game.winner, "X");
  assert.equal(game.end_reason, "line");
  assert.equal(game.turn, null);
  assert.deepEqual(
    game.winning_line?.map((c) => [c.row, c.col]).sort(),
    [
      [2, 0],
      [3, 0],
      [4, 0],
      [5, 0],
    ],
  );
  assert.deepEqual(game.legal_moves, []);

  // The round is over.
  {
    const { error, response } = await client.POST("/v1/games/{id}/moves", {
      params: { path: { id: o.id } },
      headers: bearer(o.token),
      body: { column: 2 },
    });
    assert.equal(response.status, 409);
    assert.equal(error?.code, "game_over");
  }

  // The game now, with its ETag.
  {
    const { data, response } = await client.GET("/v1/games/{id}", { params: { path: { id: x.id } } });
    assert.equal(response.status, 200);
    assert.ok(data);
    assert.equal(data.status, "won");
    assert.equal(response.headers.get("etag"), ifMatch(data.version));
  }

  // The history: 13 moves in order, the last X's winning disc.
  {
    const { data, response } = await client.GET("/v1/games/{id}/moves", { params: { path: { id: x.id } } });
    assert.equal(response.status, 200);
    assert.ok(data);
    assert.equal(data.items.length, 13);
    assert.deepEqual(
      data.items.map((m) => m.ply),
      Array.from({ length: 13 }, (_, i) => i + 1),
    );
    const last = data.items.at(-1);
    assert.equal(last?.player, "X");
    assert.deepEqual(last?.move, { column: 0 });
  }

  // And the position before the first move.
  {
    const { data, response } = await client.GET("/v1/games/{id}/positions/{ply}", {
      params: { path: { id: x.id, ply: 0 } },
    });
    assert.equal(response.status, 200);
    assert.ok(data?.board.every((row) => row === "......."));
  }

  // A token is needed to delete, and then the game is gone.
  {
    const { error, response } = await client.DELETE("/v1/games/{id}", { params: { path: { id: x.id } } });
    assert.equal(response.status, 401);
    assert.equal(error?.code, "missing_token");
  }
  {
    const { response } = await client.DELETE("/v1/games/{id}", {
      params: { path: { id: x.id } },
      headers: bearer(o.token),
    });
    assert.equal(response.status, 204);
    const gone = await client.GET("/v1/games/{id}", { params: { path: { id: x.id } } });
    assert.equal(gone.response.status, 404);
    assert.equal(gone.error?.code, "game_not_found");
  }
});

test("under Prefer: return=minimal a move is answered 204 with its ETag and no body", async () => {
  const { x } = await createConnectFour();
  const o = await join(x.id);
  const { data, response } = await client.POST("/v1/games/{id}/moves", {
    params: { path: { id: x.id }, header: minimal },
    headers: bearer(x.token),
    body: { column: 3 },
  });
  assert.equal(response.status, 204);
  assert.equal(data, undefined);
  assert.equal(response.headers.get("preference-applied"), "return=minimal");
  const etag = response.headers.get("etag");
  assert.ok(etag);
  // The next move, on that version, is played.
  const next = await client.POST("/v1/games/{id}/moves", {
    params: { path: { id: o.id }, header: { ...minimal, "If-Match": etag } },
    headers: bearer(o.token),
    body: { column: 3 },
  });
  assert.equal(next.response.status, 204, JSON.stringify(next.error));
  const read = await client.GET("/v1/games/{id}", { params: { path: { id: x.id } } });
  assert.ok(read.data);
  assert.equal(read.data.board[5], "...X...");
  assert.equal(read.data.board[4], "...O...");
  assert.equal(read.response.headers.get("etag"), ifMatch(read.data.version));
});

test("the kinds list the four games with their move shapes", async () => {
  const { data, response } = await client.GET("/v1/kinds");
  assert.equal(response.status, 200);
  assert.ok(data);
  assert.deepEqual(
    data.items.map((k) => [k.kind, k.move]),
    [
      ["tic_tac_toe", "cell"],
      ["connect_four", "column"],
      ["gomoku", "cell"],
      ["ultimate_tic_tac_toe", "board_cell"],
    ],
  );
});

test("a game set up from a line exports the same line, refuses a bad one by index, and is analyzed", async () => {
  // A line that ends the game: X takes the top row with its third move.
  const created = await client.POST("/v1/games", { body: { kind: "tic_tac_toe", moves: "14253" } });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  assert.ok(created.data);
  assert.equal(created.data.game.status, "won");
  assert.equal(created.data.game.winner, "X");
  assert.equal(created.data.game.version, 6);
  const id = created.data.game.id;

  const exported = await client.GET("/v1/games/{id}/notation", { params: { path: { id } } });
  assert.equal(exported.response.status, 200);
  assert.deepEqual(exported.data, {
    kind: "tic_tac_toe",
    options: { rows: 3, columns: 3 },
    round: 1,
    moves: "14253",
    result: "X",
  });

  // Once the round is over the analysis needs no token, and has no move.
  const over = await client.GET("/v1/games/{id}/analysis", { params: { path: { id }, query: { level: "hard" } } });
  assert.equal(over.response.status, 200, JSON.stringify(over.error));
  assert.deepEqual(over.data, { level: "hard", exact: true, moves: [] });

  // The first bad move of a line: its index and why.
  const bad = await client.POST("/v1/games", { body: { kind: "gomoku", moves: "h8 h8" } });
  assert.equal(bad.response.status, 422);
  assert.equal(bad.error?.code, "illegal_move");
  assert.equal(bad.error?.index, 1);
  assert.equal(bad.error?.reason, "occupied");

  // In progress: the token of the seat to move; the winning move comes first.
  const live = await client.POST("/v1/games", { body: { kind: "tic_tac_toe", moves: "1425", hotseat: true } });
  assert.ok(live.data);
  const analysis = await client.GET("/v1/games/{id}/analysis", {
    params: { path: { id: live.data.game.id }, query: { level: "perfect" } },
    headers: bearer(live.data.token),
  });
  assert.equal(analysis.response.status, 200, JSON.stringify(analysis.error));
  assert.ok(analysis.data);
  assert.equal(analysis.data.exact, true);
  assert.equal(analysis.data.moves.length, 5);
  assert.deepEqual(analysis.data.moves[0], {
    move: { row: 0, col: 2 },
    evaluation: { score: 1000, outcome: "win", plies: 1 },
  });
});

test("rules as a service: a position from a line, a batch, and a line's analysis, with nothing stored", async () => {
  const one = await client.GET("/v1/rules/{kind}/positions", {
    params: { path: { kind: "gomoku" }, query: { moves: "h8 i9", size: 9 } },
  });
  assert.equal(one.response.status, 200, JSON.stringify(one.error));
  assert.ok(one.data);
  assert.equal(one.data.ply, 2);
  assert.equal(one.data.turn, "X");
  assert.deepEqual(one.data.options, { rows: 9, columns: 9, size: 9, rule: "freestyle" });
  assert.match(one.response.headers.get("cache-control") ?? "", /immutable/);

  const batch = await client.POST("/v1/rules/{kind}/positions", {
    params: { path: { kind: "connect_four" } },
    body: { lines: ["4453", "4444444"] },
  });
  assert.equal(batch.response.status, 200, JSON.stringify(batch.error));
  assert.ok(batch.data);
  const [read, refused] = batch.data.items;
  assert.ok(read && "board" in read);
  assert.equal(read.moves, "4453");
  assert.ok(refused && "code" in refused);
  assert.equal(refused.code, "illegal_move");
  assert.equal(refused.index, 6);

  const analysis = await client.GET("/v1/rules/{kind}/analysis", {
    params: { path: { kind: "tic_tac_toe" }, query: { moves: "1425", level: "perfect" } },
  });
  assert.equal(analysis.response.status, 200, JSON.stringify(analysis.error));
  assert.ok(analysis.data);
  assert.equal(analysis.data.position.turn, "X");
  assert.equal(analysis.data.exact, true);
  assert.deepEqual(analysis.data.moves[0]?.move, { row: 0, col: 2 });
});

test("an operator registers, lists and deletes a webhook endpoint (ADMIN_KEY)", { skip: !process.env.ADMIN_KEY }, async () => {
  const admin = { headers: bearer(process.env.ADMIN_KEY ?? "") };
  // Nothing listens on port 9: deliveries fail and are retried until the endpoint goes.
  const created = await client.POST("/v1/webhooks", {
    ...admin,
    body: { url: "http://127.0.0.1:9/hook", events: ["game.ended"] },
  });
  assert.equal(created.response.status, 201, JSON.stringify(created.error));
  assert.ok(created.data);
  const webhook = created.data.webhook;
  assert.deepEqual(webhook.events, ["game.ended"]);
  assert.match(created.data.secret, /^whsec_/);

  const listed = await client.GET("/v1/webhooks", admin);
  assert.ok(listed.data?.items.some((w) => w.id === webhook.id));

  const log = await client.GET("/v1/webhooks/{id}/deliveries", {
    ...admin,
    params: { path: { id: webhook.id }, query: { limit: 10 } },
  });
  assert.equal(log.response.status, 200);
  assert.ok(Array.isArray(log.data?.items));

  const refused = await client.POST("/v1/webhooks", {
    ...admin,
    body: { url: "ftp://example.com/", events: ["game.ended"] },
  });
  assert.equal(refused.response.status, 422);
  assert.equal(refused.error?.code, "webhook_url_refused");

  const unauthorized = await client.GET("/v1/webhooks");
  assert.equal(unauthorized.response.status, 401);

  const deleted = await client.DELETE("/v1/webhooks/{id}", { ...admin, params: { path: { id: webhook.id } } });
  assert.equal(deleted.response.status, 204);
  const again = await client.DELETE("/v1/webhooks/{id}", { ...admin, params: { path: { id: webhook.id } } });
  assert.equal(again.response.status, 404);
  assert.equal(again.error?.code, "webhook_not_found");
});

test("two players play a rated game: keys bind the seats, ratings move, the leaderboard is read", async () => {
  const newPlayer = async (name: string) => {
    const { data, response } = await client.POST("/v1/players", { body: { name } });
    assert.equal(response.status, 201);
    assert.ok(data);
    assert.ok(data.key.startsWith("tpk_"));
    return data;
  };
  const ann = await newPlayer("Ann");
  const bob = await newPlayer("Bob");
  const refused = await client.POST("/v1/games", { body: { kind: "connect_four", rated: true } });
  assert.equal(refused.response.status, 401);
  assert.equal(refused.error?.code, "player_required");
  const clockless = await client.POST("/v1/games", {
    headers: bearer(ann.key),
    body: { kind: "connect_four", rated: true },
  });
  assert.equal(clockless.error?.code, "clock_required");
  const created = await client.POST("/v1/games", {
    headers: bearer(ann.key),
    body: { kind: "connect_four", rated: true, clock: { initial_ms: 300_000, increment_ms: 2000 } },
  });
  assert.ok(created.data);
  const id = created.data.game.id;
  assert.equal(created.data.game.rated, true);
  assert.equal(created.data.game.seats.X.player, ann.player.id);
  const joined = await client.POST("/v1/games/{id}/join", { params: { path: { id } }, headers: bearer(bob.key) });
  assert.equal(joined.data?.game.seats.O.name, "Bob");
  // The players' keys play their seats.
  const x: Seat = { id, token: ann.key, seat: "X" };
  const o: Seat = { id, token: bob.key, seat: "O" };
  for (let i = 0; i < 3; i++) {
    await play(x, 0);
    await play(o, 1);
  }
  const won = await play(x, 0);
  assert.equal(won.winner, "X");
  assert.ok(won.rating_change);
  assert.equal(won.rating_change.X.before, 1500);
  assert.ok(won.rating_change.X.after > 1500);
  const read = await client.GET("/v1/players/{id}", { params: { path: { id: ann.player.id } } });
  assert.equal(read.data?.ratings["connect_four"]?.games, 1);
  assert.equal(read.data?.ratings["connect_four"]?.provisional, true);
  const games = await client.GET("/v1/players/{id}/games", { params: { path: { id: bob.player.id } } });
  assert.deepEqual(games.data?.items.map((g) => g.id), [id]);
  const board = await client.GET("/v1/kinds/{kind}/leaderboard", { params: { path: { kind: "connect_four" } } });
  assert.ok(board.data);
  assert.ok(board.data.items.every((row) => row.deviation <= 110));
});

// A typed client for Tabula. Every type comes from `schema.ts`, which
// `npm run generate` produces from the committed openapi/openapi.json: if the
// spec and this code disagree, `tsc` fails. (A `.ts` file, not a `.d.ts`:
// tsc emits its declarations into dist, so the package's users get them.)
import createClient, { type Client } from "openapi-fetch";

import type { components, paths } from "./schema.js";

export type { components, operations, paths } from "./schema.js";

export type Schemas = components["schemas"];
export type Game = Schemas["Game"];
export type Move = Schemas["MoveBody"];
export type Problem = Schemas["Problem"];
export type ErrorCode = Schemas["ErrorCode"];
export type Notation = Schemas["NotationView"];
export type Analysis = Schemas["AnalysisView"];
/** A webhook endpoint (operators: `--admin-key`). */
export type Webhook = Schemas["WebhookView"];
/** The body of a webhook delivery, as the endpoint receives it. */
export type WebhookEvent = Schemas["WebhookEventBody"];
/** A player, with their ratings by kind. */
export type Player = Schemas["Player"];
/** A kind's leaderboard: players who are not provisional, best first. */
export type Leaderboard = Schemas["Leaderboard"];
/** How a rated round moved both seats' ratings. */
export type RatingChange = Schemas["RatingChangeView"];
export type TabulaClient = Client<paths>;

/** A client for the service at `baseUrl`, e.g. `http://127.0.0.1:8080`. */
export function createTabulaClient(baseUrl: string, init: { fetch?: typeof fetch } = {}): TabulaClient {
  return createClient<paths>({ baseUrl, ...init });
}

/** The `Authorization` header of a seat token. */
export function bearer(token: string): { Authorization: string } {
  return { Authorization: `Bearer ${token}` };
}

/** The `If-Match` value for a version: the game's `ETag`. */
export function ifMatch(version: number): string {
  return `"${version}"`;
}

/**
 * `Prefer: return=minimal` for a move (or a bot move): the answer is 204 with
 * the game's new `ETag` and no body, for a client that keeps its own copy of
 * the game. Spread it with the other headers: `{ ...bearer(t), ...minimal }`.
 */
export const minimal = { Prefer: "return=minimal" } as const;

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
/** A tournament: swiss, round robin or arena. */
export type Tournament = Schemas["Tournament"];
/** A tournament's standings, best first. */
export type Standings = Schemas["Standings"];
/** A swiss or round robin round's pairings. */
export type Round = Schemas["Round"];
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

/** An error answer, thrown by [`must`]: the HTTP status and the
 * problem+json body (its `code` is the one to branch on). */
export class TabulaError extends Error {
  readonly status: number;
  readonly problem: Problem | undefined;

  constructor(status: number, problem: Problem | undefined) {
    super(problem ? `${status} ${problem.code}: ${problem.detail}` : `HTTP ${status} without the data asked for`);
    this.name = "TabulaError";
    this.status = status;
    this.problem = problem;
  }
}

/**
 * The data of an answer, typed as defined: throws a `TabulaError` for an
 * error answer, and for a success that has no body (the 204 of a move under
 * `Prefer: return=minimal`: read its `ETag` from `response` instead).
 *
 * ```ts
 * const { game } = must(await client.POST("/v1/games/{id}/moves", { … }));
 * ```
 */
export function must<D, E>(answer: { data?: D; error?: E; response: Response }): NonNullable<D> {
  const { data, error, response } = answer;
  if (error !== undefined || data === undefined || data === null) {
    throw new TabulaError(response.status, error as Problem | undefined);
  }
  return data;
}

/**
 * `Prefer: return=minimal` for a move (or a bot move): the answer is 204 with
 * the game's new `ETag` and no body, for a client that keeps its own copy of
 * the game. Spread it with the other headers: `{ ...bearer(t), ...minimal }`.
 */
export const minimal = { Prefer: "return=minimal" } as const;

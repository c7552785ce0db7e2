// One game on screen: its state in one place (the game, the seat held, its
// moves, the hint, the position looked at, the review, the stream's state)
// and the elements it is drawn into. The game's modules read and change it,
// each importing only those below it:
//   game.ts (the page: loading, the stream; the controller)
//     → game-actions.ts (what the controls do)
//     → game-sync.ts (a newer state taken, what goes with it read)
//     → game-render.ts (drawing) → review.ts (the analysis) → this file.
// Drawing and the review reach the controls and drawing itself through
// `st.controls`, which the controller fills: no module imports one above it.
import { type Game, type Held, type Level, type Move, type MoveRecord, type Schemas, type Side } from "./api.js";
import { moveName, notation } from "./board.js";
import { h } from "./dom.js";
import { LEVELS } from "./ui.js";

/** A move with its evaluation. */
export type Scored = { move: Move; evaluation: Schemas["EvaluationView"] };
/** A move of a finished round against the best one there. */
export type Reviewed = { player: Side; played: Scored; best: Scored; level: Level };

/** What the screen's controls do (`game-actions.ts`) and how the screen is
 * drawn again (`game-render.ts`), handed to it by the page (`game.ts`). */
export type Controls = {
  redraw: (st: GameScreen) => void;
  act: (st: GameScreen, what: "restart" | "resign") => Promise<void>;
  claim: (st: GameScreen, result: "win" | "draw") => Promise<void>;
  answer: (st: GameScreen, what: "accept" | "decline" | "withdraw") => Promise<void>;
  askHint: (st: GameScreen) => Promise<void>;
  cancel: (st: GameScreen) => Promise<void>;
  copyNotation: (st: GameScreen) => Promise<void>;
  joinHere: (st: GameScreen, name: string, nameInput: HTMLInputElement) => Promise<void>;
  offer: (st: GameScreen, type: "draw" | "takeback" | "restart") => Promise<void>;
  pickRound: (st: GameScreen, round: number) => Promise<void>;
  rematch: (st: GameScreen) => Promise<void>;
  step: (st: GameScreen, round: number, ply: number) => Promise<void>;
  tap: (st: GameScreen, m: Move) => void;
  toRematch: (st: GameScreen, next: string) => void;
};

/** A past position looked at: round, ply, the round's length, the game then. */
export type View = { round: number; ply: number; plies: number; game: Game };

export type GameScreen = {
  id: string;
  controls: Controls;
  game: Game;
  held: Held | null;
  /** The round's moves, for the move list and the last-move marker (read
   * back after any load, so a reload or a spectator sees them too). */
  moves: MoveRecord[];
  last: Move[];
  /** A move just played: animated once, on the next drawing of the board. */
  fresh: Move | null;
  confirm: "resign" | "restart" | null;
  /** The hint levels of this kind (drawn with all until /v1/kinds answers). */
  levels: Level[];
  hint: { move: Move; level: Level } | null;
  hintLevel: Level;
  /** A move of this page is on its way: the stream waits. */
  busy: boolean;
  /** A line said under the board (a bot's reply, an offer declined). */
  note: string;
  /** The position being looked at: null for the live game. */
  view: View | null;
  live: "connecting" | "live" | "reconnecting" | "closed";
  /** After a round: each of its moves against the best one (null until asked). */
  review: Reviewed[] | null;
  reviewing: AbortController | null;
  /** Hints and threat marks: off by default between two people. */
  showThreats: boolean;
  /** The score of a series of rematches (`Ann 2 – 1 Bob`), or "". */
  series: string;
  /** The seats' players' ratings in this kind, shown beside their names. */
  ratings: Map<string, number>;
  ratedAt: string;
  /** On a touch screen a cell smaller than a fingertip takes two taps. */
  pointer: string;
  aim: string | null;
  el: {
    title: HTMLElement;
    info: HTMLElement;
    invite: HTMLElement;
    clocks: HTMLElement;
    boardBox: HTMLElement;
    threats: HTMLElement;
    offerBox: HTMLElement;
    controls: HTMLElement;
    dialogBox: HTMLElement;
    stepper: HTMLElement;
    moveList: HTMLElement;
    notationBox: HTMLElement;
    reviewBox: HTMLElement;
    /** A claim when the side to move is gone: the time left, then the buttons. */
    claim: HTMLElement;
  };
  /** What `el.claim` shows: nothing, the wait, or the buttons. */
  claimShown: "" | "wait" | "open";
};

/** The screen of `game` as this browser first sees it. */
export function newScreen(id: string, game: Game, held: Held | null, controls: Controls): GameScreen {
  const people = !held?.hotseat && game.seats.X.type === "human" && game.seats.O.type === "human";
  return {
    id,
    controls,
    game,
    held,
    moves: [],
    last: [],
    fresh: null,
    confirm: null,
    levels: LEVELS,
    hint: null,
    hintLevel: "medium",
    busy: false,
    note: "",
    view: null,
    live: "connecting",
    review: null,
    reviewing: null,
    showThreats: !people,
    series: "",
    ratings: new Map(),
    ratedAt: "",
    pointer: "mouse",
    aim: null,
    el: {
      title: h("h2", {}),
      info: h("div", { class: "info" }),
      invite: h("div", { class: "invite" }),
      clocks: h("div", { class: "clocks" }),
      boardBox: h("div", { class: "board-box" }),
      threats: h("p", { class: "threats", "aria-live": "polite" }),
      offerBox: h("div", { class: "offer-box" }),
      controls: h("div", { class: "controls" }),
      dialogBox: h("div", {}),
      stepper: h("nav", { class: "stepper", "aria-label": "History" }),
      moveList: h("ol", { class: "moves", role: "list", "aria-label": "Moves" }),
      notationBox: h("span", { class: "notation" }),
      reviewBox: h("section", { class: "review", "aria-label": "Analysis" }),
      claim: h("div", { class: "claim" }),
    },
    claimShown: "",
  };
}

/** A move as the kind's notation writes it. */
export const notationOf = (st: GameScreen, m: Move) => notation({ kind: st.game.kind, size: st.game.options.rows }, m);

/** A move as the board labels it (`h8`, `column 4`). */
export const nameOf = (st: GameScreen, m: Move) => moveName({ kind: st.game.kind, size: st.game.options.rows }, m);

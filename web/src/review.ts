// After a round: every position analysed in turn, each move against the
// best one, the moment the game was lost, and a line of X's evaluation.
import { api, type Level, type Move, ok, type Schemas, type Side } from "./api.js";
import { moveKey } from "./board.js";
import { button, h } from "./dom.js";
import { type GameScreen, notationOf, type Reviewed } from "./game-screen.js";
import { showError } from "./shell.js";
import { kinds, levelsOf } from "./ui.js";

export const dropReview = (st: GameScreen) => {
  st.reviewing?.abort();
  st.reviewing = null;
  st.review = null;
};

/** Every position of the finished round analyzed in turn (no token needed
 * once it is over), at `perfect` where the kind has it, else `hard`: one
 * bot budget a position. */
export const analyze = async (st: GameScreen) => {
  const abort = new AbortController();
  st.reviewing = abort;
  st.review = [];
  const round = st.game.round;
  st.controls.redraw(st);
  try {
    // The kind's own levels (the page draws with all until they arrive).
    const offered = levelsOf(await kinds(), st.game.kind);
    const level: Level = offered.includes("perfect") ? "perfect" : offered.includes("hard") ? "hard" : (offered.at(-1) ?? "medium");
    for (const [ply, m] of st.moves.entries()) {
      const res = await ok(
        api.GET("/v1/games/{id}/analysis", { params: { path: { id: st.id }, query: { level, round, ply } }, signal: abort.signal }),
      );
      if (abort.signal.aborted) return;
      const played = res.moves.find((c) => sameMove(c.move, m.move));
      const best = res.moves[0];
      if (!played || !best) throw new Error(`move ${ply + 1} is not among the analysis' moves`);
      st.review.push({ player: m.player, played, best, level: res.level });
      renderReview(st);
    }
    st.reviewing = null;
    st.controls.redraw(st);
  } catch (e) {
    if (abort.signal.aborted) return;
    st.reviewing = null;
    st.review = null;
    st.controls.redraw(st);
    showError(e);
  }
};

export const renderReview = (st: GameScreen) => {
  if (!st.review) return void st.el.reviewBox.replaceChildren();
  st.el.reviewBox.className = "card review";
  const done = !st.reviewing;
  const lost = done ? momentLost(st.review, st.game.status === "won" ? (st.game.winner === "X" ? "O" : "X") : null) : null;
  const items = st.review.map((r, ply) => {
    const worse = !sameMove(r.played.move, r.best.move) && mistake(r.played.evaluation, r.best.evaluation);
    const label = `${ply + 1}. ${r.player} ${notationOf(st, r.played.move)}: ${evalText(r.played.evaluation)}${worse ? `; best ${notationOf(st, r.best.move)}: ${evalText(r.best.evaluation)}` : ""}`;
    return h(
      "li",
      { class: `${worse ? "worse" : ""}${ply === lost ? " lost" : ""}` },
      button(label, () => void st.controls.step(st, st.game.round, ply), { "aria-current": st.view?.round === st.game.round && st.view.ply === ply ? "step" : null }),
    );
  });
  const r = lost === null ? null : st.review[lost];
  const verdict = !done
    ? `Analyzing move ${st.review.length + 1} of ${st.moves.length}…`
    : r && lost !== null
      ? `The game was lost at move ${lost + 1}: ${r.player} played ${notationOf(st, r.played.move)} (${evalText(r.played.evaluation)}) where ${notationOf(st, r.best.move)} ${bestText(r.best.evaluation)}.`
      : st.game.status === "draw"
        ? "A draw: neither side let the game slip."
        : "No move is proven to have lost it at this level: the loser was behind from early on, or the search could not prove where it turned.";
  st.el.reviewBox.replaceChildren(
    h("h2", {}, "Analysis"),
    h("p", { class: "verdict-line", "aria-live": "polite" }, verdict),
    evalGraph(st.review, st.moves.length, lost),
    h("ol", { class: "review-list", role: "list", "aria-label": "Move evaluations" }, ...items),
    h("p", { class: "muted" }, `Evaluations at ${st.review[0]?.level ?? "the bot's"} level, for the side that moved; a click shows the position with the best move marked.`),
  );
};

export function sameMove(a: Move, b: Move): boolean {
  return moveKey(a) === moveKey(b);
}

/** An evaluation in words, for the side that moves; one the search did
 * not prove is a score, marked as such (`≈ +17`). */
export function evalText(e: Schemas["EvaluationView"]): string {
  if (e.outcome === "win") return e.plies === 1 ? "wins at once" : `wins in ${e.plies} plies`;
  if (e.outcome === "loss") return e.plies === 1 ? "loses in 1 ply" : `loses in ${e.plies} plies`;
  if (e.outcome === "draw") return "draws";
  return `≈ ${e.score > 0 ? "+" : e.score < 0 ? "−" : ""}${Math.abs(e.score)}`;
}

/** What the best move kept, after "where h8 …". */
export function bestText(e: Schemas["EvaluationView"]): string {
  if (e.outcome === "win") return `won (${evalText(e)})`;
  if (e.outcome === "draw") return "held the draw";
  return `was not proven lost (${evalText(e)})`;
}

/** Whether playing `played` rather than `best` was a mistake: a proven
 * loss where the best was not proven lost, a worse proven outcome, or
 * between two unproven scores a lower one. An unproven score is never
 * judged against a proven outcome. */
export function mistake(played: Schemas["EvaluationView"], best: Schemas["EvaluationView"]): boolean {
  const rank = { loss: 0, draw: 1, win: 2 } as const;
  if (played.outcome === "loss" && best.outcome !== "loss") return true;
  if (played.outcome && best.outcome) return rank[played.outcome] < rank[best.outcome];
  if (!played.outcome && !best.outcome) return best.score > played.score;
  return false;
}

/** Where the loser's game turned for good: the last of their moves that
 * made a position not proven lost for them into one proven lost (a loser
 * who was lost, got back into the game and threw it away again lost it at
 * the second). Nothing else is called the losing move. */
export function momentLost(review: Reviewed[], loser: Side | null): number | null {
  if (!loser) return null;
  for (let at = review.length - 1; at >= 0; at--) {
    const r = review[at];
    if (r && r.player === loser && r.played.evaluation.outcome === "loss" && r.best.evaluation.outcome !== "loss") return at;
  }
  return null;
}

/** X's evaluation after each move, as a small line: up is good for X. */
export function evalGraph(review: Reviewed[], plies: number, lost: number | null): SVGElement {
  const ns = "http://www.w3.org/2000/svg";
  const w = 300;
  const hgt = 60;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("viewBox", `0 0 ${w} ${hgt}`);
  svg.setAttribute("class", "eval-graph");
  svg.setAttribute("preserveAspectRatio", "xMinYMid meet");
  svg.setAttribute("aria-hidden", "true");
  const x = (ply: number) => (plies <= 1 ? w / 2 : (ply / (plies - 1)) * (w - 8) + 4);
  const y = (r: Reviewed) => {
    const e = r.played.evaluation;
    const mover = e.outcome === "win" ? 1000 : e.outcome === "loss" ? -1000 : e.outcome === "draw" ? 0 : Math.max(-1000, Math.min(1000, e.score));
    const forX = r.player === "X" ? mover : -mover;
    return hgt / 2 - (forX / 1000) * (hgt / 2 - 4);
  };
  const mid = document.createElementNS(ns, "line");
  const attrs = (e: Element, list: [string, string][]) => {
    for (const [k, v] of list) e.setAttribute(k, v);
  };
  attrs(mid, [["x1", "0"], ["x2", String(w)], ["y1", String(hgt / 2)], ["y2", String(hgt / 2)], ["class", "axis"]]);
  const line = document.createElementNS(ns, "polyline");
  line.setAttribute("points", review.map((r, i) => `${x(i).toFixed(1)},${y(r).toFixed(1)}`).join(" "));
  svg.append(mid, line);
  if (lost !== null && review[lost]) {
    const dot = document.createElementNS(ns, "circle");
    attrs(dot, [["cx", x(lost).toFixed(1)], ["cy", y(review[lost]).toFixed(1)], ["r", "4"], ["class", "lost"]]);
    svg.append(dot);
  }
  return svg;
}


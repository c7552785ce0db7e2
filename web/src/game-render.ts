// Drawing a game's screen: the status line and the tab's title, the board,
// the seats, the controls, the clocks, the move list, the history stepper,
// an offer received and the dialogs that ask first.
import { savedName } from "./account.js";
import { type Game, type Held, type Level, type Side } from "./api.js";
import { drawBoard, KIND_NAMES, moveKey } from "./board.js";
import { button, h } from "./dom.js";
import { type GameScreen, nameOf, notationOf } from "./game-screen.js";
import { analyze, evalText, mistake, renderReview, sameMove } from "./review.js";
import { copy, status } from "./shell.js";
import { field, offerWhat, openSeat, select, soundOn, toggleSound } from "./ui.js";

/** How a rated round moved the ratings: the viewer's own, or both. */
export function ratingText(g: Game, mine: Side | null): string {
  const c = g.rating_change;
  if (!c) return "";
  const move = (s: Side) => `${Math.round(c[s].before)} → ${Math.round(c[s].after)}`;
  return mine ? `; your rating ${move(mine)}` : `; ratings X ${move("X")}, O ${move("O")}`;
}

export function statusText(g: Game, held: Held | null): string {
  // A viewer holding one seat hears the result as theirs.
  const mine = held && !held.hotseat ? held.seat : null;
  if (g.status === "won") {
    const how =
      g.end_reason === "resignation"
        ? ` (${g.winner === "X" ? "O" : "X"} resigned)`
        : g.end_reason === "timeout"
          ? ` (${g.winner === "X" ? "O" : "X"} ran out of time)`
          : "";
    const left = g.end_reason === "abandoned" ? ` (${g.winner === "X" ? "O" : "X"} left; claimed)` : "";
    const verdict = mine ? (mine === g.winner ? "You won: " : "You lost: ") : "";
    return `${verdict}${g.winner} wins${how}${left}${ratingText(g, mine)}`;
  }
  if (g.status === "draw" && g.end_reason === "aborted") {
    return "Aborted: the round ended before both sides had moved, and counts for nothing";
  }
  if (g.status === "draw") {
    const why = g.end_reason === "agreement" ? " (agreed)" : g.end_reason === "abandoned" ? " (claimed: the other side left)" : "";
    return `${mine ? "Draw: " : ""}It's a draw between X and O${why}${ratingText(g, mine)}`;
  }
  const open = openSeat(g);
  if (g.status === "waiting" && open) {
    // Someone who holds no seat is the one it waits for (an invitee, a visitor).
    if (!held) return `${g.seats[open === "X" ? "O" : "X"].name ?? "A player"} waits for an opponent: join to play ${open}`;
    return `Waiting for ${open} to join; ${g.turn} to move`;
  }
  const who = g.turn ?? "X";
  const seat = g.seats[who];
  const you = held && (held.hotseat || held.seat === who) ? " (you)" : seat.type === "bot" ? " (bot)" : "";
  return `${who} to move${you}`;
}

/** A clock's time: `m:ss`, or `h:mm:ss`. */
const fmt = (ms: number) => {
  const t = Math.max(0, Math.ceil(ms / 1000));
  const hh = Math.floor(t / 3600);
  const mm = Math.floor((t % 3600) / 60);
  const ss = String(t % 60).padStart(2, "0");
  return hh ? `${hh}:${String(mm).padStart(2, "0")}:${ss}` : `${mm}:${ss}`;
};

/** Whether this is quick match's game, still waiting for an opponent. */
export const matching = (st: GameScreen) => st.held?.match !== undefined && !st.held.hotseat && st.game.status === "waiting";

export const canMove = (st: GameScreen, g: Game) =>
  !st.busy && !st.view && g.status === "in_progress" && st.held !== null && (st.held.hotseat || st.held.seat === g.turn);

export const people = (st: GameScreen) => !st.held?.hotseat && st.game.seats.X.type === "human" && st.game.seats.O.type === "human";

/** The clocks, counted down from the server's deadline for the side to
 * move; before a side's first move, its first-move deadline instead. */
export const renderClocks = (st: GameScreen) => {
  renderClaim(st);
  const c = st.game.clock;
  if (!c) return void st.el.clocks.replaceChildren();
  const deadline = c.deadline ? Date.parse(c.deadline) : null;
  const first = c.first_move_deadline && st.game.status === "in_progress" && st.game.turn ? Date.parse(c.first_move_deadline) : null;
  st.el.clocks.replaceChildren(
    ...(first === null
      ? []
      : [
          h(
            "span",
            { class: `clock first-move${first - Date.now() <= 10_000 ? " low" : ""}` },
            h("span", { class: "who" }, `${st.game.seats[st.game.turn as Side].name ?? st.game.turn}'s first move`),
            h("span", { role: "timer", "aria-label": "First move", "aria-live": "off" }, fmt(first - Date.now())),
          ),
        ]),
    ...(["X", "O"] as Side[]).map((s) => {
      const running = c.running === s && deadline !== null && st.game.status === "in_progress";
      const ms = running ? deadline - Date.now() : c[s].remaining_ms;
      const name = st.game.seats[s].name;
      return h(
        "span",
        { class: `clock${running ? " running" : ""}${ms <= 10_000 && running ? " low" : ""}` },
        h("span", { class: "who" }, `${name ? `${name} ` : ""}(${s})`),
        h("span", { role: "timer", "aria-label": `${s} clock`, "aria-live": "off" }, fmt(ms)),
      );
    }),
  );
};

export const render = (st: GameScreen) => {
  const shown = st.view?.game ?? st.game;
  st.el.title.textContent = `${KIND_NAMES[st.game.kind]}${st.game.kind === "gomoku" ? ` ${st.game.options.rows}x${st.game.options.columns} (${st.game.options.rule ?? "freestyle"})` : ""}${st.game.rated ? " · rated" : ""}`;
  const searching = !st.view && matching(st);
  status.textContent = st.view
    ? `Round ${st.view.round}, after move ${st.view.ply} of ${st.view.plies}: ${statusText(shown, null)}`
    : searching
      ? "Looking for an opponent"
      : statusText(st.game, st.held);
  // A tab in the background says when it is the viewer's move.
  const mine = st.game.status === "in_progress" && st.held !== null && (st.held.hotseat || st.held.seat === st.game.turn);
  document.title = `${mine ? "Your move · " : ""}Tabula: ${KIND_NAMES[st.game.kind]}`;
  const playable = new Set(canMove(st, st.game) ? st.game.legal_moves.map(moveKey) : []);
  // Keyboard players keep their place on the board across redraws.
  const active = document.activeElement;
  const focused = active instanceof HTMLElement && st.el.boardBox.contains(active) ? active.dataset.move : undefined;
  st.el.boardBox.replaceChildren(
    drawBoard(
      shown,
      {
        playable,
        threats: st.view || !st.showThreats ? [] : st.game.threats,
        hint: st.view ? (reviewAt(st, st.view)?.best.move ?? null) : (st.hint?.move ?? null),
        last: st.view ? [] : st.last,
        fresh: st.view ? null : st.fresh,
      },
      (m) => st.controls.tap(st, m),
    ),
  );
  st.fresh = null;
  const again = focused ? st.el.boardBox.querySelector<HTMLElement>(`[data-move="${focused}"]`) : null;
  if (again) {
    st.el.boardBox.querySelector('[tabindex="0"]')?.setAttribute("tabindex", "-1");
    again.setAttribute("tabindex", "0");
    again.focus();
  }
  const invitee = !st.held && st.game.status === "waiting" ? openSeat(st.game) : null;
  const role = st.held
    ? st.held.hotseat
      ? "You play both seats on this screen"
      : `You play ${st.held.seat}`
    : invitee
      ? `Join to play ${invitee}`
      : "You are watching";
  const seats = (["X", "O"] as Side[]).flatMap((s, i) => {
    const seat = st.game.seats[s];
    const sep = i ? " · " : "";
    if (seat.player) {
      const rating = st.ratings.get(seat.player);
      return [
        `${sep}${s}: `,
        h("a", { href: `/play/players/${encodeURIComponent(seat.player)}`, "data-link": "" }, seat.name ?? "player"),
        rating === undefined ? "" : ` (${Math.round(rating)})`,
      ];
    }
    return [`${sep}${s}: ${seat.type === "bot" ? `bot (${seat.level ?? "?"})` : seat.taken ? (seat.name ?? "human") : "open"}`];
  });
  // Help the other side asked the bots for in this round, when there is any.
  const helped = (["X", "O"] as Side[])
    .filter((s) => st.game.assistance_used[s] > 0 && !(st.held && (st.held.hotseat || st.held.seat === s)))
    .map((s) => {
      const n = st.game.assistance_used[s];
      return h("span", { class: "helped" }, `${st.game.seats[s].name ?? s} used the bots' help ${n} time${n === 1 ? "" : "s"} this round`);
    });
  const sound = h("input", { type: "checkbox", checked: soundOn() ? "" : null });
  sound.addEventListener("change", () => toggleSound(sound.checked));
  st.el.info.replaceChildren(
    h("span", {}, role),
    h("span", { class: "seats" }, ...seats),
    h("span", {}, `Round ${st.game.round}`),
    st.series ? h("span", { class: "series" }, st.series) : "",
    ...helped,
    h("span", { class: `live ${st.live}` }, st.live === "live" ? "● live" : st.live === "connecting" ? "○ connecting…" : "○ reconnecting…"),
    h("label", { class: "toggle sound" }, sound, " Sound"),
  );
  const reviewed = st.view ? reviewAt(st, st.view) : undefined;
  st.el.threats.textContent = st.view
    ? reviewed && !sameMove(reviewed.best.move, reviewed.played.move) && mistake(reviewed.played.evaluation, reviewed.best.evaluation)
      ? `Best here: ${notationOf(st, reviewed.best.move)} (${evalText(reviewed.best.evaluation)}); played ${notationOf(st, reviewed.played.move)} (${evalText(reviewed.played.evaluation)})`
      : ""
    : [
        st.note,
        ...(st.showThreats ? st.game.threats.map((t) => `${t.player} wins at ${nameOf(st, t.move)} next move`) : []),
        st.hint ? `Hint (${st.hint.level}): ${nameOf(st, st.hint.move)}` : "",
      ]
        .filter(Boolean)
        .join(". ");
  const actions: (HTMLElement | string)[] = [];
  const over = st.game.status === "won" || st.game.status === "draw";
  // Who comes to a waiting game joins first thing, above the board.
  const joining: HTMLElement[] = [];
  if (!st.held && openSeat(st.game) && st.game.status === "waiting") {
    const yourName = h("input", { type: "text", maxlength: "32", value: savedName(), class: "name" });
    joining.push(field("Your name", yourName), button("Join", () => void st.controls.joinHere(st, yourName.value.trim(), yourName), { class: "primary" }));
  }
  // After a round: a new game of the same terms, the seats swapped (once
  // per game), so that the other side moves first and a series is scored;
  // between two people an offer. It stays while earlier positions are looked at.
  // (While an offer is pending it is the answer that counts: its dialog.)
  if (st.held && over) {
    if (st.game.rematch) actions.push(button("Go to the rematch", () => void st.controls.toRematch(st, st.game.rematch as string), { class: "primary" }));
    else if (!st.game.offer || st.held.hotseat) actions.push(button("Rematch", () => void st.controls.rematch(st), { class: "primary" }));
  }
  if (st.held && !st.view) {
    if (canMove(st, st.game) && st.showThreats && !st.game.rated) {
      const lv = select("hint-level", st.levels.map((l) => [l, l]), st.levels.includes(st.hintLevel) ? st.hintLevel : (st.levels[0] ?? "easy"));
      lv.addEventListener("change", () => (st.hintLevel = lv.value as Level));
      actions.push(h("span", { class: "hint-box" }, button("Hint", () => void st.controls.askHint(st)), field("level", lv)));
    }
    if (st.game.status === "in_progress") actions.push(button("Resign", () => ((st.confirm = "resign"), render(st))));
    // Between two people a new round is agreed (an offer, or the rematch);
    // on one screen and against a bot, Restart.
    if (!people(st) && !st.game.rematch && (over || st.game.ply > 0)) {
      const again = () => (st.game.seats.X.type === "bot" || st.game.seats.O.type === "bot") && !over ? ((st.confirm = "restart"), render(st)) : void st.controls.act(st, "restart");
      actions.push(button("Restart", again));
    }
    if (people(st) && st.game.status === "in_progress" && !st.game.offer) actions.push(button("Offer draw", () => void st.controls.offer(st, "draw")));
    // Against a bot it takes back your last move and its reply; on one screen, the last move.
    if (st.game.status === "in_progress" && !st.game.offer) {
      const taken = st.held.hotseat ? st.game.ply > 0 : st.moves.some((m) => m.player === st.held?.seat);
      actions.push(button("Take back", () => void st.controls.offer(st, "takeback"), { disabled: taken ? null : "" }));
    }
    if (people(st) && st.game.status === "in_progress" && !st.game.offer) actions.push(button("Offer restart", () => void st.controls.offer(st, "restart")));
  }
  // No help reaches a rated round in progress (the API refuses it too).
  const rated = st.game.rated && st.game.status !== "won" && st.game.status !== "draw";
  if (st.held && !st.held.hotseat && !st.view && people(st) && !rated) {
    actions.push(
      h(
        "label",
        { class: "toggle" },
        h("input", { type: "checkbox", checked: st.showThreats ? "" : null }),
        " Hints and threats",
      ),
    );
  }
  if (st.game.ply > 0 || st.game.round > 1) actions.push(button("Copy notation", () => void st.controls.copyNotation(st)));
  if (roundOver(st) && st.moves.length > 0 && !st.review && !st.reviewing) actions.push(button("Analyze the game", () => void analyze(st)));
  actions.push(h("a", { href: "/play", "data-link": "" }, "Lobby"));
  st.el.controls.replaceChildren(...actions, st.el.notationBox);
  st.el.controls.querySelector<HTMLInputElement>(".toggle input")?.addEventListener("change", (e) => {
    st.showThreats = (e.target as HTMLInputElement).checked;
    render(st);
  });
  renderOffer(st);
  renderDialog(st);
  st.claimShown = "";
  renderClocks(st);
  renderMoves(st);
  renderStepper(st);
  renderReview(st);
  // A waiting game, first thing under its title: who it waits for, and a
  // way to call it off (deleted, back to the lobby).
  const open = openSeat(st.game);
  const waits = st.held && open && !st.held.hotseat && !st.view && st.game.status === "waiting" && st.game.seats[open].type === "human";
  st.el.invite.replaceChildren(
    ...(!waits
      ? joining
      : searching
        ? [h("span", {}, `Whoever asks for ${KIND_NAMES[st.game.kind]} next plays you here.`), button("Cancel", () => void st.controls.cancel(st))]
        : [
            h("span", {}, `Invite a friend to play ${open}: `),
            h("input", { readonly: "", value: inviteLink(st), "aria-label": "Invite link", class: "link" }),
            button("Copy link", () => void copy(inviteLink(st), "Copied the invite link")),
            button("Cancel", () => void st.controls.cancel(st)),
          ]),
  );
};

export const inviteLink = (st: GameScreen) =>
  `${location.origin}/play/games/${st.id}${st.held?.invite ? `#invite=${encodeURIComponent(st.held.invite)}` : ""}`;

/** The round's moves, paired by number as players write them (`1. 4 5`):
 * each move a button that shows the position after it. */
export const renderMoves = (st: GameScreen) => {
  const move = (i: number) => {
    const m = st.moves[i];
    if (!m) return "";
    return button(notationOf(st, m.move), () => void st.controls.step(st, st.game.round, i + 1), {
      "aria-label": `Move ${i + 1}, ${m.player}: ${notationOf(st, m.move)}`,
      "aria-current": st.view ? (st.view.ply === i + 1 ? "step" : null) : i === st.moves.length - 1 ? "step" : null,
    });
  };
  const pairs = Array.from({ length: Math.ceil(st.moves.length / 2) }, (_, n) =>
    h("li", {}, h("span", { class: "num" }, `${n + 1}.`), " ", move(2 * n), st.moves[2 * n + 1] ? " " : "", move(2 * n + 1)),
  );
  st.el.moveList.replaceChildren(...pairs);
};

/** The seat not to move may claim a round between two people without a
 * clock once the other has been gone long enough: the time left until
 * then, then `Claim victory` and `Claim a draw`. Drawn again only when what
 * it shows changes (a button keeps its focus), its countdown each tick. */
/** How long before a claim opens the page says when it will. */
const CLAIM_TOLD_MS = 4 * 60_000;

export const renderClaim = (st: GameScreen) => {
  const at = st.game.claimable_at ? Date.parse(st.game.claimable_at) : null;
  const mine = st.held && !st.held.hotseat && st.game.status === "in_progress" && st.game.turn !== st.held.seat;
  // The wait is told in its last minutes only: a move just made is no absence.
  const shown = at === null || !mine || st.view ? "" : Date.now() >= at ? "open" : at - Date.now() <= CLAIM_TOLD_MS ? "wait" : "";
  const other = st.game.turn ? (st.game.seats[st.game.turn].name ?? st.game.turn) : "";
  if (shown === "wait") {
    const left = `${other} has not moved for a while: if they do not, you may claim the game in ${fmt((at ?? 0) - Date.now())}`;
    if (st.claimShown === "wait") {
      const line = st.el.claim.querySelector("p");
      if (line) line.textContent = left;
      return;
    }
    st.el.claim.replaceChildren(h("p", { class: "muted" }, left));
  } else if (shown === "open" && st.claimShown !== "open") {
    st.el.claim.replaceChildren(
      h("p", {}, `${other} seems to have left. End the game:`),
      button("Claim victory", () => void st.controls.claim(st, "win"), { class: "primary" }),
      button("Claim a draw", () => void st.controls.claim(st, "draw")),
    );
  } else if (shown === "") {
    st.el.claim.replaceChildren();
  }
  st.claimShown = shown;
};

export const roundOver = (st: GameScreen) => st.game.status === "won" || st.game.status === "draw";


export const reviewAt = (st: GameScreen, v: { round: number; ply: number }) => (v.round === st.game.round ? st.review?.[v.ply] : undefined);

export const renderOffer = (st: GameScreen) => {
  const o = st.game.offer;
  // A rematch offered after the round is answered from any position looked at.
  if (!o || !st.held || st.held.hotseat || (st.view && o.type !== "rematch")) return void st.el.offerBox.replaceChildren();
  const what = offerWhat(o.type);
  if (o.by === st.held.seat) {
    st.el.offerBox.replaceChildren(h("p", {}, `You offered ${what}. `, button("Withdraw", () => void st.controls.answer(st, "withdraw"))));
  } else {
    st.el.offerBox.replaceChildren(
      h(
        "div",
        { role: "alertdialog", "aria-label": `${o.by} offers ${what}`, class: "dialog" },
        h("p", {}, `${st.game.seats[o.by].name ?? o.by} offers ${what}.`),
        button("Accept", () => void st.controls.answer(st, "accept"), { class: "primary" }),
        button("Decline", () => void st.controls.answer(st, "decline")),
      ),
    );
  }
};

export const renderDialog = (st: GameScreen) => {
  if (!st.confirm) return void st.el.dialogBox.replaceChildren();
  const what = st.confirm;
  const text = what === "resign" ? "Resign this round? Your opponent wins it." : "Restart? This round is lost for good.";
  const yes = what === "resign" ? "Resign" : "Restart";
  st.el.dialogBox.replaceChildren(
    h(
      "div",
      { role: "dialog", "aria-modal": "true", "aria-label": `${yes}?`, class: "dialog" },
      h("p", {}, text),
      button(yes, () => ((st.confirm = null), void st.controls.act(st, what)), { class: "danger" }),
      button("Cancel", () => ((st.confirm = null), render(st))),
    ),
  );
  st.el.dialogBox.querySelector<HTMLElement>("button:last-child")?.focus();
};

export const renderStepper = (st: GameScreen) => {
  const round = st.view?.round ?? st.game.round;
  const ply = st.view?.ply ?? st.game.ply;
  const plies = st.view?.plies ?? st.game.ply;
  const go = (r: number, p: number) => void st.controls.step(st, r, p);
  const rounds = select("round", Array.from({ length: st.game.round }, (_, i): [string, string] => [String(i + 1), `Round ${i + 1}`]), String(round));
  rounds.addEventListener("change", () => void st.controls.pickRound(st, Number(rounds.value)));
  st.el.stepper.replaceChildren(
    st.game.round > 1 ? field("Round", rounds) : "",
    button("«", () => go(round, 0), { "aria-label": "First position", disabled: ply === 0 ? "" : null }),
    button("‹", () => go(round, ply - 1), { "aria-label": "Previous move", disabled: ply === 0 ? "" : null }),
    h("span", { class: "ply" }, `Move ${ply} of ${plies}`),
    button("›", () => go(round, ply + 1), { "aria-label": "Next move", disabled: ply >= plies ? "" : null }),
    button("»", () => go(round, plies), { "aria-label": "Last position", disabled: !st.view ? "" : null }),
  );
};

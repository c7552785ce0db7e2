// A position without a game (/play/position?kind=…&moves=…&size=…): a line
// pasted or clicked out on the board, the position the rules make of it,
// and its analysis. Nothing is stored; the address is the position, so it
// can be shared. Through /v1/rules/{kind}/positions and …/analysis.
import { api, ApiFailure, type Kind, type Level, ok, type Schemas } from "./api.js";
import { drawBoard, KIND_NAMES, moveKey, moveName, notation } from "./board.js";
import { button, h } from "./dom.js";
import { clearError, copy, main, showError, status } from "./shell.js";
import { evalText } from "./review.js";
import { field, kinds, KINDS, levelsOf, select } from "./ui.js";

type Position = Schemas["Position"];
type Analysis = Schemas["LineAnalysis"];

/** The position the address names: its kind, line and Gomoku size. */
type Asked = { kind: Kind; moves: string; size: number };

function asked(params: URLSearchParams): Asked {
  const kind = (KINDS as string[]).includes(params.get("kind") ?? "") ? (params.get("kind") as Kind) : "connect_four";
  const size = Number(params.get("size") ?? 15);
  return { kind, moves: params.get("moves") ?? "", size: Number.isInteger(size) ? size : 15 };
}

function address(a: Asked): string {
  const q = new URLSearchParams({ kind: a.kind, moves: a.moves });
  if (a.kind === "gomoku") q.set("size", String(a.size));
  return `/play/position?${q.toString()}`;
}

/** A move as the board names its cell, with its notation where that
 * differs (`board 5, cell 3 (53)`). */
function said(setup: { kind: Kind; size: number }, m: Schemas["MoveBody"]): string {
  const name = moveName(setup, m);
  return setup.kind === "connect_four" || setup.kind === "gomoku" ? name : `${name} (${notation(setup, m)})`;
}

/** The screen: a form for the line, the board, and the analysis. */
export async function showPosition(params: URLSearchParams): Promise<void> {
  document.title = "Tabula: a position";
  const info = await kinds();
  let now = asked(params);
  const kind = select("kind", KINDS.map((k) => [k, KIND_NAMES[k]]), now.kind);
  const moves = h("input", { name: "moves", type: "text", value: now.moves, autocomplete: "off", spellcheck: "false" });
  const size = h("input", { name: "size", type: "number", min: "5", max: "25", value: String(now.size) });
  const sizeField = field("Size", size);
  const level = select("level", [], "medium");
  const boardBox = h("div", { class: "board-box" });
  const summary = h("p", { class: "verdict-line" });
  const analysisBox = h("div", {});
  const form = h(
    "form",
    { class: "card", "aria-label": "Position" },
    h("h2", {}, "A position"),
    h("p", { class: "muted" }, "Paste a line in the kind's notation (as Copy notation gives it), or click moves on the board."),
    field("Kind", kind),
    field("Moves", moves),
    sizeField,
    h("div", { class: "row" }, h("button", { type: "submit" }, "Show"), button("Copy link", () => void copy(location.href))),
  );
  const analyse = h(
    "section",
    { class: "card review study" },
    h("h2", {}, "Analysis"),
    h("div", { class: "row" }, field("Level", level), button("Analyze", () => void runAnalysis())),
    analysisBox,
  );
  main.replaceChildren(h("section", { class: "card" }, summary, boardBox), form, analyse);

  const setLevels = () => {
    const offered = levelsOf(info, now.kind);
    const best: Level = offered.includes("perfect") ? "perfect" : "hard";
    level.replaceChildren(...offered.map((l) => h("option", { value: l, selected: l === best ? "" : null }, l)));
    sizeField.hidden = now.kind !== "gomoku";
  };

  let shown: Position | null = null;
  const draw = (p: Position, best: Schemas["MoveBody"] | null) => {
    const setup = { kind: p.kind, size: p.options.size ?? 15 };
    const playable = new Set(p.legal_moves.map(moveKey));
    boardBox.replaceChildren(
      drawBoard(p, { playable, threats: p.threats, hint: best, last: [] }, (m) => {
        // A click plays the move: the line grows by it.
        // Each move clicked is a step of the browser's history: Back undoes it.
        const sep = p.kind === "gomoku" || p.kind === "ultimate_tic_tac_toe" ? " " : "";
        void load({ ...now, moves: now.moves ? `${now.moves}${sep}${notation(setup, m)}` : notation(setup, m) }, true);
      }),
    );
    const told =
      p.status === "won" ? `${p.winner} won` : p.status === "draw" ? "Draw" : `${p.turn} to move`;
    const threats = p.threats.map((t) => `${t.player} wins at ${moveName(setup, t.move)}`);
    summary.textContent = `${KIND_NAMES[p.kind]}, move ${p.ply}: ${told}.${threats.length ? ` ${threats.join("; ")}.` : ""}`;
    status.textContent = told;
  };

  const load = async (a: Asked, step = false) => {
    now = a;
    if (step) history.pushState(null, "", address(a));
    else history.replaceState(null, "", address(a));
    moves.value = a.moves;
    kind.value = a.kind;
    setLevels();
    analysisBox.replaceChildren();
    const query = a.kind === "gomoku" ? { moves: a.moves, size: a.size } : { moves: a.moves };
    try {
      shown = await ok(api.GET("/v1/rules/{kind}/positions", { params: { path: { kind: a.kind }, query } }));
      clearError();
      draw(shown, null);
    } catch (e) {
      // Nothing of the position before stays: the board and the status go,
      // and the API's reason is told with the move it stopped at.
      shown = null;
      boardBox.replaceChildren();
      status.textContent = "";
      const problem = e instanceof ApiFailure ? e.problem : undefined;
      const detail = problem?.detail?.replaceAll("`", "") ?? "";
      if (typeof problem?.index === "number" && detail) {
        // The reason, with the move it stopped at (the API's detail names it).
        const n = problem.index + 1;
        const said = detail.toLowerCase().includes(`move ${n}`) ? detail : `move ${n}: ${detail}`;
        summary.textContent = `${said.charAt(0).toUpperCase()}${said.slice(1)}.`;
      } else {
        summary.textContent = "This line is not a game of the kind.";
        showError(e);
      }
    }
  };

  const runAnalysis = async () => {
    if (!shown) return;
    const query = { moves: now.moves, level: level.value as Level, ...(now.kind === "gomoku" ? { size: now.size } : {}) };
    analysisBox.replaceChildren(h("p", { "aria-live": "polite" }, "Analyzing…"));
    try {
      const res: Analysis = await ok(api.GET("/v1/rules/{kind}/analysis", { params: { path: { kind: now.kind }, query } }));
      const setup = { kind: res.position.kind, size: res.position.options.size ?? 15 };
      const best = res.moves[0]?.move ?? null;
      draw(res.position, best);
      analysisBox.replaceChildren(
        h("p", { "aria-live": "polite" }, res.moves.length ? `Best: ${moveName(setup, best!)}${res.exact ? " (every result proven)" : ""}.` : "The game is over: no move to evaluate."),
        h(
          "ol",
          { class: "review-list", role: "list", "aria-label": "Move evaluations" },
          ...res.moves.map((m) => h("li", {}, `${said(setup, m.move)}: ${evalText(m.evaluation)}`)),
        ),
      );
    } catch (e) {
      analysisBox.replaceChildren();
      showError(e);
    }
  };

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void load({ kind: kind.value as Kind, moves: moves.value.trim(), size: Number(size.value) || 15 });
  });
  kind.addEventListener("change", () => void load({ kind: kind.value as Kind, moves: "", size: Number(size.value) || 15 }));
  await load(now);
}

// Boards of the four kinds, drawn to scale with CSS grids of buttons. The
// board is a `role="grid"` named after its kind; every cell is a button
// named as the contract says ("Column 4", "Row 3, column 5", "Board 5,
// cell 3", Gomoku's by its coordinate "h8"); cells that cannot be played now are `aria-disabled`, and the
// arrow keys move between cells.
import { type Game, type Kind, type Move, type Side } from "./api.js";
import { h } from "./dom.js";

export const KIND_NAMES: Record<Kind, string> = {
  tic_tac_toe: "Tic-tac-toe",
  connect_four: "Connect Four",
  gomoku: "Gomoku",
  ultimate_tic_tac_toe: "Ultimate tic-tac-toe",
};

/** One key per move, to compare moves. */
export function moveKey(m: Move): string {
  if ("column" in m) return `c${m.column}`;
  if ("board" in m) return `b${m.board}.${m.cell}`;
  return `r${m.row}.${m.col}`;
}

/** A move as its cell is named: Gomoku's coordinate (`h8`), else in
 * words, 1-based (`column 4`, `row 2, column 3`, `board 5, cell 3`). */
export function moveName(setup: { kind: Kind; size: number }, m: Move): string {
  if ("column" in m) return `column ${m.column + 1}`;
  if ("board" in m) return `board ${m.board + 1}, cell ${m.cell + 1}`;
  if (setup.kind === "gomoku") return notation(setup, m);
  return `row ${m.row + 1}, column ${m.col + 1}`;
}

/** A move in the kind's notation (the API's `/notation`): Connect Four
 * `1`..`7`, tic-tac-toe `1`..`9`, Gomoku a letter and a row counted from the
 * bottom (`h8`), Ultimate the board's and the cell's digits (`53`). */
export function notation(setup: { kind: Kind; size: number }, m: Move): string {
  if ("column" in m) return String(m.column + 1);
  if ("board" in m) return `${m.board + 1}${m.cell + 1}`;
  if (setup.kind === "gomoku") return `${String.fromCharCode(97 + m.col)}${setup.size - m.row}`;
  return String(m.row * 3 + m.col + 1);
}

/** The 9x9 coordinates of an ultimate move. */
function ultimateCell(board: number, cell: number): [number, number] {
  return [3 * Math.floor(board / 3) + Math.floor(cell / 3), 3 * (board % 3) + (cell % 3)];
}

/** The row a Connect Four disc dropped in `column` lands on, or -1. */
function landing(board: string[], column: number): number {
  for (let r = board.length - 1; r >= 0; r--) if (board[r]?.[column] === ".") return r;
  return -1;
}

/** The board after `player` plays `m` (drawn before the answer comes). */
export function applyLocally(game: Game, m: Move, player: Side): string[] {
  const board = game.board.slice();
  let r: number;
  let c: number;
  if ("column" in m) [r, c] = [landing(board, m.column), m.column];
  else if ("board" in m) [r, c] = ultimateCell(m.board, m.cell);
  else [r, c] = [m.row, m.col];
  const row = board[r];
  if (row !== undefined) board[r] = row.slice(0, c) + player + row.slice(c + 1);
  return board;
}

export type Marks = {
  /** Moves that can be played now (empty: the board is read-only). */
  playable: Set<string>;
  threats: { player: Side; move: Move }[];
  hint: Move | null;
  last: Move[];
  /** The move just played, drawn with a short animation (once). */
  fresh?: Move | null;
};

type Cell = { r: number; c: number; key: string; name: string };

const stone = (ch: string | undefined): HTMLElement | null =>
  // The letter is drawn by CSS (`.stone.X::before`): the cell's name says it.
  ch === "X" || ch === "O" ? h("span", { class: `stone ${ch}`, "aria-hidden": "true" }) : null;

/** What a board is drawn from: a game, or a position without one. */
export type Drawn = Pick<Game, "kind" | "board" | "ultimate" | "status" | "winning_line">;

/** Draws `game` (the live game, a past position, or a line's) with `marks`. */
export function drawBoard(game: Drawn, marks: Marks, play: (m: Move) => void): HTMLElement {
  const kind = game.kind;
  const threatKeys = new Map<string, Side>();
  for (const t of marks.threats) threatKeys.set(moveKey(t.move), t.player);
  const hintKey = marks.hint ? moveKey(marks.hint) : null;
  const lastKeys = new Set(marks.last.map(moveKey));
  // The very last move carries `aria-current` (one cell).
  const lastMove = marks.last.at(-1);
  const currentKey = lastMove ? moveKey(lastMove) : null;
  const freshKey = marks.fresh ? moveKey(marks.fresh) : null;
  const winning = new Set((game.winning_line ?? []).map((p) => `${p.row}.${p.col}`));

  // `inGrid`: the cell is a gridcell of the board's rows (not for Ultimate's
  // small cells, which sit in a group inside one of the board's gridcells).
  const button = (cell: Cell, move: Move, content: (HTMLElement | null)[], extra: string, title?: string, inGrid = true) => {
    const playable = marks.playable.has(cell.key);
    const threat = threatKeys.get(cell.key);
    const classes = ["cell", extra];
    if (playable) classes.push("legal");
    if (threat) classes.push(`threat threat-${threat}`);
    if (cell.key === hintKey) classes.push("hint");
    if (lastKeys.has(cell.key)) classes.push("last");
    if (cell.key === freshKey) classes.push("fresh");
    const b = h(
      "button",
      {
        type: "button",
        class: classes.join(" "),
        "aria-label": cell.name,
        "aria-disabled": playable ? null : "true",
        "data-r": String(cell.r),
        "data-c": String(cell.c),
        "data-move": cell.key,
        "aria-current": cell.key === currentKey ? "true" : null,
        tabindex: "-1",
        title: title ?? null,
      },
      ...content,
    );
    b.addEventListener("click", () => {
      if (marks.playable.has(cell.key)) play(move);
    });
    return h("div", { role: inGrid ? "gridcell" : null, class: "gc" }, b);
  };

  let grid: HTMLElement;
  if (kind === "connect_four") {
    const rows = game.board.length;
    const cols = game.board[0]?.length ?? 7;
    const columns: HTMLElement[] = [];
    for (let c = 0; c < cols; c++) {
      const discs: HTMLElement[] = [];
      const contents: string[] = [];
      const land = landing(game.board, c);
      for (let r = 0; r < rows; r++) {
        const ch = game.board[r]?.[c];
        if (ch === "X" || ch === "O") contents.push(ch);
        const cls = ["slot"];
        if (winning.has(`${r}.${c}`)) cls.push("win");
        if (r === land) cls.push("landing");
        // The disc the last move dropped: the top one of its column.
        if (currentKey === `c${c}` && r === land + 1) cls.push("top");
        discs.push(h("span", { class: cls.join(" "), "aria-hidden": "true" }, stone(ch)));
      }
      const filled = contents.length;
      const name = `Column ${c + 1}`;
      const column = button({ r: 0, c, key: `c${c}`, name }, { column: c }, discs, "column", `${name}: ${filled} of ${rows} filled`);
      // How far the disc just dropped falls: from above the top row to its slot.
      if (freshKey === `c${c}`) column.querySelector<HTMLElement>(".column")?.style.setProperty("--drop", String(land + 2));
      columns.push(column);
    }
    grid = h("div", { class: "c4" }, h("div", { role: "row" }, ...columns));
    grid.style.setProperty("--cols", String(cols));
    grid.style.setProperty("--rows", String(rows));
  } else if (kind === "ultimate_tic_tac_toe") {
    const outer = game.ultimate;
    const rows: HTMLElement[] = [];
    for (let br = 0; br < 3; br++) {
      const boards: HTMLElement[] = [];
      for (let bc = 0; bc < 3; bc++) {
        const b = 3 * br + bc;
        const result = outer?.boards[b] ?? null;
        const active = game.status === "in_progress" && (outer?.active_board == null ? result === null : outer.active_board === b);
        const cells: HTMLElement[] = [];
        for (let cell = 0; cell < 9; cell++) {
          const [r, c] = ultimateCell(b, cell);
          const ch = game.board[r]?.[c];
          const name = `Board ${b + 1}, cell ${cell + 1}${ch === "X" || ch === "O" ? `, ${ch}` : ""}`;
          cells.push(button({ r, c, key: `b${b}.${cell}`, name }, { board: b, cell }, [stone(ch)], "small", undefined, false));
        }
        const cls = ["inner"];
        if (active) cls.push("active");
        if (result) cls.push(result === "draw" ? "done drawn" : `done won-${result}`);
        if (winning.has(`${br}.${bc}`)) cls.push("win");
        const label = `Board ${b + 1}${result === "draw" ? ", drawn" : result ? `, won by ${result}` : active ? ", active" : ""}`;
        boards.push(
          h(
            "div",
            { role: "gridcell", class: "gc" },
            h(
              "div",
              { role: "group", class: cls.join(" "), "aria-label": label },
              ...cells,
              result ? h("span", { class: "verdict", "aria-hidden": "true" }, result === "draw" ? "–" : result) : null,
            ),
          ),
        );
      }
      rows.push(h("div", { role: "row", class: "urow" }, ...boards));
    }
    grid = h("div", { class: "ultimate" }, ...rows);
  } else {
    const rows: HTMLElement[] = [];
    const n = game.board.length;
    const cols = game.board[0]?.length ?? n;
    for (let r = 0; r < n; r++) {
      const cells: HTMLElement[] = [];
      for (let c = 0; c < cols; c++) {
        const ch = game.board[r]?.[c];
        const at = kind === "gomoku" ? notation({ kind, size: n }, { row: r, col: c }) : `Row ${r + 1}, column ${c + 1}`;
        const name = `${at}${ch === "X" || ch === "O" ? `, ${ch}` : ""}`;
        const extra = winning.has(`${r}.${c}`) ? "win" : "";
        cells.push(button({ r, c, key: `r${r}.${c}`, name }, { row: r, col: c }, [stone(ch)], extra));
      }
      rows.push(h("div", { role: "row", class: "grow" }, ...cells));
    }
    grid = h("div", { class: kind === "gomoku" ? "gomoku" : "ttt" }, ...rows);
    grid.style.setProperty("--cols", String(cols));
  }
  const board = h("div", { role: "grid", class: `board ${kind}`, "aria-label": `${KIND_NAMES[kind]} board` }, grid);
  board.addEventListener("keydown", (e) => arrows(board, e));
  // One cell is in the tab order: the last move's, else the centre's (the
  // middle column in Connect Four), else the first one.
  const rowsN = game.board.length;
  const colsN = game.board[0]?.length ?? rowsN;
  const centre = kind === "connect_four" ? `[data-move="c${Math.floor(colsN / 2)}"]` : `[data-r="${Math.floor(rowsN / 2)}"][data-c="${Math.floor(colsN / 2)}"]`;
  const first =
    board.querySelector<HTMLElement>('.cell[aria-current="true"]') ?? board.querySelector<HTMLElement>(`.cell${centre}`) ?? board.querySelector<HTMLElement>(".cell");
  first?.setAttribute("tabindex", "0");
  if (kind !== "gomoku") return board;
  // Gomoku's coordinates, as its notation counts them: letters along the
  // bottom, numbers from 1 at the bottom (drawn only; cells keep their names).
  const n = game.board.length;
  const cols = game.board[0]?.length ?? n;
  const numbers = h("div", { class: "nums", "aria-hidden": "true" }, ...Array.from({ length: n }, (_, r) => h("span", {}, String(n - r))));
  const letters = h(
    "div",
    { class: "lets", "aria-hidden": "true" },
    ...Array.from({ length: cols }, (_, c) => h("span", {}, String.fromCharCode(97 + c))),
  );
  numbers.style.setProperty("--cols", String(cols));
  letters.style.setProperty("--cols", String(cols));
  board.classList.add("framed");
  board.append(numbers, letters);
  return board;
}

/** Arrow keys move the focus to the next cell in that direction; Home and
 * End to the first and last cell of the row. */
function arrows(board: HTMLElement, e: KeyboardEvent): void {
  const step: Record<string, [number, number]> = {
    ArrowUp: [-1, 0],
    ArrowDown: [1, 0],
    ArrowLeft: [0, -1],
    ArrowRight: [0, 1],
  };
  const from = e.target as HTMLElement;
  if ((e.key === "Home" || e.key === "End") && from.dataset.r) {
    const row = [...board.querySelectorAll<HTMLElement>(`[data-r="${from.dataset.r}"]`)].sort((a, b) => Number(a.dataset.c) - Number(b.dataset.c));
    const next = e.key === "Home" ? row[0] : row.at(-1);
    if (!next) return;
    e.preventDefault();
    from.setAttribute("tabindex", "-1");
    next.setAttribute("tabindex", "0");
    next.focus();
    return;
  }
  const d = step[e.key];
  if (!d || !from.dataset.r) return;
  e.preventDefault();
  let r = Number(from.dataset.r);
  let c = Number(from.dataset.c);
  for (let i = 0; i < 30; i++) {
    r += d[0];
    c += d[1];
    const next = board.querySelector<HTMLElement>(`[data-r="${r}"][data-c="${c}"]`);
    if (next) {
      from.setAttribute("tabindex", "-1");
      next.setAttribute("tabindex", "0");
      next.focus();
      return;
    }
    if (r < 0 || c < 0) return;
  }
}

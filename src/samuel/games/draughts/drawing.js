// The page's drawing of English draughts' board (served as /game/drawing.js after app.js, whose
// helpers it uses: make, VIEW, app, sideName). A drawing says where each square is, draws the
// board, a square, a piece and the last move's mark, and gives the tallies under the board and
// the hint for a person's move; app.js does the rest from the JSON API.
"use strict";

// English draughts: 8 x 8 squares, the 32 dark ones numbered 1-32 as in PDN (docs/rules-draughts.md):
// seen from White's side, 1-4 on the top row (b8, d8, f8, h8), 29-32 on the bottom (a1 ... g1).
// Black starts on 1-12 at the top and moves down; Flip turns the board round.
const DRAUGHTS = {
  label: "The board: 8 by 8 squares, the dark ones numbered 1 to 32",
  margin: 24,
  cell: 64,
  pointRadius: 32,

  cellOf(square) {
    const i = Number(square) - 1;
    const row = Math.floor(i / 4);
    const column = 2 * (i % 4) + (row % 2 === 0 ? 1 : 0);
    return app.flipped ? [7 - row, 7 - column] : [row, column];
  },

  coordinates(square) {
    const [row, column] = this.cellOf(square);
    return [this.margin + this.cell * (column + 0.5), this.margin + this.cell * (row + 0.5)];
  },

  background(svg) {
    make("rect", { x: 0, y: 0, width: VIEW, height: VIEW, rx: 14, class: "board-frame" }, svg);
    const size = 8 * this.cell;
    make("rect", { x: this.margin, y: this.margin, width: size, height: size,
      class: "light-square" }, svg);
    const labels = make("g", { class: "draughts-labels" }, svg);
    const files = "abcdefgh";
    for (let k = 0; k < 8; k++) {
      const file = app.flipped ? files[7 - k] : files[k];
      const rank = app.flipped ? k + 1 : 8 - k;
      const centre = this.margin + this.cell * (k + 0.5);
      make("text", { x: centre, y: VIEW - 7, "text-anchor": "middle" }, labels).textContent = file;
      make("text", { x: 12, y: centre + 5, "text-anchor": "middle" }, labels).textContent =
        String(rank);
    }
  },

  square(group, square) {
    const [cx, cy] = this.coordinates(square);
    const half = this.cell / 2;
    make("rect", { x: cx - half, y: cy - half, width: this.cell, height: this.cell,
      class: "hit dark-square" }, group);
    make("text", { x: cx - half + 3, y: cy - half + 12, class: "square-number" }, group)
      .textContent = square;
  },

  lastMark(group, cx, cy) {
    const half = this.cell / 2;
    make("rect", { x: cx - half, y: cy - half, width: this.cell, height: this.cell,
      class: "last-square" }, group);
  },

  piece(group, piece, x, y) {
    const node = make("g", { class: `piece draughts-piece ${piece.side} ${piece.piece}`,
      transform: `translate(${x} ${y})` }, group);
    make("circle", { r: 23, class: "disc" }, node);
    make("circle", { r: 16, class: "groove" }, node);
    if (piece.piece === "king") {
      make("path", { d: "M -11 6 L -13 -7 L -5.5 -1 L 0 -10 L 5.5 -1 L 13 -7 L 11 6 Z",
        class: "crown" }, node);
    }
  },

  tallies(game) {
    return app.info.sides.map((side) => {
      const pieces = game.board.filter((p) => p.side === side);
      const kings = pieces.filter((p) => p.piece === "king").length;
      const men = pieces.length - kings;
      return {
        label: sideName(side),
        count: `${men} ${men === 1 ? "man" : "men"}, ${kings} ${kings === 1 ? "king" : "kings"}`,
        icons: pieces.map((p) => `disc ${side} ${p.piece}`),
      };
    });
  },

  // Why a piece of the side to move cannot move, after "That man cannot move".
  whyCannotMove(moves) {
    return moves.some((move) => move.captured.length > 0) ? ": a capture is compulsory" : "";
  },

  turnHint(game, you) {
    if (app.via.length > 0) return `${you}: go on jumping, click the next landing square`;
    if (game.legal_move_paths.some((move) => move.captured.length > 0)) {
      return `${you}: capture (captures are compulsory)`;
    }
    return `${you}: move a piece one square diagonally`;
  },
};

useDrawing(DRAUGHTS);

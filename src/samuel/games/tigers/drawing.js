// The page's drawing of Tigers & Sheep's board (served as /game/drawing.js after app.js, whose
// helpers it uses: make, VIEW, app). A drawing says where each square is, draws the board, a
// square, a piece and the last move's mark, and gives the tallies under the board and the hint
// for a person's move; app.js does the rest from the JSON API.
"use strict";

// Tigers & Sheep: 25 points joined by lines, a1 at the bottom left.
const TIGERS = {
  label: "The board: 25 points joined by lines",
  files: "abcde",
  size: 5,
  margin: 70,
  step: 105,
  pointRadius: 50,

  coordinates(point) {
    const x = this.files.indexOf(point[0]);
    const y = Number(point[1]) - 1;
    const sx = app.flipped ? this.size - 1 - x : x;
    const sy = app.flipped ? y : this.size - 1 - y;
    return [this.margin + this.step * sx, this.margin + this.step * sy];
  },

  background(svg) {
    make("rect", { x: 0, y: 0, width: VIEW, height: VIEW, rx: 18, class: "board-bg" }, svg);
    const lines = make("g", { class: "lines" }, svg);
    const pointName = (x, y) => this.files[x] + (y + 1);
    const join = (a, b) => {
      const [x1, y1] = this.coordinates(a);
      const [x2, y2] = this.coordinates(b);
      make("line", { x1, y1, x2, y2 }, lines);
    };
    for (let i = 0; i < this.size; i++) {
      join(pointName(0, i), pointName(this.size - 1, i));
      join(pointName(i, 0), pointName(i, this.size - 1));
    }
    join("a1", "e5");
    join("a5", "e1");
    join("a3", "c5");
    join("c5", "e3");
    join("e3", "c1");
    join("c1", "a3");
    const labels = make("g", { class: "labels" }, svg);
    for (let i = 0; i < this.size; i++) {
      const [fx] = this.coordinates(pointName(i, 0));
      const file = make("text", { x: fx, y: 548, "text-anchor": "middle" }, labels);
      file.textContent = this.files[i];
      const [, ry] = this.coordinates(pointName(0, i));
      const rank = make("text", { x: 16, y: ry + 6, "text-anchor": "middle" }, labels);
      rank.textContent = String(i + 1);
    }
  },

  square(group, point) {
    const [cx, cy] = this.coordinates(point);
    make("circle", { cx, cy, r: this.pointRadius, class: "hit" }, group);
    make("circle", { cx, cy, r: 6, class: "dot" }, group);
  },

  lastMark(group, cx, cy) {
    make("circle", { cx, cy, r: 42, class: "last-ring" }, group);
  },

  piece(group, piece, x, y) {
    if (piece.piece === "tiger") drawTiger(group, x, y);
    else drawSheep(group, x, y);
  },

  tallies(game) {
    return [
      { label: "Sheep in hand", count: String(game.sheep_in_hand),
        icons: Array(game.sheep_in_hand).fill("sheep") },
      { label: "Captured", count: `${game.captured} of 5`,
        icons: Array(game.captured).fill("sheep taken") },
    ];
  },

  turnHint(game, you) {
    if (game.side_to_move === "sheep" && game.sheep_in_hand > 0) {
      return `${you}: place a sheep on an empty point`;
    }
    if (game.side_to_move === "sheep") return `${you}: move a sheep along a line`;
    return `${you}: move a tiger, or jump a sheep to capture it`;
  },
};

function drawTiger(group, x, y) {
  const piece = make("g", { class: "piece tiger", transform: `translate(${x} ${y})` }, group);
  make("circle", { r: 33, class: "tiger-body" }, piece);
  for (const d of [
    "M -24 -14 q 9 3 13 11", "M 24 -14 q -9 3 -13 11",
    "M -27 6 q 10 -1 15 5", "M 27 6 q -10 -1 -15 5",
    "M -6 -31 q 6 6 0 13", "M 6 -31 q -6 6 0 13",
  ]) {
    make("path", { d, class: "tiger-stripe" }, piece);
  }
  make("circle", { r: 4.2, cx: -10, cy: -2, class: "tiger-eye" }, piece);
  make("circle", { r: 4.2, cx: 10, cy: -2, class: "tiger-eye" }, piece);
  make("path", { d: "M -6 12 l 6 5 l 6 -5 z", class: "tiger-nose" }, piece);
}

function drawSheep(group, x, y) {
  const piece = make("g", { class: "piece sheep", transform: `translate(${x} ${y})` }, group);
  for (let i = 0; i < 10; i++) {
    const angle = (i / 10) * 2 * Math.PI;
    make("circle", { r: 9, cx: 22 * Math.cos(angle), cy: 22 * Math.sin(angle),
      class: "sheep-wool" }, piece);
  }
  make("circle", { r: 24, class: "sheep-wool" }, piece);
  make("ellipse", { rx: 11, ry: 13, cy: 2, class: "sheep-face" }, piece);
  make("circle", { r: 2.6, cx: -4.5, cy: -1, class: "sheep-eye" }, piece);
  make("circle", { r: 2.6, cx: 4.5, cy: -1, class: "sheep-eye" }, piece);
}

useDrawing(TIGERS);

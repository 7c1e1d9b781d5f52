// The page's drawing of backgammon's board (served as /game/drawing.js after app.js and dice.js,
// whose diceBoard draws any board of 24 points): X's points 1-24 name the squares (O's point p
// is X's 25 - p), X's 13-24 along the top and 12-1 along the bottom, X's home at the bottom
// right; each side's bar in the middle (bar-x above, where X's checkers enter from) and its
// tray on the right (off-x at the bottom, by X's home).
"use strict";

useDrawing(diceBoard({
  label: "The backgammon board: X's points 1 to 24, the bar and the trays",
  bar: true,
  upper: "-o", // the squares of O's bar and tray are drawn above, X's below
}));

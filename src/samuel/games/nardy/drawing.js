// The page's drawing of long nardy's board (served as /game/drawing.js after app.js and dice.js,
// whose diceBoard draws any board of 24 points): White's points 1-24 name the squares (Black's
// point p is White's p + 12 or p - 12), White's 13-24 along the top (its head, 24, at the top
// right), 12-1 along the bottom (its home at the bottom right, Black's head at the bottom
// left); no bar; each side's tray on the right (off-white at the bottom, off-black above).
"use strict";

useDrawing(diceBoard({
  label: "The long nardy board: White's points 1 to 24 and the trays",
  bar: false,
  upper: "-black",
}));

/* English draughts perft in plain C99: the same bitboard algorithm as
 * src/samuel/games/draughts/kernels.py, to measure how far the numba kernels are from C.
 *
 * Square i (0-31) is PDN square i + 1. A position is black, white, kings (32-bit masks) and
 * black_to_move. Steps are found by shifting whole bitboards; captures by a depth-first search
 * over jumps, every path a separate move; a man crowned by a capture
 * stops. A move is origin | target << 5 | jumps << 10 | direction[j] << (14 + 2j). Moves are
 * generated into a per-ply buffer and the last ply is bulk-counted. Draws are ignored.
 *
 * Build: gcc -O2 -o perft_draughts perft_draughts.c     Run: ./perft_draughts DEPTH
 * Prints: DEPTH COUNT SECONDS
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SQUARES 32
#define FULL 0xFFFFFFFFull
#define MAX_MOVES 128
#define MAX_DEPTH 64
#define BLACK_CROWN_ROW (0xFull << 28)
#define WHITE_CROWN_ROW 0xFull

static int step[SQUARES][4], jump_over[SQUARES][4], jump_land[SQUARES][4];
/* The bitboard shifts, as constants (numba sees its tables as constants too): the neighbours
 * in direction d of squares on even rows (0, 2, ...) are (set & even_from[d]) shifted by
 * even_shift[d], on odd rows likewise; build_tables checks these against the geometry. */
static const uint64_t even_from[4] = {0x0F0F0F00, 0x07070700, 0x0F0F0F0F, 0x07070707};
static const uint64_t odd_from[4] = {0xE0E0E0E0, 0xF0F0F0F0, 0x00E0E0E0, 0x00F0F0F0};
static const int even_shift[4] = {-4, -3, 4, 5};
static const int odd_shift[4] = {-5, -4, 3, 4};
static const int opposite[4] = {3, 2, 1, 0};
static int64_t moves[MAX_DEPTH][MAX_MOVES];

static int square_at(int row, int column)
{
    if (row < 0 || row > 7 || column < 0 || column > 7 || (row + column) % 2 == 0)
        return -1;
    return 4 * row + column / 2;
}

/* Directions: 0 up-left, 1 up-right, 2 down-left, 3 down-right ("down" towards square 32). */
static void build_tables(void)
{
    static const int dirs[4][2] = {{-1, -1}, {-1, 1}, {1, -1}, {1, 1}};
    for (int i = 0; i < SQUARES; i++) {
        int r = i / 4, c = 2 * (i % 4) + (r % 2 == 0 ? 1 : 0);
        for (int d = 0; d < 4; d++) {
            int near = square_at(r + dirs[d][0], c + dirs[d][1]);
            int far = square_at(r + 2 * dirs[d][0], c + 2 * dirs[d][1]);
            step[i][d] = near;
            jump_over[i][d] = near >= 0 && far >= 0 ? near : -1;
            jump_land[i][d] = near >= 0 && far >= 0 ? far : -1;
            if (near < 0)
                continue;
            uint64_t from = r % 2 == 0 ? even_from[d] : odd_from[d];
            int shift = r % 2 == 0 ? even_shift[d] : odd_shift[d];
            if (!((from >> i) & 1) || near - i != shift) {
                fprintf(stderr, "shift table wrong at square %d, direction %d\n", i + 1, d);
                exit(1);
            }
        }
    }
}

static inline uint64_t shift_towards(uint64_t squares, int d)
{
    uint64_t even = squares & even_from[d], odd = squares & odd_from[d];
    int a = even_shift[d], b = odd_shift[d];
    even = a > 0 ? even << a : even >> -a;
    odd = b > 0 ? odd << b : odd >> -b;
    return (even | odd) & FULL;
}

static inline int lowest(uint64_t mask) { return __builtin_ctzll(mask); }

static uint64_t jumpers(uint64_t own, uint64_t opponent, uint64_t kings, uint64_t empty,
                        int first)
{
    uint64_t found = 0;
    for (int d = 0; d < 4; d++) {
        uint64_t movers = (d == first || d == first + 1) ? own : own & kings;
        int back = opposite[d];
        found |= shift_towards(shift_towards(empty, back) & opponent, back) & movers;
    }
    return found;
}

/* Every capture sequence of the piece on origin into out[n..] (at most capacity written);
 * returns the new count. Depth-first without a stack: the path so far is the move's code, and
 * stepping back undoes its last jump. */
static int capture_sequences(int origin, int is_king, int first, uint64_t opponent,
                             uint64_t empty, uint64_t crown_row, int64_t *out, int n,
                             int capacity)
{
    int low = is_king ? 0 : first, high = is_king ? 3 : first + 1;
    int square = origin, depth = 0, d = low, went_on = 0;
    uint64_t taken = 0;
    int64_t path = origin;
    for (;;) {
        if (d > high) {
            if (depth > 0 && !went_on) {
                if (n < capacity)
                    out[n] = path | ((int64_t)square << 5) | ((int64_t)depth << 10);
                n++;
            }
            if (depth == 0)
                return n;
            depth--;
            int last = (path >> (14 + 2 * depth)) & 3;
            path ^= (int64_t)last << (14 + 2 * depth);
            square = jump_land[square][opposite[last]];
            taken ^= 1ull << jump_over[square][last];
            d = last + 1;
            went_on = 1;
            continue;
        }
        int over = jump_over[square][d];
        if (over >= 0 && ((opponent >> over) & 1) && !((taken >> over) & 1)) {
            int land = jump_land[square][d];
            if ((empty >> land) & 1) {
                went_on = 1;
                if (!is_king && ((crown_row >> land) & 1)) {
                    if (n < capacity)
                        out[n] = path | ((int64_t)d << (14 + 2 * depth)) | ((int64_t)land << 5) |
                                 ((int64_t)(depth + 1) << 10);
                    n++;
                } else {
                    path |= (int64_t)d << (14 + 2 * depth);
                    taken |= 1ull << over;
                    square = land;
                    depth++;
                    d = low;
                    went_on = 0;
                    continue;
                }
            }
        }
        d++;
    }
}

/* Legal moves into out (at most capacity written); the true count. */
static int generate(uint64_t black, uint64_t white, uint64_t kings, int black_to_move,
                    int64_t *out, int capacity)
{
    uint64_t own = black_to_move ? black : white, opponent = black_to_move ? white : black;
    int first = black_to_move ? 2 : 0;
    uint64_t crown_row = black_to_move ? BLACK_CROWN_ROW : WHITE_CROWN_ROW;
    uint64_t empty = FULL & ~(black | white);
    int n = 0;
    uint64_t can_jump = jumpers(own, opponent, kings, empty, first);
    if (can_jump) {
        for (uint64_t rest = can_jump; rest; rest &= rest - 1) {
            int p = lowest(rest);
            n = capture_sequences(p, (kings >> p) & 1, first, opponent, empty | (1ull << p),
                                  crown_row, out, n, capacity);
        }
        return n;
    }
    for (int d = 0; d < 4; d++) {
        uint64_t movers = (d == first || d == first + 1) ? own : own & kings;
        int back = opposite[d];
        for (uint64_t rest = shift_towards(movers, d) & empty; rest; rest &= rest - 1) {
            int q = lowest(rest);
            if (n < capacity)
                out[n] = step[q][back] | (q << 5);
            n++;
        }
    }
    return n;
}

static int count_moves(uint64_t black, uint64_t white, uint64_t kings, int black_to_move)
{
    uint64_t own = black_to_move ? black : white, opponent = black_to_move ? white : black;
    int first = black_to_move ? 2 : 0;
    uint64_t empty = FULL & ~(black | white);
    uint64_t can_jump = jumpers(own, opponent, kings, empty, first);
    if (can_jump)
        return generate(black, white, kings, black_to_move, NULL, 0);
    int n = 0;
    for (int d = 0; d < 4; d++) {
        uint64_t movers = (d == first || d == first + 1) ? own : own & kings;
        n += __builtin_popcountll(shift_towards(movers, d) & empty);
    }
    return n;
}

static void play(uint64_t *black, uint64_t *white, uint64_t *kings, int *black_to_move,
                 int64_t move)
{
    int origin = move & 31, target = (move >> 5) & 31, jumps = (move >> 10) & 15;
    uint64_t captured = 0;
    int square = origin;
    for (int j = 0; j < jumps; j++) {
        int d = (move >> (14 + 2 * j)) & 3;
        captured |= 1ull << jump_over[square][d];
        square = jump_land[square][d];
    }
    int was_king = (*kings >> origin) & 1;
    *kings &= ~captured;
    if (was_king)
        *kings = (*kings & ~(1ull << origin)) | (1ull << target);
    else if (((*black_to_move ? BLACK_CROWN_ROW : WHITE_CROWN_ROW) >> target) & 1)
        *kings |= 1ull << target;
    if (*black_to_move) {
        *black = (*black & ~(1ull << origin)) | (1ull << target);
        *white &= ~captured;
    } else {
        *white = (*white & ~(1ull << origin)) | (1ull << target);
        *black &= ~captured;
    }
    *black_to_move = !*black_to_move;
}

/* The same iterative walk as the numba perft: a stack of positions and move buffers. */
static uint64_t perft(uint64_t black, uint64_t white, uint64_t kings, int black_to_move,
                      int depth)
{
    if (depth == 0)
        return 1;
    if (depth == 1)
        return count_moves(black, white, kings, black_to_move);
    uint64_t stack[MAX_DEPTH][3];
    int side[MAX_DEPTH], count[MAX_DEPTH], index[MAX_DEPTH];
    stack[0][0] = black, stack[0][1] = white, stack[0][2] = kings, side[0] = black_to_move;
    count[0] = generate(black, white, kings, black_to_move, moves[0], MAX_MOVES);
    index[0] = 0;
    uint64_t total = 0;
    int ply = 0;
    while (ply >= 0) {
        if (index[ply] == count[ply]) {
            ply--;
            continue;
        }
        int64_t move = moves[ply][index[ply]++];
        uint64_t b = stack[ply][0], w = stack[ply][1], k = stack[ply][2];
        int s = side[ply];
        play(&b, &w, &k, &s, move);
        if (ply + 2 == depth) {
            total += count_moves(b, w, k, s);
        } else {
            ply++;
            stack[ply][0] = b, stack[ply][1] = w, stack[ply][2] = k, side[ply] = s;
            count[ply] = generate(b, w, k, s, moves[ply], MAX_MOVES);
            index[ply] = 0;
        }
    }
    return total;
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 10;
    if (depth < 0 || depth >= MAX_DEPTH) {
        fprintf(stderr, "depth must be 0 to %d\n", MAX_DEPTH - 1);
        return 2;
    }
    build_tables();
    struct timespec start, end;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &start);
    uint64_t count = perft(0xFFFull, 0xFFF00000ull, 0, 1, depth);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &end);
    double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9;
    printf("%d %llu %.6f\n", depth, (unsigned long long)count, seconds);
    return 0;
}

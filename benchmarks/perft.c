/* Tigers & Sheep perft in plain C99: the same bitboard algorithm as
 * src/samuel/games/tigers/kernels.py, to measure how far the numba kernels are from C.
 *
 * A position is four integers (tiger mask, sheep mask, sheep in hand, tiger to move); a move is
 * origin | target << 5 | captured << 10, with NO_POINT (25) for "none". Moves are generated into
 * a per-ply buffer and the last ply is bulk-counted. A game with 5 captured sheep has no moves.
 * Repetition is ignored, as in ours.
 *
 * Build: gcc -O2 -march=native -o perft perft.c     Run: ./perft DEPTH
 * Prints: DEPTH COUNT SECONDS
 */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SIZE 5
#define POINTS 25
#define FULL ((1u << POINTS) - 1)
#define SHEEP 20
#define CAPTURES_TO_WIN 5
#define MAX_MOVES 192
#define MAX_DEPTH 64
#define NO_POINT 25

static int steps[POINTS][8], step_count[POINTS];
static int jump_over[POINTS][8], jump_land[POINTS][8], jump_count[POINTS];
static int moves[MAX_DEPTH][MAX_MOVES];

static int on_board(int x, int y) { return x >= 0 && x < SIZE && y >= 0 && y < SIZE; }

/* Every point is joined to its orthogonal neighbours, a point with x + y even also to its
 * diagonal ones; a jump goes two points straight on along a direction that exists at the origin. */
static void build_tables(void)
{
    static const int dirs[8][2] = {{1, 0}, {-1, 0}, {0, 1}, {0, -1},
                                   {1, 1}, {1, -1}, {-1, 1}, {-1, -1}};
    for (int p = 0; p < POINTS; p++) {
        int x = p % SIZE, y = p / SIZE, ndirs = (x + y) % 2 == 0 ? 8 : 4;
        for (int d = 0; d < ndirs; d++) {
            int dx = dirs[d][0], dy = dirs[d][1];
            if (!on_board(x + dx, y + dy))
                continue;
            steps[p][step_count[p]++] = x + dx + SIZE * (y + dy);
            if (on_board(x + 2 * dx, y + 2 * dy)) {
                jump_over[p][jump_count[p]] = x + dx + SIZE * (y + dy);
                jump_land[p][jump_count[p]++] = x + 2 * dx + SIZE * (y + 2 * dy);
            }
        }
    }
}

static int captured(uint64_t sheep, int hand)
{
    return SHEEP - hand - __builtin_popcountll(sheep);
}

static int generate_moves(uint64_t tigers, uint64_t sheep, int hand, int tiger_to_move, int *out)
{
    if (captured(sheep, hand) >= CAPTURES_TO_WIN)
        return 0;
    uint64_t empty = FULL & ~(tigers | sheep);
    int n = 0;
    if (tiger_to_move) {
        for (uint64_t rest = tigers; rest; rest &= rest - 1) {
            int p = __builtin_ctzll(rest);
            for (int k = 0; k < step_count[p]; k++)
                if ((empty >> steps[p][k]) & 1)
                    out[n++] = p | steps[p][k] << 5 | NO_POINT << 10;
            for (int k = 0; k < jump_count[p]; k++)
                if ((sheep >> jump_over[p][k]) & (empty >> jump_land[p][k]) & 1)
                    out[n++] = p | jump_land[p][k] << 5 | jump_over[p][k] << 10;
        }
    } else if (hand > 0) {
        for (uint64_t rest = empty; rest; rest &= rest - 1)
            out[n++] = NO_POINT | __builtin_ctzll(rest) << 5 | NO_POINT << 10;
    } else {
        for (uint64_t rest = sheep; rest; rest &= rest - 1) {
            int p = __builtin_ctzll(rest);
            for (int k = 0; k < step_count[p]; k++)
                if ((empty >> steps[p][k]) & 1)
                    out[n++] = p | steps[p][k] << 5 | NO_POINT << 10;
        }
    }
    return n;
}

static int count_moves(uint64_t tigers, uint64_t sheep, int hand, int tiger_to_move)
{
    if (captured(sheep, hand) >= CAPTURES_TO_WIN)
        return 0;
    uint64_t empty = FULL & ~(tigers | sheep);
    if (!tiger_to_move && hand > 0)
        return __builtin_popcountll(empty);
    int n = 0;
    for (uint64_t rest = tiger_to_move ? tigers : sheep; rest; rest &= rest - 1) {
        int p = __builtin_ctzll(rest);
        for (int k = 0; k < step_count[p]; k++)
            n += (empty >> steps[p][k]) & 1;
        if (tiger_to_move)
            for (int k = 0; k < jump_count[p]; k++)
                n += (sheep >> jump_over[p][k]) & (empty >> jump_land[p][k]) & 1;
    }
    return n;
}

static uint64_t perft(uint64_t tigers, uint64_t sheep, int hand, int tiger_to_move, int depth,
                      int ply)
{
    if (depth == 1)
        return count_moves(tigers, sheep, hand, tiger_to_move);
    int n = generate_moves(tigers, sheep, hand, tiger_to_move, moves[ply]);
    uint64_t total = 0;
    for (int i = 0; i < n; i++) {
        int move = moves[ply][i];
        int origin = move & 31, target = (move >> 5) & 31, capture = (move >> 10) & 31;
        /* make-move: copy the four integers and change the copy */
        uint64_t t = tigers, s = sheep;
        int h = hand;
        if (tiger_to_move) {
            t = (t & ~(1ull << origin)) | 1ull << target;
            if (capture != NO_POINT)
                s &= ~(1ull << capture);
        } else if (origin == NO_POINT) {
            s |= 1ull << target;
            h--;
        } else {
            s = (s & ~(1ull << origin)) | 1ull << target;
        }
        total += perft(t, s, h, !tiger_to_move, depth - 1, ply + 1);
    }
    return total;
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 0;
    if (argc != 2 || depth < 0 || depth > MAX_DEPTH) {
        fprintf(stderr, "usage: %s DEPTH (0..%d)\n", argv[0], MAX_DEPTH);
        return 2;
    }
    build_tables();
    uint64_t tigers = 1ull << 0 | 1ull << 4 | 1ull << 20 | 1ull << 24;
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    uint64_t count = depth == 0 ? 1 : perft(tigers, 0, SHEEP, 0, depth, 0);
    clock_gettime(CLOCK_MONOTONIC, &end);
    double seconds = (end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) * 1e-9;
    printf("%d %llu %.6f\n", depth, (unsigned long long)count, seconds);
    return 0;
}

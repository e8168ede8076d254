/* torch.randn's float64 draws on the CPU, bit for bit, from a torch.Generator's state.
 *
 * torch (2.x, aten/src/ATen/native/cpu/DistributionTemplates.h, normal_fill) fills a contiguous tensor of n >= 16
 * doubles in three passes:
 *   1. n uniforms u = (random64() & (2^53 - 1)) * 2^-53, where random64() = (x1 << 32) | x2 takes two 32-bit outputs
 *      of the generator's MT19937 (at::mt19937: the standard twist and tempering);
 *   2. Box-Muller on each block of 16: for j < 8, r = sqrt(-2 log(1 - u_j)), t = 2 pi u_{j+8},
 *      z_j = r cos t, z_{j+8} = r sin t;
 *   3. when 16 does not divide n, 16 fresh uniforms overwrite the last 16 places and pass 2 runs on them.
 * torch draws one uniform at a time through the generator object (a call and a bounds test per 32-bit output); here
 * the twist and the tempering run over the whole state array at a time, which the compiler vectorises. log and
 * sincos are glibc's, the functions torch's loop calls (sin and cos of one argument become one sincos), so every
 * double is the same.
 *
 * The state is the generator's serialised form (torch.Generator.get_state(), 5056 bytes: initial seed u64, left i32,
 * seeded i32, next u64, the 624 words as u64, then the cached normals, which this draw neither reads nor writes);
 * it is updated in place, so that set_state() leaves the generator where torch.randn would have left it.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdint.h>
#include <string.h>

#define MT_N 624
#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfu
#define MT_UPPER 0x80000000u
#define MT_LOWER 0x7fffffffu

enum { OFF_LEFT = 8, OFF_NEXT = 16, OFF_STATE = 24, STATE_BYTES = 5056 };

typedef struct {
    uint32_t s[MT_N];
    int64_t left; /* at::mt19937's left_: a draw first decrements it and twists at 0 */
    int64_t next; /* index of the next word to temper */
} mt_t;

static inline uint32_t mt_twist(uint32_t u, uint32_t v) {
    return (((u & MT_UPPER) | (v & MT_LOWER)) >> 1) ^ ((v & 1u) ? MT_MATRIX_A : 0u);
}

static void mt_next_state(uint32_t *s) {
    int i = 0;
    for (; i < MT_N - MT_M; i++) s[i] = s[i + MT_M] ^ mt_twist(s[i], s[i + 1]);
    for (; i < MT_N - 1; i++) s[i] = s[i + MT_M - MT_N] ^ mt_twist(s[i], s[i + 1]);
    s[MT_N - 1] = s[MT_M - 1] ^ mt_twist(s[MT_N - 1], s[0]);
}

static inline uint32_t mt_temper(uint32_t y) {
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
}

/* The next `count` 32-bit outputs, in the order at::mt19937's operator() gives them. */
static void mt_draw(mt_t *mt, uint32_t *out, int64_t count) {
    while (count > 0) {
        if (mt->left == 1) { /* the next draw twists: at::mt19937 sets left = 624, next = 0 and reads s[0] */
            mt_next_state(mt->s);
            mt->left = MT_N + 1;
            mt->next = 0;
        }
        int64_t k = mt->left - 1 < count ? mt->left - 1 : count;
        const uint32_t *src = mt->s + mt->next;
        for (int64_t i = 0; i < k; i++) out[i] = mt_temper(src[i]);
        mt->next += k;
        mt->left -= k;
        out += k;
        count -= k;
    }
}

/* `count` uniforms in [0, 1), each from two consecutive outputs (high word first), written to `u`. */
static void uniforms(mt_t *mt, double *u, int64_t count) {
    enum { CHUNK = 512 };
    uint32_t w[2 * CHUNK];
    while (count > 0) {
        int64_t k = count < CHUNK ? count : CHUNK;
        mt_draw(mt, w, 2 * k);
        for (int64_t i = 0; i < k; i++) {
            uint64_t bits = (((uint64_t)w[2 * i] << 32) | w[2 * i + 1]) & ((UINT64_C(1) << 53) - 1);
            u[i] = (double)bits * 0x1p-53;
        }
        u += k;
        count -= k;
    }
}

static void box_muller_16(double *x) {
    const double two_pi = 2.0 * 3.14159265358979323846;
    for (int j = 0; j < 8; j++) {
        double radius = sqrt(-2.0 * log(1.0 - x[j]));
        double s, c;
        sincos(two_pi * x[j + 8], &s, &c);
        x[j] = radius * c;
        x[j + 8] = radius * s;
    }
}

static int64_t read_i64(const uint8_t *p) { int64_t v; memcpy(&v, p, 8); return v; }
static int32_t read_i32(const uint8_t *p) { int32_t v; memcpy(&v, p, 4); return v; }

/* n >= 16 standard normal doubles into `out`, advancing the serialised generator `state` (5056 bytes) as torch.randn
 * does. Returns 0, or -1 (nothing written) when n < 16 or the state's position is not a valid at::mt19937 one. */
int64_t normal_draws_f64(uint8_t *state, int64_t state_bytes, double *out, int64_t n) {
    if (n < 16 || state_bytes != STATE_BYTES) return -1;
    mt_t mt;
    mt.left = read_i32(state + OFF_LEFT);
    mt.next = read_i64(state + OFF_NEXT);
    if (mt.left < 1 || mt.next < 0 || mt.next + mt.left - 1 > MT_N) return -1; /* words next .. next + left - 2 exist */
    for (int i = 0; i < MT_N; i++) {
        uint64_t w;
        memcpy(&w, state + OFF_STATE + 8 * i, 8);
        mt.s[i] = (uint32_t)w;
    }
    uniforms(&mt, out, n);
    for (int64_t i = 0; i + 16 <= n; i += 16) box_muller_16(out + i);
    if (n % 16 != 0) {
        uniforms(&mt, out + n - 16, 16);
        box_muller_16(out + n - 16);
    }
    int32_t left = (int32_t)mt.left;
    uint64_t next = (uint64_t)mt.next;
    memcpy(state + OFF_LEFT, &left, 4);
    memcpy(state + OFF_NEXT, &next, 8);
    for (int i = 0; i < MT_N; i++) {
        uint64_t w = mt.s[i];
        memcpy(state + OFF_STATE + 8 * i, &w, 8);
    }
    return 0;
}

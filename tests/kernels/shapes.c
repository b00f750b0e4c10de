/* ompcl-expect: device=17 host=0 */
/* Loop shapes for both kernel shapes (blocked chunks, grid strides): ragged and tiny trip
 * counts, constant and run-time steps up and down, collapse(2) and (3), every reduction
 * operator, lastprivate across chunk boundaries, 'continue', inner loops, unsigned, char and
 * long loop variables; transposed accesses (the blocked shape's tiles) with ragged tiles,
 * descending steps, collapse(3), run-time bounds, a reduction and lastprivate.  See
 * tests/test_kernels.py. */
#include <stdio.h>
#include <stdlib.h>

#define N1 1003
static double a2[61][47], b3[5][7][11], t2[47][61], c3[3][45][70];
static int grid[40][50];

static int hash(int k) { return (int)(((unsigned)k * 2654435761u) % 1000003u); }

int main(int argc, char **argv)
{
    int n = argc > 99 ? atoi(argv[1]) : N1, s = argc > 99 ? 1 : 3, i, j, k, last = -1, lj = -1;
    double *x = malloc(N1 * sizeof *x), *y = malloc(N1 * sizeof *y), sum = 0.0, prod = 1.0;
    double dmax = -1e300, dmin = 1e300, t;
    int imin = 1 << 30, imax = -(1 << 30), band = ~0, bor = 0, bxor = 0, land = 1, lor = 0;
    long lsum = 0, li;
    int m = argc > 99 ? 1 : 17, n2 = argc > 99 ? 1 : 59, lt = -1;
    double tsum = 0.0, *ft = malloc(N1 * sizeof *ft);
    unsigned u, ucount = 0;
    char c;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        x[i] = (hash(i) % 1000) / 1000.0;

#pragma omp parallel for lastprivate(last)
    for (i = n - 1; i >= 0; i -= 3) {
        y[i] = 2.0 * x[i] + 1.0;
        last = i;
    }

#pragma omp parallel for collapse(2)
    for (i = 1; i < 61; i += 2)
        for (j = 46; j >= 2; j -= 3)
            a2[i][j] = i * 100.0 + j;

#pragma omp parallel for collapse(3)
    for (i = 0; i < 5; i++)
        for (j = 0; j < 7; j++)
            for (k = 0; k < 11; k++)
                b3[i][j][k] = i + 0.1 * j + 0.01 * k;

#pragma omp parallel for collapse(2)
    for (i = 0; i < 40; i += s)
        for (j = 0; j < 50; j += s)
            grid[i][j] = i * 1000 + j;

#pragma omp parallel for reduction(+:sum) reduction(*:prod) reduction(max:dmax) reduction(min:dmin)
    for (i = 0; i < n; i++) {
        sum += x[i];
        prod *= 1.0 + x[i] * 1e-4;
        dmax = x[i] > dmax ? x[i] : dmax;
        dmin = x[i] < dmin ? x[i] : dmin;
    }

#pragma omp parallel for reduction(min:imin) reduction(max:imax) reduction(&:band) reduction(|:bor) reduction(^:bxor)
    for (i = 0; i < n; i++) {
        int h = hash(i);
        imin = h < imin ? h : imin;
        imax = h > imax ? h : imax;
        band &= h | 1;
        bor |= h & 0xff;
        bxor ^= h;
    }

#pragma omp parallel for collapse(2) reduction(&&:land) reduction(||:lor) reduction(+:lsum)
    for (i = 0; i < 40; i++)
        for (j = 0; j < 50; j++) {
            land = land && grid[i][j] >= 0;
            lor = lor || grid[i][j] == 39 * 1000 + 48;
            lsum += grid[i][j];
        }

#pragma omp parallel for collapse(2) lastprivate(lj)
    for (i = 0; i < 33; i++)
        for (j = 0; j < 29; j++)
            lj = i * 29 + j;

#pragma omp parallel for
    for (i = 0; i < n; i++) {
        if (i % 7 == 3)
            continue;
        y[i] += 0.5;
    }

#pragma omp parallel for
    for (i = 0; i < 3; i++)
        x[i] = -1.0 - i;

#pragma omp parallel for private(t, k)
    for (i = 0; i < 40; i++) {
        t = 0.0;
        for (k = 0; k < 50; k++)
            t += grid[i][k] * 0.001;
        a2[i][0] = t;
    }

#pragma omp parallel for reduction(+:ucount)
    for (u = 200; u > 0; u--)
        ucount += u % 3;

#pragma omp parallel for reduction(+:lsum) private(c)
    for (li = 3000000000L; li < 3000000100L; li++) {
        c = (char)(li % 100);
        lsum += c;
    }

#pragma omp parallel for collapse(2)
    for (i = 1; i < 61; i += 2)
        for (j = 46; j >= 2; j -= 3)
            t2[j][i] = a2[i][j] + 0.5;

#pragma omp parallel for collapse(3) reduction(+:tsum) lastprivate(lt)
    for (i = 0; i < 3; i++)
        for (j = 0; j < 70; j++)
            for (k = 0; k < 45; k++) {
                c3[i][k][j] = i + 0.01 * j + 0.0001 * k;
                tsum += k * 0.5 + j;
                lt = (i * 70 + j) * 45 + k;
            }

#pragma omp parallel for collapse(2)
    for (i = 0; i < m; i++)
        for (j = 0; j < n2; j++)
            ft[j * m + i] = x[i * n2 + j];

    printf("last %d lj %d\n", last, lj);
    printf("t2 %.15g %.15g %.15g\n", t2[46][1], t2[22][31], t2[4][59]);
    printf("c3 %.15g %.15g %.15g tsum %.12g lt %d\n", c3[0][0][0], c3[1][33][65], c3[2][44][69],
           tsum, lt);
    for (i = 0; i < N1; i += 59)
        printf("ft %d %.15g\n", i, ft[i]);
    for (i = 0; i < n; i += 97)
        printf("x %d %.15g y %.15g\n", i, x[i], y[i]);
    for (i = 0; i < 61; i += 6)
        for (j = 0; j < 47; j += 5)
            printf("a2 %d %d %.15g\n", i, j, a2[i][j]);
    printf("b3 %.15g %.15g %.15g\n", b3[0][0][0], b3[2][3][4], b3[4][6][10]);
    for (i = 0; i < 40; i += 3)
        printf("grid %d %d %d\n", i, grid[i][0], grid[i][49]);
    printf("sum %.12g prod %.12g dmax %.15g dmin %.15g\n", sum, prod, dmax, dmin);
    printf("imin %d imax %d band %d bor %d bxor %d\n", imin, imax, band, bor, bxor);
    printf("land %d lor %d lsum %ld ucount %u\n", land, lor, lsum, ucount);
    free(x);
    free(y);
    free(ft);
    return 0;
}

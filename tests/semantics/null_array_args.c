/* Optional arrays left NULL in one mode of the program (XSBench's nuclide grid): loops that
 * never touch them in that mode, and one that tests the pointer itself. */
#include <stdio.h>
#include <stdlib.h>

static double lookup(const double *grid, const int *index, const double *xs, long n, int k,
                     int mode)
{
    double v = xs[k];
    if (mode == 1) { /* the grid exists only in this mode */
        long j = index[k % n];
        v += grid[j];
    }
    return v;
}

int main(void)
{
    long n = 4096, i;
    int mode;
    double *xs = malloc(n * sizeof *xs), *out = malloc(n * sizeof *out);
    int *index = malloc(n * sizeof *index);
    double *grid = NULL;
    for (i = 0; i < n; i++) {
        xs[i] = 0.5 * (double)(i % 97);
        index[i] = (int)((i * 7919) % n);
    }
    for (mode = 0; mode < 2; mode++) {
        if (mode == 1) {
            grid = malloc(n * sizeof *grid);
            for (i = 0; i < n; i++)
                grid[i] = 0.25 * (double)(i % 13);
        }
        double sum = 0.0;
#pragma omp parallel for reduction(+:sum)
        for (i = 0; i < n; i++) {
            out[i] = lookup(grid, index, xs, n, (int)i, mode);
            sum += out[i];
        }
        printf("mode %d: sum %.12f out[17] %.12f\n", mode, sum, out[17]);
        double tested = 0.0;
#pragma omp parallel for reduction(+:tested)
        for (i = 0; i < n; i++)
            tested += grid ? grid[index[i]] : xs[i];
        printf("mode %d: tested %.12f\n", mode, tested);
    }
    free(grid);
    free(index);
    free(out);
    free(xs);
    return 0;
}

/* ompcl-expect: device=3 host=0 */
/* Histogram with "#pragma omp atomic" (device atomics) between two offloadable loops. */
#include <stdio.h>
#include <stdlib.h>

#define NB 13

int main(void)
{
    int n = 2999, i, b, maxh = 0;
    int *v = malloc(n * sizeof(int));
    int hist[NB] = {0};
    double *w = malloc(n * sizeof(double));
    double s = 0.0;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        v[i] = (i * 7919 + 13) % 1000;

    /* host: atomic update of a shared histogram */
#pragma omp parallel for private(b)
    for (i = 0; i < n; i++) {
        b = v[i] % NB;
#pragma omp atomic
        hist[b]++;
    }

    for (i = 0; i < NB; i++)
        maxh = hist[i] > maxh ? hist[i] : maxh;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        w[i] = (double)v[i] / (1.0 + maxh) + (double)(i % NB);

    for (i = 0; i < NB; i++)
        printf("%d ", hist[i]);
    printf("\n");
    for (i = 0; i < n; i++)
        s += w[i];
    printf("%.10e\n", s);
    free(v);
    free(w);
    return 0;
}

/* ompcl-expect: device=3 host=0 */
/* Normalisation in two loops: a + reduction (squared norm), then a scaling loop; then a dot product. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(void)
{
    int n = 1023, i;
    double *v = malloc(n * sizeof(double));
    double *w = malloc(n * sizeof(double));
    double nrm2 = 0.0, dot = 0.0, inv;

    for (i = 0; i < n; i++) {
        v[i] = 1.0 + (i % 7) * 0.5;
        w[i] = 2.0 - (i % 5) * 0.125;
    }

#pragma omp parallel for reduction(+:nrm2)
    for (i = 0; i < n; i++)
        nrm2 += v[i] * v[i];

    inv = 1.0 / sqrt(nrm2);
#pragma omp parallel for
    for (i = 0; i < n; i++)
        v[i] = v[i] * inv;

#pragma omp parallel for reduction(+:dot)
    for (i = 0; i < n; i++)
        dot += v[i] * w[i];

    printf("%.10e\n%.10e\n%.10e %.10e\n", nrm2, dot, v[0], v[n - 1]);
    free(v);
    free(w);
    return 0;
}

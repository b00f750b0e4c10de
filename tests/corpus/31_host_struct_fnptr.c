/* ompcl-expect: device=2 host=1 */
/* A store through a struct's pointer member (s->data[i]: the member read once at entry,
   analysis.members) runs on the device; a call through a function pointer stays on the host.
   One offloadable loop on a plain heap array. */
#include <stdio.h>
#include <stdlib.h>

struct vec {
    int n;
    double *data;
};

static double square(double x) { return x * x; }
static double halve(double x) { return 0.5 * x; }

int main(void)
{
    int n = 655, i;
    struct vec v;
    struct vec *s = &v;
    double *out = malloc(n * sizeof(double));
    double (*op)(double) = square;
    double sum = 0.0;

    v.n = n;
    v.data = malloc(n * sizeof(double));

    /* device: writes through a struct's pointer member */
#pragma omp parallel for
    for (i = 0; i < n; i++)
        s->data[i] = 0.01 * i - 2.0;

    /* host: call through a function pointer */
#pragma omp parallel for
    for (i = 0; i < n; i++)
        out[i] = op(s->data[i]);

    op = halve;
    (void)op;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        out[i] = out[i] + 1.0 / (1.0 + i);

    for (i = 0; i < n; i++)
        sum += out[i];
    printf("%.10e %.10e %.10e\n", sum, out[0], out[n - 1]);
    free(v.data);
    free(out);
    return 0;
}

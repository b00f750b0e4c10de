/* ompcl-expect: device=3 host=0 tolerance=1e-6 */
/* Math library: sin cos tan exp log pow fabs floor ceil fmin fmax fmod atan2 abs sqrt,
   and float variants sqrtf sinf cosf expf logf fabsf powf. */
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

int main(void)
{
    int n = 1001, i;
    double *d = malloc(n * sizeof(double));
    float *f = malloc(n * sizeof(float));
    int *k = malloc(n * sizeof(int));
    double sd = 0.0, sf = 0.0;
    long sk = 0;

#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double x = 0.001 * (i + 0.37) + 0.1; /* keeps floor/ceil/fmod arguments away from jumps */
        d[i] = sin(x) + cos(2.0 * x) + tan(0.5 * x) + exp(-x) + log(1.0 + x)
               + pow(x, 1.5) + fabs(x - 0.7) + floor(10.0 * x) + ceil(3.3 * x)
               + fmin(x, 0.4) + fmax(x, 0.6) + fmod(7.0 * x, 0.9) + atan2(x, 1.0 - x) + sqrt(x);
    }

#pragma omp parallel for
    for (i = 0; i < n; i++) {
        float x = 0.002f * (float)i + 0.05f;
        f[i] = sqrtf(x) + sinf(x) + cosf(x) + expf(-x) + logf(1.0f + x) + fabsf(x - 1.0f)
               + powf(x, 0.5f);
    }

#pragma omp parallel for
    for (i = 0; i < n; i++)
        k[i] = abs(500 - i) + abs((i * 37) % 101 - 50);

    for (i = 0; i < n; i++) {
        sd += d[i];
        sf += f[i];
        sk += k[i];
    }
    printf("%ld\n%.10e %.10e\n%.10e %.10e\n", sk, sd, sf, d[n / 2], (double)f[n - 1]);
    free(d);
    free(f);
    free(k);
    return 0;
}

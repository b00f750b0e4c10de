/* ompcl-expect: device=2 host=0 tolerance=1e-5 */
/* saxpy on single-precision heap arrays; n = 1000 (not a power of two). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 1000;
    int i;
    float a = 2.5f;
    float *x = (float *)malloc(n * sizeof(float));
    float *y = (float *)malloc(n * sizeof(float));
    double s = 0.0;

#pragma omp parallel for
    for (i = 0; i < n; i++) {
        x[i] = (float)(i % 17) * 0.25f;
        y[i] = 1.0f + (float)i * 0.001f;
    }

#pragma omp parallel for shared(x, y) firstprivate(a)
    for (i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];

    for (i = 0; i < n; i++)
        s += y[i];
    printf("%.8e\n", s);
    printf("%.8e %.8e %.8e\n", (double)y[0], (double)y[499], (double)y[n - 1]);
    free(x);
    free(y);
    return 0;
}

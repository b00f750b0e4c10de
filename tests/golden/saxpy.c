#include <stdlib.h>

void saxpy(int n, float a, const float *x, float *restrict y)
{
    int i;
#pragma omp parallel for
    for (i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}

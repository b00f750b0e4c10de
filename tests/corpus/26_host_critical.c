/* ompcl-expect: device=2 host=1 */
/* Two offloadable loops plus one loop whose body contains "#pragma omp critical" (stays on host):
   arg-max with lowest-index tie-break, deterministic for any thread count. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n = 1009, i, best_i = -1;
    double *a = malloc(n * sizeof(double));
    double best = -1.0;

#pragma omp parallel for
    for (i = 0; i < n; i++)
        a[i] = (double)((i * 53) % 211);

#pragma omp parallel for
    for (i = 0; i < n; i++)
        a[i] = a[i] * 0.5 + (i % 2);

    /* host: critical section */
#pragma omp parallel for
    for (i = 0; i < n; i++) {
        double v = a[i];
#pragma omp critical
        {
            if (v > best || (v == best && i < best_i)) {
                best = v;
                best_i = i;
            }
        }
    }

    printf("%d %.10e\n", best_i, best);
    free(a);
    return 0;
}

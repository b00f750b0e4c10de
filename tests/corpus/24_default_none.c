/* ompcl-expect: device=2 host=0 */
/* default(none) with explicit shared/firstprivate/private lists, and default(shared). */
#include <stdio.h>
#include <stdlib.h>

#define LEN 901

static double src[LEN], dst[LEN];

int main(void)
{
    int i, n = LEN;
    double alpha = 1.25, beta = -0.75, tmp, s = 0.0;

#pragma omp parallel for default(none) shared(src) firstprivate(n, alpha) private(tmp)
    for (i = 0; i < n; i++) {
        tmp = alpha * (i % 23);
        src[i] = tmp - 10.0;
    }

#pragma omp parallel for default(shared) private(tmp)
    for (i = 0; i < n; i++) {
        tmp = src[i] * beta;
        dst[i] = tmp > 0.0 ? tmp : -tmp * 0.5;
    }

    for (i = 0; i < n; i++)
        s += dst[i] * ((i % 3) + 1);
    printf("%.10e %.10e %.10e\n", s, dst[0], dst[n - 1]);
    return 0;
}

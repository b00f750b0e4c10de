/* ompcl-expect: device=3 host=0 */
/* Heap 2-D data through a pointer to rows, double (*a)[NC]; scaled row sums. */
#include <stdio.h>
#include <stdlib.h>

#define NR 57
#define NC 39

int main(void)
{
    double (*a)[NC] = malloc(NR * sizeof *a);
    double *rs = malloc(NR * sizeof(double));
    int i, j;
    double s = 0.0;

#pragma omp parallel for collapse(2)
    for (i = 0; i < NR; i++)
        for (j = 0; j < NC; j++)
            a[i][j] = (double)(i - j) / (1 + i + j);

#pragma omp parallel for private(j)
    for (i = 0; i < NR; i++) {
        double t = 0.0;
        for (j = 0; j < NC; j++)
            t += a[i][j] * a[i][j];
        rs[i] = t;
    }

#pragma omp parallel for collapse(2)
    for (i = 0; i < NR; i++)
        for (j = 0; j < NC; j++)
            a[i][j] = a[i][j] / (1.0 + rs[i]);

    for (i = 0; i < NR; i++)
        for (j = 0; j < NC; j++)
            s += a[i][j] * (j + 1);
    printf("%.10e\n%.10e %.10e\n", s, a[1][0], a[NR - 1][NC - 2]);
    free(a);
    free(rs);
    return 0;
}

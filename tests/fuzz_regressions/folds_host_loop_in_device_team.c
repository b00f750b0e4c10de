/* ompcl-expect: device=1 host=1 tolerance=1e-6 */
#include <stdio.h>
#include <math.h>
double a[100], w[100];
int main(void)
{
    int i;
    double M = 1e30, cd = 0.0;
    unsigned int U = 1u;
    double X = -1e30;
    for (i = 0; i < 100; i++)
        a[i] = cos(0.37 * i) + 0.001 * i;
#pragma omp parallel
    {
        double m = 1e30;
        unsigned int u = 1u;
        double x = -1e30;
/* ompcl-loop: folds,team1 */
#pragma omp for
        for (i = 0; i < 100; i++)
            if (a[i] < m) m = a[i];
/* ompcl-loop: fold_private,folds,team1 */
#pragma omp for
        for (i = 0; i < 100; i++) {
            u *= (unsigned int)i * 2u + 1u;
            if (a[i] > x) x = a[i];
            w[i] = a[i] + 0.0 * x;
        }
#pragma omp critical
        {
            if (m < M) M = m;
            U = U * u;
            if (x > X) X = x;
        }
    }
    for (i = 0; i < 100; i++)
        cd += w[i];
    printf("%.9e %u %.9e %.9e\n", M, U, X, cd);
    return 0;
}

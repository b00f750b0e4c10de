/* ompcl-expect: device=3 host=0 */
/* lastprivate on loop variables: after the loop they hold their sequential exit values
   (also for both variables of a collapsed nest and for a descending loop); a loop variable
   that is not lastprivate keeps its value from before the loop. */
#include <stdio.h>

#define N 37
#define M 41
int a[N][M], b[200];

int main(void)
{
    int i = -5, j = -6, k = -7, m = -8;
#pragma omp parallel for collapse(2) lastprivate(i, j)
    for (i = 0; i < N; i++)
        for (j = 1; j <= M - 1; j += 2)
            a[i][j] = i * j;
#pragma omp parallel for lastprivate(k)
    for (k = 199; k >= 3; k -= 4)
        b[k] = k;
#pragma omp parallel for
    for (m = 0; m < 200; m++)
        b[m] += 1;
    printf("%d %d %d %d %d %d\n", i, j, k, m, a[N - 1][M - 2], b[199]);
    return 0;
}

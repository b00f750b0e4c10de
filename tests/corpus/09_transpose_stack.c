/* ompcl-expect: device=3 host=0 */
/* Matrix transpose on stack (function-local) 2-D int arrays, collapse(2), with <= and >= bounds. */
#include <stdio.h>

#define R 45
#define C 67

static long transpose_test(int scale)
{
    int a[R][C];
    int b[C][R];
    int i, j;
    long chk = 0;

#pragma omp parallel for collapse(2) firstprivate(scale)
    for (i = 0; i <= R - 1; i++)
        for (j = 0; j <= C - 1; j++)
            a[i][j] = scale * i * 1000 + j;

#pragma omp parallel for collapse(2)
    for (j = C - 1; j >= 0; j--)
        for (i = 0; i < R; i++)
            b[j][i] = a[i][j];

#pragma omp parallel for private(j) reduction(+:chk)
    for (i = 0; i < C; i++)
        for (j = 0; j < R; j++)
            chk += (long)b[i][j] * ((i + j) % 5 + 1);

    printf("%d %d %d\n", b[0][0], b[C - 1][0], b[13][R - 1]);
    return chk;
}

int main(void)
{
    printf("%ld\n", transpose_test(1));
    printf("%ld\n", transpose_test(3));
    return 0;
}

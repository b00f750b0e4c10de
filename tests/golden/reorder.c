#define N 48
#define M 64
/* every use walks the first subscript in its innermost loop: 'reorder' makes it the last,
 * in the declaration and in every use, on the host and in the kernel */
static double a[N][M], b[N][M];

double columns(double w)
{
    int i, j;
    double s = 0;
    for (j = 0; j < M; j++)
        for (i = 0; i < N; i++)
            b[i][j] = i + 0.5 * j;
#pragma omp parallel for private(i)
    for (j = 0; j < M; j++)
        for (i = 0; i < N; i++)
            a[i][j] = w * b[i][j];
    for (j = 0; j < M; j++)
        for (i = 0; i < N; i++)
            s += a[i][j];
    return s;
}

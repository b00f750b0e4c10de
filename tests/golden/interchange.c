#define N 32
#define M 40
double a[N][M][M], b[N][M][M];

/* the inner nest walks a column: interchange puts the loop over the last subscript
 * (j) innermost; the host keeps the user's order */
void scale(double w)
{
    int i, j, k;
#pragma omp parallel for private(i, j)
    for (k = 0; k < N; k++)
        for (j = 0; j < M; j++)
            for (i = 0; i < M; i++)
                a[k][i][j] = w * b[k][i][j];
}

#define N 64
#define M 96
double a[N][M], b[N][M];

/* collapse(2) over (j, i) while rows are indexed by i: 'interchange' makes i the outer
 * collapsed loop (the blocked shape's runs and the grid's dimension 0 then walk j) */
void copy_scaled(double w)
{
    int i, j;
#pragma omp parallel for collapse(2)
    for (j = 0; j < M; j++)
        for (i = 0; i < N; i++)
            a[i][j] = w * b[i][j];
}

/* ompcl-expect: device=3 host=0 */
/* An image filter's flat index held in a private scalar assigned in the body, k = i + nr * j
   (issue 15), read and written through it; an index read from memory has no bound from the
   subscripts: its extent is the heap block the pointer points into (issue 37). */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int nr = 61, nc = 47, i, j, k;
    float *img = malloc(sizeof(float) * nr * nc);
    float *out = malloc(sizeof(float) * nr * nc);
    int *perm = malloc(sizeof(int) * nr);
    double s = 0.0;

    for (i = 0; i < nr; i++)
        perm[i] = (i * 7) % nr;
#pragma omp parallel for private(j, k)
    for (i = 0; i < nr; i++)
        for (j = 0; j < nc; j++) {
            k = i + nr * j;
            img[k] = (float)((i * 3 + j * 5) % 17);
        }

#pragma omp parallel for private(i, k)
    for (j = 0; j < nc; j++)
        for (i = 0; i < nr; i++) {
            k = i + nr * j;
            out[k] = 0.5f * img[k] + 0.25f * (float)j;
        }

#pragma omp parallel for private(j, k)
    for (i = 0; i < nr; i++)
        for (j = 0; j < nc; j++) {
            k = perm[i] + nr * j;
            out[k] += 1.0f;
        }

    for (i = 0; i < nr * nc; i++)
        s += out[i] * (i % 5);
    printf("%.3f\n", s);
    free(img);
    free(out);
    free(perm);
    return 0;
}

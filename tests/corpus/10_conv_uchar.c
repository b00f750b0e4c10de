/* ompcl-expect: device=3 host=0 */
/* Image-like 3x3 convolution on unsigned char (heap, flat), with clamp and a threshold count. */
#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int h = 67, w = 131, i, j, cnt = 0;
    unsigned char *img = malloc((size_t)h * w);
    unsigned char *out = malloc((size_t)h * w);
    long total = 0;

#pragma omp parallel for private(j)
    for (i = 0; i < h; i++)
        for (j = 0; j < w; j++) {
            img[i * w + j] = (unsigned char)((i * 7 + j * 13 + (i * j) % 29) & 255);
            out[i * w + j] = 0;
        }

#pragma omp parallel for collapse(2)
    for (i = 1; i <= h - 2; i++)
        for (j = 1; j <= w - 2; j++) {
            int s = 4 * img[i * w + j]
                    + 2 * (img[(i - 1) * w + j] + img[(i + 1) * w + j] + img[i * w + j - 1] + img[i * w + j + 1])
                    + img[(i - 1) * w + j - 1] + img[(i - 1) * w + j + 1]
                    + img[(i + 1) * w + j - 1] + img[(i + 1) * w + j + 1];
            s = s / 16;
            s = s > 200 ? 255 : s;
            out[i * w + j] = (unsigned char)s;
        }

#pragma omp parallel for private(j) reduction(+:cnt)
    for (i = 0; i < h; i++)
        for (j = 0; j < w; j++)
            if (out[i * w + j] > 128)
                cnt++;

    for (i = 0; i < h * w; i++)
        total += out[i] * (long)(i % 7 + 1);
    printf("%d %ld\n%d %d %d\n", cnt, total, out[w + 1], out[(h / 2) * w + w / 2], out[(h - 2) * w + w - 2]);
    free(img);
    free(out);
    return 0;
}

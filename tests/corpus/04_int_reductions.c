/* ompcl-expect: device=6 host=0 */
/* Integer reductions with every operator: + * max min & | ^ && ||. */
#include <stdio.h>
#include <stdlib.h>

#define N 1001
int a[N];

int main(void)
{
    int i;
    int sum = 0, mx = -1000000, mn = 1000000;
    unsigned int prod = 1u;
    int band = -1, bor = 0, bxor = 0;
    int land = 1, lor = 0, land2 = 1, lor2 = 0;
    long lsum = 0;
    int iprod = 1;

#pragma omp parallel for
    for (i = 0; i < N; i++)
        a[i] = (i * 37 + 11) % 101 - 50;

#pragma omp parallel for reduction(+:sum) reduction(max:mx) reduction(min:mn)
    for (i = 0; i < N; i++) {
        sum += a[i];
        mx = a[i] > mx ? a[i] : mx;
        mn = a[i] < mn ? a[i] : mn;
    }

#pragma omp parallel for reduction(*:prod) reduction(*:iprod)
    for (i = 0; i < N; i++) {
        prod *= (unsigned int)(i % 3 == 0 ? 3 : 1);
        iprod *= (i % 97 == 5) ? -2 : 1;
    }

#pragma omp parallel for reduction(&:band) reduction(|:bor) reduction(^:bxor)
    for (i = 0; i < N; i++) {
        band &= (a[i] + 64) | 1;
        bor |= (a[i] + 64) << (i % 4);
        bxor ^= a[i] * 7 + i;
    }

#pragma omp parallel for reduction(&&:land) reduction(||:lor)
    for (i = 0; i < N; i++) {
        land = land && (a[i] >= -50);
        lor = lor || (a[i] == 50);
    }

#pragma omp parallel for reduction(&&:land2) reduction(||:lor2) reduction(+:lsum)
    for (i = 0; i < N; i++) {
        land2 = land2 && (a[i] > 0);
        lor2 = lor2 || (a[i] > 1000);
        lsum += (long)a[i] * 100000L;
    }

    printf("%d %d %d\n%u %d\n%d %d %d\n%d %d %d %d\n%ld\n",
           sum, mx, mn, prod, iprod, band, bor, bxor, land, lor, land2, lor2, lsum);
    return 0;
}

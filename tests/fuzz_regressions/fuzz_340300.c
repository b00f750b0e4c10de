/* ompcl-expect: device=2 host=0 tolerance=1e-9 */
/* fuzz seed 340300 (reduced by hand): host-build: 'j' not specified in enclosing 'parallel': an inner loop's own variable passed to a callee was taken for main's j and passed to the loop's host function, which default(none) does not list */
#include <stdio.h>
static int fi0(int a, int b)
{
    return (a * 3 + b) % 1009;
}
int main(void)
{
    int i, j = 0, t = 3;
    static int p1[240], p2[40];
    (void)j;
    for (i = 0; i < 240; i++)
        p1[i] = i % 17;
#pragma omp parallel default(none) shared(p1, p2, t)
    {
#pragma omp for
        for (i = 0; i <= 38; ++i)
            for (int j = 5; j >= 0; j -= 1)
                p1[i * 6 + j] = ((j % 2 == 0 ? p1[i * 6 + j] : fi0(p1[i * 6 + j], j)) * t) % 1009;
#pragma omp for
        for (i = 0; i < 40; i++)
            p2[i] = p1[i * 6] + t;
    }
    for (i = 0; i < 240; i += 7)
        printf("%d %d\n", p1[i], p2[i / 7]);
    return 0;
}

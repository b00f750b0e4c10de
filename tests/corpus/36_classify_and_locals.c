/* ompcl-expect: device=3 host=0 */
/* isnan/isfinite (glibc macros over __isnan & co.) and sizeof of an element on the device;
   a loop body declaring a struct runs on the device (its layout checked), and so does one
   with a variable-length scratch array (at a fixed capacity, its length checked at entry). */
#include <math.h>
#include <stdio.h>
typedef struct { double x, y; } pt;
double a[100];
int main(int argc, char **argv) { int i, n = argc + 9;
#pragma omp parallel for
for (i = 0; i < 100; i++) { pt p; p.x = i; a[i] = p.x; }
#pragma omp parallel for
for (i = 0; i < 100; i++) { double t[n]; t[0] = i; a[i] += t[0]; }
#pragma omp parallel for
for (i = 0; i < 100; i++) { a[i] = isnan(a[i]) ? 0 : a[i] + isfinite(a[i]); }
printf("%f\n", a[7]); return 0; }

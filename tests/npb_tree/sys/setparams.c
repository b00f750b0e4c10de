/* setparams BENCHMARK CLASS: writes npbparams.h (the class parameters) in the current
 * directory, leaving an identical file untouched, as NPB's sys/setparams does. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  char text[512], old[512] = "";
  long n;
  int niter;
  FILE *f;
  size_t len;
  if (argc != 3 || (strcmp(argv[1], "ep") && strcmp(argv[1], "va"))) {
    fprintf(stderr, "setparams: usage: setparams ep|va S|W\n");
    return 1;
  }
  switch (argv[2][0]) {
    case 'S': n = 1L << 16; niter = 20; break;
    case 'W': n = 1L << 19; niter = 20; break;
    default: fprintf(stderr, "setparams: unknown class %s\n", argv[2]); return 1;
  }
  if (!strcmp(argv[1], "va")) niter *= 150; /* VA runs for a tenth of a second or more */
  snprintf(text, sizeof text, "#define CLASS '%c'\n#define NPOINTS %ld\n#define NITER %d\n",
           argv[2][0], n, niter);
  if ((f = fopen("npbparams.h", "r"))) {
    len = fread(old, 1, sizeof old - 1, f);
    old[len] = 0;
    fclose(f);
    if (!strcmp(old, text)) return 0;
  }
  if (!(f = fopen("npbparams.h", "w"))) return 1;
  fputs(text, f);
  fclose(f);
  return 0;
}

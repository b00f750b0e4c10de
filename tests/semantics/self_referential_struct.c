/* A linked-list node (a struct holding a pointer to its own type) reached through a
 * callee's pointer parameter: that loop stays on the host (the check of the struct's members
 * recursed forever); the file's other loop reaches the device. */
#include <stdio.h>
#define N 64
typedef struct node {
  double value;
  struct node *next;
} node_t;
static node_t pool[N];
static node_t *heads[N / 2];
static double w[N];
static void bump(node_t *p, double d)
{
  for (; p != NULL; p = p->next)
    p->value += d;
}
int main(void)
{
  int i;
  double s = 0.0;
  for (i = 0; i < N; i++) {
    pool[i].value = i;
    pool[i].next = i % 2 == 0 ? &pool[i + 1] : NULL;
  }
  for (i = 0; i < N / 2; i++)
    heads[i] = &pool[2 * i];
#pragma omp parallel for
  for (i = 0; i < N / 2; i++)
    bump(heads[i], 0.5 * i);
#pragma omp parallel for
  for (i = 0; i < N; i++)
    w[i] = i * 0.25;
  for (i = 0; i < N; i++)
    s += pool[i].value + w[i];
  printf("%.2f\n", s);
  return 0;
}

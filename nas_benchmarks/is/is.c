/*
 * IS: NAS Parallel Benchmarks "Integer Sort" kernel, OpenMP C.
 * Independent implementation written from the NPB 3 specification.
 *
 * TOTAL_KEYS integer keys in [0, MAX_KEY) are generated as
 * key = (MAX_KEY/4) * (r1 + r2 + r3 + r4) from the NPB generator
 * (seed 314159265, a = 5^13).  Each of the MAX_ITERATIONS timed passes
 * modifies two keys (key[it] = it, key[it+MAX_ITERATIONS] = MAX_KEY - it)
 * and ranks all keys with a parallel bucket + counting sort.  After each
 * pass the ranks of five keys at fixed positions are checked against the
 * published values (partial verification); at the end the keys are fully
 * sorted with the final ranks and checked to be non-decreasing.
 */
#include <stdio.h>
#include <stdlib.h>
#include "npb.h"
#include "params.h"

#define TOTAL_KEYS   (1L << TOTAL_KEYS_LOG_2)
#define MAX_KEY      (1 << MAX_KEY_LOG_2)
#define NUM_BUCKETS  (1 << NUM_BUCKETS_LOG_2)
#define NUM_KEYS     TOTAL_KEYS
#define BUCKET_SHIFT (MAX_KEY_LOG_2 - NUM_BUCKETS_LOG_2)

typedef int key_t_;

static key_t_ key_array[NUM_KEYS];     /* the keys                           */
static key_t_ key_buff2[NUM_KEYS];     /* keys grouped by bucket             */
static key_t_ key_buff1[MAX_KEY];      /* key_buff1[k] = #keys <= k          */
static long   bucket_end[NUM_BUCKETS]; /* end of each bucket in key_buff2    */
static long  *bucket_size;             /* [nthreads][NUM_BUCKETS] histograms */

/* per-thread running positions into key_buff2, one per bucket */
static long bucket_ptrs[NUM_BUCKETS];
#pragma omp threadprivate(bucket_ptrs)

static key_t_ partial_verify_vals[TEST_ARRAY_SIZE];
static const long test_index_array[TEST_ARRAY_SIZE] = TEST_INDEX_ARRAY;
static const long test_rank_array[TEST_ARRAY_SIZE]  = TEST_RANK_ARRAY;
static const int  test_rank_sign[TEST_ARRAY_SIZE]   = TEST_RANK_SIGN;
static const int  test_rank_shift[TEST_ARRAY_SIZE]  = TEST_RANK_SHIFT;

static int passed_verification;

static int my_thread(void)
{
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

static int num_threads(void)
{
#ifdef _OPENMP
    return omp_get_num_threads();
#else
    return 1;
#endif
}

/* Generator state after n steps from seed s: s * a^n mod 2^46. */
static double skip_seed(double s, double a, long n)
{
    double t = s, an = a;
    while (n > 0) {
        if (n & 1)
            (void)randlc(&t, an);
        (void)randlc(&an, an);
        n >>= 1;
    }
    return t;
}

/* Key generation: each thread generates a contiguous block of keys,
 * starting from the generator state jumped ahead by 4 * first_key. */
static void create_seq(double seed, double a)
{
#pragma omp parallel
    {
        int id = my_thread(), np = num_threads();
        long chunk = (NUM_KEYS + np - 1) / np;
        long k1 = (long)id * chunk, k2 = k1 + chunk, i;
        const double k = MAX_KEY / 4;
        double s;

        if (k2 > NUM_KEYS)
            k2 = NUM_KEYS;
        if (k1 < k2) {
            s = skip_seed(seed, a, 4 * k1);
            for (i = k1; i < k2; i++) {
                double x = randlc(&s, a);
                x += randlc(&s, a);
                x += randlc(&s, a);
                x += randlc(&s, a);
                key_array[i] = (key_t_)(k * x);
            }
        }
    }
}

/* One ranking pass. */
static void rank(int iteration)
{
    int i;

    key_array[iteration] = iteration;
    key_array[iteration + MAX_ITERATIONS] = MAX_KEY - iteration;

    for (i = 0; i < TEST_ARRAY_SIZE; i++)
        partial_verify_vals[i] = key_array[test_index_array[i]];

#pragma omp parallel private(i)
    {
        int id = my_thread(), np = num_threads();
        long *work = bucket_size + (long)id * NUM_BUCKETS;
        long k;
        int t;

        /* 1. per-thread bucket histogram of this thread's static share */
        for (i = 0; i < NUM_BUCKETS; i++)
            work[i] = 0;
#pragma omp for schedule(static)
        for (k = 0; k < NUM_KEYS; k++)
            work[key_array[k] >> BUCKET_SHIFT]++;
        /* implicit barrier: all histograms complete */

        /* 2. this thread's start position in every bucket: all keys of
         *    smaller buckets plus the keys of lower threads in this bucket */
        {
            long pos = 0;
            for (i = 0; i < NUM_BUCKETS; i++) {
                long mine = pos;
                for (t = 0; t < np; t++) {
                    long c = bucket_size[(long)t * NUM_BUCKETS + i];
                    if (t < id)
                        mine += c;
                    pos += c;
                }
                bucket_ptrs[i] = mine;
                if (id == np - 1)
                    bucket_end[i] = pos;
            }
        }

        /* 3. scatter the keys into their buckets (same static schedule) */
#pragma omp for schedule(static)
        for (k = 0; k < NUM_KEYS; k++) {
            key_t_ key = key_array[k];
            key_buff2[bucket_ptrs[key >> BUCKET_SHIFT]++] = key;
        }
        /* implicit barrier: bucket_end written, key_buff2 complete */

        /* 4. counting sort inside every bucket, then prefix sums give
         *    key_buff1[k] = number of keys <= k */
#pragma omp for schedule(dynamic)
        for (i = 0; i < NUM_BUCKETS; i++) {
            long k1 = (long)i << BUCKET_SHIFT, k2 = k1 + (1L << BUCKET_SHIFT);
            long m = (i > 0) ? bucket_end[i - 1] : 0;
            for (k = k1; k < k2; k++)
                key_buff1[k] = 0;
            for (k = m; k < bucket_end[i]; k++)
                key_buff1[key_buff2[k]]++;
            key_buff1[k1] += (key_t_)m;
            for (k = k1 + 1; k < k2; k++)
                key_buff1[k] += key_buff1[k - 1];
        }
    }

    /* partial verification: rank of key k = #keys < k = key_buff1[k-1] */
    for (i = 0; i < TEST_ARRAY_SIZE; i++) {
        key_t_ k = partial_verify_vals[i];
        if (k > 0 && k <= NUM_KEYS - 1) {
            long key_rank = key_buff1[k - 1];
            long expect = NPB_REF_INT(test_rank_array[i])
                        + test_rank_sign[i] * (iteration + test_rank_shift[i]);
            if (key_rank == expect)
                passed_verification++;
            else
                printf(" Failed partial verification: iteration %d, test key %d "
                       "(rank %ld, expected %ld)\n", iteration, i, key_rank, expect);
        }
    }
}

/* Full verification: place every key at its final rank and check order. */
static void full_verify(void)
{
    long i, j = 0;

    /* keys of one bucket have ranks inside that bucket's key range, so the
     * buckets can be placed concurrently */
#pragma omp parallel for schedule(dynamic) private(i)
    for (j = 0; j < NUM_BUCKETS; j++) {
        long k1 = (j > 0) ? bucket_end[j - 1] : 0;
        for (i = k1; i < bucket_end[j]; i++) {
            key_t_ key = key_buff2[i];
            long r = --key_buff1[key];
            key_array[r] = key;
        }
    }

    j = 0;
#pragma omp parallel for reduction(+:j)
    for (i = 1; i < NUM_KEYS; i++)
        if (key_array[i - 1] > key_array[i])
            j++;

    if (j != 0)
        printf(" Full_verify: number of keys out of sort: %ld\n", j);
    else
        passed_verification++;
}

int main(void)
{
    int iteration, verified;
    double timecounter;

    printf("\n\n NAS Parallel Benchmarks (ompcl OpenMP C) - IS Benchmark\n\n");
    printf(" Size:  %ld  (class %c)\n", (long)TOTAL_KEYS, NPB_CLASS);
    printf(" Iterations:   %d\n", MAX_ITERATIONS);
    printf(" Number of available threads: %d\n\n", npb_num_threads());

    bucket_size = malloc(sizeof(long) * NUM_BUCKETS * (size_t)npb_num_threads());
    if (bucket_size == NULL) {
        fprintf(stderr, "IS: out of memory\n");
        return 2;
    }

    create_seq(IS_KEY_SEED, IS_KEY_MULT);

    /* one untimed pass to touch all data and code */
    rank(1);
    passed_verification = 0;

    if (NPB_CLASS != 'S')
        printf("\n   iteration\n");

    timer_clear(0);
    timer_start(0);
    for (iteration = 1; iteration <= MAX_ITERATIONS; iteration++) {
        if (NPB_CLASS != 'S')
            printf("        %d\n", iteration);
        rank(iteration);
    }
    timer_stop(0);
    timecounter = timer_read(0);

    full_verify();

    verified = (passed_verification == PASSES_REQUIRED);
    printf(" Passed verifications: %d of %d\n", passed_verification, PASSES_REQUIRED);

    print_results("IS", NPB_CLASS, TOTAL_KEYS, 0, 0, MAX_ITERATIONS, timecounter,
                  ((double)MAX_ITERATIONS * (double)TOTAL_KEYS) / timecounter / 1.0e6,
                  "keys ranked", verified);
    free(bucket_size);
    return verified ? 0 : 1;
}

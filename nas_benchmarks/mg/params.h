/*
 * NPB MG problem classes (NPB 3 specification): grid size, number of
 * V-cycle iterations, number of levels and the verification reference
 * value of the L2 norm of the final residual.  Select a class at compile
 * time with -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or -DCLASS_C.
 */
#ifndef MG_PARAMS_H
#define MG_PARAMS_H

#if defined(CLASS_S)
#define NX_DEFAULT     32
#define NY_DEFAULT     32
#define NZ_DEFAULT     32
#define NIT_DEFAULT    4
#define LT_DEFAULT     5
#define SMOOTHER_SA    1
#define VERIFY_VALUE   5.307707005734e-05
#elif defined(CLASS_W)
#define NX_DEFAULT     128
#define NY_DEFAULT     128
#define NZ_DEFAULT     128
#define NIT_DEFAULT    4
#define LT_DEFAULT     7
#define SMOOTHER_SA    1
#define VERIFY_VALUE   6.467329375339e-06
#elif defined(CLASS_A)
#define NX_DEFAULT     256
#define NY_DEFAULT     256
#define NZ_DEFAULT     256
#define NIT_DEFAULT    4
#define LT_DEFAULT     8
#define SMOOTHER_SA    1
#define VERIFY_VALUE   2.433365309069e-06
#elif defined(CLASS_B)
#define NX_DEFAULT     256
#define NY_DEFAULT     256
#define NZ_DEFAULT     256
#define NIT_DEFAULT    20
#define LT_DEFAULT     8
#define SMOOTHER_SA    0
#define VERIFY_VALUE   1.800564401355e-06
#elif defined(CLASS_C)
/* Class C needs about 3.6 GiB of static data; the Makefile links it with -mcmodel=medium. */
#define NX_DEFAULT     512
#define NY_DEFAULT     512
#define NZ_DEFAULT     512
#define NIT_DEFAULT    20
#define LT_DEFAULT     9
#define SMOOTHER_SA    0
#define VERIFY_VALUE   5.70673228574e-07
#else
#error "MG: no problem class given; compile with -DCLASS_S, -DCLASS_W, -DCLASS_A, -DCLASS_B or -DCLASS_C"
#endif

/* relative tolerance of the verification test */
#define VERIFY_EPSILON 1.0e-8

/* largest grid dimension including the two ghost planes */
#define NM (NX_DEFAULT + 2)

/* points of a level-k grid including ghost planes (cubic grids) */
#define MG_LEVEL_POINTS(k) \
    ((long)((1L << (k)) + 2) * (long)((1L << (k)) + 2) * (long)((1L << (k)) + 2))
#define MG_LEVEL_IF(k) ((k) <= LT_DEFAULT ? MG_LEVEL_POINTS(k) : 0L)

/* storage for all levels 1..LT of u and r, the finest level first */
#define NR (MG_LEVEL_IF(1) + MG_LEVEL_IF(2) + MG_LEVEL_IF(3) + MG_LEVEL_IF(4) + \
            MG_LEVEL_IF(5) + MG_LEVEL_IF(6) + MG_LEVEL_IF(7) + MG_LEVEL_IF(8) + \
            MG_LEVEL_IF(9) + MG_LEVEL_IF(10))

#define MAXLEVEL 11

#endif /* MG_PARAMS_H */

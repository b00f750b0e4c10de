/* ompcl analysis prelude: spellings the C parser does not know, seen only by analysis. */
typedef char *__builtin_va_list;
typedef struct __ompcl_typeof __ompcl_typeof_t;  /* GNU's typeof in a body (setaside.py) */
#define __attribute__(x)
#define __extension__
#define __thread _Thread_local
#define __asm__(x)
#define __asm(x)
#define __inline__ inline
#define __inline inline
#define __restrict__ restrict
#define __restrict restrict
#define __volatile__ volatile
#define __const const
#define __signed__ signed
#define __int128 long long volatile  /* marked: analysis.qualifiers keeps its loops on the host */
#define _Float128 long double
#define __float128 long double
#define __builtin_offsetof(t, m) ((unsigned long)&((t *)0)->m)
#define __builtin_expect(e, v) (e)
#define __builtin_prefetch(...) ((void)0)  /* a hint: nothing to do on the device */

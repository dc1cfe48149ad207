/*
 * host_prelude.h - forced first into every host compile (-include).
 * glibc's <sys/cdefs.h> defines __always_inline, as kernel/compiler.h does;
 * pull it in first and drop its definition so compiler.h's stands, whichever
 * of the two a source includes first.
 */
#ifndef HOST_PRELUDE_H
#define HOST_PRELUDE_H
#include <sys/cdefs.h>
#undef __always_inline
#endif

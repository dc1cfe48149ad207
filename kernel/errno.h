/* errno.h - error numbers returned (negated) by kernel functions. */
#ifndef QUARRY_ERRNO_H
#define QUARRY_ERRNO_H
#define ENOMEM	12	/* out of memory */
#define EFAULT	14	/* address outside RAM or not the kind expected */
#define EBUSY	16	/* still in use */
#define EINVAL	22	/* invalid argument: not allocated, double free, wrong order */
#endif

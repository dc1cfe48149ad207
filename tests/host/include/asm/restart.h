/*
 * asm/restart.h - the host build has no interrupt entry to move a return
 * address back (kernel/restart.h): restartable sequences are not provided,
 * and their users keep their interrupts-off forms.
 */
#ifndef ASM_RESTART_H
#define ASM_RESTART_H

#define ARCH_HAS_RESTARTABLE	0

#endif

/* cmdline.c - looking up words on the kernel command line. */
#include "kernel/bootinfo.h"

/* cmdline_has: see kernel/bootinfo.h. */
bool cmdline_has(const struct boot_info *bi, const char *word)
{
	const char *s = bi->cmdline;

	while (*s) {
		const char *w = word;
		const char *t = s;

		while (*w && *t == *w) {
			t++;
			w++;
		}
		if (!*w && (*t == ' ' || *t == '\0') && (s == bi->cmdline || s[-1] == ' '))
			return true;
		s++;
	}
	return false;
}

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

/* cmdline_value: see kernel/bootinfo.h. */
const char *cmdline_value(const struct boot_info *bi, const char *key, char *buf, size_t size)
{
	const char *s = bi->cmdline;

	for (; *s; s++) {
		const char *k = key, *t = s;
		size_t n = 0;

		if (s != bi->cmdline && s[-1] != ' ')
			continue;
		while (*k && *t == *k) {
			t++;
			k++;
		}
		if (*k || *t != '=')
			continue;
		for (t++; *t && *t != ' ' && n + 1 < size; t++)
			buf[n++] = *t;
		if (size)
			buf[n] = '\0';
		return buf;
	}
	return NULL;
}

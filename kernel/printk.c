/*
 * printk.c - formatted console output. One console lock makes every printk
 * call's text a whole unit on the console, even under SMP; it is taken with
 * interrupts saved, so printk works from interrupt handlers. A line longer
 * than the buffer is cut.
 *
 * Everything printed also goes into printk_log (printk.h), a ring of the
 * last PRINTK_LOG_SIZE bytes written under the console lock, for a debugger
 * to read from a stopped kernel (quarry-dmesg in scripts/gdb/); the kernel
 * never reads it back.
 */
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/arch.h"

struct fmt_out {
	char *buf;
	size_t size;
	size_t len;	/* characters the full text needs */
};

static void out_char(struct fmt_out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

struct fmt_spec {
	int width;
	bool left;
	bool zero;
	int length;	/* 0 int, 1 long, 2 long long, -1 short, -2 char, 3 size_t */
};

static void out_padded(struct fmt_out *o, const char *s, size_t n, const struct fmt_spec *sp,
		       bool numeric_neg)
{
	size_t pad = sp->width > 0 && (size_t)sp->width > n ? (size_t)sp->width - n : 0;

	if (!sp->left && sp->zero && numeric_neg) {
		out_char(o, '-');
		s++;
		n--;
	}
	if (!sp->left)
		while (pad--)
			out_char(o, sp->zero ? '0' : ' ');
	for (size_t i = 0; i < n; i++)
		out_char(o, s[i]);
	if (sp->left)
		while (pad--)
			out_char(o, ' ');
}

static void out_number(struct fmt_out *o, unsigned long long v, bool neg, unsigned int base,
		       bool upper, const struct fmt_spec *sp)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int i = (int)sizeof(tmp);

	do {
		tmp[--i] = digits[v % base];
		v /= base;
	} while (v);
	if (neg)
		tmp[--i] = '-';
	out_padded(o, tmp + i, sizeof(tmp) - (size_t)i, sp, neg);
}

static unsigned long long fetch_unsigned(va_list *ap, int length)
{
	switch (length) {
	case 1: return va_arg(*ap, unsigned long);
	case 2: return va_arg(*ap, unsigned long long);
	case 3: return va_arg(*ap, size_t);
	case -1: return (unsigned short)va_arg(*ap, unsigned int);
	case -2: return (unsigned char)va_arg(*ap, unsigned int);
	default: return va_arg(*ap, unsigned int);
	}
}

static long long fetch_signed(va_list *ap, int length)
{
	switch (length) {
	case 1: return va_arg(*ap, long);
	case 2: return va_arg(*ap, long long);
	case 3: return (long long)va_arg(*ap, size_t);
	case -1: return (short)va_arg(*ap, int);
	case -2: return (signed char)va_arg(*ap, int);
	default: return va_arg(*ap, int);
	}
}

static const char *parse_spec(const char *f, struct fmt_spec *sp)
{
	*sp = (struct fmt_spec){ 0 };
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else
			break;
	}
	while (*f >= '0' && *f <= '9')
		sp->width = sp->width * 10 + (*f++ - '0');
	if (*f == 'l') {
		sp->length = 1;
		if (*++f == 'l') {
			sp->length = 2;
			f++;
		}
	} else if (*f == 'z') {
		sp->length = 3;
		f++;
	} else if (*f == 'h') {
		sp->length = -1;
		if (*++f == 'h') {
			sp->length = -2;
			f++;
		}
	}
	return f;
}

/* vsnprintf: see printk.h. */
int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap_in)
{
	struct fmt_out o = { buf, size, 0 };
	struct fmt_spec sp;
	va_list ap;

	va_copy(ap, ap_in);
	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			out_char(&o, *f);
			continue;
		}
		f = parse_spec(f + 1, &sp);
		switch (*f) {
		case 'd':
		case 'i': {
			long long v = fetch_signed(&ap, sp.length);
			out_number(&o, v < 0 ? -(unsigned long long)v : (unsigned long long)v, v < 0,
				   10, false, &sp);
			break;
		}
		case 'u':
			out_number(&o, fetch_unsigned(&ap, sp.length), false, 10, false, &sp);
			break;
		case 'x':
		case 'X':
			out_number(&o, fetch_unsigned(&ap, sp.length), false, 16, *f == 'X', &sp);
			break;
		case 'o':
			out_number(&o, fetch_unsigned(&ap, sp.length), false, 8, false, &sp);
			break;
		case 'p': {
			struct fmt_spec ps = { .width = 16, .zero = true };
			out_char(&o, '0');
			out_char(&o, 'x');
			out_number(&o, (uintptr_t)va_arg(ap, void *), false, 16, false, &ps);
			break;
		}
		case 's': {
			const char *s = va_arg(ap, const char *);
			size_t n = 0;
			if (!s)
				s = "(null)";
			while (s[n])
				n++;
			out_padded(&o, s, n, &sp, false);
			break;
		}
		case 'c': {
			char c = (char)va_arg(ap, int);
			out_padded(&o, &c, 1, &sp, false);
			break;
		}
		case '%':
			out_char(&o, '%');
			break;
		case '\0':
			f--;
			break;
		default:
			out_char(&o, '%');
			out_char(&o, *f);
			break;
		}
	}
	va_end(ap);
	if (size)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

/* snprintf: see printk.h. */
int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}

static struct spinlock console_lock = SPINLOCK_INIT;

struct printk_log printk_log;
_Static_assert((PRINTK_LOG_SIZE & (PRINTK_LOG_SIZE - 1)) == 0, "the log ring wraps by a mask");

/* Append to the ring. Console lock held. */
static void log_store(const char *s, size_t len)
{
	unsigned long head = printk_log.head;

	for (size_t i = 0; i < len; i++)
		printk_log.buf[(head + i) & (PRINTK_LOG_SIZE - 1)] = s[i];
	/* The bytes before the count that covers them (a debugger trusts head). */
	__atomic_store_n(&printk_log.head, head + len, __ATOMIC_RELEASE);
}

/* vprintk: see printk.h. */
int vprintk(const char *fmt, va_list ap)
{
	char buf[512];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	size_t len = n < (int)sizeof(buf) ? (size_t)n : sizeof(buf) - 1;
	unsigned long flags = spin_lock_irqsave(&console_lock);

	log_store(buf, len);
	arch_console_write(buf, len);
	spin_unlock_irqrestore(&console_lock, flags);
	return (int)len;
}

/* vprintk_line: see printk.h. */
int vprintk_line(const char *prefix, const char *suffix, const char *fmt, va_list ap)
{
	char msg[320];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return printk("%s%s%s\n", prefix, msg, suffix);
}

/* printk: see printk.h. */
int printk(const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk(fmt, ap);
	va_end(ap);
	return n;
}

/*
 * printk_take_console - for panic: make the console usable by this CPU even if
 * another CPU died holding the lock. Only call once the other CPUs are stopped.
 */
void printk_take_console(void)
{
	spin_lock_init(&console_lock);
}

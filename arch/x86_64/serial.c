/*
 * serial.c - the console: a polled 16550 UART on COM1 (0x3f8), 115200 8N1.
 * printk serialises callers with its console lock; this file has no lock.
 */
#include "kernel/arch.h"
#include "arch/x86_64/io.h"
#include "arch/x86_64/x86.h"

#define COM1		0x3f8
#define UART_DATA	0	/* DLAB=0: data; DLAB=1: divisor low */
#define UART_IER	1	/* DLAB=0: interrupt enable; DLAB=1: divisor high */
#define UART_FCR	2
#define UART_LCR	3
#define UART_MCR	4
#define UART_LSR	5
#define LSR_THRE	0x20	/* transmit holding register empty */

/* serial_init - program COM1. Call once, first thing at boot. */
void serial_init(void)
{
	outb(COM1 + UART_IER, 0x00);	/* no UART interrupts: we poll */
	outb(COM1 + UART_LCR, 0x80);	/* DLAB on */
	outb(COM1 + UART_DATA, 0x01);	/* divisor 1: 115200 baud */
	outb(COM1 + UART_IER, 0x00);
	outb(COM1 + UART_LCR, 0x03);	/* 8 bits, no parity, 1 stop, DLAB off */
	outb(COM1 + UART_FCR, 0xc7);	/* FIFOs on and cleared */
	outb(COM1 + UART_MCR, 0x03);	/* DTR, RTS */
}

static void serial_putc(char c)
{
	while (!(inb(COM1 + UART_LSR) & LSR_THRE))
		;
	outb(COM1 + UART_DATA, (uint8_t)c);
}

/* arch_console_write: see kernel/arch.h. */
void arch_console_write(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			serial_putc('\r');
		serial_putc(s[i]);
	}
}

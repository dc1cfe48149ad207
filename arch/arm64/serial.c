/*
 * serial.c - the console: QEMU virt's PL011 UART at 0x09000000, polled. QEMU
 * needs no baud rate setup; the UART is used as the firmware left it.
 * printk serialises callers with its console lock; this file has no lock.
 */
#include "kernel/arch.h"
#include "arch/arm64/arm64.h"

#define UART_BASE	0x09000000UL
#define UART_DR		0x00
#define UART_FR		0x18
#define FR_TXFF		(1U << 5)	/* transmit FIFO full */
#define UART_CR		0x30
#define CR_UARTEN	(1U << 0)
#define CR_TXE		(1U << 8)

static volatile uint32_t *const uart = (volatile uint32_t *)UART_BASE;

/* serial_init - enable the UART and its transmitter. Once, first thing at boot. */
void serial_init(void)
{
	uart[UART_CR / 4] |= CR_UARTEN | CR_TXE;
}

static void serial_putc(char c)
{
	while (uart[UART_FR / 4] & FR_TXFF)
		;
	uart[UART_DR / 4] = (uint8_t)c;
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

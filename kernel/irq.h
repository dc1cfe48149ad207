/* irq.h - interrupt handlers, as kernel/ sees them. */
#ifndef QUARRY_IRQ_H
#define QUARRY_IRQ_H

typedef void (*irq_handler_t)(unsigned int vector);

/*
 * irq_register - run fn, with interrupts off, whenever this vector arrives.
 * vector is 32..255 (lower ones are exceptions, always fatal).
 */
void irq_register(unsigned int vector, irq_handler_t fn);

#endif

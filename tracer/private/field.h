/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * field.h - how the tracer describes the fields of an event record
 *
 * Every record starts with struct rt_entry (the kernel's struct
 * trace_entry); the event's own fields follow. The same descriptions
 * feed the format file, the filter compiler and the output code.
 */
#ifndef RINGTRACE_FIELD_H
#define RINGTRACE_FIELD_H

#include <stddef.h>
#include <stdint.h>

/**
 * enum rt_field_kind - what a field holds
 * @RT_FIELD_INT: an integer of 1, 2, 4 or 8 bytes (signed or not)
 * @RT_FIELD_ARRAY: a fixed array of integers (elem_size bytes each)
 * @RT_FIELD_STRING: a fixed char array holding a NUL-terminated string
 *	(it may fill the array without a NUL)
 * @RT_FIELD_DYNSTR: a __data_loc string: a u32 whose low 16 bits are the
 *	string's offset from the start of the record and high 16 bits its
 *	length including the NUL
 * @RT_FIELD_PTR: an address (unsigned long) printed as a symbol;
 *	compared as an unsigned integer
 */
enum rt_field_kind {
	RT_FIELD_INT = 0,
	RT_FIELD_ARRAY,
	RT_FIELD_STRING,
	RT_FIELD_DYNSTR,
	RT_FIELD_PTR,
};

/**
 * struct rt_field - one field of an event record
 * @type: the C type as the format file shows it ("int", "char[16]",
 *	"__data_loc char[]", "unsigned long")
 * @name: the field's name
 * @offset: bytes from the start of the record (struct rt_entry included)
 * @size: bytes the field occupies in the record
 * @is_signed: 1 for a signed integer type
 * @kind: enum rt_field_kind
 * @elem_size: for RT_FIELD_ARRAY and RT_FIELD_STRING, the element size
 */
struct rt_field {
	const char *type;
	const char *name;
	uint16_t offset;
	uint16_t size;
	uint8_t is_signed;
	uint8_t kind;
	uint16_t elem_size;
};

#endif /* RINGTRACE_FIELD_H */

/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/event.h - what the TRACE_EVENT() macros expand to call
 *
 * Programs do not use this header directly: they define events with
 * <ringtrace/tracepoint.h> and create them with <ringtrace/define_trace.h>,
 * as kernel code does with <linux/tracepoint.h> and
 * <trace/define_trace.h>.
 */
#ifndef RINGTRACE_EVENT_H
#define RINGTRACE_EVENT_H

#ifndef __cplusplus
#include <stdatomic.h>
#include <stdbool.h>
#endif
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The enable mask is read by the inline trace_<event>() of C and C++
 * programs and changed by the library with C11 atomics. C++ has no
 * _Atomic: it sees a plain uint64_t of the same size and alignment and
 * reads it with the compiler's atomic builtin, which is the same relaxed
 * load.
 */
#ifdef __cplusplus
#define RINGTRACE_ATOMIC_U64 uint64_t
#define RINGTRACE_LOAD_RELAXED(p) __atomic_load_n((p), __ATOMIC_RELAXED)
#else
#define RINGTRACE_ATOMIC_U64 _Atomic uint64_t
#define RINGTRACE_LOAD_RELAXED(p) atomic_load_explicit((p), memory_order_relaxed)
#endif

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) && defined(RINGTRACE_BUILDING)
#define RINGTRACE_API __attribute__((visibility("default")))
#else
#define RINGTRACE_API
#endif

/*
 * Records start 4-byte aligned, as the kernel's do on x86 (the ring
 * buffer's RB_ALIGNMENT), so an 8-byte field may sit at an address that is
 * 4 mod 8. x86 loads and stores those at full speed, and the kernel
 * writes its records the same way; the functions that touch records in
 * place say so to UBSan's alignment check. Userspace: the kernel forces
 * 8-byte alignment on the architectures that need it
 * (CONFIG_HAVE_64BIT_ALIGNED_ACCESS); this port supports x86 only.
 */
#if defined(__GNUC__) && (__GNUC__ >= 8 || defined(__clang__))
#define RINGTRACE_RECORD_ACCESS __attribute__((no_sanitize("alignment")))
#else
#define RINGTRACE_RECORD_ACCESS
#endif

/**
 * struct ringtrace_entry - the header of every record (the kernel's
 *	struct trace_entry, byte for byte)
 * @type: the event's id
 * @flags: RINGTRACE_FLAG_* of the writing context
 * @preempt_count: low nibble: the tracer's nesting depth at the write
 *	(shown where the kernel shows the preempt depth)
 * @pid: the writing thread's id
 */
struct ringtrace_entry {
	uint16_t type;
	uint8_t flags;
	uint8_t preempt_count;
	int32_t pid;
};

/* Bits of ringtrace_entry.flags; the values are the kernel's. */
#define RINGTRACE_FLAG_HARDIRQ 0x08 /* written from a signal handler */

/* enum rt_field_kind values, for the field declarations below */
#define RINGTRACE_FIELD_INT 0
#define RINGTRACE_FIELD_ARRAY 1
#define RINGTRACE_FIELD_STRING 2
#define RINGTRACE_FIELD_DYNSTR 3
#define RINGTRACE_FIELD_PTR 4

/**
 * struct ringtrace_field_decl - a field as TP_STRUCT__entry() declares it
 * @type: the C type as written ("int", "char[16]", "__data_loc char[]")
 * @name: the field's name
 * @size: bytes in the record
 * @align: its alignment
 * @is_signed: 1 for signed integers
 * @kind: RINGTRACE_FIELD_*
 * @elem_size: element size of arrays
 *
 * Offsets are not declared: the registry lays the fields out after the
 * header with the C rules, and checks the result against the size of the
 * generated struct.
 */
struct ringtrace_field_decl {
	const char *type;
	const char *name;
	uint16_t size;
	uint16_t align;
	uint8_t is_signed;
	uint8_t kind;
	uint16_t elem_size;
};

struct ringtrace_seq;
struct rt_event_priv;

/**
 * struct ringtrace_event - one event, defined by TRACE_EVENT()
 * @enabled: bit N set while the event is enabled in instance N; the only
 *	thing trace_<event>() reads while the event is off
 * @system: the TRACE_SYSTEM it belongs to
 * @name: the event's name
 * @fields: the fields after the common header, ended by a NULL name
 * @print_fmt: the "print fmt:" text of the format file
 * @print: prints the record as TP_printk() says
 * @size: sizeof the fixed part of the record
 * @priv: the registry's state for the event
 */
struct ringtrace_event {
	RINGTRACE_ATOMIC_U64 enabled;
	const char *system;
	const char *name;
	const struct ringtrace_field_decl *fields;
	const char *print_fmt;
	void (*print)(struct ringtrace_seq *s, const void *rec);
	size_t size;
	struct rt_event_priv *priv;
};

/**
 * struct ringtrace_write - one event being written to every instance
 *	that enabled it (internal to the generated code)
 */
struct ringtrace_write {
	struct ringtrace_event *event;
	uint64_t mask;
	size_t size;
	void *rb;
	void *rbev;
	void *rec;
	const void *filter;
	int inst;
	int depth;
	const void *trig;
	int soft;
};

RINGTRACE_API void *ringtrace_write_first(struct ringtrace_event *ev,
					  struct ringtrace_write *w,
					  size_t size);
RINGTRACE_API void *ringtrace_write_next(struct ringtrace_write *w);
RINGTRACE_API void ringtrace_write_commit(struct ringtrace_write *w);
RINGTRACE_API void *ringtrace_write_commit_next(struct ringtrace_write *w);
/* (the inline write's call for an instance it found filtered or armed,
 * inside its read-side section; <ringtrace/inline_write.h>) */
RINGTRACE_API void *ringtrace_write_armed(struct ringtrace_event *ev,
					  struct ringtrace_write *w,
					  size_t size, int i);
RINGTRACE_API void ringtrace_write_record(struct ringtrace_event *ev,
					  void *rec, size_t size);

/*
 * Records of at most this many bytes, of a fixed size (no __string() or
 * __dynamic_array()), are assigned on the stack of the event's write
 * function and written by one call, ringtrace_write_record(); the others
 * are assigned in place, instance by instance (ringtrace_write_first()).
 */
#ifndef RINGTRACE_STACK_RECORD
#define RINGTRACE_STACK_RECORD 256
#endif
RINGTRACE_API int ringtrace_event_register(struct ringtrace_event *ev);
RINGTRACE_API void ringtrace_event_unregister(struct ringtrace_event *ev);
RINGTRACE_API void ringtrace_seq_printf(struct ringtrace_seq *s,
					const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#ifdef __cplusplus
}
#endif

/*
 * What the field macros need to know of a type, as constant expressions:
 * C has __builtin_choose_expr() and _Generic, C++ has templates.
 */
#ifdef __cplusplus
#include <type_traits>

template <typename T, bool = std::is_enum<T>::value> struct __rt_type_info {
	static constexpr bool is_ptr = std::is_pointer<T>::value;
	static constexpr int is_signed = std::is_signed<T>::value ? 1 : 0;
	static constexpr bool is_char =
		std::is_same<T, char>::value ||
		std::is_same<T, signed char>::value ||
		std::is_same<T, unsigned char>::value;
};
template <typename T> struct __rt_type_info<T, true>
	: __rt_type_info<typename std::underlying_type<T>::type> {
};
#define __RT_IS_PTR(type) (__rt_type_info<type>::is_ptr)
#define __RT_IS_SIGNED(type) (__rt_type_info<type>::is_signed)
#define __RT_KIND(type)                                                     \
	(__RT_IS_PTR(type) ? RINGTRACE_FIELD_PTR : RINGTRACE_FIELD_INT)
#define __RT_ARRAY_KIND(type)                                               \
	(__rt_type_info<type>::is_char ? RINGTRACE_FIELD_STRING             \
				       : RINGTRACE_FIELD_ARRAY)
#define __RT_DYN_KIND(type)                                                 \
	(__rt_type_info<type>::is_char ? RINGTRACE_FIELD_DYNSTR             \
				       : RINGTRACE_FIELD_ARRAY)
#define __RT_ALIGNOF(type) alignof(type)
#define __RT_CAST(type, p) (reinterpret_cast<type>(p))
#else
#define __RT_IS_PTR(type) (__builtin_classify_type((type)0) == 5)
#define __RT_IS_SIGNED(type)                                                \
	__builtin_choose_expr(__RT_IS_PTR(type), 0,                         \
			      ((type)-1 < (type)1))
#define __RT_KIND(type)                                                     \
	__builtin_choose_expr(__RT_IS_PTR(type), RINGTRACE_FIELD_PTR,       \
			      RINGTRACE_FIELD_INT)
#define __RT_ARRAY_KIND(type)                                               \
	_Generic((type)0, char: RINGTRACE_FIELD_STRING,                     \
		 signed char: RINGTRACE_FIELD_STRING,                       \
		 unsigned char: RINGTRACE_FIELD_STRING,                     \
		 default: RINGTRACE_FIELD_ARRAY)
#define __RT_DYN_KIND(type)                                                 \
	_Generic((type)0, char: RINGTRACE_FIELD_DYNSTR,                     \
		 signed char: RINGTRACE_FIELD_DYNSTR,                       \
		 unsigned char: RINGTRACE_FIELD_DYNSTR,                     \
		 default: RINGTRACE_FIELD_ARRAY)
#define __RT_ALIGNOF(type) _Alignof(type)
#define __RT_CAST(type, p) ((type)(p))
#endif

/* strnlen() is POSIX, not C: a program built with -std=c11 and no feature
 * macro has no declaration of it. */
static inline __attribute__((always_inline, unused, no_instrument_function))
size_t __rt_strnlen(const char *s, size_t max)
{
	const char *e = (const char *)memchr(s, '\0', max);

	return e ? (size_t)(e - s) : max;
}

#endif /* RINGTRACE_EVENT_H */

/* SPDX-License-Identifier: MIT */
/*
 * ringtrace/trace_events.h - the passes over a trace header
 *
 * Included by <ringtrace/define_trace.h> only. No include guard: each
 * trace header created in a file goes through all passes.
 *
 *  1. struct ringtrace_raw_<class>: the record
 *  2. struct ringtrace_data_offsets_<class>: where the dynamic parts go
 *  3. ringtrace_get_offsets_<class>(): sizes the dynamic parts
 *  4. ringtrace_fields_<class>[] and ringtrace_print_<class>()
 *  5. ringtrace_print_fmt_<class>[]: the "print fmt:" text, with
 *     __entry spelled REC as in the kernel's format files
 *  6. the write function of the class, then per event its
 *     struct ringtrace_event, __ringtrace_do_<event>() and registration
 *
 * Included on its own (outside define_trace.h) it does nothing.
 */
#ifdef RT_TRACE_INCLUDE
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Longest __string() kept, NUL included; longer strings are cut. */
#ifndef RINGTRACE_MAX_STRING
#define RINGTRACE_MAX_STRING 2048
#endif

#undef TP_STRUCT__entry
#define TP_STRUCT__entry(...) __VA_ARGS__
#undef TP_fast_assign
#define TP_fast_assign(...) __VA_ARGS__
#undef TP_printk
#define TP_printk(...) __VA_ARGS__

/*
 * TRACE_EVENT(), DECLARE_EVENT_CLASS() and DEFINE_EVENT() are defined once,
 * in <ringtrace/trace_declare.h>; each pass below gives their inner
 * __RT_EVENT_CLASS() and __RT_DEFINE_EVENT() its meaning.
 */

/* The classification of a field's type (__RT_IS_SIGNED() and friends,
 * for the format and the filter) is in <ringtrace/event.h>. */

/* Accessors of TP_fast_assign() and TP_printk() */
#undef __get_dynamic_array
#define __get_dynamic_array(item)                                           \
	((void *)((char *)(uintptr_t)__entry +                              \
		  ((__entry)->__data_loc_##item & 0xffff)))
#undef __get_dynamic_array_len
#define __get_dynamic_array_len(item) ((__entry)->__data_loc_##item >> 16)
#undef __get_str
#define __get_str(item) ((char *)__get_dynamic_array(item))
#undef __assign_str
/* (one argument or two, as the kernel's before and after 6.10; the
 * first is the field: ISO C wants at least one argument for "...") */
#define __assign_str(...) __rt_assign_str(__rt_first_arg(__VA_ARGS__, 0))
#define __rt_first_arg(first, ...) first
#define __rt_assign_str(item) __rt_assign_str_field(item)
#define __rt_assign_str_field(item)                                         \
	do {                                                                \
		size_t __l = __get_dynamic_array_len(item);                 \
		memcpy(__get_str(item), __data_offsets.item##__src, __l - 1);\
		__get_str(item)[__l - 1] = '\0';                            \
	} while (0)

/* Generated functions take every TP_PROTO() argument, used or not. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* ---- pass 1: the record ---------------------------------------------- */
#undef __field
#undef __array
#undef __string
#undef __dynamic_array
#define __field(type, item) type item;
#define __array(type, item, len) type item[len];
#define __string(item, src) uint32_t __data_loc_##item;
#define __dynamic_array(type, item, len) uint32_t __data_loc_##item;
#undef __RT_EVENT_CLASS
#define __RT_EVENT_CLASS(name, proto, args, tstruct, assign, print)      \
	struct ringtrace_raw_##name {                                       \
		struct ringtrace_entry ent;                                 \
		tstruct                                                     \
		char __data[];                                              \
	};
#undef __RT_DEFINE_EVENT
#define __RT_DEFINE_EVENT(template, name, proto, args)
/* (the record ends in a flexible array member, which ISO C++ lacks and
 * g++ and clang++ accept) */
#ifdef __cplusplus
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wpedantic"
#endif
#include RT_TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#ifdef __cplusplus
#pragma GCC diagnostic pop
#endif

/* ---- pass 2: the dynamic parts' offsets -------------------------------- */
#undef __field
#undef __array
#undef __string
#undef __dynamic_array
#define __field(type, item)
#define __array(type, item, len)
#define __string(item, src) uint32_t item; const char *item##__src;
#define __dynamic_array(type, item, len) uint32_t item; const void *item##__src;
#undef __RT_EVENT_CLASS
#define __RT_EVENT_CLASS(name, proto, args, tstruct, assign, print)      \
	struct ringtrace_data_offsets_##name {                              \
		uint32_t __rt_unused;                                       \
		tstruct                                                     \
	};
#include RT_TRACE_INCLUDE(TRACE_INCLUDE_FILE)

/* ---- pass 3: sizing the dynamic parts ---------------------------------- */
#undef __string
#undef __dynamic_array
#define __string(item, src)                                                 \
	{                                                                   \
		const char *__s = (src);                                    \
		size_t __n;                                                 \
		if (!__s)                                                   \
			__s = "(null)";                                     \
		__n = __rt_strnlen(__s, RINGTRACE_MAX_STRING - 1) + 1;      \
		__data_offsets->item##__src = __s;                          \
		__data_offsets->item = (uint32_t)(__data_size +             \
			offsetof(__typeof__(*__rt_entry_type), __data)) |   \
			(uint32_t)(__n << 16);                              \
		__data_size += __n;                                         \
	}
#define __dynamic_array(type, item, len)                                    \
	{                                                                   \
		size_t __n = (size_t)(len) * sizeof(type);                  \
		if (__n > RINGTRACE_MAX_STRING)                             \
			__n = RINGTRACE_MAX_STRING / sizeof(type) *         \
			      sizeof(type);                                 \
		__data_offsets->item##__src = NULL;                         \
		__data_offsets->item = (uint32_t)(__data_size +             \
			offsetof(__typeof__(*__rt_entry_type), __data)) |   \
			(uint32_t)(__n << 16);                              \
		__data_size += __n;                                         \
	}
#undef __RT_EVENT_CLASS
#define __RT_EVENT_CLASS(name, proto, args, tstruct, assign, print)      \
	static inline __attribute__((no_instrument_function, unused))      \
	size_t ringtrace_get_offsets_##name(                                \
		struct ringtrace_data_offsets_##name *__data_offsets, proto) \
	{                                                                   \
		struct ringtrace_raw_##name *__rt_entry_type = NULL;        \
		size_t __data_size = 0;                                     \
		(void)__rt_entry_type;                                      \
		(void)__data_offsets;                                       \
		tstruct                                                     \
		return __data_size;                                         \
	}
#include RT_TRACE_INCLUDE(TRACE_INCLUDE_FILE)

/* ---- pass 4: the field list and the print function --------------------- */
#undef __field
#undef __array
#undef __string
#undef __dynamic_array
#define __field(type, item)                                                 \
	{ #type, #item, sizeof(type), __RT_ALIGNOF(type),                  \
	  __RT_IS_SIGNED(type), __RT_KIND(type), 0 },
#define __array(type, item, len)                                            \
	{ #type "[" __rt_stringify(len) "]", #item, sizeof(type) * (len),   \
	  __RT_ALIGNOF(type), __RT_IS_SIGNED(type), __RT_ARRAY_KIND(type),  \
	  sizeof(type) },
#define __string(item, src)                                                 \
	{ "__data_loc char[]", #item, 4, 4, 0, RINGTRACE_FIELD_DYNSTR, 1 },
#define __dynamic_array(type, item, len)                                    \
	{ "__data_loc " #type "[]", #item, 4, 4, __RT_IS_SIGNED(type),      \
	  __RT_DYN_KIND(type), sizeof(type) },
#undef __RT_EVENT_CLASS
#define __RT_EVENT_CLASS(name, proto, args, tstruct, assign, print)      \
	static const struct ringtrace_field_decl ringtrace_fields_##name[] = {\
		tstruct { NULL, NULL, 0, 0, 0, 0, 0 }                       \
	};                                                                  \
	static __attribute__((no_instrument_function)) RINGTRACE_RECORD_ACCESS\
	void ringtrace_print_##name(struct ringtrace_seq *__s, const void *__rec)\
	{                                                                   \
		const struct ringtrace_raw_##name *__entry = __RT_CAST(    \
			const struct ringtrace_raw_##name *, __rec);        \
		(void)__entry;                                              \
		ringtrace_seq_printf(__s, print);                           \
	}
#include RT_TRACE_INCLUDE(TRACE_INCLUDE_FILE)

/* ---- pass 5: the print fmt text ---------------------------------------- */
#undef __get_str
#undef __get_dynamic_array
#undef __get_dynamic_array_len
#define __entry REC
#undef __RT_EVENT_CLASS
#define __RT_EVENT_CLASS(name, proto, args, tstruct, assign, print)      \
	static const char ringtrace_print_fmt_##name[] = __rt_stringify(print);
#include RT_TRACE_INCLUDE(TRACE_INCLUDE_FILE)
#undef __entry
#define __get_dynamic_array(item)                                           \
	((void *)((char *)(uintptr_t)__entry +                              \
		  ((__entry)->__data_loc_##item & 0xffff)))
#define __get_dynamic_array_len(item) ((__entry)->__data_loc_##item >> 16)
#define __get_str(item) ((char *)__get_dynamic_array(item))

/* ---- pass 6: writing, the events and their registration ---------------- */
/*
 * A fixed-size record in the common case (<ringtrace/inline_write.h>) is
 * reserved, assigned in place and committed in the program; every other
 * case goes on to ringtrace_write_record(). The record's bytes are zeroed
 * first: padding carries no stack bytes. RINGTRACE_NO_INLINE_WRITE,
 * defined before the trace header is included with CREATE_TRACE_POINTS,
 * leaves every write to the library (the library's own sources always
 * do).
 *
 * Five functions per class: ringtrace_do_class_X() tests the common
 * case without entering anything (loads only) and jumps to
 * ringtrace_do_inline_X() (the write in place) or ringtrace_do_stack_X()
 * (the record on the stack, one call into the library); the write in
 * place goes on, for an instance with a filter or a trigger, to
 * ringtrace_do_hist_X(), which writes itself, as in the common case, a
 * record of an instance armed by plain hist triggers alone (layout 6,
 * ringtrace_inline_hist()) and ringtrace_write_hist() counts it before
 * the commit, and else to ringtrace_do_armed_X() (assigned where the
 * library reserves it, inside the section already entered). Apart, so
 * that a write the library takes (a filter, two instances) does not pay
 * for the registers the write in place saves. ringtrace_do_inline_X(),
 * ringtrace_do_hist_X() and ringtrace_do_armed_X() take the event's
 * arguments first, in the registers they came in: the jumps pass them
 * unmoved.
 */
/* The record's size; constant for a fixed-size record. */
#define RINGTRACE_CLASS_SIZE(name, ...)                                     \
	struct ringtrace_data_offsets_##name __data_offsets;                \
	struct ringtrace_raw_##name *__entry;                               \
	size_t __size = offsetof(struct ringtrace_raw_##name, __data);      \
	if (__size < sizeof(struct ringtrace_raw_##name))                   \
		__size = sizeof(struct ringtrace_raw_##name);               \
	__size += ringtrace_get_offsets_##name(&__data_offsets, __VA_ARGS__);
/*
 * No dynamic part (its offsets struct holds only its placeholder), small
 * enough for the stack. A property of the class, not of the call: each
 * of the class's functions that tests it must decide alike, and a test
 * of the size's constancy did not (a call with a dynamic array's length
 * 0 made the size constant, and sizeof the struct, where the caller was
 * inlined; the out-of-line functions it jumped to decided otherwise and
 * wrote nothing).
 */
#ifdef __OPTIMIZE__
#define RINGTRACE_CLASS_FOLDS 1
#else
#define RINGTRACE_CLASS_FOLDS 0 /* -O0: nothing folds, the library writes */
#endif
#define RINGTRACE_CLASS_FIXED(name)                                         \
	(RINGTRACE_CLASS_FOLDS &&                                           \
	 sizeof(struct ringtrace_data_offsets_##name) == sizeof(uint32_t) && \
	 sizeof(struct ringtrace_raw_##name) <= RINGTRACE_STACK_RECORD)
#undef RINGTRACE_INLINE_CLASS
#undef RINGTRACE_INLINE_DISPATCH
#undef RINGTRACE_INLINE_REGISTER
#if !defined(RINGTRACE_NO_INLINE_WRITE) && !defined(RINGTRACE_BUILDING)
#include <ringtrace/inline_write.h>
#define RINGTRACE_INLINE_CLASS(name, proto, args, tstruct, ...)            \
	/* filtered or armed in instance __i: inside the read-side section \
	 * ringtrace_inline_begin() entered, which the last call leaves */  \
	static __attribute__((noinline, no_instrument_function, unused))   \
	RINGTRACE_RECORD_ACCESS void                                        \
	ringtrace_do_armed_##name(proto, struct ringtrace_event *__ev,      \
				  int __i)                                  \
	{                                                                   \
		struct ringtrace_write __w;                                 \
		RINGTRACE_CLASS_SIZE(name, args)                            \
		for (__entry = __RT_CAST(struct ringtrace_raw_##name *,    \
				ringtrace_write_armed(__ev, &__w, __size,   \
						      __i));                \
		     __entry; __entry = __RT_CAST(struct ringtrace_raw_##name *,\
				ringtrace_write_commit_next(&__w))) {       \
			/* (the header filled; padding written as zeros) */ \
			__builtin_memset((char *)__entry +                  \
					 sizeof(struct ringtrace_entry), 0, \
					 __size -                           \
					 sizeof(struct ringtrace_entry));   \
			tstruct                                             \
			{ __VA_ARGS__ }                                     \
		}                                                           \
	}                                                                   \
	/* (layout 6) armed in instance __i, in the section the inline    \
	 * write entered (__r): plain hist triggers alone get the record  \
	 * written in place, counted before the commit; the rest (and a   \
	 * record the buffer refuses) the library's path. Apart from the  \
	 * common case, whose registers and code it would cost */         \
	static __attribute__((noinline, no_instrument_function, unused))   \
	RINGTRACE_RECORD_ACCESS void                                        \
	ringtrace_do_hist_##name(proto, struct ringtrace_event *__ev,       \
				 int __i, ringtrace_inline_rcu_t __r)       \
	{                                                                   \
		RINGTRACE_CLASS_SIZE(name, args)                            \
		if (RINGTRACE_CLASS_FIXED(name)) {                          \
			struct ringtrace_thread_view *__t = &ringtrace_thread; \
			const struct ringtrace_event_view *__p;             \
			struct ringbuf *__rb =                              \
				ringtrace_inline_hist(__ev, __i, &__p);     \
			struct ringbuf_event *__e = NULL;                   \
			int __err;                                          \
			if (__rb != NULL)                                   \
				__e = ringbuf_fe_reserve(__rb, __size,      \
							 &__err);           \
			if (__e != NULL) {                                  \
				__entry = __RT_CAST(                        \
					struct ringtrace_raw_##name *,      \
					ringbuf_event_data_inline(__e));    \
				ringtrace_inline_header(__entry, __size,    \
							__p, __t);          \
				tstruct                                     \
				{ __VA_ARGS__ }                             \
				ringtrace_write_hist(__p, __i, __entry,     \
						     __size);               \
				ringbuf_fe_commit(__rb);                    \
				ringtrace_inline_end(__t, __r);             \
				return;                                     \
			}                                                   \
		}                                                           \
		(void)__entry;                                              \
		(void)__r;                                                  \
		ringtrace_do_armed_##name(args, __ev, __i);                 \
	}                                                                   \
	static __attribute__((noinline, no_instrument_function, unused))   \
	RINGTRACE_RECORD_ACCESS void                                        \
	ringtrace_do_inline_##name(proto, struct ringtrace_event *__ev,     \
				   int __i)                                 \
	{                                                                   \
		RINGTRACE_CLASS_SIZE(name, args)                            \
		if (RINGTRACE_CLASS_FIXED(name)) {                          \
			struct ringtrace_thread_view *__t = &ringtrace_thread;\
			const struct ringtrace_event_view *__p;             \
			ringtrace_inline_rcu_t __r;                         \
			struct ringbuf *__rb = ringtrace_inline_begin(      \
				__ev, __t, __i, &__p, &__r);                \
			if (__builtin_expect(__rb != NULL, 1)) {            \
				int __err;                                  \
				struct ringbuf_event *__e =                 \
					ringbuf_fe_reserve(__rb, __size,    \
							   &__err);         \
				if (__builtin_expect(__e != NULL, 1)) {     \
					__entry = __RT_CAST(                \
					    struct ringtrace_raw_##name *,  \
					    ringbuf_event_data_inline(__e));\
					ringtrace_inline_header(__entry,    \
								__size, __p,\
								__t);       \
					tstruct                             \
					{ __VA_ARGS__ }                     \
					ringbuf_fe_commit(__rb);            \
				}                                           \
				ringtrace_inline_end(__t, __r);             \
				return;                                     \
			}                                                   \
			if (__p != NULL) { /* still in the section */       \
				ringtrace_do_hist_##name(args, __ev, __i,   \
							 __r);              \
				return;                                     \
			}                                                   \
		}                                                           \
		(void)__entry;                                              \
		ringtrace_do_stack_##name(__ev, args);                      \
	}
#define RINGTRACE_INLINE_DISPATCH(name, ...)                                \
	{                                                                   \
		int __i;                                                    \
		if (__builtin_expect(ringtrace_inline_ready(__ev, &__i), 1)) {\
			ringtrace_do_inline_##name(__VA_ARGS__, __ev, __i); \
			return;                                             \
		}                                                           \
	}
/* A program built against another layout of the views fails to load. */
#define RINGTRACE_INLINE_REGISTER (void)&ringtrace_inline_layout_7;
#else
#define RINGTRACE_INLINE_CLASS(name, proto, args, tstruct, ...)
#define RINGTRACE_INLINE_DISPATCH(name, ...)
#define RINGTRACE_INLINE_REGISTER
#endif
#undef __field
#undef __array
#undef __string
#undef __dynamic_array
#define __field(type, item)
#define __array(type, item, len)
#define __string(item, src) __entry->__data_loc_##item = __data_offsets.item;
#define __dynamic_array(type, item, len)                                    \
	__entry->__data_loc_##item = __data_offsets.item;
#undef __RT_EVENT_CLASS
#define __RT_EVENT_CLASS(name, proto, args, tstruct, assign, print)      \
	/* no dynamic part: assigned on the stack, one call writes */       \
	static __attribute__((noinline, no_instrument_function, unused))   \
	RINGTRACE_RECORD_ACCESS void                                        \
	ringtrace_do_stack_##name(struct ringtrace_event *__ev, proto)      \
	{                                                                   \
		RINGTRACE_CLASS_SIZE(name, args)                            \
		if (RINGTRACE_CLASS_FIXED(name)) {                          \
			struct ringtrace_raw_##name __rec;                  \
			/* (padding written as zeros, not stack bytes) */   \
			__builtin_memset(&__rec, 0, sizeof(__rec));         \
			__entry = &__rec;                                   \
			tstruct                                             \
			{ assign }                                          \
			ringtrace_write_record(__ev, __entry, __size);      \
		}                                                           \
	}                                                                   \
	RINGTRACE_INLINE_CLASS(name, PARAMS(proto), PARAMS(args),           \
			       PARAMS(tstruct),                             \
			       assign)                                      \
	static __attribute__((no_instrument_function, unused))             \
	RINGTRACE_RECORD_ACCESS void                                        \
	ringtrace_do_class_##name(struct ringtrace_event *__ev, proto)      \
	{                                                                   \
		struct ringtrace_write __w;                                 \
		RINGTRACE_CLASS_SIZE(name, args)                            \
		if (RINGTRACE_CLASS_FIXED(name)) {                          \
			RINGTRACE_INLINE_DISPATCH(name, PARAMS(args))       \
			ringtrace_do_stack_##name(__ev, args);              \
			return;                                             \
		}                                                           \
		/* assigned in place, in each instance's buffer */          \
		for (__entry = __RT_CAST(struct ringtrace_raw_##name *,    \
				ringtrace_write_first(__ev, &__w, __size)); \
		     __entry; __entry = __RT_CAST(struct ringtrace_raw_##name *,\
				ringtrace_write_commit_next(&__w))) {       \
			tstruct                                             \
			{ assign }                                          \
		}                                                           \
	}
#undef __RT_DEFINE_EVENT
#define __RT_DEFINE_EVENT(template, call, proto, args)                           \
	/* in the order of struct ringtrace_event: C++17 has no         \
	 * designated initializers */                                       \
	__RT_EVENT_VIS struct ringtrace_event __ringtrace_event_##call = {  \
		0, /* enabled */                                            \
		__rt_stringify(TRACE_SYSTEM),                               \
		#call,                                                      \
		ringtrace_fields_##template,                                \
		ringtrace_print_fmt_##template,                             \
		ringtrace_print_##template,                                 \
		sizeof(struct ringtrace_raw_##template),                    \
		NULL, /* priv */                                            \
	};                                                                  \
	__RT_EVENT_VIS __attribute__((no_instrument_function)) void         \
	__ringtrace_do_##call(proto)                                        \
	{                                                                   \
		ringtrace_do_class_##template(&__ringtrace_event_##call,     \
					      args);                        \
	}                                                                   \
	static __attribute__((constructor, no_instrument_function)) void   \
	__ringtrace_register_##call(void)                                   \
	{                                                                   \
		RINGTRACE_INLINE_REGISTER                                   \
		ringtrace_event_register(&__ringtrace_event_##call);        \
	}                                                                   \
	static __attribute__((destructor, no_instrument_function)) void    \
	__ringtrace_unregister_##call(void)                                 \
	{                                                                   \
		ringtrace_event_unregister(&__ringtrace_event_##call);      \
	}
#include RT_TRACE_INCLUDE(TRACE_INCLUDE_FILE)

#undef __field
#undef __array
#undef __string
#undef __dynamic_array
#undef __get_dynamic_array
#undef __get_dynamic_array_len
#undef __get_str
#undef __assign_str
#undef __rt_first_arg
#undef __rt_assign_str
#undef __rt_assign_str_field
#undef TP_STRUCT__entry
#undef TP_fast_assign
#undef TP_printk

#pragma GCC diagnostic pop

#endif /* RT_TRACE_INCLUDE */

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What the tracer's readers may still hold while an event goes away: a
 * printer in the middle of a record of an event whose library is
 * dlclose()d, a writer in the middle of its write while the event is
 * unregistered, registered again and enabled.
 *
 * Each case stops a thread at one exact point (as a preemption would)
 * by standing in for a C library function the library calls there
 * through its PLT: vsnprintf() in the printer, prctl(PR_GET_NAME) in a
 * thread's first write (the thread's name, saved before the write's
 * read-side section). Everywhere else the stand-ins pass the call on.
 */
#include <dlfcn.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "unload_events.h"

#include <ringtrace/tracer.h>

#include "test.h"

static char err[1024];
static sem_t g_stopped, g_go;

static void sem_take(sem_t *s)
{
	while (sem_wait(s) && errno == EINTR)
		;
}

/* ---- stand-ins ---------------------------------------------------------- */

/* The printer stops in its next vsnprintf() of "%s: " (the event's name
 * before its text); the thread marked as the writer in its prctl(). */
static atomic_int g_stop_printer;
static atomic_int g_stop_writer;
static __thread int g_is_printer, g_is_writer;

int vsnprintf(char *s, size_t n, const char *fmt, va_list ap)
{
	static int (*next)(char *, size_t, const char *, va_list);

	if (g_is_printer && !strcmp(fmt, "%s: ") &&
	    atomic_exchange(&g_stop_printer, 0)) {
		sem_post(&g_stopped);
		sem_take(&g_go);
	}
	if (!next)
		*(void **)&next = dlsym(RTLD_NEXT, "vsnprintf");
	return next(s, n, fmt, ap);
}

int prctl(int option, ...)
{
	unsigned long a[4];
	va_list ap;

	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (g_is_writer && option == PR_GET_NAME &&
	    atomic_exchange(&g_stop_writer, 0)) {
		sem_post(&g_stopped);
		sem_take(&g_go);
	}
	return (int)syscall(SYS_prctl, option, a[0], a[1], a[2], a[3]);
}

/* The text of @tr's buffer (static: one at a time). */
static const char *trace_text(struct ringtrace_instance *tr)
{
	static char buf[1 << 16];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	ASSERT_NOT_NULL(f);
	ASSERT_EQ(ringtrace_print_trace(tr, f), 0);
	fclose(f);
	return buf;
}

/* ---- print_vs_dlclose --------------------------------------------------- */

static struct ringtrace_instance *g_tr;
static char g_printed[1 << 16];

static void *printer(void *arg)
{
	FILE *f = fmemopen(g_printed, sizeof(g_printed), "w");

	(void)arg;
	g_is_printer = 1;
	ASSERT_NOT_NULL(f);
	ASSERT_EQ(ringtrace_print_trace(g_tr, f), 0);
	fclose(f);
	/* (not stopped: no "%s: " formatted) */
	if (atomic_exchange(&g_stop_printer, 0))
		sem_post(&g_stopped);
	return NULL;
}

/*
 * The printer prints a record of an event defined in a plug-in; the
 * plug-in is dlclose()d (its event unregistered, its memory unmapped)
 * between the printer's look-up of the event and the rest of the line.
 * The line must still carry the event's name.
 */
static void print_vs_dlclose(void)
{
	const char *name = "plugin_event_with_a_name_in_the_plugin: v=42";
	void (*fire)(int);
	pthread_t t;
	void *h;

	g_tr = ringtrace_top();
	ASSERT_NOT_NULL(g_tr);
	sem_init(&g_stopped, 0, 0);
	sem_init(&g_go, 0, 0);
	h = dlopen(UNLOAD_PLUGIN_PATH, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		RBT_FAIL("dlopen: %s", dlerror());
	*(void **)&fire = dlsym(h, "unload_plugin_fire");
	ASSERT_NOT_NULL(fire);
	ASSERT_EQ(ringtrace_set_event(
			  g_tr,
			  "plugin:plugin_event_with_a_name_in_the_plugin", err,
			  sizeof(err)),
		  0);
	fire(42);
	ASSERT_NOT_NULL(strstr(trace_text(g_tr), name));

	atomic_store(&g_stop_printer, 1);
	ASSERT_EQ(pthread_create(&t, NULL, printer, NULL), 0);
	sem_take(&g_stopped);
	ASSERT_EQ(dlclose(h), 0);
	sem_post(&g_go);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	if (!strstr(g_printed, name))
		RBT_FAIL("the printed line lost its event's name:\n%s",
			 g_printed);
}

/* ---- write_*_vs_unregister ---------------------------------------------- */

static void *write_fixed(void *arg)
{
	(void)arg;
	g_is_writer = 1;
	trace_unload_fixed(7); /* the thread's first write */
	return NULL;
}

static void *write_str(void *arg)
{
	(void)arg;
	g_is_writer = 1;
	trace_unload_str("seven"); /* the thread's first write */
	return NULL;
}

/*
 * A writer stops in its first write, before its read-side section; the
 * event is unregistered (its registry state freed), the freed block goes
 * to another allocation (filled with 0x41, as any might), and the event
 * is registered and enabled again. The writer, let go, must use the
 * state it finds inside its section: its record is the event's.
 */
static void write_vs_unregister(struct ringtrace_event *ev, const char *spec,
				void *(*writer)(void *), const char *line)
{
	struct ringtrace_instance *tr = ringtrace_top();
	void *old, *hold[64];
	size_t size;
	int n = 0;
	const char *text;
	pthread_t t;

	ASSERT_NOT_NULL(tr);
	sem_init(&g_stopped, 0, 0);
	sem_init(&g_go, 0, 0);
	ASSERT_EQ(ringtrace_set_event(tr, spec, err, sizeof(err)), 0);
	atomic_store(&g_stop_writer, 1);
	ASSERT_EQ(pthread_create(&t, NULL, writer, NULL), 0);
	sem_take(&g_stopped);

	old = ev->priv;
	ASSERT_NOT_NULL(old);
	size = malloc_usable_size(old);
	ringtrace_event_unregister(ev);
	/* (under AddressSanitizer the block stays in quarantine: the use is
	 * reported instead) */
	while (n < 64) {
		hold[n] = malloc(size);
		ASSERT_NOT_NULL(hold[n]);
		memset(hold[n], 0x41, size);
		if (hold[n++] == old)
			break;
	}
	ASSERT_EQ(ringtrace_event_register(ev), 0);
	ASSERT_EQ(ringtrace_set_event(tr, spec, err, sizeof(err)), 0);
	sem_post(&g_go);
	ASSERT_EQ(pthread_join(t, NULL), 0);
	while (n > 0)
		free(hold[--n]);

	text = trace_text(tr);
	if (!strstr(text, line) || strstr(text, "Unknown type"))
		RBT_FAIL("the writer's record is not \"%s\":\n%s", line, text);
}

/* ringtrace_write_record(): a fixed-size record, assigned on the stack
 * (a thread's first write always takes it) */
static void write_record_vs_unregister(void)
{
	write_vs_unregister(&__ringtrace_event_unload_fixed,
			    "unload:unload_fixed", write_fixed,
			    "unload_fixed: v=7");
}

/* ringtrace_write_first(): a record with a string, assigned in place */
static void write_first_vs_unregister(void)
{
	write_vs_unregister(&__ringtrace_event_unload_str, "unload:unload_str",
			    write_str, "unload_str: s=seven");
}

static const struct rbt_case cases[] = {
	RBT_CASE(print_vs_dlclose),
	RBT_CASE(write_record_vs_unregister),
	RBT_CASE(write_first_vs_unregister),
};
RBT_MAIN(cases)

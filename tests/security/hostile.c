// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostile.c - a traced program that attacks its readers
 *
 * It links libringtrace, publishes itself like any traced program, writes
 * hostile:note and hostile:pair events from two threads, and then, when
 * told to (--go FILE appears, or at once), turns against whoever reads its
 * files: it rewrites its control file, its events or symbols file or its
 * buffer file, or serves a control file of its own that answers the
 * tool's commands with lies. The ringtrace tool and the mount daemon must
 * meet every mode with one clear message and an exit status, never a
 * crash or a hang (Documentation/shared-buffers.rst, "Threat model").
 *
 *   hostile [--ready FILE] [--go FILE | --usr1] [--after live|kill|exit]
 *           [--secs N] [--target PATH] [--victim PID --victim-dir DIR]
 *           [--keep-writing] [--allow-secure] MODE [MODE...]
 *
 * --ready FILE is written (our pid) once the files are published (or
 * publication was refused: then "unpublished" is printed and only MODE
 * none runs); the attack waits for --go FILE, or with --usr1 each MODE
 * given waits for a SIGUSR1 of its own; "attacked MODE" is printed
 * after each; the program then lives --secs seconds (default 30), or with
 * --after kill dies of SIGKILL at once (its files stay, for extract), or
 * with --after exit exits. --keep-writing: the writers go on during the
 * attack. --allow-secure: ringtrace_publish_allow_secure() first.
 *
 * Control file modes:
 *   ctl-syms, ctl-events, ctl-buf	the symbols, events or top buffer
 *		path made --target (a FIFO, a device node, /proc/kallsyms,
 *		a root-only file)
 *   ctl-comm	name, executable and clock full of terminal escapes,
 *		without their NUL
 *   ctl-inst	an instance named with an escape and a '/'
 *   ctl-trunc	the control file cut to 0 bytes
 *   ctl-garbage	random bytes over the control file after its header
 *   ctl-cmdlines	random saved_cmdlines slots
 *   ctl-lock	the command lock overwritten with 0xa5 bytes (an owner
 *		that names no process: taken over)
 *   ctl-lockhold	the command lock taken and kept (the owner word names
 *		this process): a tool waits for it to its deadline, or
 *		until Ctrl-C
 *   ctl-link	the control file hard-linked into --victim-dir (made 0700
 *		if missing) as --victim's <pid>-<start>.ctl, its pid and
 *		start time rewritten to the victim's: a process that claims
 *		to be another
 * Served control file (a copy renamed over the real one, answered here):
 *   fake-syms	'syms' answered with --target
 *   fake-huge	a reply length of 0xffffffff, no NUL
 *   fake-esc	an error text of terminal escapes
 *   fake-status	a status of INT_MIN
 *   fake-mute	no answer ever
 * Events and symbols files:
 *   events-garbage	the formats mangled
 *   events-esc	an event named with terminal escapes
 *   events-huge	the events file made 2 GiB (sparse)
 *   events-fifo	the events file replaced by a FIFO
 *   syms-garbage	a symbols file of garbage lines
 * Buffer file (the layout of Documentation/shared-buffers.rst; geom,
 * metaoff, trunc, trunc0, truncloop, lockhold and lockgarbage are
 * tests/shm/hostile.c's, which the library's own tests make too):
 *   none		nothing (the control case)
 *   commit	every page's commit index past its end
 *   len		every data record given a length of 0xfffffff0
 *   typelen	random type_len bits in every word of every page
 *   delta	every time delta at its maximum, page stamps near 2^64
 *   loop	every page's next link to itself, flagged HEAD
 *   ids		every page id of every cpu buffer out of range
 *   geom	cpu buffer 0's geometry absurd, layout_gen bumped
 *   geomrace	for --secs: geometry toggled good and bad
 *   metaoff	cpu_meta_off moved far outside the file, layout_gen bumped
 *   metaoffrace	for --secs: cpu_meta_off toggled every 200 us
 *   counters	the counters near UINT64_MAX
 *   random	for --secs: random bytes over cpu states, pages and data
 *   trunc	the buffer file cut to 4096 bytes while mapped
 *   trunc0	the buffer file cut to 0 bytes
 *   truncloop	for --secs: cut to 4096 bytes and grown back, every 2 ms
 *   lockhold	every reader lock taken and kept
 *   lockgarbage	every reader lock overwritten with 0xa5 bytes
 *   replace	a file of other geometry renamed over the buffer file
 *
 * Exit: 0, 2 for bad usage, 3 when the attack could not be set up.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CREATE_TRACE_POINTS
#include "hostile_trace.h"
#include <ringtrace/tracer.h>

#include "ctl.h"
#include "hostile.h" /* the buffer attacks the library's tests make too */

static atomic_int quiet;
static const char *target = "/nonexistent";
static int victim;
static const char *victim_dir;

static void die(const char *what)
{
	fprintf(stderr, "hostile: %s: %s\n", what, strerror(errno));
	exit(3);
}

static uint64_t seed = 0x2545f4914f6cdd1dull;

static uint64_t random64(void)
{
	/* xorshift64* */
	seed ^= seed >> 12;
	seed ^= seed << 25;
	seed ^= seed >> 27;
	return seed * 0x2545f4914f6cdd1dull;
}

static void *writer(void *arg)
{
	char what[48];
	unsigned int n;

	(void)arg;
	for (n = 0; !atomic_load(&quiet); n++) {
		snprintf(what, sizeof(what), "event %u of a hostile writer", n);
		trace_note(n, what);
		trace_pair(n * 3ul, -(long)n);
		if (n % 128 == 127)
			usleep(500);
	}
	return NULL;
}

/* ---- what we published ------------------------------------------------- */

static char ctl_path[PATH_MAX], buf_path[PATH_MAX], prefix[PATH_MAX];
static struct rt_ctl *ctl;

/* Our control file, found in our publish directory. False when the
 * library published nothing. */
static bool find_own(void)
{
	char dir[PATH_MAX];
	uint64_t start = rt_proc_start_time((int)getpid());
	int fd;

	if (rt_publish_dir(dir, sizeof(dir)))
		return false;
	if (snprintf(prefix, sizeof(prefix), "%s/%d-%llu", dir, (int)getpid(),
		     (unsigned long long)start) >= (int)sizeof(prefix) ||
	    snprintf(ctl_path, sizeof(ctl_path), "%s.ctl", prefix) >=
		    (int)sizeof(ctl_path))
		return false;
	fd = open(ctl_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	ctl = mmap(NULL, sizeof(*ctl), PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		   0);
	close(fd);
	if (ctl == MAP_FAILED)
		die("mapping our control file");
	snprintf(buf_path, sizeof(buf_path), "%s", ctl->inst[0].buf);
	return true;
}

static void changed(void)
{
	atomic_fetch_add(&ctl->gen, 1);
}

/* ---- the buffer file, field by field ------------------------------------ */

static unsigned char *map;
static size_t map_len;
static int buf_fd = -1;

#define AT32(off) (*(uint32_t *)(map + (off)))
#define AT64(off) (*(uint64_t *)(map + (off)))

/* struct rb_meta */
#define M_SUBBUF 16
#define M_NR_CPUS 20
#define M_TOTAL_PAGES 28
#define M_CPU_META_SIZE 40
#define M_CPU_META_OFF 48
#define M_PAGE_CTL_OFF 56
#define M_DATA_OFF 64
#define M_LAYOUT_GEN 108

static uint64_t cpu_meta(unsigned int c, unsigned int field)
{
	return AT64(M_CPU_META_OFF) + (uint64_t)c * AT32(M_CPU_META_SIZE) +
	       field;
}

static uint64_t page_ctl(uint32_t g, unsigned int field)
{
	return AT64(M_PAGE_CTL_OFF) + (uint64_t)g * 40 + field;
}

static unsigned char *page(uint32_t g)
{
	return map + AT64(M_DATA_OFF) + (uint64_t)g * AT32(M_SUBBUF);
}

static void layout_changed(void)
{
	atomic_fetch_add((_Atomic uint32_t *)(map + M_LAYOUT_GEN), 1);
}

static void map_buffer(void)
{
	struct stat st;

	buf_fd = open(buf_path, O_RDWR | O_CLOEXEC);
	if (buf_fd < 0 || fstat(buf_fd, &st))
		die(buf_path);
	map_len = (size_t)st.st_size;
	map = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, buf_fd,
		   0);
	if (map == MAP_FAILED)
		die("mapping our buffer");
}

/* Each record header of sub-buffer @g up to its commit index. */
static void for_each_record(uint32_t g, void (*fn)(uint32_t *hdr, bool room))
{
	unsigned char *pg = page(g);
	uint64_t commit = *(uint64_t *)(pg + 8) & 0x7ffffff;
	uint32_t size = AT32(M_SUBBUF);
	unsigned char *at = pg + 16, *end;

	if (commit > size - 16)
		commit = size - 16;
	end = pg + 16 + commit;
	while (at + 4 <= end) {
		uint32_t *hdr = (uint32_t *)at, type_len = *hdr & 31, len;
		bool room = at + 8 <= end;

		if (type_len == 0)
			len = room ? 4 + hdr[1] : 0;
		else if (type_len <= 28)
			len = 4 + type_len * 4;
		else if (type_len == 29)
			len = (*hdr >> 5) ? (room ? 4 + hdr[1] : 0) : 0;
		else
			len = 8;
		fn(hdr, room);
		if (!len || len > size)
			return;
		at += (len + 3) & ~3u;
	}
}

static void huge_len(uint32_t *hdr, bool room)
{
	if ((*hdr & 31) <= 28 && room) {
		*hdr &= ~31u;
		hdr[1] = 0xfffffff0u;
	}
}

static void max_delta(uint32_t *hdr, bool room)
{
	(void)room;
	*hdr = (*hdr & 31) | (0x7ffffffu << 5);
}

static void every_record(void (*fn)(uint32_t *, bool))
{
	for (uint32_t g = 0; g < AT32(M_TOTAL_PAGES); g++)
		for_each_record(g, fn);
}

static void geometry(bool bad)
{
	static uint32_t nr0, first1;
	static uint64_t data;
	static bool saved;

	if (!saved) {
		nr0 = AT32(cpu_meta(0, 0));
		first1 = AT32(cpu_meta(1, 4));
		data = AT64(M_DATA_OFF);
		saved = true;
	}
	AT32(cpu_meta(0, 0)) = bad ? 1u << 24 : nr0;
	if (AT32(M_NR_CPUS) > 1)
		AT32(cpu_meta(1, 4)) = bad ? 7 : first1;
	AT64(M_DATA_OFF) = bad ? data + 4096 : data;
	layout_changed();
}

static void for_secs(int secs, void (*step)(void))
{
	time_t end = time(NULL) + secs;

	while (time(NULL) < end)
		step();
}

static void step_geomrace(void)
{
	geometry(true);
	usleep(500);
	geometry(false);
	usleep(500);
}

static uint64_t good_meta_off;

static void step_metaoffrace(void)
{
	AT64(M_CPU_META_OFF) = 0x414141410000ull;
	layout_changed();
	usleep(200);
	AT64(M_CPU_META_OFF) = good_meta_off;
	layout_changed();
	usleep(200);
}

static void step_random(void)
{
	for (uint64_t o = AT64(M_CPU_META_OFF); o + 8 <= map_len; o += 8)
		if (random64() % 64 == 0)
			AT64(o) = random64();
	usleep(2000);
}

static void replace_buffer(void)
{
	char tmp[PATH_MAX + 8];
	unsigned char *other;
	int fd;

	snprintf(tmp, sizeof(tmp), "%s.new", buf_path);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, (off_t)map_len))
		die(tmp);
	other = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (other == MAP_FAILED)
		die("mapping the replacement");
	memcpy(other, map, 4096);
	for (size_t o = 4096; o + 8 <= map_len; o += 8)
		*(uint64_t *)(other + o) = random64();
	*(uint32_t *)(other + M_SUBBUF) = AT32(M_SUBBUF) * 2;
	munmap(other, map_len);
	close(fd);
	if (rename(tmp, buf_path))
		die("rename");
}

static bool buffer_mode(const char *mode, int secs)
{
	uint32_t pages;

	map_buffer();
	pages = AT32(M_TOTAL_PAGES);
	if (!strcmp(mode, "none")) {
	} else if (!strcmp(mode, "commit")) {
		for (uint32_t g = 0; g < pages; g++)
			*(uint64_t *)(page(g) + 8) = AT32(M_SUBBUF) * 3ull;
	} else if (!strcmp(mode, "len")) {
		every_record(huge_len);
	} else if (!strcmp(mode, "typelen")) {
		for (uint32_t g = 0; g < pages; g++)
			for (uint32_t o = 16; o < AT32(M_SUBBUF); o += 4) {
				uint32_t *w = (uint32_t *)(page(g) + o);

				*w = (*w & ~31u) | (uint32_t)(random64() % 32);
			}
	} else if (!strcmp(mode, "delta")) {
		every_record(max_delta);
		for (uint32_t g = 0; g < pages; g++)
			*(uint64_t *)page(g) = UINT64_MAX - g;
	} else if (!strcmp(mode, "loop")) {
		for (uint32_t c = 0; c < AT32(M_NR_CPUS); c++) {
			uint32_t first = AT32(cpu_meta(c, 4));

			for (uint32_t i = 0; i <= AT32(cpu_meta(c, 0)); i++) {
				/* next = itself, HEAD flag */
				AT32(page_ctl(first + i, 0)) = (i << 2) | 1;
				AT32(page_ctl(first + i, 4)) = i;
			}
		}
	} else if (!strcmp(mode, "ids")) {
		for (uint32_t c = 0; c < AT32(M_NR_CPUS); c++) {
			uint32_t first = AT32(cpu_meta(c, 4));

			AT32(cpu_meta(c, 64)) = AT32(cpu_meta(c, 68)) =
				0xffffffffu;
			AT32(cpu_meta(c, 320)) = AT32(cpu_meta(c, 324)) =
				0xffffffffu;
			for (uint32_t i = 0; i <= AT32(cpu_meta(c, 0)); i++)
				AT32(page_ctl(first + i, 0)) = 0xfffffffdu;
		}
	} else if (!strcmp(mode, "geom") || !strcmp(mode, "metaoff") ||
		   !strcmp(mode, "trunc0") || !strcmp(mode, "lockhold") ||
		   !strcmp(mode, "lockgarbage")) {
		/* written once, for the library's tests too (hostile.h) */
		if (hostile_apply(buf_path, mode, 0, 0))
			exit(3);
	} else if (!strcmp(mode, "trunc")) {
		if (hostile_apply(buf_path, "trunc4096", 0, 0))
			exit(3);
	} else if (!strcmp(mode, "truncloop")) {
		if (hostile_apply(buf_path, mode, (unsigned int)secs * 1000u,
				  0))
			exit(3);
	} else if (!strcmp(mode, "geomrace")) {
		for_secs(secs, step_geomrace);
	} else if (!strcmp(mode, "metaoffrace")) {
		good_meta_off = AT64(M_CPU_META_OFF);
		for_secs(secs, step_metaoffrace);
	} else if (!strcmp(mode, "counters")) {
		static const unsigned int fields[] = { 88, 96, 104, 112, 328,
						       352, 376 };

		for (uint32_t c = 0; c < AT32(M_NR_CPUS); c++)
			for (size_t i = 0; i < sizeof(fields) / sizeof(*fields);
			     i++)
				AT64(cpu_meta(c, fields[i])) = UINT64_MAX - i;
	} else if (!strcmp(mode, "random")) {
		for_secs(secs, step_random);
	} else if (!strcmp(mode, "replace")) {
		replace_buffer();
	} else {
		return false;
	}
	return true;
}

/* ---- a control file served here ----------------------------------------- */

static struct rt_ctl *served;
static const char *served_mode;
/* the command sequence before the file is published (serve_fake()) */
static uint32_t served_seq0;

static void *answer_loop(void *arg)
{
	/* Not the sequence when the thread first runs: a tool may have sent
	 * its command by then (the file is published as the thread starts),
	 * which would be taken for an old one and never answered. */
	uint32_t last = served_seq0;

	(void)arg;
	for (;;) {
		uint32_t seq = atomic_load(&served->cmd_seq);

		if (seq == last) {
			syscall(SYS_futex, &served->cmd_seq, FUTEX_WAIT, seq,
				NULL, NULL, 0);
			continue;
		}
		last = seq;
		if (!strcmp(served_mode, "fake-mute"))
			continue;
		served->status = 0;
		served->reply[0] = '\0';
		if (!strcmp(served_mode, "fake-syms")) {
			if (strstr(served->cmd, " syms "))
				snprintf(served->reply, sizeof(served->reply),
					 "%s\n", target);
		} else if (!strcmp(served_mode, "fake-huge")) {
			memset(served->reply, 'H', sizeof(served->reply));
		} else if (!strcmp(served_mode, "fake-esc")) {
			snprintf(served->reply, sizeof(served->reply),
				 "\033]0;owned\007\033[2J\033[1;31mno\033[0m\n");
			served->status = -EINVAL;
		} else if (!strcmp(served_mode, "fake-status")) {
			served->status = INT_MIN;
		}
		served->reply_len = !strcmp(served_mode, "fake-huge") ?
					    0xffffffffu :
					    (uint32_t)strlen(served->reply);
		atomic_store(&served->done_seq, seq);
		syscall(SYS_futex, &served->done_seq, FUTEX_WAKE, INT32_MAX,
			NULL, NULL, 0);
	}
	return NULL;
}

static void serve_fake(const char *mode)
{
	char tmp[PATH_MAX + 8];
	pthread_mutexattr_t attr;
	pthread_t th;
	int fd;

	served_mode = mode;
	snprintf(tmp, sizeof(tmp), "%s.served", ctl_path);
	fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, sizeof(*served)))
		die(tmp);
	served = mmap(NULL, sizeof(*served), PROT_READ | PROT_WRITE,
		      MAP_SHARED, fd, 0);
	close(fd);
	if (served == MAP_FAILED)
		die("mapping the served control file");
	memcpy(served, ctl, offsetof(struct rt_ctl, cmd_lock));
	pthread_mutexattr_init(&attr);
	pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
	pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
	pthread_mutex_init(&served->cmd_lock, &attr);
	if (!strcmp(mode, "fake-syms"))
		snprintf(served->syms, sizeof(served->syms), "%s", target);
	served_seq0 = atomic_load(&served->cmd_seq);
	pthread_create(&th, NULL, answer_loop, NULL);
	if (rename(tmp, ctl_path))
		die("rename");
}

/* ---- control, events and symbols files ---------------------------------- */

static void link_as_victim(void)
{
	char name[PATH_MAX + 64];
	uint64_t start = rt_proc_start_time(victim);

	if (!start || !victim_dir) {
		fprintf(stderr, "hostile: ctl-link needs a live --victim and --victim-dir\n");
		exit(2);
	}
	if (mkdir(victim_dir, 0700) && errno != EEXIST)
		die(victim_dir);
	snprintf(name, sizeof(name), "%s/%d-%llu.ctl", victim_dir, victim,
		 (unsigned long long)start);
	if (link(ctl_path, name))
		die(name);
	/* we claim to be the victim */
	ctl->pid = victim;
	ctl->start = start;
}

static void mangle_events(void)
{
	char *text;
	FILE *f = fopen(ctl->events, "r+");
	size_t n;

	if (!f)
		die(ctl->events);
	text = malloc(1 << 20);
	if (!text)
		die("malloc");
	n = fread(text, 1, (1 << 20) - 1, f);
	for (size_t i = 0; i < n; i++) {
		if (text[i] == ':' && random64() % 2)
			text[i] = '\n';
		else if (text[i] >= '0' && text[i] <= '9')
			text[i] = (char)('0' + random64() % 10);
		else if (text[i] == ';' && random64() % 3 == 0)
			text[i] = '%';
	}
	rewind(f);
	fwrite(text, 1, n, f);
	fclose(f);
	free(text);
}

static void escaped_event_name(void)
{
	char *text;
	FILE *f = fopen(ctl->events, "r+");
	size_t n;
	char *at;

	if (!f)
		die(ctl->events);
	text = calloc(1, 1 << 20);
	if (!text)
		die("calloc");
	n = fread(text, 1, (1 << 20) - 1, f);
	/* "name: note" -> "name: \033[2Jte" */
	at = strstr(text, "name: note");
	if (at)
		memcpy(at + 6, "\033[2J", 4);
	rewind(f);
	fwrite(text, 1, n, f);
	fclose(f);
	free(text);
}

static void garbage_syms(void)
{
	char path[PATH_MAX + 8];
	FILE *f;

	snprintf(path, sizeof(path), "%s.syms", prefix);
	f = fopen(path, "w");
	if (!f)
		die(path);
	for (int i = 0; i < 20000; i++)
		fprintf(f, "%016llx %c %s%.*s\n",
			(unsigned long long)random64(),
			"tTdDbB?\001"[random64() % 8],
			i % 3 ? "f" : "\033[2J", (int)(random64() % 200),
			"gggggggggggggggggggggggggggggggggggggggggggggggggg"
			"gggggggggggggggggggggggggggggggggggggggggggggggggg"
			"gggggggggggggggggggggggggggggggggggggggggggggggggg"
			"gggggggggggggggggggggggggggggggggggggggggggggggggg");
	fclose(f);
	if (snprintf(ctl->syms, sizeof(ctl->syms), "%s", path) >=
	    (int)sizeof(ctl->syms))
		die("symbols path");
	changed();
}

static bool control_mode(const char *mode)
{
	if (!strcmp(mode, "ctl-syms")) {
		snprintf(ctl->syms, sizeof(ctl->syms), "%s", target);
	} else if (!strcmp(mode, "ctl-events")) {
		snprintf(ctl->events, sizeof(ctl->events), "%s", target);
	} else if (!strcmp(mode, "ctl-buf")) {
		snprintf(ctl->inst[0].buf, sizeof(ctl->inst[0].buf), "%s",
			 target);
		atomic_fetch_add(&ctl->inst[0].gen, 1);
	} else if (!strcmp(mode, "ctl-comm")) {
		memset(ctl->comm, 'X', sizeof(ctl->comm));
		memcpy(ctl->comm, "\033[2J\033]0;pwn\007", 12);
		memset(ctl->exe, '\033', sizeof(ctl->exe));
		memset(ctl->clock, '\a', sizeof(ctl->clock));
	} else if (!strcmp(mode, "ctl-inst")) {
		snprintf(ctl->inst[1].name, sizeof(ctl->inst[1].name),
			 "\033[2J../x");
		if (snprintf(ctl->inst[1].buf, sizeof(ctl->inst[1].buf), "%s",
			     buf_path) >= (int)sizeof(ctl->inst[1].buf))
			die("buffer path");
		atomic_store(&ctl->inst[1].used, 1);
		atomic_fetch_add(&ctl->inst[1].gen, 1);
	} else if (!strcmp(mode, "ctl-trunc")) {
		if (truncate(ctl_path, 0))
			die("truncate");
	} else if (!strcmp(mode, "ctl-garbage")) {
		unsigned char *p = (unsigned char *)ctl;

		for (size_t o = offsetof(struct rt_ctl, comm);
		     o + 8 <= sizeof(*ctl); o += 8)
			*(uint64_t *)(p + o) = random64();
		return true;
	} else if (!strcmp(mode, "ctl-cmdlines")) {
		unsigned char *p = (unsigned char *)ctl->cmdlines;

		for (size_t o = 0; o + 8 <= sizeof(ctl->cmdlines); o += 8)
			*(uint64_t *)(p + o) = random64();
		return true;
	} else if (!strcmp(mode, "ctl-lock")) {
		memset(&ctl->cmd_lock, 0xa5, sizeof(ctl->cmd_lock));
		return true;
	} else if (!strcmp(mode, "ctl-lockhold")) {
		/* the owner word naming us, alive: a tool waits for us */
		atomic_store(&ctl->cmd_owner,
			     (uint64_t)(uint32_t)ctl->pid << 32 |
				     (uint32_t)ctl->start);
		return true;
	} else if (!strcmp(mode, "ctl-link")) {
		link_as_victim();
	} else if (!strncmp(mode, "fake-", 5)) {
		if (strcmp(mode, "fake-syms") && strcmp(mode, "fake-huge") &&
		    strcmp(mode, "fake-esc") && strcmp(mode, "fake-status") &&
		    strcmp(mode, "fake-mute"))
			return false;
		serve_fake(mode);
		return true;
	} else if (!strcmp(mode, "events-garbage")) {
		mangle_events();
	} else if (!strcmp(mode, "events-esc")) {
		escaped_event_name();
	} else if (!strcmp(mode, "events-huge")) {
		if (truncate(ctl->events, 2l << 30))
			die("truncate");
	} else if (!strcmp(mode, "events-fifo")) {
		if (unlink(ctl->events) || mkfifo(ctl->events, 0600))
			die("mkfifo");
	} else if (!strcmp(mode, "syms-garbage")) {
		garbage_syms();
		return true;
	} else {
		return false;
	}
	if (ctl_path[0] && strcmp(mode, "ctl-trunc"))
		changed();
	return true;
}

/* ---- main ---------------------------------------------------------------- */

static void write_ready(const char *path)
{
	char tmp[PATH_MAX + 8];
	FILE *f;

	if (!path)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		die(path);
	fprintf(f, "%d\n", (int)getpid());
	fclose(f);
	if (rename(tmp, path))
		die(path);
}

int main(int argc, char **argv)
{
	const char *ready = NULL, *go = NULL, *after = "live", *mode = NULL;
	const char *more[8];
	bool keep = false, allow = false, usr1 = false;
	int secs = 30, i, ret, nr_more = 0;
	pthread_t th[2];
	sigset_t set;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--ready") && v)
			ready = argv[++i];
		else if (!strcmp(a, "--go") && v)
			go = argv[++i];
		else if (!strcmp(a, "--after") && v)
			after = argv[++i];
		else if (!strcmp(a, "--secs") && v)
			secs = atoi(argv[++i]);
		else if (!strcmp(a, "--target") && v)
			target = argv[++i];
		else if (!strcmp(a, "--victim") && v)
			victim = atoi(argv[++i]);
		else if (!strcmp(a, "--victim-dir") && v)
			victim_dir = argv[++i];
		else if (!strcmp(a, "--keep-writing"))
			keep = true;
		else if (!strcmp(a, "--allow-secure"))
			allow = true;
		else if (!strcmp(a, "--usr1"))
			usr1 = true;
		else if (a[0] != '-' && !mode)
			mode = a;
		else if (a[0] != '-' && usr1 && nr_more < 8)
			more[nr_more++] = a;
		else
			mode = NULL, i = argc;
	}
	if (!mode || (usr1 && go)) {
		fprintf(stderr,
			"usage: hostile [--ready F] [--go F | --usr1] [--after live|kill|exit] [--secs N] [--target P] [--victim PID --victim-dir D] [--keep-writing] [--allow-secure] MODE [MODE...]\n");
		return 2;
	}
	/* --usr1: each MODE waits for its SIGUSR1 */
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	if (usr1)
		pthread_sigmask(SIG_BLOCK, &set, NULL);
	if (allow) {
		ret = ringtrace_publish_allow_secure();
		if (ret)
			fprintf(stderr, "hostile: allow_secure: %s\n",
				strerror(-ret));
	}
	seed ^= (uint64_t)getpid() << 17;
	ringtrace_set_event(ringtrace_top(), "hostile:*", NULL, 0);
	for (i = 0; i < 2; i++)
		pthread_create(&th[i], NULL, writer, NULL);
	usleep(100000);
	if (!find_own()) {
		printf("unpublished\n");
		fflush(stdout);
		write_ready(ready);
		if (strcmp(mode, "none"))
			return 3;
		sleep((unsigned int)secs);
		atomic_store(&quiet, 1);
		return 0;
	}
	printf("published %s\n", ctl_path);
	fflush(stdout);
	write_ready(ready);
	while (go && access(go, F_OK))
		usleep(10000);
	for (i = -1; i < nr_more; i++) {
		const char *m = i < 0 ? mode : more[i];
		int sig;

		if (usr1)
			sigwait(&set, &sig);
		if (!keep && !atomic_exchange(&quiet, 1))
			for (int t = 0; t < 2; t++)
				pthread_join(th[t], NULL);
		if (!control_mode(m) && !buffer_mode(m, secs)) {
			fprintf(stderr, "hostile: unknown mode %s\n", m);
			return 2;
		}
		printf("attacked %s\n", m);
		fflush(stdout);
	}
	if (!strcmp(after, "kill"))
		raise(SIGKILL);
	if (!strcmp(after, "exit")) {
		atomic_store(&quiet, 1);
		_exit(0);
	}
	sleep((unsigned int)secs);
	atomic_store(&quiet, 1);
	return 0;
}

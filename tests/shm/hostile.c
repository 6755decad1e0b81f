// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * hostile.c - the tests' hostile writer: what a traced program that
 * turns against its readers does to its buffer file (hostile.h). It
 * works on the file through a mapping of its own, with the layout of
 * ringbuf/src/internal.h.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "hostile.h"

/* Our identity as the library's reader lock writes it: the process id
 * above, the low 32 bits of the start time (field 22 of /proc/self/stat)
 * below. */
static uint64_t hostile_self(void)
{
	char buf[1024], *p;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n = 0;
	int field;

	if (f) {
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
	}
	buf[n] = '\0';
	p = strrchr(buf, ')');
	for (field = 2; p && field < 22; field++) {
		p = strchr(p + 1, ' ');
	}
	return (uint64_t)(uint32_t)getpid() << 32 |
	       (uint32_t)(p ? strtoull(p + 1, NULL, 10) : 0);
}

static void hostile_bump(struct rb_meta *m)
{
	atomic_fetch_add_explicit(&m->layout_gen, 1, memory_order_release);
}

static void hostile_sleep_us(long us)
{
	struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };

	nanosleep(&ts, NULL);
}

int hostile_apply(const char *path, const char *mode, unsigned int ms,
		  unsigned int seed)
{
	struct rb_meta *m;
	struct stat st;
	size_t size;
	int fd, ret = 0;

	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		fprintf(stderr, "hostile: %s: %s\n", path, strerror(errno));
		return -1;
	}
	size = (size_t)st.st_size;
	if (!strcmp(mode, "trunc4096") || !strcmp(mode, "trunc0")) {
		ret = ftruncate(fd, mode[5] == '0' ? 0 : 4096);
		close(fd);
		return ret;
	}
	if (!strcmp(mode, "truncloop")) {
		struct timespec t0, t;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			if (ftruncate(fd, 4096) || ftruncate(fd, (off_t)size))
				ret = -1;
			hostile_sleep_us(1000);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (!ret && (t.tv_sec - t0.tv_sec) * 1000 +
					 (t.tv_nsec - t0.tv_nsec) / 1000000 <
				 (long)ms);
		close(fd);
		return ret;
	}
	m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		fprintf(stderr, "hostile: mmap %s: %s\n", path, strerror(errno));
		return -1;
	}
	/* the layout as the creator made it (read before any damage) */
	size_t lock_off = m->lock_off, lock_size = m->lock_size;
	uint32_t nr = m->nr_cpus;

	if (!strcmp(mode, "metaoff")) {
		m->cpu_meta_off = 0x414141410000ull;
		hostile_bump(m);
	} else if (!strcmp(mode, "geom")) {
		struct rb_cpu_meta *c =
			(struct rb_cpu_meta *)((char *)m + m->cpu_meta_off);

		c->nr_pages = 0xffffff00u;
		hostile_bump(m);
	} else if (!strcmp(mode, "randomhdr")) {
		unsigned char *b = (unsigned char *)m;
		size_t end = lock_off + (size_t)nr * lock_size;

		srand(seed);
		/* the magic and version stay: the damage is past attach */
		for (size_t i = 16; i < end && i < size; i++)
			if (rand() % 4 == 0)
				b[i] = (unsigned char)rand();
		hostile_bump(m);
	} else if (!strcmp(mode, "lockhold") || !strcmp(mode, "lockgarbage")) {
		uint64_t self = hostile_self();

		for (uint32_t c = 0; c < nr; c++) {
			struct rb_cpu_lock *l =
				(struct rb_cpu_lock *)((char *)m + lock_off +
						       (size_t)c * lock_size);

			if (mode[4] == 'h')
				memcpy(l->lock, &self, sizeof(self));
			else
				memset(l, 0xa5, sizeof(*l));
		}
	} else {
		fprintf(stderr, "hostile: unknown mode %s\n", mode);
		ret = -1;
	}
	munmap(m, size);
	return ret;
}

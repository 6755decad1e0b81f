// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * replay_main.c - run a fuzz target without libFuzzer: every file of a
 * corpus directory, then a number of seeded pseudo-random mutations of
 * each, through LLVMFuzzerTestOneInput().
 *
 * Usage: replay [-v] [-n mutations] [-s seed] [-t seconds] corpus-dir...
 *
 *  -n	mutations per corpus file (default 100; RB_FUZZ_MUTATIONS too)
 *  -s	seed (default 1; RB_TEST_SEED too): the same seed replays the
 *	same inputs
 *  -t	an input running longer than this is reported as a hang
 *	(default 60 seconds, times RB_TIMEOUT_MULT)
 *  -v	keep the library's warnings (of rejected files) and name every
 *	input before running it; by default the stdio stream stderr goes
 *	to /dev/null (descriptor 2, used by the sanitizers, does not)
 *
 * A problem found by the target aborts (a sanitizer report, or the
 * target's own "PROBLEM" line); the name of the input is printed, and the
 * input is written to ./replay-crash-input. (A UBSan report of GCC ends
 * the program without telling us which: run again with -v to see it.)
 * Exit status: 0, 1 for a hang or an unusable corpus, 2 for bad usage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fuzz.h"

/* Sanitizer runtime hooks, when one is linked in. */
void __sanitizer_set_death_callback(void (*cb)(void)) __attribute__((weak));

static const int out_fd = 2; /* the real stderr */
static bool verbose;
static char cur_name[512];
static volatile sig_atomic_t cur_mutation = -1;
static const uint8_t *volatile cur_data;
static volatile size_t cur_size;

static void say(const char *s)
{
	size_t n = strlen(s);

	while (n) {
		ssize_t w = write(out_fd, s, n);

		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* Async-signal-safe: which input was running. */
static void say_input(const char *what)
{
	char num[24];
	int i = (int)sizeof(num) - 1;
	long m = cur_mutation;

	say("replay: ");
	say(what);
	say(" while running ");
	say(cur_name);
	if (m >= 0) {
		num[i] = '\0';
		do {
			num[--i] = (char)('0' + m % 10);
			m /= 10;
		} while (m && i > 0);
		say(" mutation ");
		say(&num[i]);
	}
	say("\n");
	/* Keep the input, to run it again alone (replay of a directory
	 * holding just it, or the libFuzzer binary with the file). */
	if (cur_data) {
		int fd = open("replay-crash-input",
			      O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

		if (fd >= 0) {
			if (write(fd, cur_data, cur_size) ==
			    (ssize_t)cur_size)
				say("replay: input written to "
				    "replay-crash-input\n");
			close(fd);
		}
	}
}

static void on_death(void)
{
	say_input("problem");
}

static void on_signal(int sig)
{
	say_input(sig == SIGALRM ? "HANG (time limit)" : "fatal signal");
	if (sig == SIGALRM)
		_exit(1);
	signal(sig, SIG_DFL);
	raise(sig);
}

static uint64_t rng_state;

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ull;
}

static uint64_t hash_name(const char *s)
{
	uint64_t h = 1469598103934665603ull;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 1099511628211ull;
	return h;
}

/* A byte offset, half the time in the first 256 bytes (the mode byte and
 * the patch operations, or a raw file's header). */
static size_t pick(size_t size)
{
	if (rng() & 1)
		return (size_t)(rng() % (size < 256 ? size : 256));
	return (size_t)(rng() % size);
}

static size_t mutate(uint8_t *buf, size_t size, size_t cap)
{
	static const uint8_t special[] = { 0, 1, 2, 3, 4, 0x1c, 0x1d, 0x1e,
					   0x1f, 0x7f, 0x80, 0xfe, 0xff };
	unsigned int rounds = 1 + (unsigned int)(rng() % 3);

	for (unsigned int r = 0; r < rounds; r++) {
		switch (rng() % 7) {
		case 0: /* flip bits */
			for (unsigned int i = 1 + (unsigned int)(rng() % 4);
			     i && size; i--)
				buf[pick(size)] ^= (uint8_t)(1u << (rng() % 8));
			break;
		case 1: /* a special byte */
			if (size)
				buf[pick(size)] = special[rng() % sizeof(special)];
			break;
		case 2: /* random bytes */
			for (unsigned int i = 1 + (unsigned int)(rng() % 8);
			     i && size; i--)
				buf[pick(size)] = (uint8_t)rng();
			break;
		case 3: /* append patch operations */
			for (unsigned int i = 1 + (unsigned int)(rng() % 4);
			     i && size + RBFZ_OP_SIZE <= cap; i--) {
				for (unsigned int b = 0; b < RBFZ_OP_SIZE; b++)
					buf[size + b] = (uint8_t)rng();
				size += RBFZ_OP_SIZE;
			}
			break;
		case 4: /* another mode byte */
			if (size)
				buf[0] = (uint8_t)((buf[0] & RBFZ_MODE_BASE_MASK) |
						   (rng() & ~RBFZ_MODE_BASE_MASK));
			break;
		case 5: /* truncate */
			if (size > 1 && rng() % 4 == 0)
				size = 1 + (size_t)(rng() % (size - 1));
			break;
		case 6: /* copy a 4- or 8-byte word over another */
			if (size > 16) {
				size_t n = rng() & 1 ? 8 : 4;
				size_t from = (size_t)(rng() % (size - n));
				size_t to = pick(size - n);

				memmove(buf + to, buf + from, n);
			}
			break;
		}
	}
	return size;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_dir(const char *dir, unsigned long mutations, uint64_t seed,
		   unsigned int limit, unsigned long *nfiles,
		   unsigned long *ninputs)
{
	DIR *dp = opendir(dir);
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0;

	if (!dp) {
		fprintf(stderr, "replay: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	while ((de = readdir(dp))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap = cap ? 2 * cap : 16) *
							   sizeof(*names));

			if (!nn)
				abort();
			names = nn;
		}
		names[n] = malloc(strlen(dir) + strlen(de->d_name) + 2);
		if (!names[n])
			abort();
		sprintf(names[n], "%s/%s", dir, de->d_name);
		n++;
	}
	closedir(dp);
	qsort(names, n, sizeof(*names), cmp_str);

	for (size_t i = 0; i < n; i++) {
		struct stat st;
		uint8_t *orig, *buf;
		size_t size, cap_b;
		FILE *f;

		if (stat(names[i], &st) || !S_ISREG(st.st_mode))
			goto next;
		size = (size_t)st.st_size;
		cap_b = size + 64 * RBFZ_OP_SIZE;
		orig = malloc(size + 1);
		buf = malloc(cap_b);
		f = fopen(names[i], "rb");
		if (!orig || !buf || !f ||
		    fread(orig, 1, size, f) != size) {
			fprintf(stderr, "replay: cannot read %s\n", names[i]);
			exit(1);
		}
		fclose(f);
		snprintf(cur_name, sizeof(cur_name), "%s", names[i]);
		cur_mutation = -1;
		cur_data = orig;
		cur_size = size;
		if (verbose)
			fprintf(stderr, "replay: %s\n", names[i]);
		alarm(limit);
		LLVMFuzzerTestOneInput(orig, size);
		(*ninputs)++;
		rng_state = (seed ^ hash_name(strrchr(names[i], '/') + 1)) | 1;
		for (unsigned long m = 0; m < mutations; m++) {
			size_t msize;

			memcpy(buf, orig, size);
			msize = mutate(buf, size, cap_b);
			cur_mutation = (sig_atomic_t)m;
			cur_data = buf;
			cur_size = msize;
			if (verbose)
				fprintf(stderr, "replay: %s mutation %lu\n",
					names[i], m);
			alarm(limit);
			LLVMFuzzerTestOneInput(buf, msize);
			(*ninputs)++;
		}
		alarm(0);
		cur_data = NULL;
		free(orig);
		free(buf);
		(*nfiles)++;
next:
		free(names[i]);
	}
	free(names);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long mutations = 100, nfiles = 0, ninputs = 0;
	uint64_t seed = 1;
	double limit = 60, mult = 1;
	const char *e;
	time_t t0 = time(NULL);
	int opt, status = 0;

	if ((e = getenv("RB_FUZZ_MUTATIONS")))
		mutations = strtoul(e, NULL, 0);
	if ((e = getenv("RB_TEST_SEED")))
		seed = strtoull(e, NULL, 0);
	if ((e = getenv("RB_TIMEOUT_MULT")) && atof(e) > 0)
		mult = atof(e);
	while ((opt = getopt(argc, argv, "vn:s:t:")) != -1) {
		switch (opt) {
		case 'v':
			verbose = true;
			break;
		case 'n':
			mutations = strtoul(optarg, NULL, 0);
			break;
		case 's':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 't':
			limit = atof(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;

	if (!verbose) {
		/* The library's warnings go through the stdio stream stderr:
		 * point that at /dev/null. Descriptor 2 stays the real
		 * stderr, for sanitizer reports and our own lines. */
		FILE *null = fopen("/dev/null", "w");

		if (!null) {
			perror("replay: /dev/null");
			return 1;
		}
		stderr = null;
	}
	if (__sanitizer_set_death_callback)
		__sanitizer_set_death_callback(on_death);
	signal(SIGALRM, on_signal);
	signal(SIGABRT, on_signal);
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
	/* Without a sanitizer, say which input crashed. */
	signal(SIGSEGV, on_signal);
	signal(SIGBUS, on_signal);
	signal(SIGFPE, on_signal);
	signal(SIGILL, on_signal);
#endif

	for (int i = optind; i < argc; i++)
		status |= run_dir(argv[i], mutations, seed,
				  (unsigned int)(limit * mult + 0.5), &nfiles,
				  &ninputs);
	{
		char line[256];

		snprintf(line, sizeof(line),
			 "replay: %lu files, %lu inputs (%lu mutations each, "
			 "seed %llu): %lu attached, %lu events read, %lu cpu "
			 "buffers stuck, %lu known issues passed over, %lu "
			 "changes at a record copy, %lu at a page swap, "
			 "%ld s\n",
			 nfiles, ninputs, mutations, (unsigned long long)seed,
			 rbfz_stats.attached, rbfz_stats.events,
			 rbfz_stats.stuck, rbfz_stats.known, rbfz_stats.midcopy,
			 rbfz_stats.midswap,
			 (long)(time(NULL) - t0));
		say(line);
	}
	if (!nfiles) {
		say("replay: no corpus files\n");
		status = 1;
	}
	return status;

usage:
	fprintf(stderr, "usage: %s [-v] [-n mutations] [-s seed] "
			"[-t seconds] corpus-dir...\n",
		argv[0]);
	return 2;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * zseq.c - ringtrace-zseq-bench: the recorder's zstd chunks against a
 *	record-aware parse that hands zstd the matches itself
 *
 * The compressing writer (tracedat_store.c) gives each TD_ZCHUNK_BYTES
 * chunk of pages to ZSTD_compress2() at TD_ZSTD_LEVEL with a hash table
 * of 1 << TD_ZSTD_HASHLOG entries: zstd searches the chunk for repeats,
 * then codes what it found. Our pages are records of a known layout, so
 * the search could be ours: this bench walks each chunk's pages and
 * records, matches every record against earlier records of the chunk that
 * likely repeat it, and hands the matches to ZSTD_compressSequences()
 * (libzstd's experimental sequence API), which writes a standard frame
 * and cuts it in blocks itself (blocks of whole pages given as explicit
 * delimiters make libzstd 1.5.4's frames a third larger). Both run on the same chunks, alternated, on one thread; the sequence
 * frames are checked with ZSTD_decompress() at the first run.
 *
 * The parse (zs_parse()): a page's header is matched against the previous
 * page's. A record is matched against three earlier places: the last
 * record of the same length whose first 16 bytes after the header hash
 * the same (for function and function_graph records: the type, the pid
 * and the function), the last record of the same length, and the offset
 * of the last match (zstd codes a repeated offset cheaply). At each place
 * of the record the longest of the three matches (3 bytes at least) is
 * taken, compared 64 bytes at a time; a match may run on past the
 * record's end into the next one. The bytes no match covers are literals
 * (a record's time delta, the low bytes of its time stamps). Every read
 * stays in the chunk, whatever its bytes: a length that does not fit
 * ends the page's records and leaves the rest of it to literals.
 *
 * Usage: ringtrace-zseq-bench [-r RUNS] [-c CHUNKS] [-m MODE] [-H] FILE...
 *	FILE: trace.dat files (version 6 or 7) whose pages are compressed
 *	-r RUNS: timed runs of each (5), after one that checks the frames
 *	-c CHUNKS: the first CHUNKS chunks only (all)
 *	-m MODE: one pass of one part, for instruction counts under
 *		valgrind --tool=callgrind: "level" (ZSTD_compress2()),
 *		"seq" (the parse and ZSTD_compressSequences()), "parse" (the
 *		parse alone), "none" (the loading alone)
 *	-H: Huffman-coded literals for the sequence frames (zstd's
 *		negative levels store them as they are)
 *	-t SEED [ROUNDS]: the self-test instead: ROUNDS (20) chunks of
 *		hostile pages (random bytes, records of every type with
 *		lengths that do not fit, commit words out of range, padding
 *		anywhere) of each page size through the parse, zstd and back
 *
 * Times are CPU times of the thread (min and median of the runs); other
 * programs on its CPU still stretch them (caches, a shared core): compare
 * ratios of one run, and instruction counts for steadier figures. Results
 * and method: bench/README.md, "zstd sequences".
 */
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include "tracedat_int.h"

#include <getopt.h>
#include <time.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* zstd's shortest match */
#define ZS_MINMATCH 3
/* entries of the table of records by their first bytes */
#define ZS_KEYS 4096
/* entries of the table of records by their length (in 4-byte words) */
#define ZS_LENS 64
/*
 * The frames' window, the one zstd's level gives chunks of 1 MiB (512
 * KiB): no match reaches further back (a decoder that keeps only the
 * window, as a streaming one does, would not have the bytes).
 */
#define ZS_WINDOW_LOG 19
#define ZS_MAXOFF ((size_t)1 << ZS_WINDOW_LOG)

/**
 * struct zs - the parse of one chunk
 * @seq: the sequences, @nseq of them, room for @cap
 * @src: the chunk
 * @lit: where the literals pending start (the end of the last match)
 * @lastoff: the last match's offset
 * @key: a record's position + 1 by the hash of its length and first bytes
 * @bylen: a record's position + 1 by its length
 */
struct zs {
	ZSTD_Sequence *seq;
	size_t nseq, cap;
	const unsigned char *src;
	size_t lit;
	size_t lastoff;
	uint32_t key[ZS_KEYS];
	uint32_t bylen[ZS_LENS];
};

static inline uint32_t zs_get32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t zs_get64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* How many bytes at @a equal those at @b, at most @n. */
static inline size_t zs_count(const unsigned char *a, const unsigned char *b,
			      size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t x = zs_get64(a + i) ^ zs_get64(b + i);

		if (x)
			return i + (size_t)(__builtin_ctzll(x) >> 3);
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Bit k set where a[k] == b[k], k < 64 (64 bytes readable at each). */
static inline uint64_t zs_eqmask(const unsigned char *a, const unsigned char *b)
{
	uint64_t m = 0;

#ifdef __SSE2__
	for (int k = 0; k < 4; k++) {
		__m128i x = _mm_loadu_si128((const __m128i *)(const void *)(a + 16 * k));
		__m128i y = _mm_loadu_si128((const __m128i *)(const void *)(b + 16 * k));

		m |= (uint64_t)(uint16_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, y))
		     << (16 * k);
	}
#else
	for (int k = 0; k < 8; k++) {
		const uint64_t lo = 0x7f7f7f7f7f7f7f7full;
		uint64_t x = zs_get64(a + 8 * k) ^ zs_get64(b + 8 * k);
		/* 0x80 in each byte that is 0 in x */
		uint64_t z = ~(((x & lo) + lo) | x | lo);

		m |= ((z >> 7) * 0x0102040810204080ull >> 56) << (8 * k);
	}
#endif
	return m;
}

/* A match of @len bytes at @pos, @off back, after the literals pending. */
static inline bool zs_match(struct zs *z, size_t pos, size_t off, size_t len)
{
	if (z->nseq >= z->cap)
		return false;
	z->seq[z->nseq++] = (ZSTD_Sequence){ .offset = (unsigned int)off,
					     .litLength = (unsigned int)(pos - z->lit),
					     .matchLength = (unsigned int)len };
	z->lit = pos + len;
	z->lastoff = off;
	return true;
}

/*
 * zs_diff - match the record [@pos, @pos + @n) from *@cur on against the
 *	bytes @off[0 .. @nr - 1] back, matches running on up to @limit
 *
 * Each offset is at most *@cur (it points into the chunk) and @limit is
 * within the chunk. *@cur: where the next record's parse starts (inside
 * it when a match ran past this one).
 *
 * Return: false when the sequences are full.
 */
static bool zs_diff(struct zs *z, size_t *cur, size_t pos, size_t n,
		    size_t limit, const size_t *off, int nr)
{
	const unsigned char *s = z->src;
	size_t i = *cur > pos ? *cur : pos, end = pos + n;

	/* bounded: each window moves @i on by one byte at least */
	while (i < end) {
		size_t base = i, w = limit - base;
		uint64_t eq[3], run = 0;

		for (int r = 0; r < nr; r++) {
			if (w >= 64) {
				eq[r] = zs_eqmask(s + base, s + base - off[r]);
				continue;
			}
			/* the page's last bytes: one at a time */
			eq[r] = 0;
			for (size_t b = 0; b < w; b++)
				eq[r] |= (uint64_t)(s[base + b] ==
						    s[base + b - off[r]]) << b;
		}
		/* places where a match of 3 bytes starts (up to 61) */
		for (int r = 0; r < nr; r++)
			run |= eq[r] & (eq[r] >> 1) & (eq[r] >> 2);
		if (w < 64)
			run &= w >= 3 ? ((uint64_t)1 << (w - 2)) - 1 : 0;
		while (run) {
			unsigned int k = (unsigned int)__builtin_ctzll(run);
			size_t at = base + k, best = 0, boff = 0;

			if (at >= end)
				break;
			for (int r = 0; r < nr; r++) {
				uint64_t ne = ~(eq[r] >> k);
				size_t m = ne ? (size_t)__builtin_ctzll(ne) :
						64 - k;

				if (m > best) {
					best = m;
					boff = off[r];
				}
			}
			/* one that reaches the window's end goes on */
			if (k + best >= 64 && w > 64)
				best += zs_count(s + base + 64,
						 s + base + 64 - boff,
						 limit - base - 64);
			if (!zs_match(z, at, boff, best))
				return false;
			i = at + best;
			if (i - base >= 64)
				break;
			run &= ~(uint64_t)0 << (i - base);
		}
		if (i < end && i - base < 64) {
			/* no more matches start in this window: its last
			 * two places open the next one */
			size_t nx = w >= 64 && base + 62 < end ? base + 62 : end;

			if (nx > i)
				i = nx;
		}
	}
	*cur = i;
	return true;
}

/* The table slot of a record of @len bytes by its first 16 after the
 * header. */
static inline uint32_t zs_hash(const unsigned char *p, size_t len)
{
	uint64_t h = (zs_get64(p) * 0x9E3779B97F4A7C15ull) ^
		     (zs_get64(p + 8) * 0xC2B2AE3D27D4EB4Full) ^ len;

	return (uint32_t)((h * 0x165667B19E3779F9ull) >> 52) & (ZS_KEYS - 1);
}

/*
 * The length of the record at @p, @left bytes of the page's data from
 * it on (at least 8), as the page decoder reads it (tracedat_decode.c);
 * 0 when it does not fit.
 */
static inline size_t zs_record_len(const unsigned char *p, size_t left)
{
	uint32_t hdr = zs_get32(p), tl = hdr & 0x1f, a0 = zs_get32(p + 4);
	size_t len;

	if (tl >= 1 && tl <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX)
		len = 4 + 4 * (size_t)tl;
	else if (tl == 0)
		len = a0 < 4 ? 0 : 8 + (((size_t)a0 - 4 + 3) & ~(size_t)3);
	else if (tl == RINGBUF_TYPE_PADDING)
		len = hdr >> 5 ? 4 + (size_t)a0 : left;
	else
		len = 8;
	return len <= left ? len : 0;
}

/*
 * zs_page - the sequences of the page at @pg (@page_size bytes, the
 *	page before it at @pg - @page_size unless @first)
 *
 * Return: false when the sequences are full.
 */
static bool zs_page(struct zs *z, size_t pg, size_t page_size, bool first)
{
	const unsigned char *s = z->src;
	size_t data = pg + RINGBUF_PAGE_HDR_SIZE, pos = 0, cur = pg, size;

	if (!first && page_size <= ZS_MAXOFF) {
		size_t off = page_size;

		if (!zs_diff(z, &cur, pg, RINGBUF_PAGE_HDR_SIZE, data, &off, 1))
			return false;
	}
	size = zs_get64(s + pg + 8) & RINGBUF_COMMIT_MASK;
	if (size > page_size - RINGBUF_PAGE_HDR_SIZE)
		size = 0;
	/* bounded: each record moves @pos on */
	while (pos + 8 <= size) {
		size_t at = data + pos, len = zs_record_len(s + at, size - pos);
		size_t off[3];
		uint32_t prev, li;
		int nr = 0;

		if (!len)
			break;
		if (len >= 20) {
			uint32_t h = zs_hash(s + at + 4, len);

			prev = z->key[h];
			z->key[h] = (uint32_t)at + 1;
			/* the same length: the same type_len (and length) */
			if (prev && at - (prev - 1) <= ZS_MAXOFF &&
			    (zs_get32(s + prev - 1) & 0x1f) ==
				    (zs_get32(s + at) & 0x1f) &&
			    zs_get32(s + prev + 3) == zs_get32(s + at + 4))
				off[nr++] = at - (prev - 1);
		}
		li = (uint32_t)(len / 4 < ZS_LENS ? len / 4 : ZS_LENS - 1);
		prev = z->bylen[li];
		z->bylen[li] = (uint32_t)at + 1;
		if (prev && at - (prev - 1) <= ZS_MAXOFF &&
		    (!nr || at - (prev - 1) != off[0]))
			off[nr++] = at - (prev - 1);
		if (z->lastoff && z->lastoff <= at &&
		    (nr < 1 || off[0] != z->lastoff) &&
		    (nr < 2 || off[1] != z->lastoff))
			off[nr++] = z->lastoff;
		if (cur < at + len && nr &&
		    !zs_diff(z, &cur, at, len, data + size, off, nr))
			return false;
		pos += len;
	}
	/* the rest of the page: one byte value repeated, or literals */
	if (cur <= data + pos) {
		size_t at = data + pos, n = page_size - RINGBUF_PAGE_HDR_SIZE - pos;

		if (n > ZS_MINMATCH + 1 && zs_count(s + at, s + at + 1, n - 1) == n - 1)
			return zs_match(z, at + 1, 1, n - 1);
	}
	return true;
}

/*
 * zs_parse - the sequences of a chunk of whole pages (the bytes after
 *	the last match are literals)
 *
 * Return: false when the chunk is not made of such pages or the
 * sequences are full (the chunk then goes to ZSTD_compress2()).
 */
static bool zs_parse(struct zs *z, const unsigned char *src, size_t len,
		     size_t page_size)
{
	if (page_size < 64 || len % page_size || len > UINT32_MAX - 1)
		return false;
	z->src = src;
	z->nseq = 0;
	z->lit = 0;
	z->lastoff = 0;
	memset(z->key, 0, sizeof(z->key));
	memset(z->bylen, 0, sizeof(z->bylen));
	for (size_t p = 0; p < len; p += page_size)
		if (!zs_page(z, p, page_size, p == 0))
			return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* Self-test: hostile pages                                            */

/* xorshift64*: the self-test's bytes, the same for a seed */
static uint64_t zs_rand(uint64_t *state)
{
	*state ^= *state >> 12;
	*state ^= *state << 25;
	*state ^= *state >> 27;
	return *state * 0x2545F4914F6CDD1Dull;
}

static void zs_put32(unsigned char *p, uint32_t v)
{
	memcpy(p, &v, sizeof(v));
}

/*
 * One page of @page_size bytes at @pg, of kind @kind: 0 random bytes;
 * 1 records of every type_len (payloads from a few patterns, so that
 * they repeat), the commit word sometimes out of range, a record cut by
 * it, or a padding that ends the page early; 2 as 1 with bytes flipped;
 * 3 one byte value.
 */
static void zs_test_page(unsigned char *pg, size_t page_size, int kind,
			 uint64_t *rnd)
{
	size_t avail = page_size - RINGBUF_PAGE_HDR_SIZE, pos = 0;
	unsigned char *data = pg + RINGBUF_PAGE_HDR_SIZE;
	uint64_t commit;

	if (kind == 0) {
		for (size_t i = 0; i < page_size; i++)
			pg[i] = (unsigned char)zs_rand(rnd);
		return;
	}
	if (kind == 3) {
		memset(pg, (int)(zs_rand(rnd) % 3), page_size);
		return;
	}
	memset(pg, 0, page_size);
	/* bounded: each record takes 8 bytes at least */
	while (pos + 8 <= avail) {
		uint64_t r = zs_rand(rnd);
		uint32_t tl = (uint32_t)(r % 32), delta = (uint32_t)(r >> 8) % 300;
		size_t len = 8;

		if (tl >= 1 && tl <= RINGBUF_TYPE_DATA_TYPE_LEN_MAX)
			len = 4 + 4 * (size_t)tl;
		else if (tl == 0)
			len = 8 + 4 * (size_t)(r >> 20) % 200;
		else if (tl == RINGBUF_TYPE_PADDING && r % 7 == 0)
			break; /* delta 0: the rest of the page */
		else if (tl == RINGBUF_TYPE_PADDING)
			len = 8 + 4 * (size_t)((r >> 20) % 20);
		if (len > avail - pos)
			break;
		for (size_t i = 4; i < len; i++)
			data[pos + i] = (unsigned char)(i * (r % 5) + (r >> 40) % 4);
		zs_put32(data + pos, tl | delta << 5);
		if (tl == 0 || tl == RINGBUF_TYPE_PADDING)
			zs_put32(data + pos + 4, (uint32_t)(len - 4));
		/* now and then a length that does not fit */
		if (r % 97 == 0)
			zs_put32(data + pos + 4, (uint32_t)(r >> 32));
		pos += len;
	}
	commit = pos;
	switch (zs_rand(rnd) % 8) {
	case 0:
		commit = zs_rand(rnd); /* anything, flags included */
		break;
	case 1:
		if (pos)
			commit = zs_rand(rnd) % pos; /* cuts a record */
		break;
	case 2:
		commit |= RINGBUF_MISSED_EVENTS | RINGBUF_MISSED_STORED;
		break;
	}
	zs_put32(pg, (uint32_t)zs_rand(rnd));
	memcpy(pg + 8, &commit, sizeof(commit));
	if (kind == 2)
		for (int i = 0; i < 16; i++)
			pg[zs_rand(rnd) % page_size] = (unsigned char)zs_rand(rnd);
}

/*
 * zs_selftest - @rounds chunks of hostile pages of each page size,
 *	through the parse, ZSTD_compressSequences() (with zstd's validation
 *	of the sequences and without) and ZSTD_decompress()
 *
 * Return: 0, or 1 when a frame does not give its chunk back or zstd
 * refused the sequences of a chunk the parse accepted.
 */
static int zs_selftest(uint64_t seed, int rounds)
{
	static const size_t sizes[] = { 4096, 16384, 65536 };
	size_t cap = ZSTD_compressBound(TD_ZCHUNK_BYTES);
	unsigned char *chunk = malloc(TD_ZCHUNK_BYTES), *out = malloc(cap);
	unsigned char *back = malloc(TD_ZCHUNK_BYTES);
	struct zs *z = calloc(1, sizeof(*z));
	ZSTD_CCtx *cc[2] = { ZSTD_createCCtx(), ZSTD_createCCtx() };
	uint64_t rnd = seed | 1;
	unsigned long parsed = 0, chunks = 0;
	int ret = 0;

	if (z) {
		z->cap = TD_ZCHUNK_BYTES / 6;
		z->seq = malloc(z->cap * sizeof(*z->seq));
	}
	if (!chunk || !out || !back || !z || !z->seq || !cc[0] || !cc[1]) {
		fprintf(stderr, "out of memory\n");
		ret = 1;
		goto out;
	}
	for (int v = 0; v < 2; v++) {
		ZSTD_CCtx_setParameter(cc[v], ZSTD_c_compressionLevel, TD_ZSTD_LEVEL);
		ZSTD_CCtx_setParameter(cc[v], ZSTD_c_minMatch, ZS_MINMATCH);
		ZSTD_CCtx_setParameter(cc[v], ZSTD_c_windowLog, ZS_WINDOW_LOG);
		ZSTD_CCtx_setParameter(cc[v], ZSTD_c_validateSequences, v);
	}
	for (int round = 0; round < rounds && !ret; round++) {
		for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); si++) {
			size_t ps = sizes[si], pages = 1 + zs_rand(&rnd) % (TD_ZCHUNK_BYTES / ps);
			int mix = (int)(zs_rand(&rnd) % 5);

			for (size_t p = 0; p < pages; p++)
				zs_test_page(chunk + p * ps, ps,
					     mix < 4 ? mix : (int)(zs_rand(&rnd) % 4),
					     &rnd);
			chunks++;
			if (!zs_parse(z, chunk, pages * ps, ps))
				continue;
			parsed++;
			for (int v = 0; v < 2; v++) {
				size_t n = ZSTD_compressSequences(cc[v], out, cap, z->seq,
								  z->nseq, chunk,
								  pages * ps);

				if (ZSTD_isError(n)) {
					fprintf(stderr, "selftest: round %d, pages of %zu: %s\n",
						round, ps, ZSTD_getErrorName(n));
					ret = 1;
				} else if (ZSTD_decompress(back, TD_ZCHUNK_BYTES, out, n) !=
						   pages * ps ||
					   memcmp(back, chunk, pages * ps)) {
					fprintf(stderr, "selftest: round %d, pages of %zu: round trip failed\n",
						round, ps);
					ret = 1;
				}
			}
		}
	}
	printf("selftest: %lu chunks, %lu parsed and given back whole%s\n",
	       chunks, parsed, ret ? "; FAILED" : "");
	if (!ret && !parsed)
		ret = 1;
out:
	ZSTD_freeCCtx(cc[0]);
	ZSTD_freeCCtx(cc[1]);
	if (z)
		free(z->seq);
	free(z);
	free(back);
	free(out);
	free(chunk);
	return ret;
}

/* ------------------------------------------------------------------ */
/* The bench                                                           */

struct chunk {
	const unsigned char *p;
	size_t len;
};

static double thread_seconds(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Each cpu's pages of @path, one after the other, into *@buf (cpu buffers
 * start at a chunk), cut into chunks of whole pages as the writer does. */
static int load(const char *path, unsigned char **buf, struct chunk **ch,
		size_t *nch, size_t *total, unsigned long *events,
		unsigned int *page_size)
{
	struct td_reader *r;
	struct td_count count = { 0, 0, { -1, -1, -1 } };
	char err[256];
	size_t bytes = 0, stage, at = 0;
	int ret = td_reader_open(path, &r, err, sizeof(err));

	if (ret) {
		fprintf(stderr, "%s: %s\n", path, err);
		return ret;
	}
	*page_size = td_reader_page_size(r);
	stage = TD_ZCHUNK_BYTES / *page_size * *page_size;
	if (!stage)
		stage = *page_size;
	for (int cpu = 0; cpu < td_reader_nr_cpus(r); cpu++)
		bytes += td_reader_nr_pages(r, cpu) * *page_size;
	*buf = malloc(bytes ? bytes : 1);
	*ch = calloc(bytes / stage + (size_t)td_reader_nr_cpus(r) + 1,
		     sizeof(**ch));
	*nch = 0;
	*events = 0;
	if (!*buf || !*ch) {
		td_reader_close(r);
		return -ENOMEM;
	}
	for (int cpu = 0; cpu < td_reader_nr_cpus(r); cpu++) {
		uint64_t pages = td_reader_nr_pages(r, cpu);
		size_t start = at;

		for (uint64_t i = 0; i < pages; i++) {
			const void *pg = td_reader_page(r, cpu, i);

			if (!pg) {
				fprintf(stderr, "%s: cpu %d page %llu unreadable\n",
					path, cpu, (unsigned long long)i);
				td_reader_close(r);
				return -EPROTO;
			}
			memcpy(*buf + at, pg, *page_size);
			(void)td_page_count(*buf + at, *page_size, &count, NULL);
			at += *page_size;
		}
		for (size_t o = start; o < at; o += stage)
			(*ch)[(*nch)++] = (struct chunk){
				*buf + o, at - o < stage ? at - o : stage
			};
	}
	td_reader_close(r);
	*total = at;
	*events = count.records;
	return 0;
}

int main(int argc, char **argv)
{
	const char *mode = NULL;
	int runs = 5, huffman = 0, opt, status = 0;
	size_t max_chunks = SIZE_MAX;

	while ((opt = getopt(argc, argv, "r:c:m:Ht:")) != -1) {
		switch (opt) {
		case 't':
			return zs_selftest(strtoull(optarg, NULL, 0),
					   optind < argc ? atoi(argv[optind]) : 20);
		case 'c':
			max_chunks = strtoul(optarg, NULL, 0);
			break;
		case 'r':
			runs = atoi(optarg);
			break;
		case 'm':
			mode = optarg;
			break;
		case 'H':
			huffman = 1;
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc || runs < 1 || runs > 1000 ||
	    (mode && strcmp(mode, "level") && strcmp(mode, "seq") &&
	     strcmp(mode, "parse") && strcmp(mode, "none")))
		goto usage;
	printf("libzstd %s; chunks of %u bytes; level %d, hash log %d\n",
	       ZSTD_versionString(), TD_ZCHUNK_BYTES, TD_ZSTD_LEVEL,
	       TD_ZSTD_HASHLOG);
	for (int f = optind; f < argc; f++) {
		unsigned char *buf = NULL, *out, *back;
		struct chunk *ch = NULL;
		size_t nch, total, cap, zl = 0, zs = 0, nseq = 0, fallback = 0;
		unsigned long events;
		unsigned int page_size;
		double *tl, *ts, *tp;
		ZSTD_CCtx *lc = ZSTD_createCCtx(), *sc = ZSTD_createCCtx();
		struct zs *z = calloc(1, sizeof(*z));

		if (load(argv[f], &buf, &ch, &nch, &total, &events, &page_size)) {
			status = 1;
			continue;
		}
		if (nch > max_chunks) {
			nch = max_chunks;
			total = 0;
			events = 0;
			for (size_t i = 0; i < nch; i++) {
				struct td_count c = { 0, 0, { -1, -1, -1 } };

				for (size_t o = 0; o < ch[i].len; o += page_size)
					(void)td_page_count(ch[i].p + o, page_size,
							    &c, NULL);
				total += ch[i].len;
				events += c.records;
			}
		}
		cap = ZSTD_compressBound(TD_ZCHUNK_BYTES);
		out = malloc(cap);
		back = malloc(TD_ZCHUNK_BYTES);
		tl = calloc((size_t)runs, sizeof(*tl));
		ts = calloc((size_t)runs, sizeof(*ts));
		tp = calloc((size_t)runs, sizeof(*tp));
		/* the sequences of a chunk: a match is 3 bytes at least;
		 * more than a sixth of the bytes' count falls back */
		if (z) {
			z->cap = TD_ZCHUNK_BYTES / 6;
			z->seq = malloc(z->cap * sizeof(*z->seq));
		}
		if (!lc || !sc || !z || !z->seq || !out || !back || !tl ||
		    !ts || !tp) {
			fprintf(stderr, "out of memory\n");
			return 1;
		}
		ZSTD_CCtx_setParameter(lc, ZSTD_c_compressionLevel, TD_ZSTD_LEVEL);
		ZSTD_CCtx_setParameter(lc, ZSTD_c_hashLog, TD_ZSTD_HASHLOG);
		ZSTD_CCtx_setParameter(sc, ZSTD_c_compressionLevel, TD_ZSTD_LEVEL);
		ZSTD_CCtx_setParameter(sc, ZSTD_c_minMatch, ZS_MINMATCH);
		ZSTD_CCtx_setParameter(sc, ZSTD_c_windowLog, ZS_WINDOW_LOG);
		if (huffman)
			ZSTD_CCtx_setParameter(sc, ZSTD_c_literalCompressionMode,
					       ZSTD_ps_enable);
		if (mode) {
			/* one pass of one part, nothing printed per chunk */
			for (size_t i = 0; i < nch; i++) {
				size_t n = 0;

				if (!strcmp(mode, "level"))
					n = ZSTD_compress2(lc, out, cap, ch[i].p,
							   ch[i].len);
				else if (!strcmp(mode, "parse"))
					n = zs_parse(z, ch[i].p, ch[i].len, page_size);
				else if (!strcmp(mode, "seq") &&
					 zs_parse(z, ch[i].p, ch[i].len, page_size))
					n = ZSTD_compressSequences(sc, out, cap, z->seq,
								   z->nseq, ch[i].p,
								   ch[i].len);
				zl += ZSTD_isError(n) ? 0 : n;
			}
			printf("%s: %s: %zu bytes of %zu, %lu events\n", argv[f],
			       mode, zl, total, events);
			goto next;
		}
		/* run 0 checks the frames; runs 1 .. @runs are timed */
		for (int r = 0; r <= runs; r++) {
			double t0, t1, tparse = 0;

			zl = zs = nseq = fallback = 0;
			t0 = thread_seconds();
			for (size_t i = 0; i < nch; i++) {
				size_t n = ZSTD_compress2(lc, out, cap, ch[i].p,
							  ch[i].len);

				if (ZSTD_isError(n)) {
					fprintf(stderr, "ZSTD_compress2: %s\n",
						ZSTD_getErrorName(n));
					return 1;
				}
				zl += n;
			}
			t1 = thread_seconds();
			for (size_t i = 0; i < nch; i++) {
				double q = thread_seconds();
				bool ok = zs_parse(z, ch[i].p, ch[i].len, page_size);
				size_t n;

				tparse += thread_seconds() - q;
				if (ok) {
					for (size_t k = 0; k < z->nseq; k++)
						nseq += z->seq[k].matchLength != 0;
					n = ZSTD_compressSequences(sc, out, cap, z->seq,
								   z->nseq, ch[i].p,
								   ch[i].len);
				} else {
					fallback++;
					n = ZSTD_compress2(lc, out, cap, ch[i].p,
							   ch[i].len);
				}
				if (ZSTD_isError(n)) {
					fprintf(stderr, "%s: chunk %zu: %s\n",
						argv[f], i, ZSTD_getErrorName(n));
					return 1;
				}
				zs += n;
				if (!r && (ZSTD_decompress(back, TD_ZCHUNK_BYTES,
							   out, n) != ch[i].len ||
					   memcmp(back, ch[i].p, ch[i].len))) {
					fprintf(stderr, "%s: chunk %zu: round trip failed\n",
						argv[f], i);
					return 1;
				}
			}
			if (r) {
				tl[r - 1] = t1 - t0;
				ts[r - 1] = thread_seconds() - t1;
				tp[r - 1] = tparse;
			}
		}
		printf("%s: %.1f MB of pages, %lu events, %zu chunks\n", argv[f],
		       (double)total / 1e6, events, nch);
		if (!events || !total)
			goto next;
		qsort(tl, (size_t)runs, sizeof(*tl), cmp_double);
		qsort(ts, (size_t)runs, sizeof(*ts), cmp_double);
		qsort(tp, (size_t)runs, sizeof(*tp), cmp_double);
		printf("  level:     %6.1f MB/s min time, %6.1f median; %.2f B/event\n",
		       (double)total / tl[0] / 1e6,
		       (double)total / median(tl, runs) / 1e6,
		       (double)zl / (double)events);
		printf("  sequences: %6.1f MB/s min time, %6.1f median; %.2f B/event;"
		       " %.2f sequences/event; parse alone %.1f MB/s;"
		       " %zu chunks fell back\n",
		       (double)total / ts[0] / 1e6,
		       (double)total / median(ts, runs) / 1e6,
		       (double)zs / (double)events,
		       (double)nseq / (double)events,
		       (double)total / tp[0] / 1e6, fallback);
		printf("  sequences / level: %.2fx (min times), %.2fx (medians)\n",
		       tl[0] / ts[0], median(tl, runs) / median(ts, runs));
next:
		free(tl);
		free(ts);
		free(tp);
		free(out);
		free(back);
		free(z->seq);
		free(z);
		ZSTD_freeCCtx(lc);
		ZSTD_freeCCtx(sc);
		free(ch);
		free(buf);
	}
	return status;
usage:
	fprintf(stderr, "usage: %s [-r RUNS] [-c CHUNKS] [-m level|seq|parse|none] [-H] FILE...\n",
		argv[0]);
	return 2;
}

// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * symbols.c - function names for addresses, in the program and in every
 * shared object it has loaded (the kernel's kallsyms, for a process)
 *
 * The objects come from dl_iterate_phdr(); each one's function symbols
 * (STT_FUNC and STT_GNU_IFUNC) are read with libelf from its file, from
 * .symtab when the file has one (static functions included), else from
 * .dynsym, and moved by the object's load bias. One table per object,
 * sorted by address, the names of one address next to each other with the
 * preferred one first (global, then weak, then local; sized before
 * unsized; fewer leading underscores).
 *
 * Locking: rt_syms_refresh_lock serialises the refreshers, which read the
 * files without holding anything else; rt_syms_lock (a read-write lock)
 * covers the list of live objects that lookups and walks use, and is
 * write-locked only to swap that list. Objects that go away (dlclose) are
 * kept, with their names, for the life of the process: a name handed out
 * stays valid, and the same object loaded again at the same place is not
 * read twice.
 *
 * Userspace: the kernel's kallsyms is built at link time and module
 * symbols are added by the module loader; here nothing tells us an object
 * appeared, so a lookup that falls in no known object looks at the
 * loader's load/unload counters (dlpi_adds, dlpi_subs) and rereads only
 * when they moved, and dlopen() (function.c) refreshes at once.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols.h"

#define RT_NOTRACE __attribute__((no_instrument_function))

/**
 * struct rt_symobj - one loaded object and its function symbols
 * @path: its file (for the program, /proc/self/exe resolved); kept
 * @bias: the load bias (run-time address - link-time address)
 * @lo: the lowest address of its PT_LOAD segments
 * @hi: one past the highest
 * @syms: its function symbols by address, preferred alias first
 * @nr: how many
 */
struct rt_symobj {
	const char *path;
	unsigned long bias;
	unsigned long lo;
	unsigned long hi;
	struct rt_sym *syms;
	size_t nr;
};

static pthread_mutex_t rt_syms_refresh_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_rwlock_t rt_syms_lock = PTHREAD_RWLOCK_INITIALIZER;

/* Under rt_syms_refresh_lock: every object ever read. */
static struct rt_symobj **rt_objs;
static size_t rt_nr_objs;
static char *rt_exe_path;

/* Under rt_syms_lock: the loaded objects by address, and the counters
 * they were read at. */
static struct rt_symobj **rt_live;
static size_t rt_nr_live;
static bool rt_syms_loaded;
static struct rt_syms_gen rt_live_gen;

/*
 * The program's path string (an object's @path), to tell its symbols from
 * a shared object's. Set once; Release: in rt_syms_refresh(), before any
 * symbol of the program is handed out; Acquire: in rt_sym_modname().
 */
static _Atomic(const char *) rt_main_path;

static pthread_once_t rt_elf_once = PTHREAD_ONCE_INIT;

static RT_NOTRACE void rt_elf_init(void)
{
	elf_version(EV_CURRENT);
}

/* ---- reading one object ------------------------------------------------- */

struct rt_symtmp {
	unsigned long start;
	unsigned long size;
	const char *name; /* in libelf's string table until elf_end() */
	int rank;
};

static RT_NOTRACE int rt_sym_rank(unsigned char bind)
{
	switch (bind) {
	case STB_GLOBAL:
		return 0;
	case STB_WEAK:
		return 1;
	default:
		return 2;
	}
}

static RT_NOTRACE size_t rt_underscores(const char *s)
{
	size_t n = 0;

	while (s[n] == '_')
		n++;
	return n;
}

static inline RT_NOTRACE int rt_symtmp_cmp(const struct rt_symtmp *x,
					     const struct rt_symtmp *y)
{
	size_t ux, uy;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	if (!x->size != !y->size)
		return x->size ? -1 : 1;
	ux = rt_underscores(x->name);
	uy = rt_underscores(y->name);
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp(x->name, y->name);
}

/*
 * Sort @n symbols by rt_symtmp_cmp() (@tmp: room for @n): a merge sort
 * with the comparison inlined, not qsort(), whose calls through a
 * pointer and copies of unknown size were most of the time a program's
 * start-up spent sorting its libraries' symbols. Insertion sort below
 * RT_SYMTMP_RUN elements.
 */
#define RT_SYMTMP_RUN 12

static RT_NOTRACE void rt_symtmp_sort(struct rt_symtmp *v, size_t n,
				      struct rt_symtmp *tmp)
{
	size_t mid, i, j, k;

	if (n <= RT_SYMTMP_RUN) {
		for (i = 1; i < n; i++) {
			struct rt_symtmp x = v[i];

			for (j = i; j > 0 && rt_symtmp_cmp(&x, &v[j - 1]) < 0; j--)
				v[j] = v[j - 1];
			v[j] = x;
		}
		return;
	}
	mid = n / 2;
	rt_symtmp_sort(v, mid, tmp);
	rt_symtmp_sort(v + mid, n - mid, tmp);
	/* already in order (an address-sorted table): no merge */
	if (rt_symtmp_cmp(&v[mid - 1], &v[mid]) <= 0)
		return;
	memcpy(tmp, v, mid * sizeof(*v));
	for (i = 0, j = mid, k = 0; i < mid && j < n; k++)
		v[k] = rt_symtmp_cmp(&v[j], &tmp[i]) < 0 ? v[j++] : tmp[i++];
	while (i < mid)
		v[k++] = tmp[i++];
}

/* The symbol table to read: .symtab if there is one, else .dynsym. */
static RT_NOTRACE Elf_Scn *rt_elf_symtab(Elf *elf, GElf_Shdr *shdr)
{
	Elf_Scn *scn = NULL, *dynsym = NULL;
	GElf_Shdr dynshdr;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			*shdr = sh;
			return scn;
		}
		if (sh.sh_type == SHT_DYNSYM && !dynsym) {
			dynsym = scn;
			dynshdr = sh;
		}
	}
	if (dynsym)
		*shdr = dynshdr;
	return dynsym;
}

/*
 * Fill @o->syms from the ELF file @fd. Run-time address = bias + st_value
 * (st_value is the link-time address, for ET_EXEC and ET_DYN alike).
 */
static RT_NOTRACE int rt_symobj_read(struct rt_symobj *o, int fd)
{
	struct rt_symtmp *tmp = NULL;
	size_t n, i, k = 0, namelen = 0;
	struct rt_sym *syms = NULL;
	GElf_Shdr shdr;
	Elf_Data *data;
	Elf_Scn *scn;
	char *names;
	int ret = 0;
	Elf *elf;

	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return 0;
	if (elf_kind(elf) != ELF_K_ELF)
		goto out;
	scn = rt_elf_symtab(elf, &shdr);
	if (!scn || !shdr.sh_entsize)
		goto out;
	data = elf_getdata(scn, NULL);
	if (!data)
		goto out;
	n = shdr.sh_size / shdr.sh_entsize;
	/* the symbols, then the merge sort's room */
	tmp = malloc((n ? n : 1) * 2 * sizeof(*tmp));
	if (!tmp) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		unsigned char type;
		const char *name;
		GElf_Sym sym;

		if (!gelf_getsym(data, (int)i, &sym))
			continue;
		type = GELF_ST_TYPE(sym.st_info);
		if (type != STT_FUNC && type != STT_GNU_IFUNC)
			continue;
		if (sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(elf, shdr.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		tmp[k].start = o->bias + sym.st_value;
		tmp[k].size = sym.st_size;
		tmp[k].name = name;
		tmp[k].rank = rt_sym_rank(GELF_ST_BIND(sym.st_info));
		k++;
	}
	rt_symtmp_sort(tmp, k, tmp + n);

	/* Drop exact repeats (same name at the same address). */
	n = k;
	k = 0;
	for (i = 0; i < n; i++) {
		size_t j;

		for (j = k; j > 0 && tmp[j - 1].start == tmp[i].start; j--)
			if (!strcmp(tmp[j - 1].name, tmp[i].name))
				break;
		if (j > 0 && tmp[j - 1].start == tmp[i].start)
			continue;
		tmp[k++] = tmp[i];
		namelen += strlen(tmp[i].name) + 1;
	}
	if (!k)
		goto out;

	/* The names are never freed: they are handed out for good. */
	syms = calloc(k, sizeof(*syms));
	names = malloc(namelen);
	if (!syms || !names) {
		free(syms);
		free(names);
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < k; i++) {
		size_t len = strlen(tmp[i].name) + 1;

		memcpy(names, tmp[i].name, len);
		syms[i].name = names;
		syms[i].start = tmp[i].start;
		syms[i].size = tmp[i].size;
		syms[i].module = o->path;
		names += len;
	}
	o->syms = syms;
	o->nr = k;
out:
	free(tmp);
	elf_end(elf);
	return ret;
}

/*
 * A new object: its symbols if its file can be read, none otherwise (the
 * vdso has no file; it is kept anyway so that it is not tried again).
 */
static RT_NOTRACE struct rt_symobj *rt_symobj_new(const char *path,
						  const char *file,
						  unsigned long bias,
						  unsigned long lo,
						  unsigned long hi)
{
	struct rt_symobj *o = calloc(1, sizeof(*o));
	int fd;

	if (!o)
		return NULL;
	o->path = strdup(path);
	if (!o->path) {
		free(o);
		return NULL;
	}
	o->bias = bias;
	o->lo = lo;
	o->hi = hi;
	fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		int ret = rt_symobj_read(o, fd);

		close(fd);
		if (ret) {
			free((char *)o->path);
			free(o);
			return NULL;
		}
	}
	return o;
}

/* ---- the loaded objects ------------------------------------------------- */

struct rt_phdr_obj {
	char *name; /* NULL for the program */
	unsigned long bias;
	unsigned long lo;
	unsigned long hi;
};

struct rt_phdr_list {
	struct rt_phdr_obj *v;
	size_t nr;
	size_t cap;
	struct rt_syms_gen gen;
	bool first_done;
	int err;
};

static RT_NOTRACE bool rt_phdr_gen(const struct dl_phdr_info *info,
				   size_t size, struct rt_syms_gen *gen)
{
	if (size < offsetof(struct dl_phdr_info, dlpi_subs) +
			   sizeof(info->dlpi_subs))
		return false;
	gen->adds = info->dlpi_adds;
	gen->subs = info->dlpi_subs;
	return true;
}

/*
 * dl_iterate_phdr() callback: note each object. It runs under the
 * loader's lock, so it only copies; the files are read afterwards.
 */
static RT_NOTRACE int rt_phdr_collect(struct dl_phdr_info *info, size_t size,
				      void *arg)
{
	struct rt_phdr_list *l = arg;
	unsigned long lo = ULONG_MAX, hi = 0;
	bool first = !l->first_done;
	struct rt_phdr_obj *o;
	int i;

	l->first_done = true;
	if (first)
		rt_phdr_gen(info, size, &l->gen);
	for (i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (lo >= hi)
		return 0;
	/* The program comes first and has no name. */
	if ((!info->dlpi_name || !*info->dlpi_name) && !first)
		return 0;
	if (l->nr == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 32;
		struct rt_phdr_obj *v = realloc(l->v, cap * sizeof(*v));

		if (!v) {
			l->err = -ENOMEM;
			return 1;
		}
		l->v = v;
		l->cap = cap;
	}
	o = &l->v[l->nr];
	o->name = NULL;
	if (info->dlpi_name && *info->dlpi_name) {
		o->name = strdup(info->dlpi_name);
		if (!o->name) {
			l->err = -ENOMEM;
			return 1;
		}
	}
	o->bias = info->dlpi_addr;
	o->lo = lo;
	o->hi = hi;
	l->nr++;
	return 0;
}

static RT_NOTRACE int rt_gen_collect(struct dl_phdr_info *info, size_t size,
				     void *arg)
{
	if (!rt_phdr_gen(info, size, arg))
		return -1;
	return 1; /* the first object carries the counters: stop */
}

RT_NOTRACE bool rt_syms_loader_gen(struct rt_syms_gen *gen)
{
	return dl_iterate_phdr(rt_gen_collect, gen) == 1;
}

/* Have objects been loaded or unloaded since the tables were read? */
static RT_NOTRACE bool rt_syms_changed(void)
{
	struct rt_syms_gen gen;
	bool changed;

	if (!rt_syms_loader_gen(&gen))
		return false;
	pthread_rwlock_rdlock(&rt_syms_lock);
	changed = gen.adds != rt_live_gen.adds || gen.subs != rt_live_gen.subs;
	pthread_rwlock_unlock(&rt_syms_lock);
	return changed;
}

/* Under rt_syms_refresh_lock: the program's path, once. */
static RT_NOTRACE const char *rt_exe(void)
{
	char buf[PATH_MAX];
	ssize_t n;

	if (rt_exe_path)
		return rt_exe_path;
	n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return "/proc/self/exe";
	buf[n] = '\0';
	rt_exe_path = strdup(buf);
	return rt_exe_path ? rt_exe_path : "/proc/self/exe";
}

static RT_NOTRACE int rt_symobj_cmp(const void *a, const void *b)
{
	const struct rt_symobj *x = *(struct rt_symobj *const *)a;
	const struct rt_symobj *y = *(struct rt_symobj *const *)b;

	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return 0;
}

/* Under rt_syms_refresh_lock: the object already read for @p, if any. */
static RT_NOTRACE struct rt_symobj *rt_symobj_find(const char *path,
						   const struct rt_phdr_obj *p)
{
	size_t i;

	for (i = 0; i < rt_nr_objs; i++) {
		struct rt_symobj *o = rt_objs[i];

		if (o->bias == p->bias && o->lo == p->lo && o->hi == p->hi &&
		    !strcmp(o->path, path))
			return o;
	}
	return NULL;
}

/*
 * Under rt_syms_refresh_lock (rt_live only changes under it too): was @o
 * loaded at the last refresh?
 */
static RT_NOTRACE bool rt_symobj_was_live(const struct rt_symobj *o)
{
	size_t i;

	for (i = 0; i < rt_nr_live; i++)
		if (rt_live[i] == o)
			return true;
	return false;
}

RT_NOTRACE int rt_syms_refresh(void)
{
	struct rt_phdr_list l = { 0 };
	struct rt_symobj **live = NULL, **old;
	const char *main_path = NULL;
	size_t i, nr_live = 0;
	int added = 0, ret = 0;

	pthread_once(&rt_elf_once, rt_elf_init);
	pthread_mutex_lock(&rt_syms_refresh_lock);
	dl_iterate_phdr(rt_phdr_collect, &l);
	if (l.err) {
		ret = l.err;
		goto out;
	}
	live = calloc(l.nr ? l.nr : 1, sizeof(*live));
	if (!live) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < l.nr; i++) {
		const struct rt_phdr_obj *p = &l.v[i];
		const char *path = p->name ? p->name : rt_exe();
		const char *file = p->name ? p->name : "/proc/self/exe";
		struct rt_symobj *o = rt_symobj_find(path, p), **objs;

		if (!o) {
			objs = realloc(rt_objs,
				       (rt_nr_objs + 1) * sizeof(*objs));
			if (!objs) {
				ret = -ENOMEM;
				goto out;
			}
			rt_objs = objs;
			o = rt_symobj_new(path, file, p->bias, p->lo, p->hi);
			if (!o) {
				ret = -ENOMEM;
				goto out;
			}
			rt_objs[rt_nr_objs++] = o;
		}
		if (!rt_symobj_was_live(o))
			added++;
		if (!p->name)
			main_path = o->path;
		live[nr_live++] = o;
	}
	qsort(live, nr_live, sizeof(*live), rt_symobj_cmp);

	/*
	 * Relaxed load: only written here, under rt_syms_refresh_lock.
	 * Release store: the program's path string is written before it is
	 * published; pairs with the acquire load in rt_sym_modname().
	 */
	if (main_path && !atomic_load_explicit(&rt_main_path,
					       memory_order_relaxed))
		atomic_store_explicit(&rt_main_path, main_path,
				      memory_order_release);

	pthread_rwlock_wrlock(&rt_syms_lock);
	old = rt_live;
	rt_live = live;
	rt_nr_live = nr_live;
	rt_live_gen = l.gen;
	rt_syms_loaded = true;
	pthread_rwlock_unlock(&rt_syms_lock);
	free(old);
	live = NULL;
	ret = added;
out:
	pthread_mutex_unlock(&rt_syms_refresh_lock);
	free(live);
	for (i = 0; i < l.nr; i++)
		free(l.v[i].name);
	free(l.v);
	if (ret < 0)
		errno = -ret;
	return ret;
}

/* ---- lookups ------------------------------------------------------------ */

/* Under rt_syms_lock (read): the live object holding @addr. */
static RT_NOTRACE const struct rt_symobj *rt_live_find(unsigned long addr)
{
	size_t lo = 0, hi = rt_nr_live;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (rt_live[mid]->lo <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || addr >= rt_live[lo - 1]->hi)
		return NULL;
	return rt_live[lo - 1];
}

static RT_NOTRACE bool rt_symobj_lookup(const struct rt_symobj *o,
					unsigned long addr, struct rt_sym *out)
{
	const struct rt_sym *s =
		rt_symtab_find(o->syms, o->nr, sizeof(*o->syms), addr);

	if (s)
		*out = *s;
	return s;
}

RT_NOTRACE bool rt_sym_lookup(unsigned long addr, struct rt_sym *out)
{
	const struct rt_symobj *o;
	bool found = false, loaded;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		pthread_rwlock_rdlock(&rt_syms_lock);
		loaded = rt_syms_loaded;
		o = loaded ? rt_live_find(addr) : NULL;
		if (o)
			found = rt_symobj_lookup(o, addr, out);
		pthread_rwlock_unlock(&rt_syms_lock);
		if (o)
			return found;
		/*
		 * In no object we know of: reread the tables if the loader
		 * loaded or unloaded something since (one try).
		 */
		if (pass || (loaded && !rt_syms_changed()))
			break;
		if (rt_syms_refresh() < 0)
			break;
	}
	return false;
}

RT_NOTRACE int rt_syms_foreach(int (*cb)(const struct rt_sym *sym, void *arg),
			       void *arg)
{
	size_t i, j;
	int ret = 0;

	pthread_rwlock_rdlock(&rt_syms_lock);
	if (!rt_syms_loaded) {
		pthread_rwlock_unlock(&rt_syms_lock);
		ret = rt_syms_refresh();
		if (ret < 0)
			return ret;
		ret = 0;
		pthread_rwlock_rdlock(&rt_syms_lock);
	}
	for (i = 0; i < rt_nr_live && !ret; i++) {
		const struct rt_symobj *o = rt_live[i];

		for (j = 0; j < o->nr && !ret; j++)
			ret = cb(&o->syms[j], arg);
	}
	pthread_rwlock_unlock(&rt_syms_lock);
	return ret;
}

RT_NOTRACE size_t rt_sym_format(char *buf, size_t len, unsigned long addr,
				bool offset)
{
	struct rt_sym s;

	return rt_symtab_format(rt_sym_lookup(addr, &s) ? &s : NULL, buf, len,
				addr, offset);
}

RT_NOTRACE const char *rt_sym_modname(const struct rt_sym *sym)
{
	/* Acquire: pairs with the release store in rt_syms_refresh(). */
	const char *main_path =
		atomic_load_explicit(&rt_main_path, memory_order_acquire);
	const char *slash;

	if (!sym->module || sym->module == main_path)
		return NULL;
	slash = strrchr(sym->module, '/');
	return slash ? slash + 1 : sym->module;
}

/* ---- fork --------------------------------------------------------------- */

/*
 * A fork() while another thread refreshes would leave the child with the
 * locks held for good: hold them across it. Registered before function.c's
 * handlers (constructor priority), so that its control lock, taken before
 * these at run time too, is also taken first here (prepare handlers run
 * in reverse order of registration).
 */
static RT_NOTRACE void rt_syms_fork_prepare(void)
{
	pthread_mutex_lock(&rt_syms_refresh_lock);
	pthread_rwlock_wrlock(&rt_syms_lock);
}

static RT_NOTRACE void rt_syms_fork_done(void)
{
	pthread_rwlock_unlock(&rt_syms_lock);
	pthread_mutex_unlock(&rt_syms_refresh_lock);
}

/*
 * In the child the locks are made anew: the writer of a rwlock is known
 * by its thread id, which the child's thread does not share, so an
 * unlock there would be taken for a reader's and leave the lock held.
 */
static RT_NOTRACE void rt_syms_fork_child(void)
{
	pthread_rwlock_init(&rt_syms_lock, NULL);
	pthread_mutex_init(&rt_syms_refresh_lock, NULL);
}

__attribute__((constructor(101))) static RT_NOTRACE void rt_syms_init(void)
{
	pthread_atfork(rt_syms_fork_prepare, rt_syms_fork_done,
		       rt_syms_fork_child);
}

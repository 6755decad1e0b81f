// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * dwarf.c - functions' parameters from DWARF (fnproto.h): what the
 * kernel's print_function_args() takes from BTF, for funcgraph-args
 *
 * elfutils' libdwfl finds each loaded object of the process and its
 * debug information (in the file, or where .gnu_debuglink or the
 * build id point); the compile unit that covers a function's address
 * gives its DW_TAG_subprogram, whose DW_TAG_formal_parameter children
 * are the parameters, in order. A parameter's type is reduced to what
 * the printer needs (fnproto.h): typedefs and qualifiers are looked
 * through, as btf_type_skip_modifiers() does.
 *
 * Results are kept per address (found or not): the printer asks once a
 * function, whatever the number of its calls.
 *
 * Userspace: the kernel reads BTF of the running kernel; a process's
 * objects carry DWARF, or nothing (a stripped object without a debug
 * package: the printer then shows the raw registers).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fnproto.h"

#define RT_NOTRACE __attribute__((no_instrument_function))

/* Qualifiers and typedefs looked through before giving up (a loop in
 * corrupt DWARF must end). */
#define RT_DWARF_TYPE_HOPS 16

struct rt_proto_ent {
	unsigned long addr;
	char *proto; /* NULL: no debug information */
	bool used;
};

struct rt_dwarf {
	Dwfl *dwfl;
	pid_t pid;
	bool rescanned; /* objects read again since the last hit */
	struct rt_proto_ent *tab;
	size_t cap; /* a power of two */
	size_t nr;
};

static char *rt_debuginfo_path;

/* Whether @elf holds DWARF of its own (a .debug_info section). */
static RT_NOTRACE bool rt_elf_has_dwarf(Elf *elf)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (!elf || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return false;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr shdr;
		const char *name;

		if (!gelf_getshdr(scn, &shdr))
			continue;
		name = elf_strptr(elf, shstrndx, shdr.sh_name);
		if (name && (!strcmp(name, ".debug_info") ||
			     !strcmp(name, ".zdebug_info")))
			return true;
	}
	return false;
}

/* Whether a file named @name is in the first @dirlen bytes of @dir,
 * followed by @sub. */
static RT_NOTRACE bool rt_file_in(const char *dir, size_t dirlen,
				  const char *sub, const char *name)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%.*s%s/%s", (int)dirlen, dir,
			 sub, name);

	return n > 0 && (size_t)n < sizeof(path) && access(path, R_OK) == 0;
}

/*
 * Whether this machine holds the module's debug information: in its own
 * file, under its build id in /usr/lib/debug/.build-id, or where its
 * .gnu_debuglink points (beside it, in .debug/ beside it, or under
 * /usr/lib/debug), the places the standard search looks.
 */
static RT_NOTRACE bool rt_debuginfo_local(Dwfl_Module *mod,
					  const char *file_name,
					  const char *debuglink)
{
	const unsigned char *id;
	GElf_Addr vaddr;
	GElf_Addr bias;
	int len = dwfl_module_build_id(mod, &id, &vaddr);

	if (rt_elf_has_dwarf(dwfl_module_getelf(mod, &bias)))
		return true;
	if (len > 1) {
		char name[2 * 64 + 16], *p = name;
		int i;

		if (len > 64)
			return true; /* not a build id we can spell: ask */
		p += sprintf(p, "%02x/", id[0]);
		for (i = 1; i < len; i++)
			p += sprintf(p, "%02x", id[i]);
		strcpy(p, ".debug");
		if (rt_file_in("/usr/lib/debug/.build-id", 24, "", name))
			return true;
	}
	if (debuglink && file_name) {
		const char *slash = strrchr(file_name, '/');
		/* (a name without a directory is in the current one) */
		const char *d = slash ? file_name : ".";
		size_t dl = slash ? (size_t)(slash - file_name) : 1;

		if (rt_file_in(d, dl, "", debuglink) ||
		    rt_file_in(d, dl, "/.debug", debuglink))
			return true;
		if (slash) {
			char dir[4096];
			int n = snprintf(dir, sizeof(dir), "/usr/lib/debug%.*s",
					 (int)dl, file_name);

			if (n > 0 && (size_t)n < sizeof(dir) &&
			    rt_file_in(dir, (size_t)n, "", debuglink))
				return true;
		}
	}
	return false;
}

/*
 * Userspace: libdw opens the objects and their debug files without
 * O_CLOEXEC and keeps them open while the session lasts (the library's
 * lasts as long as the process). A program that exec()s would pass them
 * on to what it runs: each descriptor libdw's searches return is marked
 * close-on-exec at once (a fork() and exec() of another thread in
 * between is the one way one still leaks).
 */
static RT_NOTRACE int rt_cloexec(int fd)
{
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFD);

		if (fl >= 0 && !(fl & FD_CLOEXEC))
			(void)fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
	}
	return fd;
}

/*
 * The standard search, where the machine holds the debug information.
 * Userspace: a traced program does not fetch it over the network. The
 * standard search ends by asking debuginfod, and libdw loads its client
 * library for that (some thirty libraries: curl, TLS, Kerberos, LDAP)
 * in the traced process, at the function tracer's start, even where no
 * server is set; an object without local debug information is shown
 * with raw registers at once instead.
 */
static RT_NOTRACE int rt_find_debuginfo(Dwfl_Module *mod, void **userdata,
					const char *modname, Dwarf_Addr base,
					const char *file_name,
					const char *debuglink_file,
					GElf_Word debuglink_crc,
					char **debuginfo_file_name)
{
	if (!rt_debuginfo_local(mod, file_name, debuglink_file))
		return -1;
	return rt_cloexec(dwfl_standard_find_debuginfo(mod, userdata, modname,
						       base, file_name,
						       debuglink_file,
						       debuglink_crc,
						       debuginfo_file_name));
}

/* The object's own file (libdw's search for a process's modules). */
static RT_NOTRACE int rt_find_elf(Dwfl_Module *mod, void **userdata,
				  const char *modname, Dwarf_Addr base,
				  char **file_name, Elf **elfp)
{
	return rt_cloexec(dwfl_linux_proc_find_elf(mod, userdata, modname,
						   base, file_name, elfp));
}

static const Dwfl_Callbacks rt_dwfl_cbs = {
	.find_elf = rt_find_elf,
	.find_debuginfo = rt_find_debuginfo,
	.debuginfo_path = &rt_debuginfo_path,
};

static RT_NOTRACE int rt_dwarf_report(struct rt_dwarf *d)
{
	int ret;

	dwfl_report_begin(d->dwfl);
	ret = dwfl_linux_proc_report(d->dwfl, d->pid);
	if (dwfl_report_end(d->dwfl, NULL, NULL) != 0 && !ret)
		ret = -1;
	return ret;
}

RT_NOTRACE struct rt_dwarf *rt_dwarf_open(pid_t pid)
{
	struct rt_dwarf *d = calloc(1, sizeof(*d));

	if (!d)
		return NULL;
	d->pid = pid ? pid : getpid();
	d->dwfl = dwfl_begin(&rt_dwfl_cbs);
	if (!d->dwfl || rt_dwarf_report(d) != 0) {
		rt_dwarf_close(d);
		errno = ESRCH;
		return NULL;
	}
	return d;
}

RT_NOTRACE void rt_dwarf_close(struct rt_dwarf *d)
{
	size_t i;

	if (!d)
		return;
	if (d->dwfl)
		dwfl_end(d->dwfl);
	for (i = 0; i < d->cap; i++)
		free(d->tab[i].proto);
	free(d->tab);
	free(d);
}

/* ---- the cache ---------------------------------------------------------- */

static RT_NOTRACE size_t rt_proto_hash(unsigned long addr, size_t cap)
{
	return (size_t)((addr * 0x9e3779b97f4a7c15ull) >> 17) & (cap - 1);
}

static RT_NOTRACE struct rt_proto_ent *rt_proto_find(struct rt_dwarf *d,
						     unsigned long addr)
{
	size_t i, n;

	if (!d->cap)
		return NULL;
	for (i = rt_proto_hash(addr, d->cap), n = 0; n < d->cap;
	     i = (i + 1) & (d->cap - 1), n++) {
		if (!d->tab[i].used)
			return NULL;
		if (d->tab[i].addr == addr)
			return &d->tab[i];
	}
	return NULL;
}

/* Keep @proto (taken over, may be NULL) for @addr; false for want of
 * memory (then it is freed and not kept). */
static RT_NOTRACE bool rt_proto_add(struct rt_dwarf *d, unsigned long addr,
				    char *proto)
{
	size_t i;

	if ((d->nr + 1) * 2 > d->cap) {
		size_t cap = d->cap ? d->cap * 2 : 64, j;
		struct rt_proto_ent *t = calloc(cap, sizeof(*t));

		if (!t) {
			free(proto);
			return false;
		}
		for (j = 0; j < d->cap; j++) {
			if (!d->tab[j].used)
				continue;
			for (i = rt_proto_hash(d->tab[j].addr, cap); t[i].used;
			     i = (i + 1) & (cap - 1))
				;
			t[i] = d->tab[j];
		}
		free(d->tab);
		d->tab = t;
		d->cap = cap;
	}
	for (i = rt_proto_hash(addr, d->cap); d->tab[i].used;
	     i = (i + 1) & (d->cap - 1))
		;
	d->tab[i] = (struct rt_proto_ent){ addr, proto, true };
	d->nr++;
	return true;
}

/* ---- DWARF -------------------------------------------------------------- */

/* @die's DW_AT_type, looked for in its abstract origin or specification
 * too; false for none (void). */
static RT_NOTRACE bool rt_die_type(Dwarf_Die *die, Dwarf_Die *type)
{
	Dwarf_Attribute attr;

	return dwarf_attr_integrate(die, DW_AT_type, &attr) &&
	       dwarf_formref_die(&attr, type);
}

static RT_NOTRACE const char *rt_die_name(Dwarf_Die *die)
{
	Dwarf_Attribute attr;
	const char *name;

	if (!dwarf_attr_integrate(die, DW_AT_name, &attr))
		return "";
	name = dwarf_formstring(&attr);
	return name ? name : "";
}

/* The kind of a parameter of type @type (fnproto.h) into @out. */
static RT_NOTRACE void rt_type_kind(Dwarf_Die *type, char *out, size_t len)
{
	Dwarf_Die t = *type;
	Dwarf_Attribute attr;
	Dwarf_Word enc = 0;
	int hops, size;

	for (hops = 0; hops < RT_DWARF_TYPE_HOPS; hops++) {
		switch (dwarf_tag(&t)) {
		case DW_TAG_typedef:
		case DW_TAG_const_type:
		case DW_TAG_volatile_type:
		case DW_TAG_restrict_type:
		case DW_TAG_atomic_type:
			if (!rt_die_type(&t, &t)) {
				snprintf(out, len, "?");
				return;
			}
			continue;
		default:
			break;
		}
		break;
	}
	size = dwarf_bytesize(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		snprintf(out, len, "p");
		return;
	case DW_TAG_enumeration_type:
		snprintf(out, len, "e%d", size > 0 ? size : 4);
		return;
	case DW_TAG_structure_type:
	case DW_TAG_class_type:
	case DW_TAG_union_type:
		if (size < 0)
			break;
		snprintf(out, len, "S%d:%s", size,
			 dwarf_tag(&t) == DW_TAG_union_type ? "UNION" :
							      "STRUCT");
		return;
	case DW_TAG_base_type:
		if (size <= 0 || !dwarf_attr(&t, DW_AT_encoding, &attr) ||
		    dwarf_formudata(&attr, &enc))
			break;
		switch (enc) {
		case DW_ATE_signed:
		case DW_ATE_signed_char:
		case DW_ATE_unsigned:
		case DW_ATE_unsigned_char:
		case DW_ATE_boolean:
		case DW_ATE_UTF:
			if (size > 8)
				snprintf(out, len, "S%d:INT", size);
			else
				snprintf(out, len, "%c%d",
					 enc == DW_ATE_signed ||
							 enc == DW_ATE_signed_char ?
						 's' :
						 'u',
					 size);
			return;
		case DW_ATE_float:
		case DW_ATE_complex_float:
			snprintf(out, len, "f%d", size);
			return;
		default:
			break;
		}
		break;
	default:
		break;
	}
	snprintf(out, len, "?");
}

/* The prototype of subprogram @fn (fnproto.h), malloc()ed. */
static RT_NOTRACE char *rt_fn_proto(Dwarf_Die *fn)
{
	char text[RT_FNPROTO_MAX], kind[32], item[160];
	Dwarf_Die child, origin, *params = fn, type;
	Dwarf_Attribute attr;
	size_t n = 0;

	text[0] = '\0';
	/*
	 * A concrete out-of-line copy lists its parameters; a declaration
	 * completed elsewhere (C++ member functions) has them in the DIE
	 * that has the code, which is @fn.
	 */
	if (!dwarf_haschildren(fn) &&
	    (dwarf_attr(fn, DW_AT_abstract_origin, &attr) ||
	     dwarf_attr(fn, DW_AT_specification, &attr)) &&
	    dwarf_formref_die(&attr, &origin))
		params = &origin;
	if (dwarf_child(params, &child) == 0) {
		do {
			int tag = dwarf_tag(&child);

			if (tag == DW_TAG_unspecified_parameters)
				snprintf(item, sizeof(item), "...");
			else if (tag != DW_TAG_formal_parameter)
				continue;
			else {
				if (rt_die_type(&child, &type))
					rt_type_kind(&type, kind,
						     sizeof(kind));
				else
					snprintf(kind, sizeof(kind), "?");
				snprintf(item, sizeof(item), "%.120s:%s",
					 rt_die_name(&child), kind);
			}
			/* a parameter that does not fit ends the text */
			if (n + !!n + strlen(item) + 1 > sizeof(text))
				break;
			n += (size_t)snprintf(text + n, sizeof(text) - n,
					      "%s%s", n ? " " : "", item);
			if (tag == DW_TAG_unspecified_parameters)
				break;
		} while (dwarf_siblingof(&child, &child) == 0);
	}
	return strdup(text);
}

/* The DW_TAG_subprogram whose code starts at @pc (link-time) in @cu. */
static RT_NOTRACE bool rt_find_subprogram(Dwarf_Die *cu, Dwarf_Addr pc,
					  Dwarf_Die *out)
{
	Dwarf_Die *scopes = NULL;
	int n, i;
	bool found = false;

	n = dwarf_getscopes(cu, pc, &scopes);
	for (i = 0; i < n; i++) {
		Dwarf_Addr lo;

		if (dwarf_tag(&scopes[i]) != DW_TAG_subprogram)
			continue;
		if (dwarf_entrypc(&scopes[i], &lo) == 0 && lo == pc) {
			*out = scopes[i];
			found = true;
		}
		break;
	}
	free(scopes);
	return found;
}

/* The prototype of the function at @addr; NULL without debug information
 * (*@nomod: no object of the process covers @addr). */
static RT_NOTRACE char *rt_dwarf_lookup(struct rt_dwarf *d, unsigned long addr,
					bool *nomod)
{
	Dwfl_Module *mod = dwfl_addrmodule(d->dwfl, addr);
	Dwarf_Die *cu, fn;
	Dwarf_Addr bias;

	*nomod = !mod;
	if (!mod)
		return NULL;
	cu = dwfl_module_addrdie(mod, addr, &bias);
	if (!cu || !rt_find_subprogram(cu, addr - bias, &fn))
		return NULL;
	return rt_fn_proto(&fn);
}

RT_NOTRACE bool rt_dwarf_plain_abi(struct rt_dwarf *d, unsigned long addr)
{
	Dwfl_Module *mod = d ? dwfl_addrmodule(d->dwfl, addr) : NULL;
	Dwarf_Die *cu, fn;
	Dwarf_Attribute attr;
	Dwarf_Word cc;
	Dwarf_Addr bias;
	const char *producer;

	if (!mod)
		return false;
	cu = dwfl_module_addrdie(mod, addr, &bias);
	if (!cu || !rt_find_subprogram(cu, addr - bias, &fn))
		return false;
	producer = dwarf_attr(cu, DW_AT_producer, &attr) ?
			   dwarf_formstring(&attr) :
			   NULL;
	if (!producer || strncmp(producer, "GNU ", 4))
		return false;
	if (dwarf_attr(&fn, DW_AT_calling_convention, &attr) &&
	    (dwarf_formudata(&attr, &cc) || cc != DW_CC_normal))
		return false;
	return true;
}

RT_NOTRACE bool rt_dwarf_proto(struct rt_dwarf *d, unsigned long addr,
			       char *buf, size_t len)
{
	struct rt_proto_ent *e;
	bool nomod;
	char *p;

	if (!d || !len)
		return false;
	e = rt_proto_find(d, addr);
	if (!e) {
		p = rt_dwarf_lookup(d, addr, &nomod);
		/* an object loaded since: read the list again, once until
		 * something is found */
		if (nomod && !d->rescanned) {
			d->rescanned = true;
			if (rt_dwarf_report(d) == 0)
				p = rt_dwarf_lookup(d, addr, &nomod);
		}
		if (p)
			d->rescanned = false;
		if (!rt_proto_add(d, addr, p))
			return false;
		e = rt_proto_find(d, addr);
		if (!e)
			return false;
	}
	if (!e->proto)
		return false;
	snprintf(buf, len, "%s", e->proto);
	return true;
}

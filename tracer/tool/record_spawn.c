// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * record_spawn.c - ringtrace record -- COMMAND: starting the command with
 *	tracing set up, and following it through an exec() in its own process
 */
#include "record.h"

/*
 * A live process of the publish directory that inherited @hold_env (our
 * RINGTRACE_HOLD): started by the command, directly or not, as a shell
 * starts the program it runs. Return: its pid, or 0.
 */
static int rtt_spawn_descendant(const char *hold_env)
{
	char err[RTT_ERR_MAX];
	struct rtt_entry *e;
	size_t nr, i;
	int pid = 0;

	if (rtt_list(&e, &nr, err))
		return 0;
	for (i = 0; i < nr && !pid; i++)
		if (!kill(e[i].pid, 0) && rtt_environ_has(e[i].pid, hold_env))
			pid = e[i].pid;
	free(e);
	return pid;
}

/*
 * Is the cpu buffer of the command, @size_kb (0: the size its
 * RINGTRACE_BUF_SIZE_KB says, or the library's default), big enough for
 * RTT_RECORD_SUBBUF_KB sub-buffers (RTT_RECORD_SUBBUF_MIN_KB)?
 */
static bool rtt_record_big_buffer(unsigned long size_kb)
{
	const char *s = getenv("RINGTRACE_BUF_SIZE_KB");

	if (!size_kb && (!s || rtt_parse_uint(s, ULONG_MAX, &size_kb)))
		size_kb = 1408;
	return size_kb >= RTT_RECORD_SUBBUF_MIN_KB;
}

/* Start COMMAND with the settings in its environment; wait until it
 * publishes its control file, or a program it starts does (the command
 * is a shell that runs it: sh -c "PROGRAM; ..."). */
int rtt_record_spawn(char **cmd, const struct rtt_strv *events,
		     const char *tracer, const struct rtt_strv *opts,
		     unsigned long size_kb, const char *preload,
		     bool follow, bool stdout_busy, int *hold,
		     struct rtt_proc *p, pid_t *child)
{
	posix_spawn_file_actions_t fa;
	char err[RTT_ERR_MAX], *ev = NULL, *op = NULL, *tr = NULL, *pl = NULL;
	char hold_env[64], size_env[64], follow_env[64];
	const char *old_pl = getenv("LD_PRELOAD");
	char **envp = NULL;
	size_t n = 0, i, len;
	uint64_t deadline;
	int ret, status, fds[2], tries;

	/* a publish directory the command could not publish in, or that
	 * the tool refuses: said before the command runs, not after a
	 * wait for files that never come */
	ret = rtt_publish_dir_check(err);
	if (ret) {
		rtt_msg("%s", err);
		return ret;
	}

	for (i = 0; environ[i]; i++)
		n++;
	envp = calloc(n + 10, sizeof(*envp));
	if (!envp)
		return -ENOMEM;
	/* the command waits on fds[0] until tracing is set up (rt_hold()) */
	if (pipe2(fds, O_CLOEXEC)) {
		free(envp);
		return -errno;
	}
	/* the read end goes to the command (the write end stays here) */
	if (fcntl(fds[0], F_SETFD, 0)) {
		close(fds[0]);
		close(fds[1]);
		free(envp);
		return -errno;
	}
	n = 0;
	for (i = 0; environ[i]; i++) {
		if ((events->nr && !strncmp(environ[i], "RINGTRACE_EVENTS=", 17)) ||
		    (tracer && !strncmp(environ[i], "RINGTRACE_TRACER=", 17)) ||
		    !strncmp(environ[i], "RINGTRACE_OPTIONS=", 18) ||
		    !strncmp(environ[i], "RINGTRACE_HOLD=", 15) ||
		    (size_kb && !strncmp(environ[i], "RINGTRACE_BUF_SIZE_KB=", 22)) ||
		    (preload && !strncmp(environ[i], "LD_PRELOAD=", 11)) ||
		    !strncmp(environ[i], "RINGTRACE_FOLLOW=", 17))
			continue;
		envp[n++] = environ[i];
	}
	/* the library first, then what the user preloads */
	if (preload &&
	    asprintf(&pl, "LD_PRELOAD=%s%s%s", preload,
		     old_pl && *old_pl ? " " : "", old_pl ? old_pl : "") > 0)
		envp[n++] = pl;
	snprintf(hold_env, sizeof(hold_env), "RINGTRACE_HOLD=%d:%d", fds[0],
		 (int)getpid());
	envp[n++] = hold_env;
	if (follow) {
		snprintf(follow_env, sizeof(follow_env),
			 "RINGTRACE_FOLLOW=%d", (int)getpid());
		envp[n++] = follow_env;
	}
	if (size_kb) {
		snprintf(size_env, sizeof(size_env), "RINGTRACE_BUF_SIZE_KB=%lu",
			 size_kb);
		envp[n++] = size_env;
	}
	/* the sub-buffer size, unless the user's environment sets one or
	 * the buffer is small */
	if (!getenv("RINGTRACE_SUBBUF_SIZE_KB") &&
	    rtt_record_big_buffer(size_kb))
		envp[n++] = (char *)"RINGTRACE_SUBBUF_SIZE_KB=" RTT_RECORD_SUBBUF_KB;
	/* any RINGTRACE_ variable starts the tracer at load: the process
	 * publishes before its main() runs */
	envp[n++] = (char *)"RINGTRACE_PUBLISH=1";
	/* a clean exit leaves the files for us (a short program may be
	 * done before we attach); we remove them when done */
	envp[n++] = (char *)"RINGTRACE_KEEP_FILES=1";
	if (events->nr) {
		for (len = 32, i = 0; i < (size_t)events->nr; i++)
			len += strlen(events->v[i]) + 1;
		ev = malloc(len);
		if (ev) {
			strcpy(ev, "RINGTRACE_EVENTS=");
			for (i = 0; i < (size_t)events->nr; i++) {
				if (i)
					strcat(ev, ",");
				strcat(ev, events->v[i]);
			}
			envp[n++] = ev;
		}
	}
	/*
	 * Producer/consumer mode first (the writers then wait for us when
	 * the buffer is full, record.c), then the command's own
	 * RINGTRACE_OPTIONS, then -O: the last word on an option wins, so
	 * -O overwrite (or the environment's) gives the kernel's mode back.
	 */
	{
		const char *env_op = opts->nr ? NULL : getenv("RINGTRACE_OPTIONS");

		len = 64 + (env_op ? strlen(env_op) : 0);
		for (i = 0; i < (size_t)opts->nr; i++)
			len += strlen(opts->v[i]) + 1;
		op = malloc(len);
		if (op) {
			strcpy(op, "RINGTRACE_OPTIONS=nooverwrite");
			if (env_op && *env_op) {
				strcat(op, ",");
				strcat(op, env_op);
			}
			for (i = 0; i < (size_t)opts->nr; i++) {
				strcat(op, ",");
				strcat(op, opts->v[i]);
			}
			envp[n++] = op;
		}
	}
	if (tracer && asprintf(&tr, "RINGTRACE_TRACER=%s", tracer) > 0)
		envp[n++] = tr;
	envp[n] = NULL;
	/* the trace.dat goes to standard output (-o -): the command's
	 * output goes to standard error, not into the file */
	if (stdout_busy) {
		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_adddup2(&fa, STDERR_FILENO,
						 STDOUT_FILENO);
	}
	ret = posix_spawnp(child, cmd[0], stdout_busy ? &fa : NULL, NULL,
			   cmd, envp);
	if (stdout_busy)
		posix_spawn_file_actions_destroy(&fa);
	free(ev);
	free(op);
	free(tr);
	free(pl);
	free(envp);
	close(fds[0]);
	if (ret)
		close(fds[1]);
	else
		*hold = fds[1];
	if (ret) {
		rtt_msg("cannot run '%s': %s", cmd[0], strerror(ret));
		return ret == ENOENT || ret == EACCES ? -EINVAL : -ret;
	}
	deadline = rtt_now_ms() + 10000;
	for (tries = 0;; tries++) {
		int pid = *child;

		ret = rtt_proc_open(pid, 0, p, err);
		/* not published itself: a program it started may be (a
		 * look at the directory every 10 ms) */
		if (ret == -ESRCH && tries % 10 == 0) {
			pid = rtt_spawn_descendant(hold_env);
			if (pid)
				ret = rtt_proc_open(pid, 0, p, err);
			else
				pid = *child;
		}
		/* published, with its top instance */
		if (!ret && rtt_inst_find(p, NULL) >= 0) {
			rtt_settle(p);
			return 0;
		}
		if (!ret) {
			rtt_proc_close(p);
			ret = -ESRCH;
			snprintf(err, sizeof(err), "no trace buffer yet");
		}
		if (pid == *child &&
		    waitpid(*child, &status, WNOHANG) == *child) {
			/* done already: what it left is recorded */
			if (!rtt_proc_open(*child, RTT_OPEN_DEAD, p, err)) {
				if (rtt_inst_find(p, NULL) >= 0)
					return 0;
				rtt_proc_close(p);
			}
			rtt_msg("'%s' (pid %d) exited before publishing its trace: is it linked with libringtrace?",
				cmd[0], (int)*child);
			*child = 0;
			return -ESRCH;
		}
		/* a control file being created reads as corrupt for a
		 * moment: the process fills it after creating it */
		if (ret == -EPROTO && rtt_now_ms() <= deadline && !rtt_stop) {
			usleep(1000);
			continue;
		}
		if (ret != -ESRCH || rtt_now_ms() > deadline || rtt_stop) {
			if (ret == -ESRCH)
				rtt_msg("'%s' (pid %d) did not publish a trace within 10 s: is it linked with libringtrace?",
					cmd[0], (int)*child);
			else
				rtt_msg("%s", err);
			return ret;
		}
		usleep(1000);
	}
}

/* Event specs enabled before recording, to switch back off after. */
char *rtt_show_set_event(struct rtt_proc *p, const char *inst)
{
	char err[RTT_ERR_MAX], *reply = NULL;

	if (rtt_call(p, RTT_CMD_TIMEOUT_MS, &RT_CALL(SHOW_SET_EVENT, inst),
		     &reply, err)) {
		free(reply);
		return NULL;
	}
	return reply;
}

static bool rtt_line_in(const char *text, const char *line)
{
	size_t n = strlen(line);
	const char *s = text;

	while (s && *s) {
		if (!strncmp(s, line, n) && (s[n] == '\n' || !s[n]))
			return true;
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return false;
}

void rtt_restore_events(struct rtt_proc *p, const char *inst,
			const char *before)
{
	char *now = rtt_show_set_event(p, inst), *line, *save = NULL;

	if (!now || !before)
		goto out;
	for (line = strtok_r(now, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char err[RTT_ERR_MAX], off[RT_CTL_CMD_MAX];

		snprintf(off, sizeof(off), "!%s", line);
		if (!rtt_line_in(before, line))
			rtt_call(p, RTT_CMD_TIMEOUT_MS,
				 &RT_CALL(SET_EVENT, inst, RT_S(0, off)), NULL,
				 err);
	}
out:
	free(now);
}

/*
 * Events registered since the formats were written (a program registers
 * its events as it loads, after the library published its first events
 * file): read the events file again and add the new formats.
 */
void rtt_record_formats(struct rtt_record *r, struct rtt_events **evp)
{
	struct rtt_events *ev;
	size_t i;

	/* quiet: the process may be exiting, its files gone */
	if (rtt_load_events(&r->p, &ev, true))
		return;
	for (i = 0; i < ev->nr; i++)
		if (!rtt_events_by_id(*evp, ev->v[i].id))
			td_writer_add_format(r->w, ev->v[i].system,
					     ev->v[i].format);
	/* the formats written stay: they are in the file already */
	rtt_events_keep(ev, *evp);
	rtt_events_free(*evp);
	*evp = ev;
}

/*
 * The formats of the image exec() replaced, which its events file kept
 * as "<events>.exec" (the new image renames it there under a recorder):
 * those the file lacks are added, so that the records it wrote read
 * (an image that registered its events and exec()ed between two turns
 * of the recorder left them nowhere else).
 */
void rtt_record_exec_formats(struct rtt_record *r)
{
	char kept[PATH_MAX + 24], err[RTT_ERR_MAX];
	struct rtt_events *ev;
	char *text;
	size_t len, i;

	/* the library publishes the events file as "<base>.events" */
	snprintf(kept, sizeof(kept), "%s.events.exec", r->p.base);
	if (rtt_read_file(kept, 64u << 20, &text, &len))
		return;
	unlink(kept);
	ev = rtt_events_new();
	if (ev && !rtt_events_parse_file(ev, text, err, sizeof(err))) {
		for (i = 0; i < ev->nr; i++)
			if (!rtt_events_by_id(r->ev, ev->v[i].id))
				td_writer_add_format(r->w, ev->v[i].system,
						     ev->v[i].format);
		/* the formats written stay: they are in the file already */
		rtt_events_keep(ev, r->ev);
		rtt_events_free(r->ev);
		r->ev = ev;
		ev = NULL;
	}
	rtt_events_free(ev);
	free(text);
}

/* The file posix_spawnp() runs for @cmd: @cmd itself, or found in PATH. */
static bool rtt_which(const char *cmd, char *out, size_t len)
{
	const char *path = getenv("PATH"), *p, *end;

	if (strchr(cmd, '/')) {
		snprintf(out, len, "%s", cmd);
		return access(out, X_OK) == 0;
	}
	for (p = path ? path : "/usr/local/bin:/usr/bin:/bin"; *p; p = end) {
		size_t n;

		end = strchr(p, ':');
		if (!end)
			end = p + strlen(p);
		n = (size_t)(end - p);
		if (*end)
			end++;
		if ((int)len <= snprintf(out, len, "%.*s/%s", (int)(n ? n : 1),
					  n ? p : ".", cmd))
			continue;
		if (access(out, X_OK) == 0)
			return true;
	}
	return false;
}

/* The profiling hooks a program built for function tracing calls, or the
 * sections that list its call sites (see rtt_elf_hooks()). */
static bool rtt_hook_name(const char *s)
{
	return !strcmp(s, "__cyg_profile_func_enter") ||
	       !strcmp(s, "__fentry__") || !strcmp(s, "mcount") ||
	       !strcmp(s, "_mcount");
}

static bool rtt_hook_section(const char *s)
{
	return !strcmp(s, "__mcount_loc") ||
	       !strcmp(s, "__patchable_function_entries");
}

/* A string table of @fd (section @sh), NUL-ended; NULL if unreadable. */
static char *rtt_elf_strtab(int fd, const Elf64_Shdr *sh)
{
	char *tab;

	if (sh->sh_size == 0 || sh->sh_size > (64u << 20))
		return NULL;
	tab = malloc(sh->sh_size + 1);
	if (tab && pread(fd, tab, sh->sh_size, (off_t)sh->sh_offset) !=
			   (ssize_t)sh->sh_size) {
		free(tab);
		return NULL;
	}
	if (tab)
		tab[sh->sh_size] = 0;
	return tab;
}

/*
 * Read the section names and the dynamic string table of the ELF file
 * @path (64-bit, this machine's byte order): whether it was built for
 * function tracing without the library, *@hooks (it names a hook the C
 * library defines unless libringtrace comes first: -finstrument-functions'
 * __cyg_profile_func_enter, -pg's mcount or -mfentry's __fentry__; or it
 * lists its call sites for the library to patch: -mrecord-mcount's
 * __mcount_loc, -fpatchable-function-entry's
 * __patchable_function_entries), and whether it names libringtrace (a
 * library the program is linked with).
 */
static bool rtt_elf_hooks(const char *path, bool *hooks, bool *linked)
{
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *tab = NULL, *names = NULL;
	bool ok = false;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t shlen;
	unsigned int i, dyn;

	*hooks = *linked = false;
	if (fd < 0)
		return false;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_shentsize != sizeof(Elf64_Shdr) || !eh.e_shnum)
		goto out;
	shlen = (size_t)eh.e_shnum * sizeof(*sh);
	sh = malloc(shlen);
	if (!sh || pread(fd, sh, shlen, (off_t)eh.e_shoff) != (ssize_t)shlen)
		goto out;
	/* the call sites' sections, by name */
	if (eh.e_shstrndx < eh.e_shnum &&
	    (names = rtt_elf_strtab(fd, &sh[eh.e_shstrndx])))
		for (i = 0; i < eh.e_shnum && !*hooks; i++)
			if (sh[i].sh_name < sh[eh.e_shstrndx].sh_size &&
			    rtt_hook_section(names + sh[i].sh_name))
				*hooks = true;
	for (dyn = 0; dyn < eh.e_shnum; dyn++)
		if (sh[dyn].sh_type == SHT_DYNSYM)
			break;
	/* no dynamic symbols: a static program, nothing to preload into */
	if (dyn == eh.e_shnum || sh[dyn].sh_link >= eh.e_shnum ||
	    !(tab = rtt_elf_strtab(fd, &sh[sh[dyn].sh_link]))) {
		*hooks = false;
		goto out;
	}
	for (char *s = tab; s < tab + sh[sh[dyn].sh_link].sh_size;
	     s += strlen(s) + 1) {
		if (rtt_hook_name(s))
			*hooks = true;
		else if (!strncmp(s, "libringtrace.so", 15))
			*linked = true;
	}
	ok = true;
out:
	free(names);
	free(tab);
	free(sh);
	close(fd);
	return ok;
}

/* Whether the file at @path starts as an ELF file does. */
static bool rtt_is_elf(const char *path)
{
	unsigned char id[SELFMAG];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	bool elf;

	if (fd < 0)
		return false;
	elf = pread(fd, id, sizeof(id), 0) == (ssize_t)sizeof(id) &&
	      !memcmp(id, ELFMAG, SELFMAG);
	close(fd);
	return elf;
}

/*
 * The first file an INPUT() or GROUP() command of the linker script
 * @path names (AS_NEEDED() skipped), into @out; a name without a '/' is
 * looked for beside the script, as the link editor looks for it in the
 * script's directory first. False when @path is no such script.
 */
static bool rtt_ld_script_input(const char *path, char *out, size_t len)
{
	char text[4096], *p, *q, *end;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, text, sizeof(text) - 1, 0);
	close(fd);
	if (n <= 0)
		return false;
	text[n] = '\0';
	/* comments out */
	while ((p = strstr(text, "/*"))) {
		q = strstr(p + 2, "*/");
		memset(p, ' ', q ? (size_t)(q + 2 - p) : strlen(p));
	}
	p = strstr(text, "INPUT(");
	q = strstr(text, "GROUP(");
	if (!p || (q && q < p))
		p = q;
	if (!p)
		return false;
	for (p += 6;; p = end) {
		p += strspn(p, " \t\n,");
		if (!*p || *p == ')')
			return false;
		end = p + strcspn(p, " \t\n,()");
		if (*end == '(') {
			/* AS_NEEDED(...): what the program may not use */
			q = strchr(end, ')');
			if (!q)
				return false;
			end = q + 1;
			continue;
		}
		break;
	}
	*end = '\0';
	if (strchr(p, '/')) {
		if ((int)len <= snprintf(out, len, "%s", p))
			return false;
	} else {
		const char *slash = strrchr(path, '/');
		int dl = slash ? (int)(slash - path) : 1;

		if ((int)len <= snprintf(out, len, "%.*s/%s", dl,
					 slash ? path : ".", p))
			return false;
	}
	return true;
}

int rtt_preload_resolve(const char *lib, char *out, size_t len)
{
	char cur[PATH_MAX], next[PATH_MAX];

	out[0] = '\0';
	if (access(lib, R_OK))
		return -errno;
	if ((int)sizeof(cur) <= snprintf(cur, sizeof(cur), "%s", lib))
		return -ENAMETOOLONG;
	/* a script may name another script: a few levels */
	for (int i = 0; i < 4; i++) {
		if (rtt_is_elf(cur)) {
			if ((int)len <= snprintf(out, len, "%s", cur))
				return -ENAMETOOLONG;
			return 0;
		}
		if (!rtt_ld_script_input(cur, next, sizeof(next)))
			return -ENOEXEC;
		if (access(next, R_OK)) {
			snprintf(out, len, "%s", next);
			return -ENOENT;
		}
		memcpy(cur, next, sizeof(cur));
	}
	return -ENOEXEC;
}

int rtt_record_preload_arg(const struct rtt_verb *v, const char **arg,
			   char *path, size_t len)
{
	int ret = rtt_preload_resolve(*arg, path, len);

	if (!ret) {
		*arg = path;
		return RTT_EXIT_OK;
	}
	if (ret == -ENOEXEC)
		return rtt_usage(v, "'%s' is neither a shared library nor a "
				    "linker script naming one (give the "
				    "library, libringtrace.so.0)", *arg);
	if (ret == -ENOENT && path[0] && strcmp(path, *arg))
		return rtt_usage(v, "the linker script '%s' names '%s', which "
				    "cannot be read", *arg, path);
	return rtt_usage(v, "cannot read the library '%s'", *arg);
}

/* The libringtrace to preload: installed beside the tool, or built. */
static bool rtt_preload_lib(char *out, size_t len)
{
	char self[PATH_MAX], *slash;
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n > 0) {
		self[n] = 0;
		slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			if ((int)len > snprintf(out, len, "%s/%s", self,
						RTT_PRELOAD_INSTALLED) &&
			    access(out, R_OK) == 0)
				return true;
		}
	}
	snprintf(out, len, "%s", RTT_PRELOAD_BUILD);
	return access(out, R_OK) == 0;
}

/*
 * What to preload for COMMAND: @mode 1 (--preload) always, 0 (--no-preload)
 * never, -1 when the program was built for function tracing (it calls
 * the hooks or lists its call sites: rtt_elf_hooks()) but does not link
 * the library.
 * Returns @lib filled, or NULL.
 */
const char *rtt_record_preload(const char *cmd, int mode,
			       const char *given, char *lib,
			       size_t len)
{
	char path[PATH_MAX];
	bool hooks = false, linked = false;

	if (!mode)
		return NULL;
	if (mode < 0) {
		if (!rtt_which(cmd, path, sizeof(path)) ||
		    !rtt_elf_hooks(path, &hooks, &linked) || !hooks || linked)
			return NULL;
	}
	if (given) {
		snprintf(lib, len, "%s", given);
		return lib;
	}
	if (rtt_preload_lib(lib, len))
		return lib;
	rtt_msg("warning: %s: libringtrace was not found to preload (give --preload=LIB)",
		cmd);
	return NULL;
}

/* Note which control file the recording reads (rtt_rec_execd()). */
/* The control file's stat, in the checked publish directory. */
static int rtt_rec_ctl_stat(const struct rtt_record *r, struct stat *st)
{
	char name[64];

	snprintf(name, sizeof(name), "%d-%" PRIu64 ".ctl", r->p.pid,
		 r->p.start);
	return fstatat(r->p.dfd, name, st, AT_SYMLINK_NOFOLLOW);
}

void rtt_rec_note_ctl(struct rtt_record *r)
{
	struct stat st;

	if (!rtt_rec_ctl_stat(r, &st)) {
		r->ctl_dev = st.st_dev;
		r->ctl_ino = st.st_ino;
	}
}

/*
 * Whether the recorded command exec()ed: the same process (pid and start
 * time) published another control file in place of the one we read (its
 * new image removes the files of the old one, rt_remove_earlier_image()).
 */
bool rtt_rec_execd(const struct rtt_record *r)
{
	struct stat st;

	if (rt_proc_start_time(r->p.pid) != r->p.start)
		return false;
	return !rtt_rec_ctl_stat(r, &st) &&
	       (st.st_dev != r->ctl_dev || st.st_ino != r->ctl_ino);
}

/*
 * The command exec()ed (rtt_rec_execd()) and its new image waits, held
 * (rt_exec_hold()). If the old image wrote nothing (a wrapper such as env
 * or a shell's exec, with the library preloaded), the recording starts
 * again with the new image, into the same output: the file is made anew
 * and the lists of -l/-n/-g and the depth are set in it again. Otherwise
 * the file keeps the old image's trace and the new one goes on untraced.
 * Either way the new image is let go. Return: 0 when recording goes on,
 * 1 when it ends here, or a negative errno (reported).
 */
int rtt_rec_exec(struct rtt_record *r, const char *inst,
			const struct rtt_strv lists[3], bool depth_set,
			unsigned long depth)
{
	struct rtt_record keep = *r;
	char err[RTT_ERR_MAX];
	struct rtt_events *ev = NULL;
	struct rtt_proc p;
	uint64_t deadline = rtt_now_ms() + 5000;
	int pid = r->p.pid, ret;

	/* what the old image left, and the formats its records need: its
	 * partial pages too (its writers are gone; an image that wrote less
	 * than a page before exec() wrote records all the same) */
	while ((ret = rtt_rec_turn(r)) > 0)
		;
	if (!ret)
		ret = rtt_rec_drain(r);
	if (ret < 0)
		return ret;
	rtt_record_exec_formats(r);
	/* the new image, once it is published and held */
	for (;;) {
		ret = rtt_proc_open(pid, 0, &p, err);
		if (!ret && rtt_inst_find(&p, NULL) >= 0)
			break;
		if (!ret)
			rtt_proc_close(&p);
		if (rtt_now_ms() > deadline || rtt_stop) {
			rtt_msg("pid %d exec()ed, but its new image did not publish a trace", pid);
			return 1;
		}
		usleep(1000);
	}
	rtt_settle(&p);
	if (r->events || r->tally.records) {
		rtt_msg("pid %d exec()ed another program after writing records: the file holds those, not the new program's",
			pid);
		rtt_call(&p, RTT_CMD_TIMEOUT_MS, &RT_CALL(GO, NULL), NULL, err);
		rtt_proc_close(&p);
		return 1;
	}
	ret = rtt_record_lists(&p, lists, depth_set, depth);
	if (!ret)
		ret = rtt_load_events(&p, &ev, false);
	if (ret) {
		rtt_proc_close(&p);
		return ret;
	}
	/* the old image's recording goes, its settings stay; over the
	 * network, its empty file is closed and the new image's goes to a
	 * new connection (the metadata sent was the old image's) */
	char where[300];
	bool tcp = false;

	where[0] = '\0';
	if (r->net) {
		snprintf(where, sizeof(where), "%s", rtt_net_where(r->net));
		tcp = rtt_net_tcp(r->net);
		rtt_net_finish(r->net);
	}
	rtt_rec_free(r);
	r->out = keep.out;
	r->out_name = keep.out_name;
	r->compression = keep.compression;
	r->compression_auto = keep.compression_auto;
	r->quiet = keep.quiet;
	r->tty = keep.tty;
	r->topts = keep.topts;
	r->p = p;
	r->ctl_gen = rtt_ctl_gen(&r->p);
	r->ev = ev;
	if (where[0]) {
		ret = rtt_net_open(where, tcp, &r->net);
		if (ret)
			return ret;
		if (!r->out)
			r->out_name = rtt_net_where(r->net);
	}
	ret = rtt_rec_open(r, inst);
	if (ret)
		return ret;
	rtt_rec_note_ctl(r);
	if (!r->net)
		ringbuf_set_writer_wait(r->rb, RTT_RECORD_WAIT_MS);
	if (rtt_call(&r->p, RTT_CMD_TIMEOUT_MS, &RT_CALL(GO, NULL), NULL, err))
		rtt_msg("%s", err);
	return 0;
}

/*
 * tools/cmd_symbols.c — `mtinject symbols FILE|PID [PATTERN]`: the functions a trigger can
 * name, one per line, the first column a trigger location that means exactly that function:
 *
 *     mtinject run -t "$(mtinject symbols ./app | fzf | cut -f1)" -- ./app
 *
 * and `--resolve SPEC`: where a trigger location lands, as the preload would resolve it.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "preload/config.h"
#include "preload/elfsyms.h"
#include "preload/symbols.h"
#include "tools/commands.h"
#include "tools/common.h"

#define CMD "symbols"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: mtinject symbols [OPTIONS] FILE|PID [PATTERN]\n"
		"       mtinject symbols --resolve=SPEC FILE|PID\n\n"
		"List the functions a trigger can name, one per line:\n"
		"  SPEC<TAB>NAME<TAB>static|global|weak<TAB>0xADDRESS<TAB>OBJECT\n"
		"SPEC is a trigger location for exactly that function (for -t / MTINJECT_TRIGGER):\n"
		"  name             a function of the executable\n"
		"  name@libfoo.so.1 a function of a shared object (by soname, else file name)\n"
		"  object+0xOFF     a file offset, when the name alone means several functions\n"
		"                   (static functions of one name) or is not a plain name\n"
		"NAME is demangled for C++ and Rust (Rust v0 names stay mangled).\n\n"
		"FILE  an ELF file: its own functions, at link-time addresses\n"
		"PID   a process: the functions of every object it has mapped, at run-time addresses\n"
		"PATTERN  a substring of the name or of the demangled name; a glob (fnmatch) when\n"
		"         it has * ? or [\n\n"
		"Options:\n"
		"  -r, --resolve=SPEC  resolve one trigger location (name, name@object, 0xADDR,\n"
		"                      object+0xOFF) in FILE or PID and print ADDRESS<TAB>SYMBOL<TAB>OBJECT\n"
		"  -h, --help          this help\n\n"
		"Exit status: 0 listed/resolved, 1 nothing matched (or the location does not resolve),\n"
		"2 usage, 3 FILE/PID missing, unreadable, not ELF or stripped.\n\n"
		"Example:\n"
		"  mtinject run -t \"$(mtinject symbols ./app parse | fzf | cut -f1)\" -- ./app\n");
}

/* One object to list: the file, where it is loaded, and how a trigger names it. */
struct obj {
	char path[PATH_MAX];       /* reported */
	char open_path[PATH_MAX];  /* opened ("" = path) */
	uint64_t bias;
	bool is_main;
	char token[PATH_MAX];      /* for "name@token" and "token+0xOFF" */
};

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static bool is_glob(const char *p)
{
	return strpbrk(p, "*?[") != NULL;
}

static bool pattern_matches(const char *pat, const char *name, const char *dm)
{
	if (!pat)
		return true;
	if (is_glob(pat))
		return !fnmatch(pat, name, 0) || (dm && !fnmatch(pat, dm, 0));
	return strstr(name, pat) || (dm && strstr(dm, pat));
}

/* A name the trigger grammar reads back as itself. */
static bool plain_name(const char *n)
{
	if (!n[0] || !strncmp(n, "0x", 2))
		return false;
	for (const char *p = n; *p; p++)
		if (isspace((unsigned char)*p) || strchr(";,@+=", *p))
			return false;
	return true;
}

static int cmp_name(const void *a, const void *b, void *arg)
{
	const struct mtj_elf *e = arg;
	const size_t *x = a, *y = b;
	int c = strcmp(mtj_elf_name(e, &e->syms[*x]), mtj_elf_name(e, &e->syms[*y]));
	return c ? c : (*x > *y) - (*x < *y);
}

/*
 * unique[i]: does the plain name of symbol i resolve to its address?  The resolver's rule
 * (preload/symmatch.h) for a name found in the table: the default-version entries of that
 * name, else all of them; one function when they share one address.
 */
static bool *unique_names(struct mtj_elf *e)
{
	size_t n = e->nsyms;
	size_t *ord = malloc(n * sizeof *ord);
	bool *uniq = calloc(n, sizeof *uniq);
	if (!ord || !uniq) {
		free(ord);
		free(uniq);
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		ord[i] = i;
	qsort_r(ord, n, sizeof *ord, cmp_name, e);
	for (size_t a = 0, b; a < n; a = b) {
		const char *name = mtj_elf_name(e, &e->syms[ord[a]]);
		bool any_default = false;
		for (b = a; b < n && !strcmp(mtj_elf_name(e, &e->syms[ord[b]]), name); b++)
			any_default |= !e->syms[ord[b]].hidden;
		uint64_t addr = 0;
		size_t addrs = 0;
		for (size_t k = a; k < b; k++) {
			const struct mtj_elf_sym *s = &e->syms[ord[k]];
			if ((!any_default || !s->hidden) && (!addrs || s->value != addr)) {
				addr = s->value;
				addrs++;
			}
		}
		for (size_t k = a; k < b; k++)
			uniq[ord[k]] = addrs == 1 && (!any_default || !e->syms[ord[k]].hidden);
	}
	free(ord);
	return uniq;
}

static const char *bind_name(const struct mtj_elf_sym *s)
{
	return s->bind == STB_LOCAL ? "static" : s->bind == STB_WEAK ? "weak" : "global";
}

/* List one object; *matched counts printed lines.  Returns 0 or a table error. */
static int list_object(const struct obj *o, const char *pattern, size_t *matched)
{
	struct mtj_elf *e;
	int rc = mtj_elf_open(o->path, o->open_path[0] ? o->open_path : NULL, &e);
	if (rc)
		return rc;
	rc = mtj_elf_read_syms(e);
	bool *uniq = rc ? NULL : unique_names(e);
	if (!rc && !uniq)
		rc = -ENOMEM;
	if (rc) {
		mtj_elf_free(e);
		return rc;
	}
	mtj_elf_demangle_all(e);
	for (size_t i = 0; i < e->nsyms; i++) {
		const struct mtj_elf_sym *s = &e->syms[i];
		const char *name = mtj_elf_name(e, s), *dm = mtj_elf_demangled(e, i);
		if (!pattern_matches(pattern, name, dm))
			continue;
		char spec[PATH_MAX + 512];
		uint64_t off;
		if (uniq[i] && plain_name(name))
			snprintf(spec, sizeof spec, "%s%s%s", name, o->is_main ? "" : "@",
				 o->is_main ? "" : o->token);
		else if (!mtj_elf_vaddr_to_offset(e, s->value, &off))
			snprintf(spec, sizeof spec, "%s+0x%" PRIx64, o->token, off);
		else
			continue;        /* no file contents: nothing a trigger can name */
		const char *ver = mtj_elf_str(e, s->version);
		printf("%s\t%s%s%s\t%s\t0x%" PRIx64 "\t%s\n", spec, dm ? dm : name,
		       ver ? (s->hidden ? "@" : "@@") : "", ver ? ver : "", bind_name(s),
		       o->bias + s->value, o->path);
		(*matched)++;
	}
	free(uniq);
	mtj_elf_free(e);
	return 0;
}

static bool is_pid(const char *s)
{
	if (!*s)
		return false;
	for (const char *p = s; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/* The file FILE as an object: the executable when it is one, else a library. */
static int file_object(const char *path, struct obj *o)
{
	struct mtj_elf *e;
	int rc = mtj_elf_open(path, NULL, &e);
	if (rc)
		return rc;
	memset(o, 0, sizeof *o);
	snprintf(o->path, sizeof o->path, "%s", path);
	o->is_main = e->is_exec;
	snprintf(o->token, sizeof o->token, "%s", e->soname[0] && !e->is_exec ? e->soname : base_name(path));
	mtj_elf_free(e);
	return 0;
}

/* Load bias of a file mapped at `start` from file offset `moff`. */
static bool mapping_bias(const struct mtj_elf *e, uint64_t start, uint64_t moff, uint64_t *bias)
{
	long page = sysconf(_SC_PAGESIZE);
	for (size_t i = 0; i < e->nloads; i++) {
		const struct mtj_elf_load *l = &e->loads[i];
		uint64_t aligned = l->offset & ~(uint64_t)(page - 1);
		if (aligned == moff) {
			*bias = start - (l->vaddr - (l->offset - aligned));
			return true;
		}
	}
	return false;
}

/* Every ELF object mapped by `pid`, the executable first. */
static int pid_objects(const char *pid, struct obj **out, size_t *n, char *err, size_t errlen)
{
	char mpath[64], exe_link[64], exe[PATH_MAX] = "";
	snprintf(mpath, sizeof mpath, "/proc/%s/maps", pid);
	snprintf(exe_link, sizeof exe_link, "/proc/%s/exe", pid);
	FILE *f = fopen(mpath, "re");
	if (!f) {
		snprintf(err, errlen, errno == ENOENT ? "no such process: %s" : "%s: %s",
			 errno == ENOENT ? pid : mpath, strerror(errno));
		return -errno;
	}
	ssize_t len = readlink(exe_link, exe, sizeof exe - 1);
	exe[len > 0 ? len : 0] = '\0';
	struct obj *objs = NULL;
	size_t cnt = 0;
	char line[PATH_MAX + 256];
	while (fgets(line, sizeof line, f)) {
		uint64_t start, moff;
		char perms[8];
		int pos = 0;
		if (sscanf(line, "%" SCNx64 "-%*x %7s %" SCNx64 " %*s %*s %n", &start, perms, &moff, &pos) < 3 || !pos)
			continue;
		char *path = line + pos;
		path[strcspn(path, "\n")] = '\0';
		if (path[0] != '/')
			continue;       /* anonymous, [heap], [vdso], ... */
		bool seen = false;
		for (size_t i = 0; i < cnt; i++)
			seen |= !strcmp(objs[i].path, path);
		if (seen)
			continue;
		bool is_main = exe[0] && !strcmp(path, exe);
		struct mtj_elf *e;
		if (mtj_elf_open(path, is_main ? exe_link : NULL, &e))
			continue;       /* not ELF (locale archive, fonts) or gone */
		uint64_t bias;
		bool ok = mapping_bias(e, start, moff, &bias);
		if (ok) {
			struct obj *grown = realloc(objs, (cnt + 1) * sizeof *objs);
			if (!grown) {
				mtj_elf_free(e);
				break;
			}
			objs = grown;
			struct obj *o = &objs[cnt++];
			memset(o, 0, sizeof *o);
			snprintf(o->path, sizeof o->path, "%s", path);
			if (is_main)
				snprintf(o->open_path, sizeof o->open_path, "%s", exe_link);
			o->bias = bias;
			o->is_main = is_main;
			snprintf(o->token, sizeof o->token, "%s", e->soname[0] ? e->soname : base_name(path));
		}
		mtj_elf_free(e);
	}
	fclose(f);
	/* A token two objects share would name both: fall back to the path. */
	for (size_t i = 0; i < cnt; i++)
		for (size_t j = 0; j < cnt; j++)
			if (i != j && !strcmp(objs[i].token, objs[j].token))
				snprintf(objs[i].token, sizeof objs[i].token, "%s", objs[i].path);
	for (size_t i = 1; i < cnt; i++)
		if (objs[i].is_main) {
			struct obj t = objs[0];
			objs[0] = objs[i];
			objs[i] = t;
		}
	*out = objs;
	*n = cnt;
	return 0;
}

static int resolve(const char *spec_text, const struct obj *objs, size_t n)
{
	struct mtj_trigger_spec spec;
	size_t ns = 0;
	char err[4096];
	if (mtj_triggers_parse(spec_text, &spec, 1, &ns, err, sizeof err) || ns != 1) {
		mtj_tool_err(CMD, "%s", ns != 1 && !err[0] ? "--resolve takes one trigger location" : err);
		return MTJ_EXIT_USAGE;
	}
	struct mtj_sym_object *so = calloc(n ? n : 1, sizeof *so);
	if (!so)
		return MTJ_EXIT_FAIL;
	for (size_t i = 0; i < n; i++)
		so[i] = (struct mtj_sym_object){ objs[i].path, objs[i].open_path[0] ? objs[i].open_path : NULL,
						 objs[i].bias, objs[i].is_main };
	struct mtj_location loc;
	err[0] = '\0';
	int rc = mtj_resolve_in_objects(&spec, so, n, &loc, err, sizeof err);
	free(so);
	if (rc) {
		mtj_tool_err(CMD, "%s", err);
		return MTJ_EXIT_FAIL;
	}
	printf("0x%" PRIx64 "\t%s\t%s\n", loc.addr, loc.symbol, loc.object);
	return MTJ_EXIT_OK;
}

int mtj_cmd_symbols(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "resolve", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *resolve_spec = NULL;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":r:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'r':
			resolve_spec = optarg;
			break;
		case 'h':
			usage(stdout);
			return MTJ_EXIT_OK;
		default:
			return mtj_tool_option_error(CMD, c, longopts, argv);
		}
	}
	int nargs = argc - optind;
	if (nargs < 1 || nargs > (resolve_spec ? 1 : 2)) {
		mtj_tool_err(CMD, nargs < 1 ? "missing FILE or PID" : "too many arguments");
		fprintf(stderr, "Try 'mtinject symbols --help'.\n");
		return MTJ_EXIT_USAGE;
	}
	const char *target = argv[optind], *pattern = nargs > 1 ? argv[optind + 1] : NULL;
	struct obj *objs = NULL;
	size_t n = 0;
	int rc;
	if (is_pid(target)) {
		char err[PATH_MAX + 64];
		rc = pid_objects(target, &objs, &n, err, sizeof err);
		if (rc) {
			mtj_tool_err(CMD, "%s", err);
			return MTJ_EXIT_NOTFOUND;
		}
	} else {
		objs = calloc(1, sizeof *objs);
		if (!objs)
			return MTJ_EXIT_FAIL;
		rc = file_object(target, objs);
		if (rc) {
			mtj_tool_err(CMD, "%s: %s", target, mtj_symbols_strerror(rc));
			free(objs);
			return MTJ_EXIT_NOTFOUND;
		}
		n = 1;
	}
	int status = MTJ_EXIT_OK;
	if (resolve_spec) {
		status = resolve(resolve_spec, objs, n);
	} else {
		size_t matched = 0;
		for (size_t i = 0; i < n; i++) {
			rc = list_object(&objs[i], pattern, &matched);
			/* In a process, objects without symbols are skipped; a FILE is the point. */
			if (rc && !is_pid(target)) {
				mtj_tool_err(CMD, "%s: %s", objs[i].path, mtj_symbols_strerror(rc));
				status = MTJ_EXIT_NOTFOUND;
			}
		}
		if (status == MTJ_EXIT_OK && !matched) {
			if (pattern)
				mtj_tool_err(CMD, "no function matches '%s' in %s", pattern, target);
			else
				mtj_tool_err(CMD, "no functions in %s", target);
			status = MTJ_EXIT_FAIL;
		}
	}
	free(objs);
	return status;
}

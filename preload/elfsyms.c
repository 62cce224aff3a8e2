/*
 * preload/elfsyms.c — read one ELF file's function symbols with libelf.
 *
 * Everything read from the file is bounds-checked by libelf (gelf_get*) or here: a file
 * that is truncated, corrupt or not ELF at all gives an error, never a crash.  Tables are
 * copied out and the file closed, so a cached table holds no descriptor.
 */
#include "preload/elfsyms.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "preload/symbols.h"

#ifndef DF_1_PIE
#define DF_1_PIE 0x08000000
#endif

const char *mtj_symbols_strerror(int err)
{
	switch (err) {
	case -ENOEXEC: return "not an ELF file";
	case -EBADMSG: return "truncated or corrupt ELF file";
	case -ENODATA: return "stripped: no .symtab or .dynsym";
	default:       return strerror(-err);
	}
}

static void elf_close_file(int fd, Elf *elf)
{
	elf_end(elf);
	close(fd);
}

/* Open `path` (or open_path) for libelf.  On success *fd and *elf are set. */
static int elf_open_file(const char *path, int *fd, Elf **elf)
{
	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ENOSYS;
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	/* ELF_C_READ reads sections on demand with pread: a short file is an error, whereas a
	 * mapping of a file that shrinks underneath us would be a SIGBUS. */
	*elf = elf_begin(*fd, ELF_C_READ, NULL);
	if (!*elf || elf_kind(*elf) != ELF_K_ELF) {
		int rc = *elf ? -ENOEXEC : -EBADMSG;
		char magic[4];
		if (!*elf && pread(*fd, magic, 4, 0) == 4 && memcmp(magic, ELFMAG, SELFMAG))
			rc = -ENOEXEC;
		if (*elf)
			elf_end(*elf);
		close(*fd);
		return rc;
	}
	/* libelf hides section headers that lie past the end of the file; we would then call a
	 * cut-off copy "stripped". */
	GElf_Ehdr eh;
	struct stat st;
	size_t shnum;
	if (!gelf_getehdr(*elf, &eh) || fstat(*fd, &st) || elf_getshdrnum(*elf, &shnum) ||
	    (eh.e_shoff && eh.e_shoff + (uint64_t)shnum * eh.e_shentsize > (uint64_t)st.st_size) ||
	    eh.e_phoff + (uint64_t)eh.e_phnum * eh.e_phentsize > (uint64_t)st.st_size) {
		elf_close_file(*fd, *elf);
		return -EBADMSG;
	}
	return 0;
}


/* Read DT_SONAME and DT_FLAGS_1 from the SHT_DYNAMIC section. */
static void read_dynamic(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct mtj_elf *e,
			 bool *pie)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || !sh->sh_entsize)
		return;
	size_t n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Dyn dyn;
		if (!gelf_getdyn(d, (int)i, &dyn) || dyn.d_tag == DT_NULL)
			break;
		if (dyn.d_tag == DT_FLAGS_1 && (dyn.d_un.d_val & DF_1_PIE))
			*pie = true;
		if (dyn.d_tag == DT_SONAME) {
			const char *s = elf_strptr(elf, sh->sh_link, dyn.d_un.d_val);
			if (s)
				snprintf(e->soname, sizeof e->soname, "%s", s);
		}
	}
}

int mtj_elf_open(const char *path, const char *open_path, struct mtj_elf **out)
{
	int fd;
	Elf *elf;
	int rc = elf_open_file(open_path ? open_path : path, &fd, &elf);
	if (rc)
		return rc;
	struct mtj_elf *e = calloc(1, sizeof *e);
	GElf_Ehdr eh;
	size_t nph = 0;
	rc = -ENOMEM;
	if (!e || !(e->path = strdup(path)) || (open_path && !(e->open_path = strdup(open_path))))
		goto fail;
	rc = -EBADMSG;
	if (!gelf_getehdr(elf, &eh) || elf_getphdrnum(elf, &nph) != 0)
		goto fail;
	rc = -ENOMEM;
	if (nph && !(e->loads = calloc(nph, sizeof *e->loads)))
		goto fail;
	bool interp = false, pie = false;
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(elf, (int)i, &ph)) {
			rc = -EBADMSG;
			goto fail;
		}
		if (ph.p_type == PT_INTERP)
			interp = true;
		if (ph.p_type != PT_LOAD)
			continue;
		e->loads[e->nloads++] = (struct mtj_elf_load){ ph.p_vaddr, ph.p_memsz, ph.p_offset,
							       ph.p_filesz, ph.p_flags };
	}
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		GElf_Shdr sh;
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_DYNAMIC) {
			read_dynamic(elf, scn, &sh, e, &pie);
			break;
		}
	}
	e->is_exec = eh.e_type == ET_EXEC || pie || (eh.e_type == ET_DYN && !e->soname[0] && interp);
	elf_close_file(fd, elf);
	*out = e;
	return 0;
fail:
	elf_close_file(fd, elf);
	mtj_elf_free(e);
	return rc;
}

/* Version index -> offset of its name in the string table, from SHT_GNU_verdef. */
struct verdefs {
	uint32_t name[64];   /* index -> string offset; indexes beyond are ignored */
};

static void read_verdefs(Elf_Scn *scn, struct verdefs *v)
{
	for (size_t i = 0; i < 64; i++)
		v->name[i] = MTJ_NOSTR;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d)
		return;
	size_t off = 0;
	for (int guard = 0; guard < 4096; guard++) {
		GElf_Verdef vd;
		GElf_Verdaux va;
		if (!gelf_getverdef(d, (int)off, &vd))
			break;
		if (vd.vd_ndx < 64 && gelf_getverdaux(d, (int)(off + vd.vd_aux), &va))
			v->name[vd.vd_ndx] = va.vda_name;
		if (!vd.vd_next)
			break;
		off += vd.vd_next;
	}
}

static int cmp_sym(const void *a, const void *b)
{
	const struct mtj_elf_sym *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->name < y->name ? -1 : x->name > y->name;
}

/* Find the symbol table to use: .symtab, else .dynsym, and the version sections. */
static Elf_Scn *find_tables(Elf *elf, GElf_Shdr *sh, Elf_Scn **versym, Elf_Scn **verdef)
{
	Elf_Scn *symtab = NULL, *dynsym = NULL;
	GElf_Shdr s, symsh = { 0 }, dynsh = { 0 };
	*versym = *verdef = NULL;
	for (Elf_Scn *scn = elf_nextscn(elf, NULL); scn; scn = elf_nextscn(elf, scn)) {
		if (!gelf_getshdr(scn, &s))
			continue;
		if (s.sh_type == SHT_SYMTAB) {
			symtab = scn;
			symsh = s;
		} else if (s.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dynsh = s;
		} else if (s.sh_type == SHT_GNU_versym) {
			*versym = scn;
		} else if (s.sh_type == SHT_GNU_verdef) {
			*verdef = scn;
		}
	}
	if (symtab) {
		*sh = symsh;
		*versym = *verdef = NULL;   /* they describe .dynsym, not .symtab */
		return symtab;
	}
	*sh = dynsh;
	return dynsym;
}

/* Cut "name@VER" / "name@@VER" in our copy of the strings: the name is what triggers use. */
static void split_version(struct mtj_elf *e, struct mtj_elf_sym *s)
{
	char *at = strchr(e->strs + s->name, '@');
	if (!at)
		return;
	*at = '\0';
	s->hidden = at[1] != '@';
	s->version = (uint32_t)(at + (s->hidden ? 1 : 2) - e->strs);
}

int mtj_elf_read_syms(struct mtj_elf *e)
{
	if (e->syms_read)
		return e->nsyms ? 0 : -ENODATA;
	int fd;
	Elf *elf;
	int rc = elf_open_file(e->open_path ? e->open_path : e->path, &fd, &elf);
	if (rc)
		return rc;
	GElf_Shdr sh;
	Elf_Scn *vs_scn, *vd_scn;
	Elf_Scn *scn = find_tables(elf, &sh, &vs_scn, &vd_scn);
	rc = -ENODATA;
	if (!scn || !sh.sh_entsize)
		goto out;
	rc = -EBADMSG;
	Elf_Scn *str_scn = elf_getscn(elf, sh.sh_link);
	Elf_Data *strd = str_scn ? elf_getdata(str_scn, NULL) : NULL;
	Elf_Data *symd = elf_getdata(scn, NULL);
	if (!strd || !symd || !strd->d_buf)
		goto out;
	Elf_Data *vsd = vs_scn ? elf_getdata(vs_scn, NULL) : NULL;
	struct verdefs vdefs;
	if (vd_scn)
		read_verdefs(vd_scn, &vdefs);
	size_t n = symd->d_size / sh.sh_entsize;
	rc = -ENOMEM;
	e->strs_len = strd->d_size;
	e->strs = malloc(strd->d_size + 1);
	e->syms = calloc(n ? n : 1, sizeof *e->syms);
	if (!e->strs || !e->syms)
		goto out;
	memcpy(e->strs, strd->d_buf, strd->d_size);
	e->strs[strd->d_size] = '\0';
	e->from_dynsym = sh.sh_type == SHT_DYNSYM;
	uint32_t file = MTJ_NOSTR;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(symd, (int)i, &sym))
			break;
		int type = GELF_ST_TYPE(sym.st_info), bind = GELF_ST_BIND(sym.st_info);
		bool named = sym.st_name > 0 && sym.st_name < e->strs_len;
		if (type == STT_FILE) {
			file = named ? sym.st_name : MTJ_NOSTR;
			continue;
		}
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value || !named)
			continue;
		struct mtj_elf_sym *s = &e->syms[e->nsyms++];
		*s = (struct mtj_elf_sym){ .value = sym.st_value, .size = sym.st_size,
					   .name = sym.st_name, .version = MTJ_NOSTR,
					   .file = bind == STB_LOCAL ? file : MTJ_NOSTR,
					   .bind = (uint8_t)bind, .ifunc = type == STT_GNU_IFUNC };
		GElf_Versym ver;
		if (vsd && vd_scn && gelf_getversym(vsd, (int)i, &ver)) {
			unsigned idx = ver & 0x7fff;
			s->hidden = (ver & 0x8000) != 0;
			if (idx >= 2 && idx < 64 && vdefs.name[idx] < e->strs_len)
				s->version = vdefs.name[idx];
		} else {
			split_version(e, s);
		}
	}
	qsort(e->syms, e->nsyms, sizeof *e->syms, cmp_sym);
	e->syms_read = true;
	rc = e->nsyms ? 0 : -ENODATA;
out:
	if (rc && rc != -ENODATA) {
		free(e->strs);
		free(e->syms);
		e->strs = NULL;
		e->syms = NULL;
		e->nsyms = 0;
	}
	if (rc == -ENODATA)
		e->syms_read = true;
	elf_close_file(fd, elf);
	return rc;
}

void mtj_elf_demangle_all(struct mtj_elf *e)
{
	if (e->demangled || !e->nsyms)
		return;
	char **dm = calloc(e->nsyms, sizeof *dm);
	if (!dm)
		return;
	for (size_t i = 0; i < e->nsyms; i++) {
		const char *n = mtj_elf_name(e, &e->syms[i]);
		if (n[0] == '_' && (n[1] == 'Z' || n[1] == 'R'))
			dm[i] = mtj_demangle(n);
	}
	e->demangled = dm;
}

const char *mtj_elf_demangled(const struct mtj_elf *e, size_t i)
{
	return e->demangled && i < e->nsyms ? e->demangled[i] : NULL;
}

void mtj_elf_free(struct mtj_elf *e)
{
	if (!e)
		return;
	if (e->demangled)
		for (size_t i = 0; i < e->nsyms; i++)
			free(e->demangled[i]);
	free(e->demangled);
	free(e->syms);
	free(e->strs);
	free(e->loads);
	free(e->path);
	free(e->open_path);
	free(e);
}

int mtj_elf_offset_to_vaddr(const struct mtj_elf *e, uint64_t off, uint64_t *vaddr, bool *exec)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct mtj_elf_load *l = &e->loads[i];
		if (off >= l->offset && off - l->offset < l->filesz) {
			*vaddr = l->vaddr + (off - l->offset);
			*exec = (l->flags & PF_X) != 0;
			return 0;
		}
	}
	return -ERANGE;
}

int mtj_elf_vaddr_to_offset(const struct mtj_elf *e, uint64_t vaddr, uint64_t *off)
{
	for (size_t i = 0; i < e->nloads; i++) {
		const struct mtj_elf_load *l = &e->loads[i];
		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz) {
			*off = l->offset + (vaddr - l->vaddr);
			return 0;
		}
	}
	return -ERANGE;
}

/* Which of two aliases to show: real size, default version, global, fewer underscores. */
static int alias_rank(const struct mtj_elf *e, const struct mtj_elf_sym *s)
{
	const char *n = mtj_elf_name(e, s);
	int r = 0;
	r += s->size ? 0 : 8;
	r += s->hidden ? 4 : 0;
	r += s->bind == STB_GLOBAL ? 0 : s->bind == STB_WEAK ? 1 : 2;
	r += (n[0] == '_') + (n[0] == '_' && n[1] == '_');
	return r;
}

long mtj_elf_lookup(const struct mtj_elf *e, uint64_t v)
{
	size_t lo = 0, hi = e->nsyms;
	while (lo < hi) {               /* first symbol with value > v */
		size_t mid = lo + (hi - lo) / 2;
		if (e->syms[mid].value <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return -1;
	size_t next = lo;               /* value of the following function bounds a size-0 one */
	/* Look back a few runs of aliases: a function may be preceded by smaller local symbols. */
	for (size_t end = lo, runs = 0; end > 0 && runs < 4; runs++) {
		uint64_t val = e->syms[end - 1].value;
		size_t start = end;
		while (start > 0 && e->syms[start - 1].value == val)
			start--;
		long best = -1;
		for (size_t i = start; i < end; i++) {
			const struct mtj_elf_sym *s = &e->syms[i];
			bool covers = s->size ? v - s->value < s->size
					      : (next >= e->nsyms || e->syms[next].value > v);
			if (covers && (best < 0 || alias_rank(e, s) < alias_rank(e, &e->syms[best])))
				best = (long)i;
		}
		if (best >= 0)
			return best;
		end = start;
	}
	return -1;
}

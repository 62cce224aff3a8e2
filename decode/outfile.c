/*
 * decode/outfile.c — see outfile.h.
 */
#include "decode/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int open_in_place(struct mtj_outfile *o)
{
	o->tmp[0] = 0;
	o->f = fopen(o->path, "w");
	return o->f ? 0 : -errno;
}

/* "DIR/.BASE.XXXXXX" beside path. */
static int tmp_name(char *dst, size_t len, const char *path)
{
	const char *slash = strrchr(path, '/');
	int dirlen = slash ? (int)(slash - path + 1) : 0;
	int w = snprintf(dst, len, "%.*s.%s.XXXXXX", dirlen, path, slash ? slash + 1 : path);

	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

int mtj_outfile_open(struct mtj_outfile *o, const char *path, size_t bufsize)
{
	struct stat sb;
	int fd, ret;
	mode_t mask;

	memset(o, 0, sizeof(*o));
	if (strlen(path) >= sizeof(o->path)) {
		errno = ENAMETOOLONG;
		return -ENAMETOOLONG;
	}
	strcpy(o->path, path);
	if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		ret = open_in_place(o);     /* a device, a FIFO, a symlink: write where it points */
	} else if (tmp_name(o->tmp, sizeof(o->tmp), path) < 0 ||
		   (fd = mkostemp(o->tmp, O_CLOEXEC)) < 0) {
		ret = open_in_place(o);     /* e.g. a writable file in a read-only directory */
		o->remove_on_abort = true;
	} else {
		/* mkostemp makes 0600; a trace gets what fopen would have given it */
		mask = umask(0);
		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
		o->f = fdopen(fd, "w");
		if (!o->f) {
			ret = -errno;
			close(fd);
			unlink(o->tmp);
			o->tmp[0] = 0;
			errno = -ret;
			return ret;
		}
		ret = 0;
	}
	if (ret == 0 && bufsize)
		setvbuf(o->f, NULL, _IOFBF, bufsize);
	if (ret < 0)
		errno = -ret;
	return ret;
}

int mtj_outfile_commit(struct mtj_outfile *o)
{
	int ret = 0;

	if (!o->f)
		return -EBADF;
	if (fclose(o->f) != 0)
		ret = -errno;
	o->f = NULL;
	if (ret == 0 && o->tmp[0]) {
		/* unlink, then rename onto a free name: see outfile.h for why not rename over */
		if (unlink(o->path) < 0 && errno != ENOENT)
			ret = -errno;
		else if (rename(o->tmp, o->path) < 0)
			ret = -errno;
	}
	if (ret < 0) {
		if (o->tmp[0])
			unlink(o->tmp);
		else if (o->remove_on_abort)
			unlink(o->path);    /* no half trace that looks complete */
		errno = -ret;
	}
	o->tmp[0] = 0;
	return ret;
}

void mtj_outfile_abort(struct mtj_outfile *o)
{
	if (!o->f)
		return;
	fclose(o->f);
	o->f = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	else if (o->remove_on_abort)
		unlink(o->path);
	o->tmp[0] = 0;
}

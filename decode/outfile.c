/*
 * decode/outfile.c — see outfile.h.
 *
 * The FILE handed out is a stdio cookie stream whose bytes a writer thread passes to
 * write(2): writing a trace into the page cache of ext4 costs about as much CPU as
 * formatting it (18 ms for 76 MB of JSON here), and with perf resolving on one core and the
 * decoder formatting on the other, that time overlapped nothing.  The producer copies into
 * one of OF_SLOTS buffers and goes on; the thread writes full buffers in order.  A write
 * error is kept and returned by the next write and by the close, so fclose() reports it.
 */
#include "decode/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "control/perf.h"

#define OF_SLOTS     4
#define OF_SLOT_SIZE (1u << 20)
#define OF_STDIO_BUF (64u << 10)

struct of_async {
	int fd;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t work, room;
	char *slot[OF_SLOTS];
	size_t used[OF_SLOTS];
	unsigned head, queued;      /* full slots waiting: head .. head + queued - 1 */
	bool done;                  /* no more slots will be queued */
	int err;                    /* first error of write(2), as an errno */
	bool discard;               /* an aborted file: stop writing */
};

static void *writer_main(void *arg)
{
	struct of_async *a = arg;

	pthread_mutex_lock(&a->mu);
	for (;;) {
		while (!a->queued && !a->done)
			pthread_cond_wait(&a->work, &a->mu);
		if (!a->queued)
			break;
		unsigned i = a->head;
		bool skip = a->err || a->discard;

		pthread_mutex_unlock(&a->mu);
		int err = skip ? 0 : -mtj_write_all(a->fd, a->slot[i], a->used[i]);
		pthread_mutex_lock(&a->mu);
		if (err && !a->err)
			a->err = err;
		a->used[i] = 0;
		a->head = (a->head + 1) % OF_SLOTS;
		a->queued--;
		pthread_cond_signal(&a->room);
	}
	pthread_mutex_unlock(&a->mu);
	return NULL;
}

/* Queue the slot being filled; wait for the next one to be free.  Caller holds a->mu. */
static void queue_current(struct of_async *a)
{
	a->queued++;
	pthread_cond_signal(&a->work);
	while (a->queued == OF_SLOTS)
		pthread_cond_wait(&a->room, &a->mu);
}

static ssize_t of_write(void *cookie, const char *buf, size_t size)
{
	struct of_async *a = cookie;
	size_t left = size;

	while (left) {
		unsigned cur;
		size_t n;

		/* the slot being filled is the one after the queued ones: the thread never
		 * touches it, so it is filled without the lock */
		pthread_mutex_lock(&a->mu);
		cur = (a->head + a->queued) % OF_SLOTS;
		if (a->err) {
			errno = a->err;
			pthread_mutex_unlock(&a->mu);
			return -1;
		}
		pthread_mutex_unlock(&a->mu);
		n = OF_SLOT_SIZE - a->used[cur];
		if (n > left)
			n = left;
		memcpy(a->slot[cur] + a->used[cur], buf, n);
		a->used[cur] += n;
		buf += n;
		left -= n;
		if (a->used[cur] == OF_SLOT_SIZE) {
			pthread_mutex_lock(&a->mu);
			queue_current(a);
			pthread_mutex_unlock(&a->mu);
		}
	}
	return (ssize_t)size;
}

static void async_free(struct of_async *a)
{
	for (unsigned i = 0; i < OF_SLOTS; i++)
		free(a->slot[i]);
	pthread_mutex_destroy(&a->mu);
	pthread_cond_destroy(&a->work);
	pthread_cond_destroy(&a->room);
	free(a);
}

/* Write what is left, stop the thread, close the fd: 0 or -1 with errno. */
static int of_close(void *cookie)
{
	struct of_async *a = cookie;
	int err;

	pthread_mutex_lock(&a->mu);
	if (a->used[(a->head + a->queued) % OF_SLOTS])
		queue_current(a);
	a->done = true;
	pthread_cond_signal(&a->work);
	pthread_mutex_unlock(&a->mu);
	pthread_join(a->thread, NULL);
	err = a->err;
	if (close(a->fd) < 0 && !err)
		err = errno;
	async_free(a);
	if (err) {
		errno = err;
		return -1;
	}
	return 0;
}

/* A FILE writing fd through a writer thread, or plain fdopen() when a thread cannot be had.
 * Takes the fd (closed on failure). */
static FILE *open_stream(struct mtj_outfile *o, int fd)
{
	static const cookie_io_functions_t io = { .write = of_write, .close = of_close };
	struct of_async *a = calloc(1, sizeof(*a));
	FILE *f = NULL;
	unsigned i;

	if (a) {
		a->fd = fd;
		pthread_mutex_init(&a->mu, NULL);
		pthread_cond_init(&a->work, NULL);
		pthread_cond_init(&a->room, NULL);
		for (i = 0; i < OF_SLOTS && (a->slot[i] = malloc(OF_SLOT_SIZE)); i++)
			;
		if (i == OF_SLOTS && pthread_create(&a->thread, NULL, writer_main, a) == 0) {
			if ((f = fopencookie(a, "w", io))) {
				o->async = a;
				return f;
			}
			pthread_mutex_lock(&a->mu);
			a->done = true;
			pthread_cond_signal(&a->work);
			pthread_mutex_unlock(&a->mu);
			pthread_join(a->thread, NULL);
		}
		async_free(a);
	}
	if (!(f = fdopen(fd, "w"))) {
		int e = errno;

		close(fd);
		errno = e;
	}
	return f;
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
	int fd = -1;
	mode_t mask;

	memset(o, 0, sizeof(*o));
	if (strlen(path) >= sizeof(o->path)) {
		errno = ENAMETOOLONG;
		return -ENAMETOOLONG;
	}
	strcpy(o->path, path);
	if (!strcmp(path, "-")) {
		fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);   /* ours to close */
	} else if (lstat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		/* a device, a FIFO, a symlink: write where it points */
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	} else if (tmp_name(o->tmp, sizeof(o->tmp), path) == 0 &&
		   (fd = mkostemp(o->tmp, O_CLOEXEC)) >= 0) {
		/* mkostemp makes 0600; a trace gets what fopen would have given it */
		mask = umask(0);
		umask(mask);
		(void)fchmod(fd, 0666 & ~mask);
	} else {
		/* e.g. a writable file in a read-only directory */
		o->tmp[0] = 0;
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
		o->remove_on_abort = fd >= 0;
	}
	if (fd < 0 || !(o->f = open_stream(o, fd))) {
		int e = errno;

		if (o->tmp[0])
			unlink(o->tmp);
		else if (o->remove_on_abort)
			unlink(o->path);
		o->tmp[0] = 0;
		o->remove_on_abort = false;
		errno = e;
		return -e;
	}
	/* Behind the writer thread, stdio only gathers small writes into slot-sized pieces. */
	if (o->async && bufsize > OF_STDIO_BUF)
		bufsize = OF_STDIO_BUF;
	if (bufsize)
		setvbuf(o->f, NULL, _IOFBF, bufsize);
	return 0;
}

int mtj_outfile_commit(struct mtj_outfile *o)
{
	int ret = 0;

	if (!o->f)
		return -EBADF;
	if (fclose(o->f) != 0)
		ret = -errno;
	o->f = NULL;
	o->async = NULL;
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
	if (o->async) {
		/* what stdio still buffers would be written for nothing */
		pthread_mutex_lock(&o->async->mu);
		o->async->discard = true;
		pthread_mutex_unlock(&o->async->mu);
	}
	fclose(o->f);
	o->f = NULL;
	o->async = NULL;
	if (o->tmp[0])
		unlink(o->tmp);
	else if (o->remove_on_abort)
		unlink(o->path);
	o->tmp[0] = 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * failnth - systematic fault injection into one system call through the
 * per-task /proc/thread-self/fail-nth file
 * (Documentation/fault-injection/fault-injection.rst), for fail_nth.sh.
 *
 *   failnth N insmod PATH [PARAMS...]   finit_module(fd, "PARAMS...", 0)
 *   failnth N rmmod NAME                delete_module(NAME, O_NONBLOCK)
 *   failnth N write FILE STRING         write(open(FILE, O_WRONLY), STRING)
 *
 * Writing N to fail-nth makes the N-th fault point that the task passes
 * fail (every enabled capability counts: failslab, fail_page_alloc,
 * fail_futex, fail_usercopy...).  The count belongs to the task, so the
 * system call is made here, in the thread that armed it: a fork or an exec
 * in between would pass fault points of its own.  Every file is opened
 * and every string formatted before arming, and N is written right before
 * the system call, so only the system call itself counts.  Reading
 * fail-nth back gives 0 if the fault was injected, or the count still left
 * if the system call passed fewer than N fault points; 0 is written to
 * disarm.  N = 0 injects nothing.
 *
 * Prints "failnth: op=OP n=N rc=RC errno=NAME injected=0|1" and exits 0
 * if the system call succeeded, 1 if it failed, 2 on a usage or setup
 * error (no fail-nth file: a kernel without CONFIG_FAULT_INJECTION).
 *
 * Built static against nolibc (tools/include/nolibc), so that it runs on
 * any root file system, a libc or none.
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#define FAILNTH		"/proc/thread-self/fail-nth"
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* the errors the module loader and sysfs writes return under faults */
static const struct {
	int nr;
	const char *name;
} errnames[] = {
	{ EPERM, "EPERM" }, { ENOENT, "ENOENT" }, { EINTR, "EINTR" },
	{ EIO, "EIO" }, { ENOEXEC, "ENOEXEC" }, { EBADF, "EBADF" },
	{ EAGAIN, "EAGAIN" }, { ENOMEM, "ENOMEM" }, { EACCES, "EACCES" },
	{ EFAULT, "EFAULT" }, { EBUSY, "EBUSY" }, { EEXIST, "EEXIST" },
	{ ENODEV, "ENODEV" }, { EINVAL, "EINVAL" }, { ENOSPC, "ENOSPC" },
	{ ERANGE, "ERANGE" }, { ENODATA, "ENODATA" },
	{ EOVERFLOW, "EOVERFLOW" }, { EOPNOTSUPP, "EOPNOTSUPP" },
	{ ETIMEDOUT, "ETIMEDOUT" }, { EALREADY, "EALREADY" },
	{ ENOKEY, "ENOKEY" }, { EKEYREJECTED, "EKEYREJECTED" },
	/* the kernel's own, which reach user space from a few paths */
	{ 512, "ERESTARTSYS" }, { 517, "EPROBE_DEFER" }, { 524, "ENOTSUPP" },
};

static char numbuf[16];

static const char *errname(int err)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errnames); i++)
		if (errnames[i].nr == err)
			return errnames[i].name;
	snprintf(numbuf, sizeof(numbuf), "%d", err);
	return numbuf;
}

/* "failnth: MSG [ARG][: ERRNO]" on stderr, exit status 2 */
static int die(const char *msg, const char *arg, int err)
{
	fprintf(stderr, "failnth: %s%s%s%s%s\n", msg, arg ? " " : "",
		arg ? arg : "", err ? ": " : "", err ? errname(err) : "");
	return 2;
}

static int bad_usage(void)
{
	fprintf(stderr,
		"usage: failnth N insmod PATH [PARAMS...]\n"
		"       failnth N rmmod NAME\n"
		"       failnth N write FILE STRING\n"
		"Fails the N-th fault point (N > 0) of that one system call through %s;\n"
		"exit 0: the call succeeded, 1: it failed, 2: usage or setup error.\n",
		FAILNTH);
	return 2;
}

/* N: decimal, at most UINT_MAX (fail-nth takes an unsigned int) */
static int parse_n(const char *s, unsigned long *n)
{
	unsigned long long v = 0;
	unsigned int digits = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || ++digits > 10)
			return -1;
		v = v * 10 + (unsigned int)(*s - '0');
	}
	if (v > 0xffffffffULL)
		return -1;
	*n = (unsigned long)v;
	return 0;
}

/*
 * *v = the count left in fail-nth, read at offset 0 (the file keeps no
 * position of its own); returns 0 or an errno.  pread64 through syscall():
 * with offset 0 its arguments are the same on every architecture.
 */
static int read_count(int fd, unsigned long *v)
{
	char buf[32];
	long r = syscall(__NR_pread64, fd, buf, sizeof(buf) - 1, 0, 0, 0);
	long i;

	if (r < 0)
		return errno;
	*v = 0;
	for (i = 0; i < r && buf[i] >= '0' && buf[i] <= '9'; i++)
		*v = *v * 10 + (unsigned int)(buf[i] - '0');
	return i ? 0 : EINVAL;
}

static char params[4096];

int main(int argc, char **argv)
{
	enum { INSMOD, RMMOD, WRITE } op;
	unsigned long n, left = 1, armed = 1;
	size_t plen = 0;
	char arm[16];
	int fn, fd = -1, rback, disarm = 0, injected, ok, err = 0, i;
	long ret;

	if (argc < 4 || parse_n(argv[1], &n))
		return bad_usage();
	if (!strcmp(argv[2], "insmod"))
		op = INSMOD;
	else if (!strcmp(argv[2], "rmmod") && argc == 4)
		op = RMMOD;
	else if (!strcmp(argv[2], "write") && argc == 5)
		op = WRITE;
	else
		return bad_usage();

	fn = open(FAILNTH, O_RDWR | O_CLOEXEC);
	if (fn < 0 && errno == ENOENT)
		return die(FAILNTH " not found: a kernel without",
			   "CONFIG_FAULT_INJECTION (or no /proc)", 0);
	if (fn < 0)
		return die("cannot open", FAILNTH, errno);

	if (op == INSMOD) {
		for (i = 4; i < argc; i++) {
			size_t l = strlen(argv[i]);

			if (plen + l + 2 > sizeof(params))
				return die("module parameters too long", NULL, 0);
			if (plen)
				params[plen++] = ' ';
			memcpy(params + plen, argv[i], l);
			plen += l;
		}
		params[plen] = '\0';
	}
	if (op == INSMOD || op == WRITE) {
		fd = open(argv[3], (op == INSMOD ? O_RDONLY : O_WRONLY) | O_CLOEXEC);
		if (fd < 0)
			return die("cannot open", argv[3], errno);
	}
	snprintf(arm, sizeof(arm), "%lu", n);

	/* arm: the n-th fault point from here fails */
	if (write(fn, arm, strlen(arm)) < 0)
		return die("cannot arm", FAILNTH, errno);
	if (op == INSMOD)
		ret = syscall(__NR_finit_module, fd, params, 0);
	else if (op == RMMOD)
		ret = syscall(__NR_delete_module, argv[3], O_NONBLOCK);
	else
		ret = write(fd, argv[4], strlen(argv[4]));
	if (ret < 0)
		err = errno;

	/*
	 * 0: injected; > 0: not reached.  With fail_usercopy, a count of 1
	 * left fails the copy of this very read (EFAULT): not injected.
	 */
	rback = read_count(fn, &left);
	if (rback == EFAULT) {
		left = 1;
		rback = 0;
	}
	/* disarm; with fail_usercopy a count of 1 fails the write itself */
	if (write(fn, "0", 1) < 0 && errno != EFAULT)
		disarm = errno;
	else
		disarm = read_count(fn, &armed);
	injected = n > 0 && !rback && left == 0;

	if (op == WRITE)
		ok = ret >= 0 && (size_t)ret == strlen(argv[4]);
	else
		ok = ret >= 0;

	printf("failnth: op=%s n=%lu rc=%ld errno=%s injected=%d\n", argv[2], n,
	       ret < 0 ? -1L : ret, err ? errname(err) : "0", injected);
	if (rback)
		return die("cannot read back", FAILNTH, rback);
	if (disarm || armed)
		return die("cannot disarm", FAILNTH, disarm);
	if (fd >= 0)
		close(fd);
	close(fn);
	return ok ? 0 : 1;
}

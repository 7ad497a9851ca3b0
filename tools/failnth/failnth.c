// SPDX-License-Identifier: GPL-2.0
/*
 * failnth - systematic fault injection into one system call through the
 * per-task /proc/thread-self/fail-nth file
 * (Documentation/fault-injection/fault-injection.rst).
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
 * before arming and N is written right before the system call; so only
 * the system call itself counts.  Reading fail-nth back gives 0 if the
 * fault was injected, or the count still left if the system call passed
 * fewer than N fault points; 0 is written to disarm.  N = 0 injects
 * nothing.
 *
 * Prints "failnth: op=OP n=N rc=RC errno=NAME injected=0|1" and exits 0
 * if the system call succeeded, 1 if it failed, 2 on a usage or setup
 * error (no fail-nth file: a kernel without CONFIG_FAULT_INJECTION).
 *
 * Freestanding, for guests without a libc: raw system calls for x86_64,
 * powerpc64le (ELFv2), arm (EABI, ARM state) and arm64; see build.sh.
 */

#define AT_FDCWD	(-100)
#define O_RDONLY	0
#define O_WRONLY	1
#define O_RDWR		2
#define O_NONBLOCK	04000
#define O_CLOEXEC	02000000
#define EFAULT		14
#define EINVAL		22
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#ifndef FAILNTH		/* overridden only to test the helper itself */
#define FAILNTH		"/proc/thread-self/fail-nth"
#endif

#if defined(__x86_64__)

#define NR_WRITE		1
#define NR_CLOSE		3
#define NR_PREAD64		17
#define NR_DELETE_MODULE	176
#define NR_EXIT_GROUP		231
#define NR_OPENAT		257
#define NR_FINIT_MODULE		313

asm(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	xorl %ebp, %ebp\n"
	"	movq %rsp, %rdi\n"
	"	andq $-16, %rsp\n"
	"	call start_c\n"
	"	hlt\n");

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 asm("r10") = d;
	register long r8 asm("r8") = e;
	register long r9 asm("r9") = f;
	long ret;

	asm volatile ("syscall"
		      : "=a" (ret)
		      : "a" (n), "D" (a), "S" (b), "d" (c),
			"r" (r10), "r" (r8), "r" (r9)
		      : "rcx", "r11", "memory");
	return ret;
}

#elif defined(__powerpc64__) && defined(_CALL_ELF) && _CALL_ELF == 2

#define NR_WRITE		4
#define NR_CLOSE		6
#define NR_DELETE_MODULE	129
#define NR_PREAD64		179
#define NR_EXIT_GROUP		234
#define NR_OPENAT		286
#define NR_FINIT_MODULE		353

/* the kernel enters an ELFv2 program with r12 = its entry point */
asm(".text\n"
	".globl _start\n"
	".type _start, @function\n"
	"_start:\n"
	"	addis 2, 12, .TOC.-_start@ha\n"
	"	addi 2, 2, .TOC.-_start@l\n"
	"	mr 3, 1\n"
	"	clrrdi 1, 1, 4\n"
	"	li 0, 0\n"
	"	stdu 0, -32(1)\n"
	"	bl start_c\n"
	"	nop\n"
	"	trap\n");

/* sc: cr0.SO set on error, with the positive errno in r3 */
static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r0 asm("r0") = n;
	register long r3 asm("r3") = a;
	register long r4 asm("r4") = b;
	register long r5 asm("r5") = c;
	register long r6 asm("r6") = d;
	register long r7 asm("r7") = e;
	register long r8 asm("r8") = f;

	asm volatile ("sc\n\tbns+ 1f\n\tneg %1, %1\n1:"
		      : "+r" (r0), "+r" (r3), "+r" (r4), "+r" (r5),
			"+r" (r6), "+r" (r7), "+r" (r8)
		      :
		      : "memory", "cr0", "r9", "r10", "r11", "r12",
			"ctr", "xer");
	return r3;
}

#elif defined(__arm__) && defined(__ARM_EABI__) && !defined(__thumb__)

#define NR_WRITE		4
#define NR_CLOSE		6
#define NR_DELETE_MODULE	129
#define NR_PREAD64		180
#define NR_EXIT_GROUP		248
#define NR_OPENAT		322
#define NR_FINIT_MODULE		379

asm(".text\n"
	".arm\n"
	".globl _start\n"
	".type _start, %function\n"
	"_start:\n"
	"	mov fp, #0\n"
	"	mov r0, sp\n"
	"	bic sp, sp, #7\n"
	"	bl start_c\n"
	"	udf #0\n");

/* pread64's 64-bit offset goes in r4:r5, r3 is padding */
static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long r7 asm("r7") = n;
	register long r0 asm("r0") = a;
	register long r1 asm("r1") = b;
	register long r2 asm("r2") = c;
	register long r3 asm("r3") = d;
	register long r4 asm("r4") = e;
	register long r5 asm("r5") = f;

	asm volatile ("svc #0"
		      : "+r" (r0)
		      : "r" (r7), "r" (r1), "r" (r2), "r" (r3), "r" (r4),
			"r" (r5)
		      : "memory");
	return r0;
}

#elif defined(__aarch64__)

#define NR_OPENAT		56
#define NR_CLOSE		57
#define NR_WRITE		64
#define NR_PREAD64		67
#define NR_EXIT_GROUP		94
#define NR_DELETE_MODULE	106
#define NR_FINIT_MODULE		273

asm(".text\n"
	".globl _start\n"
	".type _start, %function\n"
	"_start:\n"
	"	mov x29, #0\n"
	"	mov x30, #0\n"
	"	mov x0, sp\n"
	"	and sp, x0, #~15\n"
	"	bl start_c\n"
	"	brk #0\n");

static long sys6(long n, long a, long b, long c, long d, long e, long f)
{
	register long x8 asm("x8") = n;
	register long x0 asm("x0") = a;
	register long x1 asm("x1") = b;
	register long x2 asm("x2") = c;
	register long x3 asm("x3") = d;
	register long x4 asm("x4") = e;
	register long x5 asm("x5") = f;

	asm volatile ("svc #0"
		      : "+r" (x0)
		      : "r" (x8), "r" (x1), "r" (x2), "r" (x3), "r" (x4),
			"r" (x5)
		      : "memory");
	return x0;
}

#else
#error "failnth: x86_64, powerpc64le (ELFv2), ARM-state arm EABI and arm64 only"
#endif

static long sys3(long n, long a, long b, long c)
{
	return sys6(n, a, b, c, 0, 0, 0);
}

/* a system call failed: its return value is -errno */
static int failed(long ret)
{
	return ret < 0 && ret > -4096;
}

static unsigned long slen(const char *s)
{
	unsigned long n = 0;

	while (s[n])
		n++;
	return n;
}

static int seq(const char *a, const char *b)
{
	while (*a && *a == *b) {
		a++;
		b++;
	}
	return *a == *b;
}

/* the output line, built up and written at once */
static char out[4096];
static unsigned long outlen;

static void put(const char *s)
{
	while (*s && outlen < sizeof(out) - 1)
		out[outlen++] = *s++;
}

/* decimal without division (32-bit arm has no divide instruction) */
static void putu(unsigned long u)
{
	static const unsigned long pow10[] = {
		1000000000UL, 100000000UL, 10000000UL, 1000000UL, 100000UL,
		10000UL, 1000UL, 100UL, 10UL, 1UL
	};
	char buf[16];
	unsigned int i, k = 0;

	/* the values printed are N, system call results and errno: < 2^32 */
	for (i = 0; i < ARRAY_SIZE(pow10); i++) {
		char d = '0';

		while (u >= pow10[i]) {
			u -= pow10[i];
			d++;
		}
		if (d != '0' || k || pow10[i] == 1)
			buf[k++] = d;
	}
	buf[k] = '\0';
	put(buf);
}

static void putnum(long v)
{
	if (v < 0) {
		put("-");
		putu(0UL - (unsigned long)v);
	} else {
		putu(v);
	}
}

static void flush(int fd)
{
	unsigned long off = 0;

	out[outlen++] = '\n';
	while (off < outlen) {
		long r = sys3(NR_WRITE, fd, (long)(out + off), outlen - off);

		if (failed(r) || r == 0)
			break;
		off += r;
	}
	outlen = 0;
}

/* the errno values of asm-generic, shared by the three architectures */
static const struct {
	int nr;
	const char *name;
} errnames[] = {
	{ 1, "EPERM" }, { 2, "ENOENT" }, { 3, "ESRCH" }, { 4, "EINTR" },
	{ 5, "EIO" }, { 6, "ENXIO" }, { 7, "E2BIG" }, { 8, "ENOEXEC" },
	{ 9, "EBADF" }, { 10, "ECHILD" }, { 11, "EAGAIN" },
	{ 12, "ENOMEM" }, { 13, "EACCES" }, { 14, "EFAULT" },
	{ 15, "ENOTBLK" }, { 16, "EBUSY" }, { 17, "EEXIST" },
	{ 18, "EXDEV" }, { 19, "ENODEV" }, { 20, "ENOTDIR" },
	{ 21, "EISDIR" }, { 22, "EINVAL" }, { 23, "ENFILE" },
	{ 24, "EMFILE" }, { 25, "ENOTTY" }, { 26, "ETXTBSY" },
	{ 27, "EFBIG" }, { 28, "ENOSPC" }, { 29, "ESPIPE" },
	{ 30, "EROFS" }, { 31, "EMLINK" }, { 32, "EPIPE" }, { 33, "EDOM" },
	{ 34, "ERANGE" }, { 35, "EDEADLK" }, { 36, "ENAMETOOLONG" },
	{ 37, "ENOLCK" }, { 38, "ENOSYS" }, { 39, "ENOTEMPTY" },
	{ 40, "ELOOP" }, { 61, "ENODATA" }, { 62, "ETIME" },
	{ 74, "EBADMSG" }, { 75, "EOVERFLOW" }, { 84, "EILSEQ" },
	{ 95, "EOPNOTSUPP" }, { 110, "ETIMEDOUT" }, { 114, "EALREADY" },
	{ 115, "EINPROGRESS" }, { 122, "EDQUOT" }, { 125, "ECANCELED" },
	{ 126, "ENOKEY" }, { 127, "EKEYEXPIRED" }, { 128, "EKEYREVOKED" },
	{ 129, "EKEYREJECTED" }, { 512, "ERESTARTSYS" },
	{ 517, "EPROBE_DEFER" }, { 524, "ENOTSUPP" },
};

static void puterrno(long err)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(errnames); i++) {
		if (errnames[i].nr == err) {
			put(errnames[i].name);
			return;
		}
	}
	putnum(err);
}

/* "failnth: MSG[: ERRNO]" on stderr, exit status 2 */
static int die(const char *msg, const char *arg, long ret)
{
	put("failnth: ");
	put(msg);
	if (arg) {
		put(" ");
		put(arg);
	}
	if (ret) {
		put(": ");
		puterrno(-ret);
	}
	flush(2);
	return 2;
}

static int bad_usage(void)
{
	put("usage: failnth N insmod PATH [PARAMS...]\n");
	put("       failnth N rmmod NAME\n");
	put("       failnth N write FILE STRING\n");
	put("Fails the N-th fault point (N > 0) of that one system call ");
	put("through " FAILNTH ";\n");
	put("exit 0: the call succeeded, 1: it failed, 2: usage or setup ");
	put("error.");
	flush(2);
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

/* *v = the count left in fail-nth; returns 0 or -errno */
static long read_count(int fd, unsigned long *v)
{
	char buf[32];
	long r = sys6(NR_PREAD64, fd, (long)buf, sizeof(buf) - 1, 0, 0, 0);
	long i;

	if (failed(r))
		return r;
	*v = 0;
	for (i = 0; i < r && buf[i] >= '0' && buf[i] <= '9'; i++)
		*v = *v * 10 + (unsigned int)(buf[i] - '0');
	return i ? 0 : -EINVAL;
}

static char params[4096];

static int run(int argc, char **argv)
{
	enum { INSMOD, RMMOD, WRITE } op;
	unsigned long n, left = 1, armed = 1, plen = 0;
	long fn, fd = -1, ret, rback, disarm, r;
	int injected, ok, i;

	if (argc < 4 || parse_n(argv[1], &n))
		return bad_usage();
	if (seq(argv[2], "insmod"))
		op = INSMOD;
	else if (seq(argv[2], "rmmod") && argc == 4)
		op = RMMOD;
	else if (seq(argv[2], "write") && argc == 5)
		op = WRITE;
	else
		return bad_usage();

	fn = sys6(NR_OPENAT, AT_FDCWD, (long)FAILNTH, O_RDWR | O_CLOEXEC,
		  0, 0, 0);
	if (fn == -2)
		return die(FAILNTH " not found: a kernel without",
			   "CONFIG_FAULT_INJECTION (or no /proc)", 0);
	if (failed(fn))
		return die("cannot open", FAILNTH, fn);

	if (op == INSMOD) {
		for (i = 4; i < argc; i++) {
			unsigned long l = slen(argv[i]);

			if (plen + l + 2 > sizeof(params))
				return die("module parameters too long", 0, 0);
			if (plen)
				params[plen++] = ' ';
			while (*argv[i])
				params[plen++] = *argv[i]++;
		}
		params[plen] = '\0';
	}
	if (op == INSMOD || op == WRITE) {
		fd = sys6(NR_OPENAT, AT_FDCWD, (long)argv[3],
			  (op == INSMOD ? O_RDONLY : O_WRONLY) | O_CLOEXEC,
			  0, 0, 0);
		if (failed(fd))
			return die("cannot open", argv[3], fd);
	}

	/* arm: the n-th fault point from here fails */
	putu(n);
	r = sys3(NR_WRITE, fn, (long)out, outlen);
	outlen = 0;
	if (failed(r))
		return die("cannot arm", FAILNTH, r);

	if (op == INSMOD)
		ret = sys3(NR_FINIT_MODULE, fd, (long)params, 0);
	else if (op == RMMOD)
		ret = sys3(NR_DELETE_MODULE, (long)argv[3], O_NONBLOCK, 0);
	else
		ret = sys3(NR_WRITE, fd, (long)argv[4], slen(argv[4]));

	/*
	 * 0: injected; > 0: not reached.  With fail_usercopy, a count of 1
	 * left fails the copy of this very read (-EFAULT): not injected.
	 */
	rback = read_count(fn, &left);
	if (rback == -EFAULT) {
		left = 1;
		rback = 0;
	}
	/* disarm; with fail_usercopy a count of 1 fails the write itself */
	disarm = sys3(NR_WRITE, fn, (long)"0", 1);
	if (disarm == -EFAULT || !failed(disarm))
		disarm = read_count(fn, &armed);
	injected = n > 0 && !rback && left == 0;

	if (op == WRITE)
		ok = !failed(ret) && (unsigned long)ret == slen(argv[4]);
	else
		ok = !failed(ret);

	put("failnth: op=");
	put(argv[2]);
	put(" n=");
	putu(n);
	put(" rc=");
	putnum(failed(ret) ? -1 : ret);
	put(" errno=");
	if (failed(ret))
		puterrno(-ret);
	else
		put("0");
	put(injected ? " injected=1" : " injected=0");
	flush(1);
	if (rback)
		return die("cannot read back", FAILNTH, rback);
	if (disarm || armed)
		return die("cannot disarm", FAILNTH, disarm);
	if (fd >= 0)
		sys3(NR_CLOSE, fd, 0, 0);
	sys3(NR_CLOSE, fn, 0, 0);
	return ok ? 0 : 1;
}

/*
 * Entered from _start with the initial stack: argc, argv[], NULL, envp.
 * Extern, so that it is kept for the reference from _start; never returns.
 */
void start_c(long *sp);

void start_c(long *sp)
{
	int status = run((int)sp[0], (char **)(sp + 1));

	for (;;)
		sys3(NR_EXIT_GROUP, status, 0, 0);
}

// SPDX-License-Identifier: GPL-2.0
/*
 * idlebench: wake-up latency micro-benchmarks for comparing cpuidle
 * governors inside a guest.  Each prints one line "name value unit".
 *
 *   idlebench pipe LOOPS CPU_A CPU_B
 *	two processes on two CPUs pass a byte through two pipes; round trip
 *	per loop in us (as `perf bench sched pipe`).
 *   idlebench timer PERIOD_US LOOPS CPU
 *	a periodic absolute timer (clock_nanosleep) on one CPU; the median,
 *	the 99th percentile and the maximum of how late it woke, in us
 *	(cyclictest-like, no real-time priority or PM QoS requests).
 *   idlebench wake LOOPS
 *	schbench-like: a messenger on CPU 0 wakes a worker on CPU 1 through a
 *	futex-free pipe after a random 50-2000 us pause, stamping the time;
 *	the worker records the wake-up delay; median and 99th percentile.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static double pct(uint64_t *v, long n, double p)
{
	long i = (long)(p * (n - 1));

	return v[i] / 1000.0;
}

static void xwrite(int fd, const void *b, size_t n)
{
	if (write(fd, b, n) != (ssize_t)n) {
		perror("write");
		exit(1);
	}
}

static void xread(int fd, void *b, size_t n)
{
	if (read(fd, b, n) != (ssize_t)n) {
		perror("read");
		exit(1);
	}
}

static int bench_pipe(long loops, int a, int b)
{
	int p1[2], p2[2];
	char c = 0;
	uint64_t t0;
	pid_t pid;
	long i;

	if (pipe(p1) || pipe(p2)) {
		perror("pipe");
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (!pid) {
		pin(b);
		for (i = 0; i < loops; i++) {
			xread(p1[0], &c, 1);
			xwrite(p2[1], &c, 1);
		}
		_exit(0);
	}
	pin(a);
	t0 = now_ns();
	for (i = 0; i < loops; i++) {
		xwrite(p1[1], &c, 1);
		xread(p2[0], &c, 1);
	}
	printf("pipe_rtt %.3f us\n", (now_ns() - t0) / 1000.0 / loops);
	waitpid(pid, NULL, 0);
	return 0;
}

static int bench_timer(long period_us, long loops, int cpu)
{
	uint64_t *late = calloc(loops, sizeof(*late));
	struct timespec next;
	long i;

	if (!late)
		return 1;
	pin(cpu);
	clock_gettime(CLOCK_MONOTONIC, &next);
	for (i = 0; i < loops; i++) {
		uint64_t want;

		next.tv_nsec += period_us * 1000;
		while (next.tv_nsec >= 1000000000) {
			next.tv_nsec -= 1000000000;
			next.tv_sec++;
		}
		want = (uint64_t)next.tv_sec * 1000000000ull + next.tv_nsec;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL) == EINTR)
			;
		late[i] = now_ns() - want;
	}
	qsort(late, loops, sizeof(*late), cmp_u64);
	printf("timer_p50 %.3f us\ntimer_p99 %.3f us\ntimer_max %.3f us\n",
	       pct(late, loops, 0.5), pct(late, loops, 0.99), pct(late, loops, 1.0));
	free(late);
	return 0;
}

static int bench_wake(long loops)
{
	uint64_t *delay = calloc(loops, sizeof(*delay));
	int p[2], q[2];
	pid_t pid;
	long i;

	if (!delay || pipe(p) || pipe(q))
		return 1;
	pid = fork();
	if (pid < 0)
		return 1;
	if (!pid) {
		pin(1);
		for (i = 0; i < loops; i++) {
			uint64_t stamp, d;

			xread(p[0], &stamp, sizeof(stamp));
			d = now_ns() - stamp;
			xwrite(q[1], &d, sizeof(d));
		}
		_exit(0);
	}
	pin(0);
	srand(1);
	for (i = 0; i < loops; i++) {
		struct timespec pause = { 0, (50 + rand() % 1950) * 1000 };
		uint64_t stamp;

		nanosleep(&pause, NULL);
		stamp = now_ns();
		xwrite(p[1], &stamp, sizeof(stamp));
		xread(q[0], &delay[i], sizeof(delay[i]));
	}
	waitpid(pid, NULL, 0);
	qsort(delay, loops, sizeof(*delay), cmp_u64);
	printf("wake_p50 %.3f us\nwake_p99 %.3f us\n", pct(delay, loops, 0.5),
	       pct(delay, loops, 0.99));
	free(delay);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "pipe"))
		return bench_pipe(atol(argv[2]), atoi(argv[3]), atoi(argv[4]));
	if (argc == 5 && !strcmp(argv[1], "timer"))
		return bench_timer(atol(argv[2]), atol(argv[3]), atoi(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "wake"))
		return bench_wake(atol(argv[2]));
	fprintf(stderr,
		"usage: idlebench pipe LOOPS CPU_A CPU_B | timer PERIOD_US LOOPS CPU | wake LOOPS\n");
	return 2;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * kmapstack record (record_help), one command for a CI job: trace-cmd
 * record around CMD with what a recording under stress needed
 * (docs/real-world.md), then /proc/kallsyms saved (trace-cmd saves it
 * before CMD loads its modules) and the trace checked.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ksyms.h"
#include "record.h"
#include "xalloc.h"

/* per CPU: 16 MiB lost events under stress, 64 MiB kept up */
#define REC_BUFFER_KB 65536L
#define REC_BUFFER_MIN_KB 1024L
/* the recorder this much nicer than CMD (nice -10 while CMD runs at 0) */
#define REC_NICE 10

#define EXIT_USAGE 2
#define EXIT_CMD_FAILED 3

static const char record_help[] =
	"usage: kmapstack [check options] record [trace-cmd record options] -- CMD [ARG...]\n"
	"Runs 'trace-cmd record -e kmap_stack' around CMD (a per-CPU buffer of\n"
	"64 MiB within a quarter of the available memory unless -b is given;\n"
	"the recorder at nice -10, CMD at its own), saves /proc/kallsyms beside\n"
	"the trace (FILE.kallsyms; FILE is trace-cmd's -o, trace.dat), then runs\n"
	"'kmapstack check --kallsyms FILE.kallsyms FILE' with the check options\n"
	"given before 'record', each one word (--fail-on-gaps, --pid=123).\n"
	"\n"
	"exit status: check's (0 clean, 1 violations, 2 usage or input error),\n"
	"3 if CMD failed and the trace is clean\n";

__attribute__((format(printf, 1, 2))) static int rec_error(const char *fmt, ...)
{
	va_list ap;

	fputs("kmapstack: record: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return EXIT_USAGE;
}

static long meminfo_kb(const char *key)
{
	FILE *fp = fopen("/proc/meminfo", "r");
	size_t n = strlen(key);
	char line[256];
	long v = -1;

	if (!fp)
		return -1;
	while (fgets(line, sizeof(line), fp))
		if (!strncmp(line, key, n) && line[n] == ':') {
			v = strtol(line + n + 1, NULL, 10);
			break;
		}
	fclose(fp);
	return v;
}

/*
 * 64 MiB per CPU, within a quarter of the available memory, and an eighth
 * of the free low memory on HIGHMEM kernels, where the ring buffer lives
 * (48 MiB held up on i386 with 3 GiB and 2 CPUs)
 */
static long buffer_kb(void)
{
	long cpus = sysconf(_SC_NPROCESSORS_CONF), kb = REC_BUFFER_KB;
	long avail = meminfo_kb("MemAvailable"), low = meminfo_kb("LowFree");
	long budget = avail > 0 ? avail / 4 : -1;

	if (low > 0 && (budget < 0 || low / 8 < budget))
		budget = low / 8;
	cpus = cpus < 1 ? 1 : cpus;
	if (budget > 0 && budget / cpus < kb)
		kb = budget / cpus;
	return kb < REC_BUFFER_MIN_KB ? REC_BUFFER_MIN_KB : kb;
}

static int on_path(const char *name)
{
	const char *path = getenv("PATH"), *p, *end;
	char buf[4096];

	if (!path)
		path = "/usr/bin:/bin";
	for (p = path;; p = end + 1) {
		end = strchrnul(p, ':');
		snprintf(buf, sizeof(buf), "%.*s/%s",
			 end == p ? 1 : (int)(end - p), end == p ? "." : p,
			 name);
		if (!access(buf, X_OK))
			return 1;
		if (!*end)
			return 0;
	}
}

/*
 * In the child that becomes trace-cmd: nicer than CMD and spared by the
 * OOM killer if allowed; CMD, run by a shell that writes its exit status
 * to status, gets back the priority and OOM score of kmapstack.
 */
static char *workload_script(void)
{
	int orig, target, delta = 0, oom = 0, old_oom = 0;
	char oom_cmd[64] = "", nice_cmd[32] = "", *s = xmalloc(256);
	FILE *fp;

	errno = 0;
	orig = getpriority(PRIO_PROCESS, 0);
	target = orig - REC_NICE < -20 ? -20 : orig - REC_NICE;
	if (!errno && target < orig && !setpriority(PRIO_PROCESS, 0, target))
		delta = orig - target;
	fp = fopen("/proc/self/oom_score_adj", "r+");
	if (fp) {
		oom = fscanf(fp, "%d", &old_oom) == 1 &&
		      !fseek(fp, 0, SEEK_SET) && fprintf(fp, "-1000\n") > 0;
		oom = !fclose(fp) && oom;
	}
	if (oom)
		snprintf(oom_cmd, sizeof(oom_cmd),
			 "echo %d > /proc/self/oom_score_adj; ", old_oom);
	if (delta)
		snprintf(nice_cmd, sizeof(nice_cmd), "nice -n %d ", delta);
	snprintf(s, 256, "st=$1; shift; %s%s\"$@\"; echo $? > \"$st\"", oom_cmd,
		 nice_cmd);
	return s;
}

/* fork and exec argv (argv[script]: the workload's script, if > 0), wait */
static int run(const char *file, char **argv, int script, int *status)
{
	struct sigaction ign = { .sa_handler = SIG_IGN }, oint, oquit;
	pid_t pid, w;

	fflush(NULL);
	/* Ctrl-C stops trace-cmd, which writes the trace; we go on */
	sigemptyset(&ign.sa_mask);
	sigaction(SIGINT, &ign, &oint);
	sigaction(SIGQUIT, &ign, &oquit);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGINT, &oint, NULL);
		sigaction(SIGQUIT, &oquit, NULL);
		if (script > 0)
			argv[script] = workload_script();
		execvp(file, argv);
		fprintf(stderr, "kmapstack: record: %s: %s\n", file,
			strerror(errno));
		_exit(127);
	}
	if (pid < 0)
		return rec_error("fork: %s", strerror(errno));
	do
		w = waitpid(pid, status, 0);
	while (w < 0 && errno == EINTR);
	sigaction(SIGINT, &oint, NULL);
	sigaction(SIGQUIT, &oquit, NULL);
	return w < 0 ? rec_error("waitpid: %s", strerror(errno)) : 0;
}

static int exit_code(int status)
{
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* /proc/kallsyms (KMAPSTACK_KALLSYMS) to path: 0, or -1 with a warning */
static int save_kallsyms(const char *path)
{
	const char *from = getenv("KMAPSTACK_KALLSYMS");
	char buf[65536], err[1024];
	FILE *in, *out;
	size_t n;
	int bad;

	if (!from || !*from)
		from = "/proc/kallsyms";
	in = fopen(from, "r");
	if (!in) {
		fprintf(stderr,
			"kmapstack: record: warning: %s: %s; the functions of modules loaded during the recording stay addresses\n",
			from, strerror(errno));
		return -1;
	}
	out = fopen(path, "w");
	if (!out) {
		fprintf(stderr, "kmapstack: record: warning: %s: %s\n", path,
			strerror(errno));
		fclose(in);
		return -1;
	}
	while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			break;
	bad = ferror(in) || ferror(out);
	fclose(in);
	bad = fclose(out) || bad;
	if (!bad && !ksyms_load(path, err, sizeof(err))) {
		ksyms_free();
		return 0;
	}
	if (bad)
		snprintf(err, sizeof(err), "%s: cannot copy %s", path, from);
	ksyms_free();
	unlink(path);
	fprintf(stderr,
		"kmapstack: record: warning: %s (the addresses are hidden unless run as root); the functions of modules loaded during the recording stay addresses\n",
		err);
	return -1;
}

/* the exit status of CMD that the workload's script wrote, -1 if none */
static int read_status(const char *path)
{
	FILE *fp = fopen(path, "r");
	int st;

	if (!fp || fscanf(fp, "%d", &st) != 1)
		st = -1;
	if (fp)
		fclose(fp);
	return st;
}

static int record(int argc, char **argv, int checkc, char **checkv)
{
	const char *out = "trace.dat";
	int dashes = -1, user_buffer = 0, n = 0, script, status, st, verdict;
	int user_ksyms = 0, fd;
	char bufkb[32], statusp[4096], trace[4096 + 16];
	char *ksyms, **tc, **ck;
	const char *tmp = getenv("TMPDIR");

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			dashes = i;
			break;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(record_help, stdout);
			return 0;
		}
		if (!strcmp(argv[i], "-o") && i + 1 < argc)
			out = argv[++i];
		else if (!strncmp(argv[i], "-o", 2) && argv[i][2])
			out = argv[i] + 2;
		else if (!strncmp(argv[i], "-b", 2))
			user_buffer = 1;
	}
	if (dashes < 0 || dashes + 1 >= argc) {
		rec_error("no command (after '--')");
		fputs(record_help, stderr);
		return EXIT_USAGE;
	}
	if (!on_path("trace-cmd"))
		return rec_error(
			"trace-cmd is not installed here (Debian: apt-get install trace-cmd)");

	snprintf(statusp, sizeof(statusp), "%s/kmapstack-record-XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	fd = mkstemp(statusp);
	if (fd < 0)
		return rec_error("%s: %s", statusp, strerror(errno));
	close(fd);

	/* trace-cmd record -e kmap_stack [-b KB] OPTIONS sh -c SCRIPT ... */
	tc = xcalloc((size_t)argc + 16, sizeof(char *));
	tc[n++] = "trace-cmd";
	tc[n++] = "record";
	tc[n++] = "-e";
	tc[n++] = "kmap_stack";
	if (!user_buffer) {
		snprintf(bufkb, sizeof(bufkb), "%ld", buffer_kb());
		tc[n++] = "-b";
		tc[n++] = bufkb;
	}
	for (int i = 1; i < dashes; i++)
		tc[n++] = argv[i];
	tc[n++] = "/bin/sh";
	tc[n++] = "-c";
	script = n;
	tc[n++] = "";
	tc[n++] = "kmapstack-record";
	tc[n++] = statusp;
	for (int i = dashes + 1; i < argc; i++)
		tc[n++] = argv[i];
	tc[n] = NULL;
	if (run("trace-cmd", tc, script, &status)) {
		verdict = EXIT_USAGE;
		goto out_tc;
	}
	if (exit_code(status)) {
		verdict = rec_error("'trace-cmd record' failed (exit %d)",
				    exit_code(status));
		goto out_tc;
	}
	if (access(out, R_OK)) {
		verdict = rec_error("%s: %s (trace-cmd record wrote no trace)",
				    out, strerror(errno));
		goto out_tc;
	}
	st = read_status(statusp);

	ksyms = xmalloc(strlen(out) + sizeof(".kallsyms"));
	sprintf(ksyms, "%s.kallsyms", out);
	/* a trace named like an option */
	snprintf(trace, sizeof(trace), "%s%s", out[0] == '-' ? "./" : "", out);
	n = 0;
	ck = xcalloc((size_t)checkc + 8, sizeof(char *));
	ck[n++] = "kmapstack";
	for (int i = 0; i < checkc; i++) {
		ck[n++] = checkv[i];
		user_ksyms |= !strncmp(checkv[i], "--kallsyms", 10);
	}
	ck[n++] = "check";
	/* (a --kallsyms of the user's replaces it) */
	if (!save_kallsyms(ksyms) && !user_ksyms) {
		ck[n++] = "--kallsyms";
		ck[n++] = ksyms;
	}
	ck[n++] = trace;
	ck[n] = NULL;
	fprintf(stderr, "kmapstack: record: checking %s%s%s\n", out,
		ck[n - 2] == ksyms ? " with " : "",
		ck[n - 2] == ksyms ? ksyms : "");
	verdict = run("/proc/self/exe", ck, 0, &status) ? EXIT_USAGE :
							  exit_code(status);
	free(ck);
	free(ksyms);
	if (!verdict && st != 0) {
		if (st < 0)
			rec_error(
				"the command did not finish (no exit status): stopped by a signal, or trace-cmd ended first");
		else
			rec_error(
				"the command failed (exit %d); the trace is clean",
				st);
		verdict = EXIT_CMD_FAILED;
	} else if (st > 0)
		rec_error("the command failed (exit %d)", st);
out_tc:
	unlink(statusp);
	free(tc);
	return verdict;
}

int kms_record_main(int argc, char **argv)
{
	int i;

	/* the check's options before "record": one word each */
	for (i = 1; i < argc && argv[i][0] == '-' && strcmp(argv[i], "--"); i++)
		;
	if (i >= argc || strcmp(argv[i], "record"))
		return -1;
	return record(argc - i, argv + i, i - 1, argv + 1);
}

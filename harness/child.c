// SPDX-License-Identifier: MIT
/*
 * A scenario's helper process's end (child.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "child.h"
#include "clock.h"

pid_t mmt_child_start(void (*fn)(void *arg, pid_t parent), void *arg, char *err, size_t len)
{
	pid_t parent = getpid(), pid = fork();

	if (pid < 0) {
		snprintf(err, len, "fork: %s", strerror(errno));
		return -1;
	}
	if (pid == 0) {
		fn(arg, parent);
		_exit(0);
	}
	return pid;
}

const char *mmt_child_reap(pid_t pid, uint64_t bound_ns, const char *name, char *buf, size_t len)
{
	int status = 0;
	pid_t r = 0;

	for (uint64_t t0 = mmt_now_ns(); mmt_now_ns() - t0 < bound_ns;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r)
			break;
		usleep(1000);
	}
	if (r == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		snprintf(buf, len, "the %s process did not exit within %llu s and was killed", name,
			 (unsigned long long)(bound_ns / 1000000000ull));
		return buf;
	}
	if (r < 0 || (WIFEXITED(status) && !WEXITSTATUS(status)))
		return NULL;
	snprintf(buf, len, "the %s process died (%s %d)", name, WIFSIGNALED(status) ? "signal" : "exit",
		 WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
	return buf;
}

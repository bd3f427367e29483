/* SPDX-License-Identifier: MIT */
/*
 * A scenario's helper process (mmrace's migrator, numascan's mover): its
 * end, waited for with a bound, as every wait here has one.
 */
#ifndef MMT_CHILD_H
#define MMT_CHILD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Forks a helper that runs fn(arg, parent pid) and must _exit(): its pid,
 * or -1 with "fork: why" in err. */
pid_t mmt_child_start(void (*fn)(void *arg, pid_t parent), void *arg, char *err, size_t len);

/*
 * Waits up to bound_ns for child pid (already told to stop) to exit, and
 * kills it (SIGKILL) if it has not.  NULL when it exited with status 0
 * (or was already reaped); else why, in buf: "the NAME process did not exit
 * within S s and was killed", "the NAME process died (signal N)".
 */
const char *mmt_child_reap(pid_t pid, uint64_t bound_ns, const char *name, char *buf, size_t len);

#endif

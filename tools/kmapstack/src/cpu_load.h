/* SPDX-License-Identifier: GPL-2.0 */
/* kmapstack: how many other tasks want this machine's CPUs right now */
#ifndef KMS_CPU_LOAD_H
#define KMS_CPU_LOAD_H

/*
 * loadavg_running - the tasks running or runnable now, the R of the fourth
 * field "R/T" of a /proc/loadavg line; 0 on success, -1 if @line is not one
 */
int loadavg_running(const char *line, long *running);

/*
 * cpu_load_others - the tasks other than this one running or runnable now,
 * the mean of a few readings of /proc/loadavg over a few milliseconds; -1
 * if it cannot be read. Unlike the load average, a minute's mean, it sees
 * a build that has just ended as ended.
 */
double cpu_load_others(void);

#endif

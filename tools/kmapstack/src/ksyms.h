/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kmapstack: --kallsyms FILE, a /proc/kallsyms saved after the recording.
 * trace-cmd saves kallsyms when the recording starts, so the functions of
 * a module loaded during it are bare addresses in the trace.dat (and in
 * the text of trace-cmd report); this file names them. Its text symbols
 * are asked first, then the trace's own. (tep_parse_kallsyms() reads such
 * a file too, but keeps no module name that a lookup gives back.)
 */
#ifndef KMS_KSYMS_H
#define KMS_KSYMS_H

#include <stddef.h>

/* 0, or -1 with a message in err */
int ksyms_load(const char *path, char *err, size_t errlen);
/* name addr as "func+0xoff [module]" into buf: 1, or 0 if not known */
int ksyms_name(unsigned long long addr, char *buf, size_t len);
void ksyms_free(void);

#endif

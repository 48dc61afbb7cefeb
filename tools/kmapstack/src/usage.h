/* SPDX-License-Identifier: GPL-2.0 */
/* kmapstack: the help of kmapstack and of each of its commands */
#ifndef KMS_USAGE_H
#define KMS_USAGE_H

#include <stdio.h>

/* the command's index for usage_print(), or -1 for no command */
int usage_command(const char *name);
/* the help of command cmd (-1: of kmapstack, all commands) */
void usage_print(FILE *out, int cmd);

#endif

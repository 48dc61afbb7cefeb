/* SPDX-License-Identifier: GPL-2.0 */
/* kmapstack: 'kmapstack record', trace-cmd record then check */
#ifndef KMS_RECORD_H
#define KMS_RECORD_H

/*
 * kmapstack [check options] record [trace-cmd record options] -- CMD...
 * The check's options come before "record", each one word (--opt=VALUE).
 * Returns -1 if argv is not a record command line, else the exit status:
 * check's verdict (0, 1, 2), or 3 if CMD failed and the trace is clean.
 */
int kms_record_main(int argc, char **argv);

#endif

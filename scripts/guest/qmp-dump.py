#!/usr/bin/python3
"""qmp-dump.py SOCKET VMCORE: dump-guest-memory -p of a running QEMU over QMP.

SOCKET is the unix socket of 'guest-run.sh --qmp SOCKET' (QEMU -qmp
unix:SOCKET,server=on,wait=off).  Writes an ELF vmcore with paging
(virtual addresses, what crash and drgn want) and, with -device
vmcoreinfo, the guest's VMCOREINFO note.  Synchronous: returns when the
file is complete; prints the time taken.
"""
import json
import socket
import sys
import time


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    path, vmcore = sys.argv[1], sys.argv[2]
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(600)
    s.connect(path)
    f = s.makefile("rw")

    def cmd(name, **args):
        f.write(json.dumps({"execute": name, "arguments": args}) + "\n")
        f.flush()
        while True:
            r = json.loads(f.readline())
            if "return" in r:
                return r["return"]
            if "error" in r:
                sys.exit(f"qmp-dump: {name}: {r['error'].get('desc', r['error'])}")
            # asynchronous events (e.g. DUMP_COMPLETED, STOP, RESUME): skip

    json.loads(f.readline())  # greeting
    cmd("qmp_capabilities")
    t0 = time.time()
    cmd("dump-guest-memory", paging=True, protocol="file:" + vmcore)
    print(f"qmp-dump: wrote {vmcore} in {time.time() - t0:.1f}s")


if __name__ == "__main__":
    main()

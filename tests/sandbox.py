"""Run a command under a system call filter and the write-xor-execute rule, as the
hosting guide's unit would, without systemd as PID 1.

    python tests/sandbox.py --allow SYSCALLS_FILE [--errno EPERM] [--deny-wx] -- COMMAND...

``SYSCALLS_FILE`` holds the names of the allowed system calls, one a line; every other
call fails with the errno (systemd's ``SystemCallErrorNumber=``). The filter is
libseccomp's, loaded through ctypes after ``PR_SET_NO_NEW_PRIVS`` (systemd's
``NoNewPrivileges=``); ``--deny-wx`` sets the kernel's ``PR_SET_MDWE``
(``MemoryDenyWriteExecute=``). Both are inherited by the command and its children.
"""

from __future__ import annotations

import argparse
import ctypes
import errno
import os
import sys

PR_SET_NO_NEW_PRIVS = 38
PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN = 65, 1
SCMP_ACT_ALLOW = 0x7FFF0000
# systemd allows these whatever the filter says (systemd.exec(5), SystemCallFilter=).
ALWAYS = ("execve", "exit", "exit_group", "getrlimit", "rt_sigreturn", "sigreturn")


def scmp_act_errno(number: int) -> int:
    return 0x00050000 | (number & 0xFFFF)


def load_filter(allowed: set[str], error: int) -> None:
    """Allow ``allowed`` (and ``ALWAYS``); every other call fails with ``error``."""
    lib = ctypes.CDLL("libseccomp.so.2", use_errno=True)
    lib.seccomp_init.restype = ctypes.c_void_p
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint]
    lib.seccomp_load.argtypes = [ctypes.c_void_p]
    context = lib.seccomp_init(scmp_act_errno(error))
    if not context:
        raise OSError("seccomp_init failed")
    for name in sorted(allowed | set(ALWAYS)):
        number = lib.seccomp_syscall_resolve_name(name.encode())
        if number >= 0:  # a call of another architecture resolves negative: none here
            lib.seccomp_rule_add(context, SCMP_ACT_ALLOW, number, 0)
    if lib.seccomp_load(context) != 0:
        raise OSError("seccomp_load failed")


def prctl(option: int, value: int) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(option, value, 0, 0, 0) != 0:
        raise OSError(ctypes.get_errno(), f"prctl({option}) failed")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--allow", required=True, help="file of allowed system calls")
    parser.add_argument("--errno", default="EPERM", help="errno of a refused call")
    parser.add_argument("--deny-wx", action="store_true", help="refuse writable+executable")
    parser.add_argument("command", nargs="+")
    args = parser.parse_args()
    with open(args.allow) as listed:
        allowed = {line.strip() for line in listed if line.strip()}
    prctl(PR_SET_NO_NEW_PRIVS, 1)
    if args.deny_wx:
        prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN)
    load_filter(allowed, getattr(errno, args.errno))
    os.execv(args.command[0], args.command)
    return 1


if __name__ == "__main__":
    sys.exit(main())

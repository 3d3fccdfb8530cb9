"""The seccomp filter every sandbox run gets (bwrap loads it with `--seccomp FD` just before it
starts the harness, so it binds the learner's code and everything it starts). Pure Python, no
Django: the filter is a classic BPF program, built here for the machine's own architecture.

What it refuses:
- a new user namespace (`unshare` or `clone` with CLONE_NEWUSER; `clone3`, whose flags a filter
  cannot read, answers ENOSYS so libc falls back to `clone`): inside one, code would hold every
  capability (mount, chroot) over its own namespace. A non-root worker's bwrap forbids them too
  (`--disable-userns`); a root worker makes no user namespace, so this filter is what stops them;
- with `spawn=False`, any new process (`fork`, `vfork`, `clone` without CLONE_THREAD): threads
  still start, and since threads share one address space, RLIMIT_AS is then the run's whole
  memory, whatever the code does;
- system calls of another ABI (x32, or 32-bit calls on x86_64), which would reach the same
  kernel entry points under other numbers: the process is killed.

libseccomp would build the same program; it is not a Python dependency of the app, and the
program is short enough to read whole (`program()` returns it instruction by instruction).
"""

from __future__ import annotations

import errno
import platform
import struct
from dataclasses import dataclass

CLONE_THREAD = 0x00010000
CLONE_NEWUSER = 0x10000000

# <linux/filter.h>, <linux/seccomp.h>, <linux/audit.h>
LD_W_ABS = 0x20
JEQ_K = 0x15
JGE_K = 0x35
JSET_K = 0x45
RET_K = 0x06
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_ALLOW = 0x7FFF0000
OFFSET_NR = 0
OFFSET_ARCH = 4
OFFSET_ARG0 = 16  # the low 32 bits of args[0] (little-endian): every clone flag we test is there


@dataclass(frozen=True)
class Abi:
    audit_arch: int
    unshare: int
    clone: int
    clone3: int
    forks: tuple[int, ...]  # fork and vfork, where the ABI has them
    foreign_from: int | None  # numbers from here up are another ABI (x32)


ABIS = {
    "x86_64": Abi(0xC000003E, unshare=272, clone=56, clone3=435, forks=(57, 58),
                  foreign_from=0x40000000),
    "aarch64": Abi(0xC00000B7, unshare=97, clone=220, clone3=435, forks=(), foreign_from=None),
}  # fmt: skip


class UnknownArchitecture(Exception):
    pass


def program(*, spawn: bool, machine: str | None = None) -> list[tuple[int, int, int, int]]:
    """The filter as (code, jump if true, jump if false, k) instructions."""
    machine = machine or platform.machine()
    abi = ABIS.get(machine)
    if abi is None:
        raise UnknownArchitecture(f"no seccomp filter is written for {machine}")
    # (label or None, op, true target, false target, k): targets are labels, None = next
    source: list[tuple[str | None, int, str | None, str | None, int]] = [
        (None, LD_W_ABS, None, None, OFFSET_ARCH),
        (None, JEQ_K, None, "kill", abi.audit_arch),
        (None, LD_W_ABS, None, None, OFFSET_NR),
    ]
    if abi.foreign_from is not None:
        source.append((None, JGE_K, "kill", None, abi.foreign_from))
    source += [
        (None, JEQ_K, "unshare", None, abi.unshare),
        (None, JEQ_K, "clone", None, abi.clone),
        (None, JEQ_K, "enosys", None, abi.clone3),
    ]
    if not spawn:
        source += [(None, JEQ_K, "deny", None, nr) for nr in abi.forks]
    source += [
        (None, RET_K, None, None, RET_ALLOW),
        ("unshare", LD_W_ABS, None, None, OFFSET_ARG0),
        (None, JSET_K, "deny", "allow", CLONE_NEWUSER),
        ("clone", LD_W_ABS, None, None, OFFSET_ARG0),
        (None, JSET_K, "deny", None, CLONE_NEWUSER),
    ]
    if not spawn:
        source.append((None, JSET_K, "allow", "deny", CLONE_THREAD))
    source += [
        ("allow", RET_K, None, None, RET_ALLOW),
        ("deny", RET_K, None, None, RET_ERRNO | errno.EPERM),
        ("enosys", RET_K, None, None, RET_ERRNO | errno.ENOSYS),
        ("kill", RET_K, None, None, RET_KILL_PROCESS),
    ]
    where = {label: i for i, (label, *_rest) in enumerate(source) if label}

    def jump(at: int, target: str | None) -> int:
        return 0 if target is None else where[target] - at - 1  # BPF jumps only forwards

    return [(op, jump(i, jt), jump(i, jf), k) for i, (_, op, jt, jf, k) in enumerate(source)]


def bpf(*, spawn: bool, machine: str | None = None) -> bytes:
    """The filter as bwrap reads it from `--seccomp FD`: struct sock_filter, one after another."""
    return b"".join(struct.pack("=HBBI", *ins) for ins in program(spawn=spawn, machine=machine))

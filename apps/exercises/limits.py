"""The limits of a run, by what the exercise declares it needs (its revision's `runtime`), from
the settings. One place: the worker runs with them and the pages show them."""

from __future__ import annotations

from django.conf import settings

from apps.exercises.grading import Limits

# A local Ray (GCS, raylet, two workers, the driver) measured 11 processes, 220 threads and
# about 500 MB of anonymous memory in all; each of its processes maps far more address space
# than it uses, and its object store is a file in /dev/shm as large as the store.
RAY_PROCESS_ADDRESS_SPACE_MB = 4096
RAY_THREADS = 512
RAY_SHM_MB = 256  # the object store (ray_start in the harness asks for 128 MB) and slack
RAY_TMPFS_MB = 256  # Ray's session directory and logs
RAY_OPEN_FILES = 4096
RAY_CPU_S = 60  # per process


def run_limits(runtime: str = "numpy") -> Limits:
    if runtime == "ray":
        return Limits(
            runtime="ray",
            cpu_s=RAY_CPU_S,
            wall_s=settings.EXERCISES_RAY_WALL_S,
            memory_mb=RAY_PROCESS_ADDRESS_SPACE_MB,
            run_memory_mb=settings.EXERCISES_RAY_MEMORY_MB,
            processes=RAY_THREADS,
            file_mb=RAY_SHM_MB,  # the object store's file in /dev/shm is one file
            tmpfs_mb=RAY_TMPFS_MB,
            shm_mb=RAY_SHM_MB,
            open_files=RAY_OPEN_FILES,
            output_bytes=settings.EXERCISES_OUTPUT_KB * 1024,
        )
    return Limits(
        cpu_s=settings.EXERCISES_CPU_S,
        wall_s=settings.EXERCISES_WALL_S,
        memory_mb=settings.EXERCISES_MEMORY_MB,
        processes=settings.EXERCISES_PROCESSES,
        output_bytes=settings.EXERCISES_OUTPUT_KB * 1024,
    )


def shown_limits(runtime: str = "numpy") -> dict:
    """What the exercise page and the API say of the limits."""
    limits = run_limits(runtime)
    return {
        "cpu_s": limits.cpu_s,
        "wall_s": limits.wall_s,
        "memory_mb": limits.run_memory_mb if limits.spawns else limits.memory_mb,
    }

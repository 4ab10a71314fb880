"""Run commands and report each run's wall time and peak memory, as a lean process.

``bench.timing`` runs this file with ``python -S`` and sends it the runs as JSON. The
benchmark's own process holds graphs, numpy and more; Linux carries a parent's peak RSS
into a child across fork and exec (``ru_maxrss`` keeps the larger), so runs started from
there would all report at least that. Started from here, they report their own.
Standard library only, and nothing heavier than ``json`` and ``subprocess``.
"""

import json
import os
import subprocess
import sys
import time


def run(
    argv: list[str], cwd: str, stdin: str, env: dict[str, str], ok_codes: list[int]
) -> list[float]:
    start = time.perf_counter()
    proc = subprocess.Popen(
        argv,
        cwd=cwd,
        env=dict(os.environ, **env),
        stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin is not None
    assert proc.stderr is not None
    proc.stdin.write(stdin.encode("utf-8", "surrogateescape"))
    proc.stdin.close()
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = (time.perf_counter() - start) * 1000
    code = os.waitstatus_to_exitcode(status)
    if code not in ok_codes:
        raise SystemExit(f"{' '.join(argv)} exited {code}: {proc.stderr.read()!r}")
    return [elapsed, usage.ru_maxrss / 1024]


def main() -> None:
    # [[probe index, argv, cwd, stdin, env, ok codes], ...] in the order to run them
    results = [run(*item[1:]) for item in json.load(sys.stdin)]
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()

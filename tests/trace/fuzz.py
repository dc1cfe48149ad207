#!/usr/bin/env python3
"""fuzz.py - mutate trace text and binary traces and run the converter and a
replay binary on each: any exit other than 0 (accepted), 1 (refused with a
message) or 3 (an allocation failed), any signal or sanitizer report is a
finding, kept as build/replay/fuzz/finding-N.{txt,qtr}. Not part of make
test; best with ASan builds, e.g.

  gcc -std=gnu11 -D_GNU_SOURCE -O1 -g -fsanitize=address,undefined \\
      -o build/replay/fuzz/convert tools/trace/convert*.c

    tests/trace/fuzz.py CONVERT REPLAY TEXT QTR [SEED [ITERATIONS]]
"""
import os
import random
import subprocess
import sys


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    convert, replay, text_path, qtr_path = sys.argv[1:5]
    random.seed(int(sys.argv[5]) if len(sys.argv) > 5 else 1)
    n = int(sys.argv[6]) if len(sys.argv) > 6 else 200
    out = "build/replay/fuzz"
    os.makedirs(out, exist_ok=True)
    text = open(text_path, "rb").read()
    qtr = open(qtr_path, "rb").read()
    findings = 0

    def bad(r):
        return r.returncode not in (0, 1, 3) or b"Sanitizer" in r.stderr or b"runtime error" in r.stderr

    for _ in range(n):
        d = bytearray(text)
        for _ in range(random.randint(1, 8)):
            k = random.randrange(len(d))
            op = random.random()
            if op < 0.4:
                d[k] = random.choice(b" =:[]0123456789abcdefx\n|_-.\x00z")
            elif op < 0.7:
                del d[k:k + random.randint(1, 40)]
            else:
                d[k:k] = d[random.randrange(len(d)):][:random.randint(1, 60)]
        open(out + "/in.txt", "wb").write(d)
        r = subprocess.run([convert, "-q", out + "/in.txt", out + "/out.qtr"], capture_output=True)
        if bad(r):
            findings += 1
            open("%s/finding-%d.txt" % (out, findings), "wb").write(d)
            print("convert: status %d: %s" % (r.returncode, r.stderr[-300:]))
        b = bytearray(qtr)
        for _ in range(random.randint(1, 6)):
            b[random.randrange(len(b))] = random.randrange(256)
        if random.random() < 0.2:
            b = b[:random.randrange(len(b))]
        open(out + "/in.qtr", "wb").write(b)
        r = subprocess.run([replay, "--samples", "5", out + "/in.qtr"], capture_output=True)
        if bad(r):
            findings += 1
            open("%s/finding-%d.qtr" % (out, findings), "wb").write(b)
            print("replay: status %d: %s" % (r.returncode, r.stderr[-300:]))
    print("fuzz.py: %d runs of each, %d findings" % (n, findings))
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main())

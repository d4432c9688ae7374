# bench/symbolize-workload.py: a CPU-bound Python program that spends its
# time across many functions of libpython, libc, libz, libcrypto and
# libm, so a profile of it has many distinct frames to symbolize.
#   python3 bench/symbolize-workload.py SECONDS
import hashlib
import json
import math
import re
import sys
import time
import zlib

end = time.monotonic() + float(sys.argv[1] if len(sys.argv) > 1 else 5)
data = bytes(range(256)) * 256
words = re.compile(r"[a-z]+\d*")
while time.monotonic() < end:
    z = zlib.compress(data, 6)
    zlib.decompress(z)
    hashlib.sha256(data).hexdigest()
    doc = json.dumps({"k%d" % i: [i, math.sin(i), str(i)] for i in range(300)})
    json.loads(doc)
    words.findall(doc)
    sorted(doc.split(","))

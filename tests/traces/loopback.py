#!/usr/bin/env python3
"""loopback.py - the loopback networking workload recorded as
tests/traces/loopback.txt.xz: a TCP echo server and a client on 127.0.0.1
exchanging 2000 messages of 1 to 4 KiB (each read back whole), then 2000 UDP
datagrams of 512 bytes, then 50 short-lived TCP connections. Python standard
library only; exits 1 if an echo does not match."""
import socket
import sys
import threading

N_TCP, N_UDP, N_CONN = 2000, 2000, 50


def recv_exact(s, n):
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise EOFError("connection closed")
        buf += chunk
    return buf


def echo_server(ls):
    while True:
        c, _ = ls.accept()
        with c:
            while True:
                try:
                    n = int.from_bytes(recv_exact(c, 4), "little")
                except EOFError:
                    break
                if n == 0:
                    break
                c.sendall(recv_exact(c, n))


def main():
    ls = socket.socket()
    ls.bind(("127.0.0.1", 0))
    ls.listen(64)
    threading.Thread(target=echo_server, args=(ls,), daemon=True).start()
    port = ls.getsockname()[1]
    with socket.create_connection(("127.0.0.1", port)) as s:
        for i in range(N_TCP):
            msg = bytes([i & 0xFF]) * (1024 + (i * 97) % 3072)
            s.sendall(len(msg).to_bytes(4, "little") + msg)
            if recv_exact(s, len(msg)) != msg:
                print("loopback.py: TCP echo %d differs" % i)
                return 1
        s.sendall((0).to_bytes(4, "little"))
    us = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    us.bind(("127.0.0.1", 0))
    uc = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    for i in range(N_UDP):
        uc.sendto(bytes([i & 0xFF]) * 512, us.getsockname())
        if us.recv(1024) != bytes([i & 0xFF]) * 512:
            print("loopback.py: UDP datagram %d differs" % i)
            return 1
    for i in range(N_CONN):
        with socket.create_connection(("127.0.0.1", port)) as s:
            s.sendall((8).to_bytes(4, "little") + b"x" * 8)
            recv_exact(s, 8)
            s.sendall((0).to_bytes(4, "little"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
